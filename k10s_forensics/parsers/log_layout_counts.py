"""Counts of processes per node that an imported log's own lines imply, for ``log_layout.infer_layout``: the
most Python tracebacks open at once (several processes printing into one paste), the most processes one launcher
teardown names, and the step between node logs' failure tables. Each is None when nothing says it."""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_agents import table_entries
from k10s_forensics.parsers.log_normalize import MASK, is_masked, normalize

#: a Python traceback's head, and the line that ends one (the exception, unindented)
_TB_HEAD = "Traceback (most recent call last):"
_TB_END = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b[^\n]*$|^[A-Za-z_][\w.]*: ", re.M)


#: a traceback frame's header glued after other text of the same line, once prefixes are stripped
_SPLICED_FRAME = re.compile(r"\S\s*\bFile \"[^\"\n]{1,500}\", line \d+, in \S")


def _spliced(text: str) -> bool:
    """Two processes wrote into one stream at once: a traceback frame's header starts in the middle
    of another line (``main(args)  File "/x/train.py", line 146, in main``)."""
    for line in text.split("\n"):
        if 'File "' in line and _SPLICED_FRAME.search(line) and _SPLICED_FRAME.search(normalize(line).text):
            return True
    return False


def interleaved_max(texts: list[str]) -> int | None:
    """The most Python tracebacks open at once in a log (a head while another has not ended:
    several processes printing into one paste), at least 2 where lines of two processes are spliced
    mid-line or where a traceback's head comes right after another's exception (a process raises
    once: its chained exceptions and thread reports print a banner line between), or None when
    nothing says several processes wrote."""
    best = 2 if any(_spliced(t) for t in texts) else 1
    for t in texts:
        if t.count(_TB_HEAD) < 2:
            continue
        open_n, closed_at = 0, -2
        for i, raw in enumerate(t.split("\n")):
            line = normalize(raw).text if raw[:1] not in ("", " ", "T") else raw  # behind a timestamp or a tag
            if line.startswith(_TB_HEAD):
                open_n += 1
                best = max(best, open_n, 2 if closed_at == i - 1 else 1)
            elif open_n and _TB_END.match(line):
                open_n -= 1
                closed_at = i
    return best if best > 1 else None


#: the processes of a node a launcher names by pid: the ones it tore down (torchrun, mp.spawn, DeepSpeed's ``Killing subprocess N``) and
#: the one torchrun reports failed; mp.spawn names its failed process by index only (not among those it terminated)
#: (a pid a user masked, ``xxxxxx``, ``<pid>``, ``***``, ``[REDACTED]``, ``…``, is still one process)
_PID_OR_MASK = r"(\d{1,9}|" + MASK + ")"
_TORN_DOWN = re.compile(r"(?:Sending process " + _PID_OR_MASK + r" closing signal SIG|Terminating process " + _PID_OR_MASK
                        + r" via signal SIG|failed \(exitcode: -?\d+\) local_rank: \d+ \(pid: " + _PID_OR_MASK + r"\)|Killing subprocess " + _PID_OR_MASK + ")")
_SPAWN_FAILED = re.compile(r"\b[Pp]rocess \d{1,4} terminated with\b")
#: the time of a launcher's line: glog's header (torchrun 2.x, ``W1207 23:33:58.633000 22321 …``), else an ISO time
#: (a shipper's or ``kubectl logs --timestamps``' prefix); seconds of the day
_LINE_TIME = re.compile(r"\b[IWEF]\d{4} (\d\d):(\d\d):(\d\d(?:\.\d+)?) |\d{4}-\d\d-\d\d[T ](\d\d):(\d\d):(\d\d(?:\.\d+)?)")
#: seconds between two signal lines of one teardown at most: a launcher signals its live workers in one loop
#: (milliseconds apart); signal lines further apart belong to two teardowns (a restarted attempt's, its new pids)
_ONE_LOOP_S = 3.0


def _line_time_s(text: str, at: int) -> float | None:
    """Seconds of the day of the line holding offset ``at`` (its launcher's own header first), or None."""
    line = text[text.rfind("\n", 0, at) + 1:at]
    found = list(_LINE_TIME.finditer(line))
    if not found:
        return None
    m = found[-1]  # the header nearest the message: the launcher's own, behind a shipper's prefix
    h, mi, sec = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
    return int(h) * 3600 + int(mi) * 60 + float(sec)


def torn_down_max(texts: list[str]) -> int | None:
    """The most processes one teardown of a log's launcher names (distinct pids up to and with the
    failed one's, in lines at most 3 apart; + mp.spawn's failed one, named by index only), or None.
    A restart's teardown names new pids: each teardown is counted on its own (lines more than 3 apart, or two
    signal lines more than a few seconds apart by their headers' times: a restarted attempt's teardown right below
    the first's when only the agent's warnings print, ``--redirects``)."""
    best = 0
    for t in texts:
        burst: set[str] = set()
        end, signal_s = 0, None
        for m in _TORN_DOWN.finditer(t):
            at_s = _line_time_s(t, m.start()) if not m.group(3) else None
            if t.count("\n", end, m.start()) > 3 or (  # lines apart, or signal lines seconds apart: another teardown
                    at_s is not None and signal_s is not None and _ONE_LOOP_S < abs(at_s - signal_s) < 86400 - _ONE_LOOP_S):
                burst = set()
            end, signal_s = m.end(), at_s if at_s is not None else signal_s
            pid = m.group(1) or m.group(2) or m.group(3) or m.group(4)
            burst.add(f"masked at {m.start()}" if is_masked(pid) else pid)
            best = max(best, len(burst))
            if m.group(3):  # torchrun's "failed (exitcode" closes its teardown
                burst = set()
        if "Terminating process" in t and _SPAWN_FAILED.search(t):
            best = max(best, len(burst) + 1)
    return best or None


def table_step(texts: list[str]) -> int | None:
    """Processes per node that the failure tables of several node logs imply (the logs in node order, as
    import-logs takes them): each entry's ``rank: R (local_rank: L)`` puts its log's node's first rank at
    R - L; two logs k apart whose first ranks differ by d say d / k. None unless every such pair of logs
    says the same whole number (a log in another order, a node whose log is cut before its table: no pair
    is trusted over another)."""
    firsts = [(i, min(g - loc for g, loc in found)) for i, t in enumerate(texts) if (found := table_entries(t))]
    steps = {(b - a) / (j - i) for n, (i, a) in enumerate(firsts) for j, b in firsts[n + 1:]}
    step = steps.pop() if len(steps) == 1 else None
    return int(step) if step and step >= 1 and step == int(step) else None


def tables_fit(texts: list[str], nproc: int) -> bool:
    """Whether ``nproc`` processes per node agree with every failure-table entry of the logs: ``rank : R
    (local_rank: L)`` puts rank R on a node whose first rank R - L is a whole number of nodes in, and that node
    runs more than L processes. A count of the launcher's lines that contradicts a table is not the layout."""
    return all(loc < nproc and (g - loc) % nproc == 0 for t in texts for g, loc in table_entries(t))
