"""A paste copied from a console that lists the newest line first, put back in the order it was written.

Google Cloud Logging's Logs Explorer, CloudWatch Logs Insights (``sort @timestamp desc``), Kibana Discover and Grafana's
Explore show a query's newest line at the top; a user who selects the rows and copies them (with their time column, or
only the message column) pastes the log upside down. Read so, the last line a process wrote reads as its first, and
whichever rank failed LAST reads as the first to fail.

``newest_first(lines)`` tells such a paste from what it holds:

* **times**: lines that begin with a date and time (``2026-11-28 12:05:03.281``, ``2026-11-28T12:05:03Z``,
  bracketed or behind a ``[pod/<pod>/<container>]`` tag), read in the paste's order, fall far more often than they rise
  (at least 3 falls, 9 in 10 of the changes);
* **tracebacks**: Python writes ``Traceback (most recent call last):`` right ABOVE its first ``File "…"`` frame; a
  header whose own process's next line (the same rank tag, or none) above it is a frame, and below it is none, was
  turned over. More
  headers turned over than upright, and no time rising against them, read as newest first.

A paste read as newest first is reversed whole (each line kept as it is). A paste with neither is left as it is: it
reads as written. A paste whose evidence proves neither order is left as it is too, and noted ``line order unknown``
(``ORDER_UNKNOWN``): its times both fall and rise (at least 2 of each, the fewer at least a quarter of the changes:
lines sorted by something else, pieces pasted out of order; within each pod's lines where a ``[pod/…]`` tag says whose:
``kubectl logs --prefix`` lists one pod after another), its times run one way and at least 2 more of its
tracebacks the other, or, without times, at least 2 tracebacks each way (pieces turned over and pieces upright).
``k10s import-logs`` then marks the pods it makes (``k10s.io/imported-order: unknown``), and the rules read no first
failure from the paste's order: where two ranks failed alike in strength and at least one of the two lines has no
clock of its own, neither is first (queries/_incident.sql, ``together``).
"""

from __future__ import annotations

import re

_STAMP = re.compile(r"^(?:\[pod/[^\]]{1,300}\] )?\[?(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,](\d{1,9}))?")
_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'(?:^|\s)File "[^"]{1,1000}", line \d{1,7}')
_TAG = re.compile(r"\[rank(\d{1,7})\]:|\[rank=(\d{1,7})\]|\[default(\d{1,5})\]:|\[(\d{1,5})\]<std|^ {0,4}(\d{1,5}): ")
#: how far above or below a header its frames are looked for (lines of other processes may come between)
_NEAR = 6
_MIN_FALLS = 3
_SHARE = 0.9
#: evidence both ways: at least this many of each (times' falls and rises, tracebacks turned and upright)
_BOTH_WAYS = 2
#: the note a paste whose order nothing proves gets (logimport.py reads it)
ORDER_UNKNOWN = "line order unknown"


def _stamp(line: str) -> str | None:
    m = _STAMP.match(line)
    return None if m is None else f"{m.group(1)} {m.group(2)}.{(m.group(3) or '').ljust(9, '0')}"


def _tag(line: str) -> tuple | None:
    m = _TAG.search(line)
    return None if m is None else m.groups()


def _frame_of(line: str, tag: tuple | None) -> bool:
    return 'File "' in line and _FRAME.search(line) is not None and _tag(line) == tag


def _time_turns(lines: list[str]) -> tuple[int, int]:
    stamps = [s for s in map(_stamp, lines) if s is not None]
    falls = sum(a > b for a, b in zip(stamps, stamps[1:]))
    rises = sum(a < b for a, b in zip(stamps, stamps[1:]))
    return falls, rises


_POD_TAG = re.compile(r"^\[pod/[^\]]{1,300}\] ")


def _time_turns_per_pod(lines: list[str]) -> tuple[int, int]:
    """``_time_turns`` within each pod's lines (``kubectl logs --prefix`` lists one pod after another, each in order)."""
    pods: dict[str, list[str]] = {}
    for line in lines:
        m = _POD_TAG.match(line)
        pods.setdefault(m.group(0) if m else "", []).append(line)
    turns = [_time_turns(group) for group in pods.values()]
    return sum(t[0] for t in turns), sum(t[1] for t in turns)


def _neighbour(lines: list[str], start: int, step: int, tag: tuple | None) -> str | None:
    """The nearest non-blank line of the same process (the same rank tag) from ``start`` on, going ``step``."""
    i = start
    for _ in range(_NEAR):
        if not 0 <= i < len(lines):
            return None
        if lines[i].strip() and _tag(lines[i]) == tag:
            return lines[i]
        i += step
    return None


def _traceback_turns(lines: list[str]) -> tuple[int, int]:
    """(headers whose own frame is the line above and not the line below, headers with their frame below)."""
    turned = upright = 0
    for i, line in enumerate(lines):
        if _HEADER not in line:
            continue
        tag = _tag(line)
        below, above = _neighbour(lines, i + 1, 1, tag), _neighbour(lines, i - 1, -1, tag)
        is_below = below is not None and _frame_of(below, tag)
        turned += not is_below and above is not None and _frame_of(above, tag)
        upright += is_below
    return turned, upright


def reads_newest_first(lines: list[str]) -> bool:
    falls, rises = _time_turns(lines)
    if falls or rises:
        return falls >= _MIN_FALLS and falls >= _SHARE * (falls + rises)
    turned, upright = _traceback_turns(lines)
    return turned > upright


def order_unknown(lines: list[str]) -> bool:
    """The paste's evidence proves neither order: its times fall and rise alike, its times and its tracebacks disagree,
    or, without times, its tracebacks are turned over and upright alike (see the module doc)."""
    falls, rises = _time_turns_per_pod(lines)
    if falls >= _BOTH_WAYS and rises >= _BOTH_WAYS and min(falls, rises) * 4 >= falls + rises:
        return True
    falls, rises = _time_turns(lines)
    turned, upright = _traceback_turns(lines)
    if falls or rises:
        newest = reads_newest_first(lines)
        return (upright - turned if newest else turned - upright) >= _BOTH_WAYS
    return turned >= _BOTH_WAYS and upright >= _BOTH_WAYS


def newest_first(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` in the order they were written, and a note, when the paste lists the newest line first; the lines as
    they are and the ``ORDER_UNKNOWN`` note when nothing proves either order."""
    if order_unknown(lines):
        return lines, f"{ORDER_UNKNOWN} (times and tracebacks run both ways: no first failure is read from it)"
    if not reads_newest_first(lines):
        return lines, None
    end = len(lines)
    while end and not lines[end - 1].strip():  # the paste's trailing blank lines stay at its end
        end -= 1
    return lines[:end][::-1] + lines[end:], f"newest first ({end} lines reversed)"


__all__ = ["ORDER_UNKNOWN", "newest_first", "order_unknown", "reads_newest_first"]
