"""Log store exports that are text, not JSON: each turned into records (``log_export_records``).

* ``logcli query`` default output: ``<RFC 3339 time> {label="value", …} <line>``, after
  ``Common labels: {…}`` (labels every line shares) when logcli printed it to the terminal;
* Grafana Explore's "Download logs" as text: ``<label>: <JSON value>`` meta lines (``Common
  labels: {"pod":"…"}``), then one ``<epoch ms>\\t<ISO time>\\t<line>`` row per record (Grafana
  up to 10), or ``<YYYY-MM-DD HH:mm:ss.SSS>\\t<line>`` (``dateTimeFormat`` ``defaultWithMS``, the
  browser's zone, read as UTC: only the order matters); the Logs panel itself copied from the page with *Unique
  labels* on has the row's own labels (``pod=<pod> container=<c>``) in a cell between the time and the line;
* Fluentd's stdout and file outputs: ``<time> <tag>: <JSON record>`` / ``<time>\\t<tag>\\t<JSON>``,
  the tag ``kubernetes.var.log.containers.<pod>_<namespace>_<container>-<id>.log`` naming the pod
  when the record does not (its parser took the record's own ``time`` into the event's);
* the container runtime's own log file (CRI, ``/var/log/pods/…/0.log``): ``<RFC 3339> stdout|stderr
  P|F <line>``, a line longer than the runtime's buffer written as ``P`` parts ended by an ``F`` one,
  joined back; it names no pod (one file is one container);
* CSV / TSV with a header row: the CloudWatch console and Logs Insights (``timestamp,message``,
  ``@timestamp,@message,@logStream``), Kibana / OpenSearch Dashboards Discover's CSV report
  (``@timestamp,kubernetes.pod.name,message``, Kibana's ``Nov 28, 2026 @ 11:54:40.123`` dates, its
  ``'`` before a formula-like value taken off),
  Cloud Logging's CSV download (``timestamp,resource.labels.pod_name,textPayload``), Datadog's Log Explorer
  export (``Date,Host,Service,Content``: no pod, so each host, the node the agent ran on, is one node), Graylog's
  (``timestamp,source,message``: its ``source``, the GELF host, is the node);
* a node's journal, ``journalctl -o short-iso`` / ``short-iso-precise`` / ``short-unix`` / ``short`` (the
  default): ``<ISO 8601 time with its zone, epoch seconds, or ``Nov 28 12:05:45`` placed in the import's year> <host> <identifier>[<pid>]: <line>`` (the pid optional); it names no
  pod (one file is one node), a ``-- Boot … --`` / ``-- Logs begin at … --`` line is journalctl's own;
* ``stern`` output: ``<pod> <container> [<time>] <line>`` (``<namespace> <pod> …`` with
  ``--all-namespaces``), with its ``+ <pod> › <container>`` lines saying which containers it
  followed (on stderr: a terminal copy has them, ``> file`` does not).
* k9s's saved log view of a workload's pods, ``<pod> <line>`` (``log_export_consoles.k9s_view``).

None for a text that is none of them.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from functools import partial

from k10s_forensics.parsers.log_export_records import Record, clean_line, from_object, json_dict as _json_dict, lookup, parse_time_ns, stream_pod
from k10s_forensics.parsers.log_export_consoles import aws_tail, fluentbit_stdout, gcloud_stream, k9s_view
from k10s_forensics.parsers.log_pod_prefix import JOBSET_POD, KUBEFLOW_POD  # the operators' pod naming
from k10s_forensics.parsers.log_time import with_year
from k10s_forensics.parsers.log_patterns import MONTHS

#: labels as logcli prints them (``{pod="a", container="b"}``; ``{}`` when all are common): a Python dict is not
_LOGCLI = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) (\{(?:[A-Za-z_][\w.]*="(?:[^"\\]|\\.)*"(?:, ?)?)*\}) ?(.*)$')
_LABEL = re.compile(r'([A-Za-z_][\w.]*)="((?:[^"\\]|\\.)*)"')
_COMMON = re.compile(r"^Common labels: (\{.*\})\s*$")
#: Grafana's rows: the time, then (a Logs panel copied with *Unique labels* on) the row's own labels as ``LogLabels`` shows
#: them, ``key=value`` each, then the line; tab-separated
_GRAFANA_ROW = re.compile(r"^(?:(\d{12,14})\t\d{4}-\d\d-\d\dT[\d:.]+Z|(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}))\t"
                          r"(?:((?:[A-Za-z_][\w.]{0,62}=[^\s=]{1,253} ?){1,12})\t)?(.*)$")
_LABEL_CELL = re.compile(r"([A-Za-z_][\w.]{0,62})=([^\s=]{1,253})")
#: Fluentd's out_stdout (``<time> <tag>: {…}``) and out_file (``<time>\t<tag>\t{…}``) lines
_FLUENTD = re.compile(r"^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,9})?(?: ?(?:Z|[+-]\d\d:?\d\d))?)(?:\t| )([\w.\-/]{1,400})(?::[ ]|\t)(\{.*\})\s*$")
_CRI_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) (stdout|stderr) ([PF]) ?(.*)$")
_STERN = re.compile(r"^()([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?) ([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?) (.*)$")
#: ``stern --all-namespaces``: the namespace first
_STERN_NS = re.compile(r"^([a-z0-9][-a-z0-9]{0,62}) ([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?) ([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?) (.*)$")
_STERN_FOLLOW = re.compile(r"^[+-] (?:[a-z0-9][-a-z0-9]* )?([a-z0-9][-a-z0-9.]*) \u203a ([a-z0-9][-a-z0-9]*)\s*$")
_STERN_TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) ")
#: a CSV header names at least a time column and a line column of these
#: journalctl's short-iso / short-iso-precise (``+0000`` before systemd 249, ``+00:00`` since), short-unix, and its default
#: short / short-precise lines (``Nov 28 12:05:45[.123456]``: no year, placed in the import's year, as syslog's are); the
#: zone is always an offset (``kubectl logs --timestamps``' ``…000Z frame #0: …`` or a glog line behind it is no journal's)
_JOURNAL = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?[+-]\d\d:?\d\d|\d{9,10}\.\d{6}"
                      r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d(?:\.\d{6})?) [\w.-]{1,253} "
                      r"[^\s\[\]:]{1,64}(?:\[\d{1,10}\])?: ?(.*)$")
_JOURNAL_OWN = re.compile(r"^-- (?:Boot [0-9a-f]{32}|Logs begin at |Journal begins at |No entries|Reboot) ?.*--?$")
#: Azure Monitor Log Analytics' CSV export heads the time column with its zone (``TimeGenerated [UTC]``)
_CSV_TIME = ("@timestamp", "timestamp", "time", "date", "Date", "Time", "_time", "TimeGenerated [UTC]", "TimeGenerated")
_CSV_LINE = ("@message", "message", "log", "line", "textPayload", "Line", "Message", "Content", "_source.message", "_source.log", "_raw",
             "LogMessage", "LogEntry")
#: the node a row came from, where no column names its pod (Datadog's ``Host``, Azure Monitor's ``Computer``, Graylog's
#: ``source``: the GELF host)
_CSV_HOST = ("Host", "host", "hostname", "Computer", "source")
_SHARE = 0.5


def read_text_export(text: str, now: dt.datetime | None = None) -> tuple[str, list[Record | str]] | None:
    """(what the export is, its records in the file's order) or None; ``now``: the year of a yearless time."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines:
        return None
    for what, reader in (("logcli query output", _logcli), ("Grafana logs download (text)", _grafana_txt),
                         ("Fluentd output", _fluentd), ("Fluent Bit stdout output", fluentbit_stdout), ("CRI log file", _cri),
                         ("aws logs tail output", aws_tail), ("gcloud stream-logs output", gcloud_stream), ("journalctl output", partial(_journal, now=now)), ("CSV export", _csv),
                         ("stern output", _stern), ("k9s log view", k9s_view)):
        records = reader(text, lines)
        if records and any(isinstance(r, Record) for r in records):
            return what, records
    return None


def _labels(text: str) -> dict[str, str]:
    return {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in _LABEL.findall(text)}


def _logcli(text: str, lines: list[str]) -> list[Record | str] | None:
    matches = [_LOGCLI.match(ln) for ln in lines]
    if sum(m is not None for m in matches) < _SHARE * len(lines):
        return None
    common = next((_labels(m.group(1)) for ln in lines[:5] if (m := _COMMON.match(ln))), {})
    out: list[Record | str] = []
    for line, m in zip(lines, matches):
        if m:
            out.append(from_object({"line": m.group(3)}, {**common, **_labels(m.group(2))}, m.group(1)))
        elif not _COMMON.match(line) and not line.startswith(("http://", "https://")):
            out.append(line)
    return out


def _grafana_txt(text: str, lines: list[str]) -> list[Record | str] | None:
    matches = [_GRAFANA_ROW.match(ln) for ln in lines]
    if sum(m is not None for m in matches) < _SHARE * len(lines):
        return None
    common: dict = {}
    for line in lines[:10]:
        m = _COMMON.match(line)
        if m:
            try:
                value = json.loads(m.group(1))
            except ValueError:
                value = _labels(m.group(1))
            common = value if isinstance(value, dict) else {}
    out: list[Record | str] = []
    seen_row = False
    for line, m in zip(lines, matches):
        if m:
            seen_row = True
            own = dict(_LABEL_CELL.findall(m.group(3) or ""))
            out.append(from_object({"line": m.group(4)}, {**common, **own}, m.group(1) or m.group(2)))
        elif seen_row:
            out.append(line)
    return out


def _fluentd(text: str, lines: list[str]) -> list[Record | str] | None:
    matches = [_FLUENTD.match(ln) for ln in lines]
    if sum(m is not None for m in matches) < _SHARE * len(lines):
        return None
    out: list[Record | str] = []
    for line, m in zip(lines, matches):
        obj = _json_dict(m.group(3)) if m else None
        rec = from_object(obj) if obj is not None else None
        if rec is None:
            out.append(line)
            continue
        rec.ts_ns = rec.ts_ns if rec.ts_ns is not None else parse_time_ns(m.group(1))
        if rec.pod is None:
            rec.pod, rec.container = stream_pod({"logStreamName": m.group(2)})
        out.append(rec)
    return out


def _cri(text: str, lines: list[str]) -> list[Record | str] | None:
    matches = [_CRI_LINE.match(ln) for ln in lines]
    if sum(m is not None for m in matches) < 0.8 * len(lines):
        return None
    out: list[Record | str] = []
    partial: list[str] = []
    for line, m in zip(lines, matches):
        if not m:
            out.append(line)
            continue
        partial.append(m.group(4))
        if m.group(3) == "F":  # a P part continues in the next line of the file
            out.append(Record(None, None, parse_time_ns(m.group(1)), clean_line("".join(partial))))
            partial = []
    if partial:
        out.append(Record(None, None, parse_time_ns(matches[-1].group(1)) if matches[-1] else None, clean_line("".join(partial))))
    return out


def _journal(text: str, lines: list[str], now: dt.datetime | None = None) -> list[Record | str] | None:
    lines = [ln for ln in lines if not _JOURNAL_OWN.match(ln)]  # journalctl's own ``-- Boot … --`` lines
    matches = [_JOURNAL.match(ln) for ln in lines]
    if not lines or sum(m is not None for m in matches) < 0.8 * len(lines):
        return None
    return [Record(None, None, _journal_time(m.group(1), now), clean_line(m.group(2))) if m else line for line, m in zip(lines, matches)]


def _journal_time(stamp: str, now: dt.datetime | None) -> int | None:
    if not stamp[:1].isalpha():
        return parse_time_ns(stamp)
    month, day, clock = stamp.split(None, 2)
    hh, mm, ss = clock.split(":")
    when = with_year(MONTHS.index(month) + 1, int(day), int(hh), int(mm), int(ss[:2]), int((ss[3:] + "000000")[:6]), now)
    return None if when is None else int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000


def _csv(text: str, lines: list[str]) -> list[Record | str] | None:
    header = lines[0].lstrip("\ufeff")
    delimiter = "\t" if header.count("\t") >= max(1, header.count(",")) else ","
    columns = [c.strip().strip('"') for c in header.split(delimiter)]
    time_col = next((c for c in _CSV_TIME if c in columns), None)
    line_col = next((c for c in _CSV_LINE if c in columns), None)
    host_col = next((c for c in _CSV_HOST if c in columns), None)
    if not time_col or not line_col or len(columns) > 200:
        return None
    try:
        rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter))
    except csv.Error:
        return None
    out: list[Record | str] = []
    for row in rows:
        if not isinstance(row.get(line_col), str):
            out.append(delimiter.join(str(v) for v in row.values() if isinstance(v, str)))
            continue
        flat = {k.removeprefix("_source."): v for k, v in row.items() if isinstance(k, str) and isinstance(v, str) and v != "-"}
        flat["message"] = _unescape_formula(row[line_col])
        flat["timestamp"] = row.get(time_col)
        for key in ("@timestamp", "time", "date", "_time", "@message", "log", "line", "textPayload", "_raw"):
            flat.pop(key, None)
        rec = from_object(flat)
        if rec is not None and rec.pod is None and host_col and row.get(host_col):
            rec.pod = row[host_col].strip() or None  # one node per host
        out.append(rec if rec is not None else row[line_col])
    return out


def _unescape_formula(value: str) -> str:
    """The cell as the program wrote it: Kibana's reporting (``xpack.reporting.csv.escapeFormulaValues``, on by
    default) and other exporters put a ``'`` before a value starting with ``=``, ``+``, ``-``, ``@`` (a torchrun
    failure table's ``=====`` rule) so that a spreadsheet does not run it."""
    return value[1:] if value[:1] == "'" and value[1:2] in ("=", "+", "-", "@", "\t", "\r") else value


def _stern_match(line: str, followed: set[tuple[str, str]], with_ns: bool = False) -> re.Match | None:
    m = (_STERN_NS if with_ns and not followed else _STERN).match(line)
    if followed and (not m or (m.group(2), m.group(3)) not in followed):
        with_ns = _STERN_NS.match(line)
        m = with_ns if with_ns and (with_ns.group(2), with_ns.group(3)) in followed else m
    return m


def _stern(text: str, lines: list[str]) -> list[Record | str] | None:
    followed = {(m.group(1), m.group(2)) for ln in lines if (m := _STERN_FOLLOW.match(ln))}
    # ``--all-namespaces`` piped to a file: no follow line says the first word is a namespace
    for with_ns in ((False,) if followed else (False, True)):
        found = _stern_read(lines, followed, with_ns)
        if found is not None:
            return found
    return None


def _stern_read(lines: list[str], followed: set[tuple[str, str]], with_ns: bool) -> list[Record | str] | None:
    matches = [_stern_match(ln, followed, with_ns) for ln in lines]
    pairs = [(m.group(2), m.group(3)) for m in matches if m]
    pods = {p for p, _ in pairs}
    if with_ns and len({m.group(1) for m in matches if m}) > len(pods):
        return None
    # a plain log's first two words are rarely a few (pod, container) pairs that repeat: stern's are
    # without them, only pods named as the training operators name theirs, on nearly every line; one
    # such pod is enough (``stern train-master-0``: a one-node job), as is one that stern says it followed
    named = all(KUBEFLOW_POD.match(p) or JOBSET_POD.match(p) for p in pods)
    tagged = sum(1 for p in pairs if p in followed) if followed else len(pairs) if named else 0
    if len(pods) < (1 if followed or named else 2) or tagged < (_SHARE if followed else 0.8) * len(lines) or (not followed and len(set(pairs)) * 3 > len(pairs)):
        return None
    out: list[Record | str] = []
    for line, m in zip(lines, matches):
        if _STERN_FOLLOW.match(line):
            continue
        if not m or (followed and (m.group(2), m.group(3)) not in followed):
            out.append(line)
            continue
        rest = m.group(4)
        ts = _STERN_TS.match(rest)
        out.append(Record(m.group(2), m.group(3), parse_time_ns(ts.group(1)) if ts else None,
                          clean_line(rest[ts.end():] if ts else rest)))
    return out


__all__ = ["lookup", "read_text_export"]
