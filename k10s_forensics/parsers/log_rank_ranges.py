"""A line a paste wrote once for several ranks, with a rank range, written out once per rank (``log_paste``'s step).

A post-mortem or an issue often condenses the identical lines of consecutive ranks into one line whose
rank tag is a range: ``[Rank 1-7] Watchdog caught collective operation timeout: …`` (the watchdog of
ranks 1 to 7), ``[rank9-15]: Failed to check the "should dump" flag …`` (the ``[rankN]:`` prefix of
each). No program prints a range there (PyTorch and NCCL tag one rank per line), so the line stands for
one line per rank of the range, which is what the parsers read: ``[Rank 1] …`` to ``[Rank 7] …``.

Read as a range: ``[Rank A-B]`` / ``[Ranks A-B]`` (any case, a hyphen, an en dash or ``..``, spaces
around it) in the message, and ``[rankA-B]:`` as the prefix, with ``A < B`` and at most
``MAX_SPAN`` ranks; the first such tag of the line is expanded (its other text is copied as is).
``[Rank 1, 3]`` lists and ``[PG 0 Rank 2]`` tags are not ranges and stay as they are.
"""

from __future__ import annotations

import re

from .log_line_steps import expand_each

#: ``[Rank 1-7]`` / ``[Ranks 1 – 7]`` / ``[rank1..7]`` (message tag) and ``[rank9-15]:`` (line prefix)
_RANGE = re.compile(r"\[(?P<word>[Rr]anks?|RANKS?) ?(?P<a>\d{1,6}) ?(?:-|\u2013|\.\.) ?(?P<b>\d{1,6})\](?P<colon>:?)")
#: the largest range written out (a wider one is left as it is: not a paste's condensed lines)
MAX_SPAN = 1024


def _expanded(line: str) -> list[str] | None:
    m = _RANGE.search(line)
    if not m:
        return None
    a, b = int(m.group("a")), int(m.group("b"))
    if not a < b or b - a + 1 > MAX_SPAN:
        return None
    word = m.group("word")
    word = word[:-1] if word[-1] in "sS" else word
    # the prefix form keeps its own shape (``[rank3]:``), the message form PyTorch's (``[Rank 3]``)
    tag = (lambda r: f"[{word}{r}]:") if m.group("colon") and " " not in m.group(0) else (lambda r: f"[{word} {r}]{m.group('colon')}")
    return [line[:m.start()] + tag(r) + line[m.end():] for r in range(a, b + 1)]


def expand_rank_ranges(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with every line tagged with a rank range written out once per rank, and a note (None: none)."""
    return expand_each(lines, lambda line: _expanded(line) if "ank" in line or "ANK" in line else None,
                       "rank ranges written out ({} lines)")


__all__ = ["MAX_SPAN", "expand_rank_ranges"]
