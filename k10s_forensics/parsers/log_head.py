"""Where a log body begins, when it begins inside a failure record: a log cut at its head (a viewer's or the pod
log API's last N lines, ``kubectl logs --tail``, a paste that starts mid-incident).

A launcher's exit report (torchrun's ``failed (exitcode: 1) local_rank: 0``, its failure table's ``exitcode : 1``)
names a rank whose own error, when it printed one, lies above the report in the same log. Where the log's first
line is already inside a failure record, the lines above the cut may have held that error, and an earlier failure:
the rank's exit status alone does not make it the first to fail (queries/_incident.sql, ``head_cut``; docs/rules.md,
"Session 22: head-cut logs"). One ``log_head`` event per body that holds a launcher's exit report (``exitcode``),
at its first non-blank line, when that line is (after the API's timestamp, torchx's ``role/N`` replica prefix and a
``[rankN]:`` / ``[defaultN]:`` / ``[N]:`` tag):

* ``frame``: a traceback's frame (``  File "…", line N, in f``), its source line or caret marker (an indented line
  with a frame or a marker within the next two lines) — the traceback's header was cut;
* ``traceback``: a traceback's header (``Traceback (most recent call last):``) — a record begins at the first line;
* ``watchdog_stack``: the C++ stack header of a ProcessGroupNCCL watchdog's end (``Exception raised from
  ncclCommWatchdog at …``), in any body (not only one holding an exit report): the last record of a process whose
  watchdog already aborted it, its own failure line above the cut.
* ``error``: an exception's line (``RuntimeError: [...pair.cc:598] Connection closed by peer [127.0.1.1]:13204``), the
  last line of a traceback whose header and frames were cut (not the launcher's own ``ChildFailedError``).

A body is read when it holds a launcher's exit report: torchrun's ``exitcode``, or torch.multiprocessing's spawn
report ``-- Process 1 terminated with the following error:`` (session 32); a ``watchdog_stack`` head is read in any body.

The rules read whose error ends that traceback: only a victim's teardown error (``Connection closed by peer``: the
incident was already under way) makes the log one cut mid-incident. A paste that begins with the agent's
``closing signal SIGTERM`` lines or inside the launcher's own ``ChildFailedError`` traceback is the launcher's report
of the failure, as users paste it, not a cut inside the incident: neither is marked.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_streams import line_events

_API_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) ")
#: torchx's replica prefix (``trainer/0 ``), torchrun's ``--tee`` local rank (``[1]:``, ``[default1]:``), torch's ``[rank1]:``
_TAG = re.compile(r"^(?:[A-Za-z][\w.-]{0,62}/\d{1,5} )?(?:\[(?:default)?\d{1,5}\]:)?(?:\[rank\d{1,5}\]:)?")
_FRAME = re.compile(r'^\s+File "[^"\n]+", line \d+')
_CARET = re.compile(r"^\s+[~^]{3,}\s*$")
_SOURCE = re.compile(r"^\s{4,}\S")
_HEADER = re.compile(r"^Traceback \(most recent call last\):\s*$")
#: the watchdog thread's own end, the last C++ stack a process aborted by its watchdog prints (after its error line)
_WATCHDOG_END = re.compile(r"^\s*Exception raised from ncclCommWatchdog at ")
#: an exception's line: its (dotted) type, an optional ``(Inner)``, a colon and a message
_ERROR = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)(?:\([\w.]+\))?: \S")
#: what makes a body read: a launcher's exit report (torchrun's ``exitcode``, spawn's ``-- Process N terminated with
#: the following error``) or a watchdog's end (``from ncclCommWatchdog at``)
_REPORT = r"exitcode|terminated with the following error|from ncclCommWatchdog at "
_EXIT_REPORT = re.compile(r"exitcode|terminated with the following error")
#: how far into a body its first lines are looked for (a body of blank lines is not read to its end)
_HEAD_CHARS = 4000


def _strip(line: str) -> str:
    return _TAG.sub("", _API_TS.sub("", line.rstrip("\r"), count=1), count=1)


def head_kind(lines: list[str]) -> str | None:
    """The ``log_head`` subkind for a body's first non-blank line and the two after it (``lines``), or None."""
    if not lines:
        return None
    first = _strip(lines[0])
    if _FRAME.match(first) or _CARET.match(first):
        return "frame"
    if _HEADER.match(first.lstrip()):
        return "traceback"
    if _WATCHDOG_END.match(first):
        return "watchdog_stack"
    if _ERROR.match(first.lstrip()) and "ChildFailedError" not in first:
        return "error"
    if _SOURCE.match(first) and any(_FRAME.match(_strip(n)) or _CARET.match(_strip(n)) for n in lines[1:3]):
        return "frame"
    return None


def head_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``log_head`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body begins in a record."""
    table = table.filter(pc.fill_null(pc.match_substring_regex(table["body"], _REPORT), False))
    rows, kinds, nos, texts = [], [], [], []
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        head = (body or "")[:_HEAD_CHARS].split("\n")
        first = next((i for i, line in enumerate(head) if _strip(line).strip()), None)
        if first is None:
            continue
        kind = head_kind([line for line in head[first:first + 3] if _strip(line).strip()])
        if kind is not None and (kind == "watchdog_stack" or _EXIT_REPORT.search(body or "")):
            rows.append(row)
            kinds.append(kind)
            nos.append(first + 1)
            texts.append(head[first].rstrip("\r"))
    if not rows:
        return None
    return line_events(meta_table, rows, nos, texts, "log_head", kinds)


__all__ = ["head_events", "head_kind"]
