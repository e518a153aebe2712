"""Typographic quotes a chat or a document editor put into a pasted log, made straight again.

Slack, Teams, Word and macOS's text substitution turn ``'`` and ``"`` into ``‘ ’`` and ``“ ”`` as a log is pasted
outside a code block. A program writes its tracebacks and messages with straight quotes (``File "/w/train.py", line
3``, ``KeyError: 'labels'``, ``instance of 'gloo::EnforceNotMet'``), and the readers match them so: a frame written
``File “/w/train.py”, line 3`` is no frame, and a traceback whose frames are unread loses its rank.

``straight_quotes(lines)``: when the paste shows the editor's hand — a traceback frame in typographic quotes, or at
least ``MIN_QUOTED`` words quoted typographically with no space inside (``‘labels’``, ``“/w/train.py”``) — every
typographic quote is made straight, and the note says how many lines changed; else the lines are left alone (a
program's own typographic quotes, GCC's ``‘foo’ was not declared`` once, change nothing a reader needs).
"""

from __future__ import annotations

import re

_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_FRAME = re.compile(r"^\s*(?:\[[^\]]{1,40}\]:?\s*)*File [\u201c\u201d\"][^\u201c\u201d\"]{1,1000}[\u201c\u201d\"], line \d+")
_QUOTED = re.compile(r"[\u2018\u201c][^\s\u2018\u2019\u201c\u201d]{1,200}[\u2019\u201d]")
MIN_QUOTED = 3


def straight_quotes(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with typographic quotes made straight when the paste shows an editor made them (module doc)."""
    marked = [i for i, line in enumerate(lines) if any(q in line for q in "\u2018\u2019\u201c\u201d")]
    if not marked:
        return lines, None
    frame = any(_FRAME.match(lines[i]) and any(q in lines[i] for q in "\u201c\u201d") for i in marked)
    if not frame and sum(len(_QUOTED.findall(lines[i])) for i in marked) < MIN_QUOTED:
        return lines, None
    out = list(lines)
    for i in marked:
        out[i] = lines[i].translate(_TYPOGRAPHIC)
    return out, f"typographic quotes ({len(marked)} lines)"


__all__ = ["MIN_QUOTED", "straight_quotes"]
