"""Log exports printed by a collector's or a cloud CLI's console, each turned into records (``log_export_records``).

* Fluent Bit's ``stdout`` output in its default ``msgpack`` format, as ``kubectl logs`` of the collector shows it:
  ``[<n>] <tag>: [[<epoch s.ns>, {<metadata>}], {"key"=>"value", …}]`` (Fluent Bit 2.1 and later; before,
  ``[<n>] <tag>: [<epoch>, {…}]``). Strings are printed as they are, unescaped: a record's ``log`` (or ``message``)
  runs to the quote that the next ``"key"=>`` or the map's end follows; a line the record's text broke (the docker
  parser keeps the line's ``\\n``) is joined back. The pod is the kubernetes filter's ``pod_name``, else the tail
  input's tag (``kube.var.log.containers.<pod>_<ns>_<container>-<id>.log``). The collector's own log lines
  (``[2026/11/28 12:00:00] [ info] …``) and its banner are not the job's;
* ``aws logs tail`` (AWS CLI): ``--format detailed`` (its default) ``<ISO time with microseconds and offset> <log
  stream> <message>`` and ``--format short`` ``<YYYY-MM-DDTHH:MM:SS> <message>``; a message that is a collector's JSON
  record (Container Insights' Fluent Bit ``{"log", "kubernetes": {…}}``) gives its line and pod, else the stream's
  name (``…var.log.containers.<pod>_<ns>_<container>-<id>.log``) names the pod, or the stream is one (a SageMaker
  host's ``<job>/algo-<i>-<epoch>``). A line is the CLI's only where its message is such a record or its stream is
  such a name: a plain log's own ISO times are not taken for it;
* ``gcloud logging read`` with its default format, YAML: ``---`` before every entry, each an entry as
  ``--format=json`` gives it (``textPayload``, ``resource.labels.pod_name``, ``timestamp``, …);
* a training job's log stream, ``gcloud ai custom-jobs stream-logs`` (Vertex AI: gcloud's ``value(severity,
  timestamp.date("%Y-%m-%d %H:%M:%S %z"), task_name, message)``, tab-separated: ``ERROR<TAB>2026-11-28 12:05:03
  +0000<TAB>workerpool1-0<TAB><line>``) and ``gcloud ai-platform jobs stream-logs`` (a ``trial_id`` column before the
  message, empty outside a hyperparameter tuning job: taken off when nearly every line has one); the task
  (``workerpool0-0``, the chief, ``workerpool1-<i>``, the other replicas; ``master-replica-0``, ``worker-replica-<i>``)
  is the pod, its lines in time order (seconds only: lines of one second keep the file's order); the same rows copied
  from the Cloud console's Logs Explorer (the severity icon's text in lower case, ``error``; milliseconds; the viewer's
  zone by its abbreviation, ``2026-11-28 13:05:03.281 CET``) are read alike;
* k9s's log view of several pods saved (``<ctrl-s>``): each line behind its pod's name and one space
  (``train-worker-0 <line>``; a pod of several containers adds the container, stern's layout, read there), optionally
  after the kubelet's time when the view shows it. Read only where nearly every line's first word is a pod named as the
  training operators name theirs (``<job>-master-0``, ``<job>-worker-<i>``, JobSet's; one is enough, a workload's view
  of its one pod), each on many lines: a plain log's first word is rarely so.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import yaml

from k10s_forensics.parsers.log_export_records import Record, clean_line, from_object, json_dict, parse_time_ns, path_pod
from k10s_forensics.parsers.log_pod_prefix import JOBSET_POD, KUBEFLOW_POD

_SHARE = 0.8
_FB_HEAD = re.compile(r"^\[\d{1,9}\] ([\w.\-/]{1,512}): \[\[?(\d{9,10}(?:\.\d{1,9})?), (?:\{[^{}]*\}\], )?\{")
_FB_OWN = re.compile(r"^(?:\[\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\] \[ ?[a-z]{4,5}\]|Fluent Bit v\d|\* |\s*$)")
_FB_LOG = re.compile(r'"(?:log|message)"=>"(.*?)"(?=, "[^"\n]{1,128}"=>|\}+\]$)', re.S)
_FB_KEY = {"pod": re.compile(r'"pod_name"=>"([^"\n]{1,253})"'), "container": re.compile(r'"container_name"=>"([^"\n]{1,253})"')}
_TAIL = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6}[+-]\d\d:\d\d)?) (?:(\S{1,512}) )?(.*)$")
_SEVERITY = r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY)"
#: gcloud's ``stream-logs`` (``ERROR``, seconds, ``+0000``) or the Cloud console's rows copied (the severity icon's text,
#: ``error``; milliseconds; the viewer's zone by its abbreviation, ``CET``)
_STREAM_LOGS = re.compile(rf"^(?i:{_SEVERITY})\t(\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{{1,9}})?) ([+-]\d\d\d\d|[A-Z]{{2,5}})\t"
                          r"([\w.-]{1,253})\t(.*)$")
#: the zones a console names by abbreviation: their offsets (an abbreviation not here leaves the row's time unread)
_ZONES = {"UTC": "+0000", "GMT": "+0000", "WET": "+0000", "WEST": "+0100", "CET": "+0100", "CEST": "+0200", "EET": "+0200",
          "EEST": "+0300", "EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500", "MST": "-0700", "MDT": "-0600",
          "PST": "-0800", "PDT": "-0700", "JST": "+0900", "KST": "+0900"}
_TRIAL = re.compile(r"^[\w.-]{0,64}\t")
#: k9s's saved view: ``[<time> ]<pod> <line>``
_K9S = re.compile(r"^(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) )?([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?) (.*)$")
_YAML_HEAD = re.compile(r"^\ufeff?---\s*\n")
_YAML_CLAIM = re.compile(r"^(?:textPayload|jsonPayload|insertId|logName):", re.M)


def fluentbit_stdout(text: str, lines: list[str]) -> list[Record | str] | None:
    """Fluent Bit's msgpack console (see the module doc), or None."""
    records, consumed = _fb_records(text.split("\n"))
    if not records or consumed < _SHARE * len([ln for ln in lines if not _FB_OWN.match(ln)]):
        return None
    out: list[Record | str] = []
    for tag, epoch, body in records:
        m = _FB_LOG.search(body)
        if not m:
            out.append(body)
            continue
        pod, container = (k.search(body) for k in (_FB_KEY["pod"], _FB_KEY["container"]))
        tag_pod = path_pod(tag)
        out.append(Record(pod.group(1) if pod else tag_pod[0], container.group(1) if container else tag_pod[1],
                          parse_time_ns(epoch), clean_line(m.group(1))))
    return out


def _fb_records(raw: list[str]) -> tuple[list[tuple[str, str, str]], int]:
    """(tag, epoch, the rest) per record, a record the text's newline broke joined back, and how many lines they took;
    the collector's own lines dropped."""
    out: list[list[str]] = []
    consumed = 0
    for line in raw:
        m = _FB_HEAD.match(line)
        if m:
            out.append([m.group(1), m.group(2), line[m.end() - 1:]])
        elif out and not out[-1][2].endswith("}]"):
            out[-1][2] += "\n" + line
        else:
            continue
        consumed += 1
    return [(t, e, b) for t, e, b in out], consumed


def aws_tail(text: str, lines: list[str]) -> list[Record | str] | None:
    """``aws logs tail`` output (see the module doc), or None."""
    out: list[Record | str] = []
    claimed = 0
    for line in lines:
        rec = _tail_record(line)
        claimed += rec is not None
        out.append(rec if rec is not None else line)
    return out if claimed >= _SHARE * len(lines) else None


def _tail_record(line: str) -> Record | None:
    m = _TAIL.match(line)
    if not m:
        return None
    stamp, stream, message = m.group(1), m.group(2), m.group(3)
    if "." not in stamp and stream is not None:  # --format short: no stream, the message right after the time
        message, stream = f"{stream} {message}", None
    inner = json_dict(message) if message.startswith("{") else None
    rec = from_object(inner) if inner is not None else None
    if rec is not None and (rec.pod or stream):
        rec.ts_ns = parse_time_ns(stamp) if rec.ts_ns is None else rec.ts_ns
        rec.pod, rec.container = rec.pod or path_pod(stream)[0] or stream, rec.container or path_pod(stream)[1]
        return rec
    if stream is None or "." not in stamp:
        return None
    pod, container = path_pod(stream)
    if pod is None and "/" not in stream:
        return None
    return Record(pod or stream, container, parse_time_ns(stamp), clean_line(message))


def gcloud_stream(text: str, lines: list[str]) -> list[Record | str] | None:
    """``gcloud … stream-logs`` output (see the module doc), or None."""
    found = [_STREAM_LOGS.match(line) for line in lines]
    matched = [m for m in found if m]
    if len(matched) < _SHARE * len(lines):
        return None
    trial = sum(bool(_TRIAL.match(m.group(4))) for m in matched) >= 0.9 * len(matched)  # ai-platform's trial_id column
    return [Record(m.group(3), None, _stream_time(m.group(1), m.group(2)), clean_line(_TRIAL.sub("", m.group(4), count=1) if trial else m.group(4)))
            if m else line for m, line in zip(found, lines)]


def _stream_time(stamp: str, zone: str) -> int | None:
    offset = zone if zone[0] in "+-" else _ZONES.get(zone)
    return parse_time_ns(f"{stamp}{offset}") if offset else None


def k9s_view(text: str, lines: list[str]) -> list[Record | str] | None:
    """k9s's saved log view of a workload's pods (see the module doc), or None."""
    found = [_K9S.match(line) for line in lines]
    # a pod's name holds a letter: a date in front of a console's line (``2026-11-28 12:05:03``) is no JobSet pod
    pods = [m.group(2) if m and re.search("[a-z]", m.group(2)) and (KUBEFLOW_POD.match(m.group(2)) or JOBSET_POD.match(m.group(2))) else None
            for m in found]
    named = [p for p in pods if p]
    if not named or len(named) < _SHARE * len(lines) or len(set(named)) * 3 > len(named):
        return None
    return [Record(pod, None, parse_time_ns(m.group(1)) if m.group(1) else None, clean_line(m.group(3))) if pod else line
            for m, pod, line in zip(found, pods, lines)]


def gcloud_yaml(text: str) -> list[Record | str] | None:
    """``gcloud logging read``'s YAML (entries after ``---``), or None when ``text`` is none."""
    if not _YAML_HEAD.match(text) or not _YAML_CLAIM.search(text[:65536]):
        return None
    try:  # the pure-Python loader: a document nested too deep is a RecursionError there (libyaml's overflows its C stack)
        docs = list(yaml.load_all(text.lstrip("\ufeff"), Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    # an entry is read by its keys only (never walked whole: YAML's aliases can make a small text a huge tree);
    # a document that is no entry is no log line
    out: list[Record | str] = [rec for doc in docs if isinstance(doc, dict) and (rec := from_object(_plain(doc))) is not None]
    return out or None


#: the Cloud console's legacy Logs Viewer, an entry expanded and copied: ``{`` at the margin, then one field a line, each
#: ``key:  value`` behind one more space per level (a string quoted, an object ``key: {`` … ``}``, collapsed ``{…}``),
#: then ``}`` at the margin: an entry is read only between its two braces (a field outside one is no part of any)
_VIEWER_CLAIM = re.compile(r"^ (?:insertId|logName|textPayload|jsonPayload|protoPayload): ", re.M)
_VIEWER_FIELD = re.compile(r"^(\s{1,40})([^\s:{}\"][^:{}\"]{0,252}?):\s+(\{\s*|\{…\}|\{\.\.\.\}|\".*\"|[^\s\"{}].*?)\s*$")
_VIEWER_CLOSE = re.compile(r"^\s{1,40}\}\s*$")


def logs_viewer(text: str) -> list[Record | str] | None:
    """Entries copied from the Cloud console's legacy Logs Viewer (``_VIEWER_CLAIM``), each a record (its
    ``textPayload`` / ``jsonPayload.message``, ``timestamp``, and the task its ``labels`` name), the lines outside
    them kept as text; None when ``text`` holds no such entry."""
    if not _VIEWER_CLAIM.search(text[:65536]):
        return None
    out: list[Record | str] = []
    entry: list[dict] | None = None  # the open objects of the entry being read, outermost first
    for line in text.split("\n"):
        if entry is None:
            if line.rstrip() == "{":
                entry = [{}]
            elif line.strip():
                out.append(line)
            continue
        if line.rstrip() == "}":  # the entry's end, at the margin
            rec = from_object(entry[0]) if len(entry) == 1 else None
            if rec is not None:
                out.append(rec)
            entry = None
            continue
        field = _VIEWER_FIELD.match(line)
        if _VIEWER_CLOSE.match(line) and len(entry) > 1:
            entry.pop()
        elif field and field.group(3).startswith("{") and field.group(3).rstrip() == "{":
            entry[-1][field.group(2)] = inner = {}
            entry.append(inner)
        elif field:
            entry[-1][field.group(2)] = _viewer_value(field.group(3))
        else:  # no field of an entry: the copy is not one (a brace of something else)
            return None
    return out if any(isinstance(r, Record) for r in out) else None


def _viewer_value(raw: str) -> object:
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        try:
            return json.loads(raw)
        except ValueError:
            return raw[1:-1]
    return None if raw.startswith("{") else raw


def _plain(entry: dict) -> dict:
    """An entry's top-level times YAML resolved (an unquoted timestamp) back to ISO text, as JSON has them."""
    return {str(k): (v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)).isoformat() if isinstance(v, dt.datetime) else v
            for k, v in entry.items()}


__all__ = ["aws_tail", "fluentbit_stdout", "gcloud_stream", "gcloud_yaml", "k9s_view", "logs_viewer"]
