"""Rich's exception messages joined back (``logs.derive``, before the prefilter).

``rich.traceback`` (``install()``, ``RichHandler(rich_tracebacks=True)``: HF accelerate's and many trainers' consoles)
draws a traceback in a box (``╭─ Traceback (most recent call last) ─╮`` … ``╰──╯``) and prints the exception under it
word-wrapped at the box's width, leaving the space it broke at at the end of each row::

    ╰──────────────────────────────────────────────────────────────────────────────╯
    RuntimeError: 
    [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] 
    Connection closed by peer [127.0.0.1]:22214. This is typically caused by a 
    remote worker crashing. ...

Read row by row, the exception's message is empty and its rows say nothing, so gloo's teardown reads as the rank's own
RuntimeError (tests/data/torch-runs t45; real incidents LLaVA-236 wrap alike). Here the exception row under a box's
bottom edge and each row after it that rich broke (the next row's first word would not have fitted the width after it,
the space rich broke at kept or trimmed by a paste; or it fills the width, a word too long for it cut anywhere; never
a separator row) is joined with the next row of the same printer (the same launcher tags: ``[default1]:[rank1]:``,
srun's ``3:``; another printer's rows may be interleaved), and the row taken is left empty, so line numbers stay. Only
bodies that hold a box's bottom edge are looked at, and only those are read into Python.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers import log_patterns as P

BOTTOM = re.compile(r"^╰─{8,}╯\s*$")
_API_TS = re.compile(P.API_TS)
#: a launcher's tags before the printed text: torchrun's ``[default0]:``, torch's ``[rank0]:``, srun's ``3: ``
_TAGS = re.compile(r"^(?:\[[\w.:-]{1,40}\]: ?|\d{1,5}: )*")
#: a separator row (a failure table's rule under ``ChildFailedError:``): never part of a message
_RULE = re.compile(r"^[-=_─━═]{8,}\s*$")
#: how far (in rows) the next row of the same printer may be (other printers' rows between)
WINDOW = 8


def _split(line: str) -> tuple[str, str, str]:
    """(API timestamp prefix, launcher tags, the text printed)."""
    m = _API_TS.match(line)
    ts = m.group(0) if m else ""
    rest = line[len(ts):]
    tags = _TAGS.match(rest).group(0)
    return ts, tags, rest[len(tags):]


def _next_of(lines: list[str], i: int, tags: str, taken: set[int]) -> int | None:
    """The next row after ``i`` printed by the same printer (its tags), within ``WINDOW``; rows already joined
    (``taken``) are skipped."""
    for j in range(i + 1, min(len(lines), i + 1 + WINDOW)):
        if j not in taken and _split(lines[j])[1] == tags:
            return j
    return None


def _broken(row: str, nxt: str, width: int) -> str | None:
    """How ``nxt`` joins ``row`` when rich broke the message there ('' or None: it did not)."""
    if not nxt.strip() or nxt.startswith(("╭", "│", "╰")) or _RULE.match(nxt):
        return None
    if len(row) >= width and not row.endswith(" "):
        return ""  # a word longer than the width, cut anywhere
    word = nxt.split(" ", 1)[0]
    if len(row.rstrip()) + 1 + len(word) <= width:
        return None  # the next word would have fitted: a line of the message's own
    return "" if row.endswith(" ") else " "  # the space rich broke at, or a paste that trimmed it


def unwrap_body(body: str) -> str:
    """``body`` with each rich exception message under a box joined into its first row (see the module doc)."""
    lines = body.split("\n")
    taken: set[int] = set()
    for i, line in enumerate(lines):
        if "╰" not in line or i in taken:
            continue
        _, tags, edge = _split(line)
        j = _next_of(lines, i, tags, taken) if BOTTOM.match(edge) else None
        if j is None:
            continue
        width = len(edge.rstrip())
        ts, _, text = _split(lines[j])
        row, k = text, j
        while (nxt := _next_of(lines, k, tags, taken)) is not None:
            more = _split(lines[nxt])[2]
            if (sep := _broken(row, more, width)) is None:
                break
            text, row, k = text + sep + more, more, nxt
            lines[nxt] = ""
            taken.add(nxt)
        if k != j:
            lines[j] = ts + tags + text
    return "\n".join(lines) if taken else body


def unwrap_rich(table: pa.Table) -> pa.Table:
    """``table`` (raw/logs rows) with rich's wrapped exception messages joined in the bodies that hold a box."""
    if "body" not in table.column_names:
        return table
    body = table["body"].combine_chunks()
    hit = np.flatnonzero(np.asarray(pc.fill_null(pc.match_substring(body, "╰"), False), dtype=bool))
    if not len(hit):
        return table
    joined = pa.array([unwrap_body(text) for text in body.take(pa.array(hit, pa.int64())).to_pylist()], body.type)
    mask = np.zeros(len(body), dtype=bool)
    mask[hit] = True
    return table.set_column(table.column_names.index("body"), "body", pc.replace_with_mask(body, pa.array(mask), joined))


__all__ = ["BOTTOM", "WINDOW", "unwrap_body", "unwrap_rich"]
