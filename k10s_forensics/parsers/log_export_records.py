"""One record of a log store's export: the pod, the container, the time and the line it held.

The field names are the stores' own (docs/import.md, "Exports from a log store"):

* Grafana Loki: Explore's "Download logs" JSON ``{"line", "timestamp" (epoch ns), "date",
  "fields": {labels}}``; ``logcli query --output=jsonl`` ``{"labels", "line", "timestamp"}``;
  the HTTP API's ``data.result[].stream`` / ``values[[ns, line]]``;
* Google Cloud Logging (GKE): ``textPayload`` or ``jsonPayload.message``, ``timestamp``,
  ``resource.labels.pod_name`` / ``container_name`` / ``namespace_name``;
* Amazon CloudWatch Logs: ``events[].timestamp`` (epoch ms), ``message`` holding Fluent Bit's
  record ``{"log", "stream", "time", "kubernetes": {"pod_name", "container_name", …}}``,
  ``logStreamName`` (``…var.log.containers.<pod>_<namespace>_<container>-<id>.log``);
* Elasticsearch / OpenSearch ``_search``: ``hits.hits[]._source`` with ``@timestamp``,
  ``message`` or ``log``, ``kubernetes.pod.name`` (ECS, Filebeat / Elastic Agent) or
  ``kubernetes.pod_name`` (Fluent Bit, Fluentd), nested or as dotted keys;
* ``stern --output json``: ``{"message", "nodeName", "namespace", "podName", "containerName"}``; ``--output extjson`` /
  ``ppextjson``: ``{["namespace",] "pod", "container", "message"}``, the message a JSON value of its own where the line
  was valid JSON (a bare number, a JSON record), else a string;
* the OpenTelemetry Collector (its ``filelog`` receiver on the pods' files): the file exporter's OTLP JSON, one export
  request a line (``resourceLogs[].resource.attributes`` ``k8s.pod.name`` / ``k8s.container.name``,
  ``scopeLogs[].logRecords[]`` with ``timeUnixNano`` and ``body.stringValue``), and the log data model's flat record as a
  store or a debug view shows it (``{"Timestamp", "Body", "Resource": {"k8s.pod.name", …}}``);
* a node's journal, ``journalctl -o json``: ``MESSAGE`` (an array of bytes where it holds control
  characters, such as colour codes), ``__REALTIME_TIMESTAMP`` (epoch microseconds); it names no pod.

Nothing a record holds is trusted: a field of the wrong type is read as absent.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass

from k10s_forensics.parsers.log_normalize import ANSI
from k10s_forensics.parsers.log_paths import path_pod

UTC = dt.timezone.utc
_ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?\s*(Z|[+-]\d\d:?\d\d|UTC)?$")
#: Kibana's default date format (``dateFormat``: ``MMM D, YYYY @ HH:mm:ss.SSS``)
_KIBANA = re.compile(r"^([A-Z][a-z]{2}) (\d{1,2}), (\d{4}) @ (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$")
#: the Azure portal's (en-US) date, as Log Analytics' CSV export writes it: ``11/28/2026, 6:49:10.466 PM``
_PORTAL = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4}),? (\d{1,2}):(\d\d):(\d\d)(?:\.(\d{1,9}))? ([AP]M)$")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: containerd's own line prefix, left in ``log`` when the shipper did not parse it (CRI format)
_CRI = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d) (?:stdout|stderr) [FP] ")
#: the fields that name the stream or file a record came from
_PATH_KEYS = ("logStreamName", "@logStream", "source", "file", "filename", "log.file.path", "path")
_STAMPED = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) ")
_POD_KEYS = ("pod", "pod_name", "podName", "PodName", "k8s_pod_name", "kubernetes_pod_name", "k8s.pod.name", "resource.labels.pod_name",
             "Resource.k8s.pod.name",  # OpenTelemetry's log data model
             "kubernetes.pod.name", "kubernetes.pod_name", "kubernetes.labels.pod",
             # Cloud ML Engine / AI Platform's and Vertex AI's task of a training job (``worker-replica-0``, ``workerpool1-0``)
             "ml.googleapis.com/task_name", "resource.labels.task_name")
_CONTAINER_KEYS = ("container", "container_name", "containerName", "ContainerName", "k8s_container_name", "kubernetes_container_name", "k8s.container.name",
                   "resource.labels.container_name", "kubernetes.container.name", "kubernetes.container_name", "Resource.k8s.container.name")
_LINE_KEYS = ("line", "textPayload", "jsonPayload.message", "jsonPayload.log", "log", "message", "@message", "MESSAGE", "Body")
#: keys only a log store's record has (an application's own JSON log has none of them)
_STORE_KEYS = frozenset({"textPayload", "jsonPayload", "resource", "_source", "logStreamName", "@logStream", "line", "kubernetes",
                         "stream", "fields", "labels", "podName", "__REALTIME_TIMESTAMP", "__CURSOR", "Body"})
#: Docker's json-file log: a line longer than its 16 KiB buffer is several records, all but the last without the ``\n``
_DOCKER_KEYS = frozenset({"log", "stream", "time", "attrs"})
#: stern's ``extjson`` / ``ppextjson`` record: all three keys (an application's JSON log names no pod and container)
_STERN_EXT_KEYS = frozenset({"pod", "container", "message"})
_TIME_KEYS = ("timestamp", "@timestamp", "time", "date", "receiveTimestamp", "ts", "__REALTIME_TIMESTAMP", "Timestamp",
              "ObservedTimestamp")


@dataclass
class Record:
    """One exported record (``ts_ns``: epoch nanoseconds, None when it had no readable time)."""

    pod: str | None
    container: str | None
    ts_ns: int | None
    text: str
    untimed: bool = False  # the time is the record's before it (it had none): not written on its line
    partial: bool = False  # Docker's json-file: a long line's part, its rest in the next record


def parse_time_ns(value: object) -> int | None:
    """Epoch nanoseconds of a record's time: RFC 3339 / ISO (any offset), Kibana's ``Nov 28, 2026 @
    11:54:40.123``, or epoch seconds, milliseconds or nanoseconds (by their size); else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str) and re.fullmatch(r"\d{9,10}\.\d{1,9}", value.strip()):  # epoch seconds and a fraction, exactly
        whole, frac = value.strip().split(".")
        return int(whole) * 1_000_000_000 + int((frac + "000000000")[:9])
    if isinstance(value, (int, float)) or (isinstance(value, str) and re.fullmatch(r"\d{9,19}(?:\.\d{1,9})?", value.strip())):
        num = float(value) if isinstance(value, float) or "." in str(value) else int(str(value).strip())
        scale = 1_000_000_000 if num < 1e11 else 1_000_000 if num < 1e14 else 1_000 if num < 1e17 else 1
        return int(num * scale) if isinstance(num, float) else num * scale
    if not isinstance(value, str) or len(value) > 64:
        return None
    text = value.strip()
    m = _ISO.match(text)
    if m:
        parts, frac, zone = m.groups()[:6], m.group(7) or "", m.group(8)
        offset = dt.timedelta(0)
        if zone and zone not in ("Z", "UTC"):
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            offset = sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        return _epoch_ns(*map(int, parts), frac=frac, offset=offset)
    m = _KIBANA.match(text)
    if m and m.group(1) in _MONTHS:
        return _epoch_ns(int(m.group(3)), _MONTHS.index(m.group(1)) + 1, int(m.group(2)), int(m.group(4)), int(m.group(5)),
                         int(m.group(6)), frac=m.group(7) or "")
    m = _PORTAL.match(text)
    if m and 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(4)) <= 12:
        hour = int(m.group(4)) % 12 + (12 if m.group(8) == "PM" else 0)
        return _epoch_ns(int(m.group(3)), int(m.group(1)), int(m.group(2)), hour, int(m.group(5)), int(m.group(6)), frac=m.group(7) or "")
    return None


def _epoch_ns(*parts: int, frac: str, offset: dt.timedelta = dt.timedelta(0)) -> int | None:
    try:
        when = dt.datetime(*parts, tzinfo=UTC) - offset
    except (ValueError, OverflowError):
        return None
    return int(when.timestamp()) * 1_000_000_000 + int((frac + "000000000")[:9])


def format_ns(ts_ns: int) -> str:
    """``2026-11-28T11:54:40.123456789Z``, as ``kubectl logs --timestamps`` writes a line's time."""
    secs, ns = divmod(ts_ns, 1_000_000_000)
    return dt.datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{ns:09d}Z"


def lookup(obj: object, path: str) -> object:
    """``obj``'s value at a dotted ``path``, nested (``{"kubernetes": {"pod": {"name"}}}``) or
    flattened (``{"kubernetes.pod.name"}``) at any level; None when absent."""
    if not isinstance(obj, dict):
        return None
    if path in obj:
        return obj[path]
    head, _, rest = path.partition(".")
    while rest:
        if head in obj:
            found = lookup(obj[head], rest)
            if found is not None:
                return found
        more, _, rest = rest.partition(".")
        head = f"{head}.{more}"
    return None


def _first(obj: object, keys: tuple[str, ...]) -> object:
    for key in keys:
        value = lookup(obj, key)
        if isinstance(value, list) and len(value) == 1:  # a _search hit's ``fields``: every value a list
            value = value[0]
        if value is not None and value != "":
            return value
    return None


def _name(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and 0 < len(value.strip()) <= 253 else None


def clean_line(text: str) -> str:
    """The line as the program wrote it: the shipper's trailing newline, containerd's prefix and
    colour codes taken off."""
    text = ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n"))
    return "\n".join(_CRI.sub("", part, count=1) for part in text.split("\n"))


def from_object(obj: object, labels: dict | None = None, ts: object = None) -> Record | None:
    """A record from one exported object (any of the shapes of the module doc), or None when it
    holds no log line. ``labels``/``ts``: what an enclosing object (a Loki stream) said."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("_source"), dict):  # an Elasticsearch / OpenSearch hit
        obj = obj["_source"]
    line, raw = _line_of(obj), None
    if line is None and _STERN_EXT_KEYS <= obj.keys() and obj["message"] is not None and not isinstance(obj["message"], str):
        line = raw = json.dumps(obj["message"], ensure_ascii=False)  # extjson: a line that was valid JSON, written as it was
    if isinstance(line, list) and line and all(isinstance(b, int) and 0 <= b < 256 for b in line):
        line = bytes(line).decode("utf-8", errors="replace")  # journald: a message with control characters, as bytes
    if line is None and any(lookup(obj, key) == "" for key in _LINE_KEYS):
        line = ""  # the program wrote an empty line: a record still (logcli, Grafana, Fluent Bit keep it)
    if isinstance(line, str) and line.lstrip().startswith("{") and raw is None:
        inner = _json_dict(line)  # CloudWatch: the message is Fluent Bit's JSON record
        if inner is not None and _first(inner, ("log", "message", "msg")) is not None:
            rec = from_object(inner, labels)
            if rec is not None:
                rec.ts_ns = rec.ts_ns if rec.ts_ns is not None else parse_time_ns(_first(obj, _TIME_KEYS))
                rec.pod = rec.pod or _stream_pod(obj)[0]
                rec.container = rec.container or _stream_pod(obj)[1]
                return rec
    if not isinstance(line, str):
        return None
    sources = [obj, obj.get("fields"), obj.get("labels"), labels]
    pod = next((p for s in sources if (p := _name(_first(s, _POD_KEYS)))), None) or _stream_pod(obj)[0]
    container = next((c for s in sources if (c := _name(_first(s, _CONTAINER_KEYS)))), None) or _stream_pod(obj)[1]
    when = parse_time_ns(_first(obj, _TIME_KEYS)) if ts is None else parse_time_ns(ts)
    stamped = _STAMPED.match(line) if when is None else None  # stern --timestamps: the time leads the message
    if stamped and (when := parse_time_ns(stamped.group(1))) is not None:
        line = line[stamped.end():]
    return Record(pod, container, when, clean_line(line), partial=_DOCKER_KEYS >= obj.keys() and not line.endswith("\n"))


def _line_of(obj: dict) -> object:
    """The first line field that holds text (a string, a ``_search`` hit's one-string list, journald's bytes): ECS's
    ``log`` is an object (``log.file.path``, ``log.offset``), the line then in ``message``."""
    for key in _LINE_KEYS:
        value = lookup(obj, key)
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            value = value[0]
        if isinstance(value, (str, list)) and value != "" and value != []:
            return value
    return None


def _stream_pod(obj: dict) -> tuple[str | None, str | None]:
    for key in _PATH_KEYS:
        found = path_pod(lookup(obj, key))
        if found[0]:
            return found
    return None, None


def _json_dict(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def records_of(doc: object) -> list[Record | str] | None:
    """Every record of a parsed JSON document (a list, CloudWatch's ``events``, a ``_search``
    response, Cloud Logging's ``entries``, a Loki API ``data.result``), in the document's order;
    an object that holds no line is kept as its JSON text. None: no record at all."""
    if isinstance(doc, dict) and isinstance(doc.get("resourceLogs"), list):
        doc = _otlp(doc["resourceLogs"])
    if isinstance(doc, dict):
        for path in ("events", "hits.hits", "entries", "data.result"):
            inner = lookup(doc, path)
            if isinstance(inner, list):
                return records_of(inner)
        doc = [doc]
    if not isinstance(doc, list) or not any(isinstance(d, dict) and (_STORE_KEYS & d.keys() or _STERN_EXT_KEYS <= d.keys())
                                               for d in doc[:1000]):
        return None  # a structured application log of its own (``{"level", "msg"}``), not a store's export
    out: list[Record | str] = []
    for item in doc:
        if isinstance(item, dict) and isinstance(item.get("stream"), dict) and isinstance(item.get("values"), list):
            out += [from_object({"line": v[1]}, item["stream"], v[0]) or json.dumps(v) for v in item["values"]
                    if isinstance(v, list) and len(v) >= 2]
            continue
        out.append(from_object(item) or json.dumps(item, sort_keys=True))
    return join_parts(out) if any(isinstance(r, Record) for r in out) else None


def _otlp_value(value: object) -> object:
    """An OTLP ``AnyValue``'s string (``{"stringValue": …}``), else None."""
    return value.get("stringValue") if isinstance(value, dict) else None


def _otlp(resource_logs: list) -> list[dict]:
    """OTLP JSON's log records as plain records (``line``, ``timestamp`` in epoch ns, ``pod``, ``container``)."""
    out: list[dict] = []
    for rl in resource_logs:
        attrs = lookup(rl, "resource.attributes") if isinstance(rl, dict) else None
        kv = {a.get("key"): _otlp_value(a.get("value")) for a in attrs or [] if isinstance(a, dict)} if isinstance(attrs, list) else {}
        for sl in (rl.get("scopeLogs") or rl.get("instrumentationLibraryLogs") or []) if isinstance(rl, dict) else []:
            for lr in (sl.get("logRecords") or []) if isinstance(sl, dict) else []:
                if isinstance(lr, dict) and isinstance(line := _otlp_value(lr.get("body")), str):
                    out.append({"line": line, "timestamp": lr.get("timeUnixNano") or lr.get("observedTimeUnixNano"),
                                "pod": kv.get("k8s.pod.name"), "container": kv.get("k8s.container.name")})
    return out


def join_parts(records: list[Record | str]) -> list[Record | str]:
    """Docker's parts of one long line (``partial``) joined into the record of their first part."""
    out: list[Record | str] = []
    for rec in records:
        last = out[-1] if out else None
        if isinstance(rec, Record) and isinstance(last, Record) and last.partial and last.pod == rec.pod:
            last.text, last.partial = last.text + rec.text, rec.partial
            continue
        out.append(rec)
    return out


stream_pod = _stream_pod  # the pod and container a Fluent Bit stream name or a Fluentd tag gives
json_dict = _json_dict

__all__ = ["Record", "clean_line", "format_ns", "from_object", "join_parts", "json_dict", "lookup", "parse_time_ns", "path_pod", "records_of",
           "stream_pod"]
