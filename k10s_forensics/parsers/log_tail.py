"""Where a log body ends, when it ends on a waiter's own timeout line; and a paste its author closed.

A log whose last line is a rank's own watchdog catch of its timeout (``[Rank 3] Watchdog caught collective operation
timeout: WorkNCCL(...) ran for 600042 milliseconds before timing out.``, one such line per waiting rank) stops inside
the run of the waiters' catch lines: nothing after it (no teardown line, no launcher's report, no later line of a
waiter's own report such as ``Timeout at NCCL work: 7``) says the list of waiters was complete. A paste cut there (a terminal's scroll-back, a selection
that stopped short), a pod torn down or a capture cut right after it: the next rank's line may have been the one not
there (queries/nccl_hang.sql, ``paste_cut_on_wait``; docs/rules.md, "Session 62: a paste that ends on a waiter's own
timeout line"). One ``log_tail`` event (subkind ``wait_timeout``) per body whose last non-blank line (after the API's
timestamp) is such a line, or the tail of one a terminal wrapped (``ran for 600000 milliseconds before timing out.``
under it), at that line, with the rank the timeout line names.

``closed_by_markup(text)``: whether a paste's last non-blank line is markup that closes a block (a ```` ``` ```` or
``~~~`` fence, ``</details>``, ``</pre>``, a forum's ``[/code]``, Jira's ``{code}``/``{noformat}``): its author closed the
excerpt there. ``k10s import-logs`` takes that markup off (``log_paste``) and says so on the pods it makes
(``k10s.io/imported-end: closed``, parsers/k8s_runtime.py): the body no longer shows it.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_lines import fallback_ts
from k10s_forensics.parsers.log_streams import line_events
from k10s_forensics.parsers.log_unwrap import QUOTE

_API_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) ")
#: what makes a body read: the watchdog's wordings (parsers/log_comm_lines.py ``watchdog``), anywhere in it
_WAIT = r"[Cc]aught collective operation timeout|timed out in blocking wait|[Oo]peration timed out after \d+ ms"
#: the watchdog's catch of a timed-out work, one line per waiting rank (``nccl_watchdog_timeout`` subkinds): stock
#: ProcessGroupNCCL's ``Watchdog caught collective operation timeout``, 1.x's blocking wait, c10d::nccl2's ``Operation timed
#: out after N ms``; not the later lines of a waiter's own report (``Timeout at NCCL work``, ``failure detected by
#: watchdog``, torch >= 2.4's exception summary, ``watchdog thread terminated``), printed once its catch is done
CATCH = frozenset({"watchdog_caught", "blocking_wait", "nccl2_timed_out"})
#: the end of the watchdog's sentence a terminal wrapped onto a line of its own
_WAIT_END = re.compile(r"^\s*(?:ran for )?\d*\s*(?:milliseconds )?before timing out\.?\s*$")
#: how far from a body's end its last lines are looked for (a body ending in blank lines is not read to its start)
_TAIL_CHARS = 4000
_CLOSE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*$|</(?:details|pre|code)>\s*$|\[/code\]\s*$|^\s*\{(?:code|noformat)\}\s*$",
                    re.IGNORECASE)


def _wait(line: str) -> dict | None:
    """The waiter's catch event ``line`` is (its API timestamp taken off), or None."""
    return next((e for e in classify(_API_TS.sub("", line.rstrip("\r"), count=1))
                 if e.get("kind") == "nccl_watchdog_timeout" and e.get("subkind") in CATCH), None)


def tail_wait(lines: list[str]) -> tuple[int, dict] | None:
    """(index, event) of the waiter's timeout line a body's ``lines`` end on, or None."""
    kept = [i for i, line in enumerate(lines) if _API_TS.sub("", line, count=1).strip()]  # a blank line of a pod log: its stamp only
    if not kept:
        return None
    last = kept[-1]
    ev = _wait(lines[last])
    if ev is None and len(kept) > 1 and _WAIT_END.match(_API_TS.sub("", lines[last], count=1)):
        ev = _wait(lines[kept[-2]])  # its sentence's end wrapped under it
    return (last, ev) if ev is not None else None


def closed_by_markup(text: str) -> bool:
    """Whether a paste's last non-blank line closes a markdown, HTML, forum or wiki block (see the module doc)."""
    tail = [line for line in text[-_TAIL_CHARS:].split("\n") if line.strip()]
    return bool(tail) and bool(_CLOSE.search(QUOTE.sub("", tail[-1]).rstrip("\r")))


def tail_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``log_tail`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body ends on a wait."""
    table = table.filter(pc.fill_null(pc.match_substring_regex(table["body"], _WAIT), False))
    rows, nos, texts, ranks, locals_ = [], [], [], [], []
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        body = body or ""
        cut = max(0, len(body) - _TAIL_CHARS)
        before = body.count("\n", 0, cut)  # lines above the part read
        lines = body[cut:].split("\n")
        found = tail_wait(lines[1:] if cut else lines)  # (a first line cut mid-way is no line)
        if found is None:
            continue
        at, ev = found
        rows.append(row)
        nos.append(before + at + 1 + (1 if cut else 0))
        texts.append((lines[1:] if cut else lines)[at].rstrip("\r"))
        ranks.append(ev.get("rank"))
        locals_.append(ev.get("local_rank"))
    if not rows:
        return None
    found = line_events(meta_table, rows, nos, texts, "log_tail", ["wait_timeout"] * len(rows),
                        {"rank": pa.array(ranks, pa.int64()), "local_rank": pa.array(locals_, pa.int64())})
    # a line with no API timestamp: its own clock, as its watchdog event's (log_lines.fallback_ts)
    captured = dict(zip(meta_table["_row"].to_pylist(), meta_table["captured_at"].to_pylist()))
    ts = [t if t is not None else fallback_ts(line, captured.get(row))
          for t, line, row in zip(found["ts"].to_pylist(), found["line"].to_pylist(), rows)]
    return found.set_column(0, "ts", pa.array(ts, pa.timestamp("us", tz="UTC")))


__all__ = ["closed_by_markup", "tail_events", "tail_wait"]
