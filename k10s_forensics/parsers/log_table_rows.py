"""Rows of a column-aligned table in a paste (``kubectl get pods``, ``nvidia-smi`` process lists,
``squeue``): two rows of one table share their columns, so each starts a record of its own.

A terminal-wrapped log line (``log_paste``'s unwrapping) and a table whose rows the alignment made
all exactly as wide as each other look alike by width alone; the columns tell them apart. A
column starts where a field follows a run of two or more spaces; two lines with at least two such
starts in the same places are rows of one table, and the second is no tail of the first.
"""

from __future__ import annotations

#: column starts two rows must share to be rows of one table
MIN_SHARED = 2


def column_starts(line: str) -> frozenset[int]:
    """Where a field starts after two or more spaces (not counting the line's own indentation)."""
    starts, run, seen_text = set(), 0, False
    for i, ch in enumerate(line):
        if ch == " ":
            run += 1
            continue
        if run >= 2 and seen_text:
            starts.add(i)
        run, seen_text = 0, True
    return frozenset(starts)


def same_columns(prev: str, nxt: str) -> bool:
    """Whether ``nxt`` is another row of the table ``prev`` is a row of (see the module doc)."""
    if "  " not in prev or "  " not in nxt:
        return False
    return len(column_starts(prev) & column_starts(nxt)) >= MIN_SHARED


__all__ = ["column_starts", "same_columns"]
