"""A job's logs exported from a log store, split back into one log per pod.

When the pods are gone, the logs brought to a postmortem come from a log backend: Grafana Loki
(Explore's download, ``logcli``), Google Cloud Logging (JSON, ``gcloud``'s YAML), Amazon CloudWatch Logs (Fluent Bit,
``aws logs tail``), Elasticsearch / OpenSearch (Kibana's CSV, ``_search`` hits), Splunk's CSV, a collector's console
(Fluent Bit, Fluentd, Vector), ``stern``, a node's journal or its CRI files. Each is detected from its content
(``log_export_records``: JSON shapes, ``log_export_text`` and ``log_export_consoles``: text shapes); its
records become the lines the pods wrote, each behind the record's time as ``kubectl logs
--timestamps`` writes it, in time order per pod (an export is often newest first; records of
the same time keep their order; a time column written in the viewer's zone without its offset is set back to UTC by
the lines' own times — glog headers, torchrun's failure table's ``time`` fields —, ``zone_shift``), grouped by pod exactly as a ``kubectl logs --prefix`` log is
(``log_pod_prefix``: one node per pod at the rank its training-operator name gives).

A record that names no pod takes the pod its file's path names (kubelet's ``/var/log/pods/<ns>_<pod>_<uid>/``
folder, in an archive), else stays with the record before it (a pod's wrapped or unlabelled line); an object or row that is no record is kept as its text. An export that names no pod is
one log, in time order, whose lines are then routed by their rank tags like any paste.
"""

from __future__ import annotations

import datetime as dt
import json
import re

from k10s_forensics.errors import InputError
from k10s_forensics.parsers.log_export_consoles import gcloud_yaml, logs_viewer
from k10s_forensics.parsers.log_export_records import Record, format_ns, join_parts, path_pod, records_of
from k10s_forensics.parsers.log_export_text import read_text_export
from k10s_forensics.parsers.log_normalize import ANSI
from k10s_forensics.parsers.log_archive import PER_PROCESS
from k10s_forensics.parsers.log_pod_prefix import CMLE_TASK, job_name, place, split_lines

#: text that claims to be a store's JSON: an object or a list of objects naming one of its fields
_JSON_HEAD = re.compile(r"^\ufeff?\s*(?:\[\s*)?\{")
_JSON_CLAIM = re.compile(r'"(?:textPayload|jsonPayload|logStreamName|events|hits|_source|kubernetes|line|entries|insertId|__REALTIME_TIMESTAMP|resourceLogs)"\s*:')
_POD_OK = re.compile(r"[^a-z0-9.-]+")


def read_export(text: str, name: str = "log", now=None) -> tuple[str, list[Record | str]] | None:
    """(what the export is, its records in the file's order), or None when ``text`` is no export; ``now``: the
    year of a yearless time (journalctl's default lines)."""
    if _JSON_HEAD.match(text):
        found = _read_json(name, text)
        if found is not None:
            return found
    entries = gcloud_yaml(text)
    if entries is not None:
        return "Cloud Logging export (YAML)", entries
    entries = logs_viewer(text)
    if entries is not None:
        return "Cloud Logging entries (Logs Viewer)", entries
    return read_text_export(ANSI.sub("", text.replace("\r\n", "\n")), now)


def _read_json(name: str, text: str) -> tuple[str, list[Record | str]] | None:
    body = text.lstrip("\ufeff").strip()
    try:
        doc = json.loads(body)
    except ValueError as exc:
        doc, error = None, exc
    else:
        records = records_of(doc)
        return (f"{_kind(body)} export (JSON)", records) if records else None
    lines = [ln for ln in body.split("\n") if ln.strip()]
    parsed: list[Record | str] = []
    good = json_lines = 0
    for line in lines:  # JSON lines: one record a line; a line that is no record is kept as text
        try:
            recs = records_of(json.loads(line))
            json_lines += 1
        except ValueError:
            recs = None
        good += recs is not None
        parsed += recs if recs else [line]
    if good and json_lines >= len(lines) / 2:
        return f"{_kind(body)} export (JSON lines)", join_parts(parsed)
    values = _json_values(body)  # pretty-printed objects one after another (``stern -o ppextjson``, ``jq .``)
    records = records_of(values) if values else None
    if records:
        return f"{_kind(body)} export (JSON objects)", records
    if _JSON_CLAIM.search(body[:8192]):
        raise InputError(f"{name}: not valid JSON, though it reads as a log export: {error.msg} (line {error.lineno}, column {error.colno})")
    return None


def _json_values(body: str) -> list[object] | None:
    """The JSON values of a text that is nothing but several of them one after another (whitespace between), else None."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(body):
        try:
            value, end = decoder.raw_decode(body, at)
        except ValueError:
            return None
        values.append(value)
        at = end
        while at < len(body) and body[at] in " \t\r\n":
            at += 1
    return values if len(values) > 1 else None


def _kind(body: str) -> str:
    head = body[:8192]
    for key, kind in (('"resourceLogs"', "OpenTelemetry (OTLP)"), ('"Body"', "OpenTelemetry"), ('"__REALTIME_TIMESTAMP"', "journald"), ('"textPayload"', "Cloud Logging"), ('"jsonPayload"', "Cloud Logging"), ('"logStreamName"', "CloudWatch Logs"),
                      ('"_source"', "Elasticsearch"), ('"kubernetes"', "Fluent Bit"), ('"fields"', "Grafana Loki"),
                      ('"labels"', "Grafana Loki"), ('"log"', "container log"), ('"stream"', "Grafana Loki")):
        if key in head:
            return kind
    return "log store"


def ordered(records: list[Record | str]) -> list[Record]:
    """The records in time order, stable for ties (an export written newest first is reversed
    first, so that records of one time keep the order they were written in); a text kept as a
    record, or a record without a time, stays right after the record before it."""
    stamped = [r.ts_ns for r in records if isinstance(r, Record) and r.ts_ns is not None]
    falling = sum(a > b for a, b in zip(stamped, stamped[1:]))
    rising = sum(a < b for a, b in zip(stamped, stamped[1:]))
    items = list(reversed(records)) if falling > rising else list(records)
    if falling > rising:  # a text or untimed record followed its record in the file: keep it after it once reversed
        items = _regroup(items)
    out: list[Record] = []
    last_pod = next((r.pod for r in items if isinstance(r, Record) and r.pod), None)
    last_container, last_ts = None, None
    for item in items:
        rec = item if isinstance(item, Record) else Record(None, None, None, item)
        if rec.pod is None:
            rec = Record(last_pod, rec.container or last_container, rec.ts_ns, rec.text)
        if rec.ts_ns is None:
            rec = Record(rec.pod, rec.container, last_ts, rec.text, untimed=True)
        last_pod, last_container, last_ts = rec.pod, rec.container, rec.ts_ns
        out.append(rec)
    return sorted(out, key=lambda r: -1 if r.ts_ns is None else r.ts_ns)


#: a line's own time: torch's glog header (``E1130 07:03:05.787000 …``, the container's clock, UTC on a cluster)
_GLOG = re.compile(r"^\[?[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{1,9}) ")
_QUARTER_NS = 900 * 1_000_000_000
_SKEW_NS = 5 * 1_000_000_000


#: torchrun's failure table's ``time      : 2026-11-30_04:15:22`` (the agent's clock when it saw the failure, whole seconds)
_TABLE_TIME = re.compile(r"^\s{1,8}time\s{0,8}: (\d{4})-(\d\d)-(\d\d)_(\d\d):(\d\d):(\d\d)\s*$")


def _table_ns(rec: Record) -> int | None:
    """The failure table's ``time`` field (UTC, whole seconds: when the agent saw the failure, at or before its line)."""
    table = _TABLE_TIME.match(rec.text) if rec.ts_ns is not None and rec.text[:1] == " " else None
    try:
        return int(dt.datetime(*map(int, table.groups()), tzinfo=dt.timezone.utc).timestamp()) * 1_000_000_000 if table else None
    except ValueError:
        return None


def _own_ns(rec: Record) -> int | None:
    """A line's own time (UTC), where its text carries one: torch's glog header."""
    m = _GLOG.match(rec.text) if rec.ts_ns is not None and rec.text[:1] in "[IWEF" else None
    if not m:
        return None
    year = dt.datetime.fromtimestamp(rec.ts_ns / 1e9, dt.timezone.utc).year
    try:
        when = dt.datetime(year, *map(int, m.groups()[:5]), tzinfo=dt.timezone.utc)
    except ValueError:
        return None
    return int(when.timestamp()) * 1_000_000_000 + int((m.group(6) + "000000000")[:9])


def _gaps(records: list[Record | str], own) -> list[int]:
    return [r.ts_ns - t for r in records if isinstance(r, Record) and (t := own(r)) is not None]


def zone_shift(records: list[Record | str]) -> int:
    """The viewer's zone a time column was written in without its offset (Kibana's and OpenSearch Dashboards' CSV
    ``Nov 28, 2026 @ 13:05:03.281``, Grafana's ``2026-11-28 13:05:03.281``): where the lines' own glog times (UTC on a
    cluster) all sit one whole number of quarter hours (not zero) from their records' times, within seconds, that
    offset in nanoseconds; else 0. Where fewer than two glog lines are read, torchrun's failure-table ``time`` fields
    count too (each a failure's time, a few seconds at most before the table is printed)."""
    gaps = _gaps(records, _own_ns)
    if len(gaps) < 2:
        gaps += _gaps(records, _table_ns)
    if len(gaps) < 2:
        return 0
    shift = round(sorted(gaps)[len(gaps) // 2] / _QUARTER_NS) * _QUARTER_NS
    if shift == 0 or abs(shift) > 14 * 3600 * 1_000_000_000 or any(abs(g - shift) > _SKEW_NS for g in gaps):
        return 0
    return shift


def _shifted(records: list[Record | str]) -> list[Record | str]:
    shift = zone_shift(records)
    if not shift:
        return records
    return [Record(r.pod, r.container, r.ts_ns - shift if r.ts_ns is not None else None, r.text, r.untimed, r.partial)
            if isinstance(r, Record) else r for r in records]


def _regroup(items: list[Record | str]) -> list[Record | str]:
    """Reversed file order with each record's trailing texts / untimed records after it again."""
    out: list[Record | str] = []
    pending: list[Record | str] = []
    for item in items:
        if isinstance(item, Record) and item.ts_ns is not None:
            out += [item] + pending[::-1]
            pending = []
        else:
            pending.append(item)
    return pending[::-1] + out


def _pod(name: str | None) -> str:
    cleaned = _POD_OK.sub("-", (name or "").lower()).strip("-.")
    return cleaned[:253] or "unknown"


def _as_line(rec: Record) -> list[str]:
    stamp = "" if rec.ts_ns is None or rec.untimed else format_ns(rec.ts_ns) + " "
    return [stamp + part for part in rec.text.split("\n")]


def split_export(sources: list[tuple[str, str]], job: str, default_job: str = "imported", now=None) -> tuple[list[tuple[str, str]], str, str] | None:
    """Like ``log_pod_prefix.split_source``, for log store exports: ``(name, text)`` per node in
    node order, the job, how it was split; None unless every source is an export."""
    if len(sources) > 1 and any(text.strip() for _, text in sources):  # an empty file among exports: a container that wrote nothing
        sources = [(name, text) for name, text in sources if text.strip()]
    found = [read_export(text, name, now) for name, text in sources]
    if not found or any(f is None for f in found):
        return None
    for (name, _), f in zip(sources, found):  # kubelet's own folder names the pod of a file that does not (CRI, rotated)
        pod, container = path_pod(name)
        for rec in f[1] if pod else ():
            if isinstance(rec, Record) and rec.pod is None:
                rec.pod, rec.container = pod, rec.container or container
    what = found[0][0] if len({f[0] for f in found}) == 1 else "log exports"
    name = sources[0][0] if len(sources) == 1 else f"{len(sources)} exports"
    records = ordered([r for f in found for r in _shifted(f[1])])
    pods = sorted({r.pod for r in records if r.pod})
    if not pods and len(sources) > 1:  # one file per container (CRI, Docker's json-file): one node per file, as given
        per_file = [ordered(_shifted(f[1])) for f in found]
        return ([(n, "\n".join(line for r in recs for line in _as_line(r))) for (n, _), recs in zip(sources, per_file)], job,
                f"{what} ({len(records)} records, no pod named: one node per file)")
    workers = {p: int(m.group("index")) for p in pods if (m := CMLE_TASK.match(p)) and m.group("role") == "worker"}
    if pods and len(workers) == len(pods):  # Cloud ML Engine's worker tasks only: one process each, at its index
        logs = [(f"{name} (no task worker-replica-{n} in it)", "") for n in range(max(workers.values()) + 1)]
        for pod, n in workers.items():
            logs[n] = (f"{name}: pod/{pod}", "\n".join(line for r in records if r.pod == pod for line in _as_line(r)))
        return logs, job, f"{PER_PROCESS}: {what} ({len(records)} records, worker tasks {', '.join(sorted(pods))})"
    if len(pods) < 2:
        text = "\n".join(line for r in records for line in _as_line(r))
        if job == default_job and pods:
            job = job_name(pods) or job
        return [(name, text)], job, f"{what} ({len(records)} records{', pod ' + pods[0] if pods else ', no pod named'})"
    entries = [(_pod(r.pod) if r.pod else None, _pod(r.container or "log"), line) for r in records for line in _as_line(r)]
    split = split_lines(entries)
    if split is None:
        return [(name, "\n".join(line for _, _, line in entries))], job, f"{what} ({len(records)} records)"
    for pod in split if any(r.ts_ns is not None and not r.untimed for r in records) else ():  # in time order: their own order
        pod.block = False
    return place(name, split, job, default_job, f"{what}, {len(records)} records")


__all__ = ["ordered", "read_export", "split_export", "zone_shift"]
