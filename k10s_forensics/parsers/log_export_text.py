"""Log store exports that are text, not JSON: each turned into records (``log_export_records``).

* ``logcli query`` default output: ``<RFC 3339 time> {label="value", …} <line>``, after
  ``Common labels: {…}`` (labels every line shares) when logcli printed it to the terminal;
* Grafana Explore's "Download logs" as text: ``<label>: <JSON value>`` meta lines (``Common
  labels: {"pod":"…"}``), then one ``<epoch ms>\\t<ISO time>\\t<line>`` row per record;
* CSV / TSV with a header row: the CloudWatch console and Logs Insights (``timestamp,message``,
  ``@timestamp,@message,@logStream``), Kibana / OpenSearch Dashboards Discover's CSV report
  (``@timestamp,kubernetes.pod.name,message``, Kibana's ``Nov 28, 2026 @ 11:54:40.123`` dates),
  Cloud Logging's CSV download (``timestamp,resource.labels.pod_name,textPayload``);
* ``stern`` output: ``<pod> <container> [<time>] <line>``, with its ``+ <pod> › <container>``
  lines saying which containers it followed.

None for a text that is none of them.
"""

from __future__ import annotations

import csv
import io
import json
import re

from k10s_forensics.parsers.log_export_records import Record, clean_line, from_object, lookup, parse_time_ns
from k10s_forensics.parsers.log_pod_prefix import JOBSET_POD, KUBEFLOW_POD  # the operators' pod naming

#: labels as logcli prints them (``{pod="a", container="b"}``; ``{}`` when all are common): a Python dict is not
_LOGCLI = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) (\{(?:[A-Za-z_][\w.]*="(?:[^"\\]|\\.)*"(?:, ?)?)*\}) ?(.*)$')
_LABEL = re.compile(r'([A-Za-z_][\w.]*)="((?:[^"\\]|\\.)*)"')
_COMMON = re.compile(r"^Common labels: (\{.*\})\s*$")
_GRAFANA_ROW = re.compile(r"^(\d{12,14})\t(\d{4}-\d\d-\d\dT[\d:.]+Z)\t(.*)$")
_STERN = re.compile(r"^()([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?) ([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?) (.*)$")
#: ``stern --all-namespaces``: the namespace first
_STERN_NS = re.compile(r"^([a-z0-9][-a-z0-9]{0,62}) ([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?) ([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?) (.*)$")
_STERN_FOLLOW = re.compile(r"^[+-] (?:[a-z0-9][-a-z0-9]* )?([a-z0-9][-a-z0-9.]*) \u203a ([a-z0-9][-a-z0-9]*)\s*$")
_STERN_TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) ")
#: a CSV header names at least a time column and a line column of these
_CSV_TIME = ("@timestamp", "timestamp", "time", "date", "Date", "Time")
_CSV_LINE = ("@message", "message", "log", "line", "textPayload", "Line", "Message", "_source.message", "_source.log")
_SHARE = 0.5


def read_text_export(text: str) -> tuple[str, list[Record | str]] | None:
    """(what the export is, its records in the file's order) or None."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines:
        return None
    for what, reader in (("logcli query output", _logcli), ("Grafana logs download (text)", _grafana_txt),
                         ("CSV export", _csv), ("stern output", _stern)):
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
            out.append(from_object({"line": m.group(3)}, common, m.group(1)))
        elif seen_row:
            out.append(line)
    return out


def _csv(text: str, lines: list[str]) -> list[Record | str] | None:
    header = lines[0].lstrip("\ufeff")
    delimiter = "\t" if header.count("\t") >= max(1, header.count(",")) else ","
    columns = [c.strip().strip('"') for c in header.split(delimiter)]
    time_col = next((c for c in _CSV_TIME if c in columns), None)
    line_col = next((c for c in _CSV_LINE if c in columns), None)
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
        flat["message"] = row[line_col]
        flat["timestamp"] = row.get(time_col)
        for key in ("@timestamp", "time", "date", "@message", "log", "line", "textPayload"):
            flat.pop(key, None)
        rec = from_object(flat)
        out.append(rec if rec is not None else row[line_col])
    return out


def _stern_match(line: str, followed: set[tuple[str, str]]) -> re.Match | None:
    m = _STERN.match(line)
    if followed and (not m or (m.group(2), m.group(3)) not in followed):
        with_ns = _STERN_NS.match(line)
        m = with_ns if with_ns and (with_ns.group(2), with_ns.group(3)) in followed else m
    return m


def _stern(text: str, lines: list[str]) -> list[Record | str] | None:
    followed = {(m.group(1), m.group(2)) for ln in lines if (m := _STERN_FOLLOW.match(ln))}
    matches = [_stern_match(ln, followed) for ln in lines]
    pairs = [(m.group(2), m.group(3)) for m in matches if m]
    pods = {p for p, _ in pairs}
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
