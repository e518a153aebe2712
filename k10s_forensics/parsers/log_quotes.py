"""Typographic quotes and dashes a chat or a document editor put into a pasted log, made straight again.

Slack, Teams, Word and macOS's text substitution turn ``'`` and ``"`` into ``‘ ’`` and ``“ ”`` as a log is pasted
outside a code block. A program writes its tracebacks and messages with straight quotes (``File "/w/train.py", line
3``, ``KeyError: 'labels'``, ``instance of 'gloo::EnforceNotMet'``), and the readers match them so: a frame written
``File “/w/train.py”, line 3`` is no frame, and a traceback whose frames are unread loses its rank.

``straight_quotes(lines)``: when the paste shows the editor's hand — a traceback frame in typographic quotes, or at
least ``MIN_QUOTED`` words quoted typographically with no space inside (``‘labels’``, ``“/w/train.py”``) — every
typographic quote is made straight, and the note says how many lines changed; else the lines are left alone (a
program's own typographic quotes, GCC's ``‘foo’ was not declared`` once, change nothing a reader needs). An apostrophe
between two letters (``didn’t join``, ``can’t``) is made straight always: a program writes its contractions with
``'``, and the readers match them so (a desync report's ``didn't join collective``).

``straight_dashes(lines)``: the same editors (macOS's smart dashes, Word's autoformat) turn ``--`` into an em or en
dash. A dash that opens a line before a space (after its indent or a comment's ``# ``) (mp.spawn's ``-- Process 0 terminated with the following error:``,
journald's ``-- Boot …``) or that stands before a word with nothing between (``—nproc_per_node=8``, ``–local_rank=3``:
a command's option) is made ``--`` again; a dash inside a sentence is left alone.
"""

from __future__ import annotations

import re

_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_FRAME = re.compile(r"^\s*(?:\[[^\]]{1,40}\]:?\s*)*File [\u201c\u201d\"][^\u201c\u201d\"]{1,1000}[\u201c\u201d\"], line \d+")
_QUOTED = re.compile(r"[\u2018\u201c][^\s\u2018\u2019\u201c\u201d]{1,200}[\u2019\u201d]")
MIN_QUOTED = 3
_CONTRACTION = re.compile(r"(?<=[A-Za-z])\u2019(?=[A-Za-z])")
_DASH_OPENS = re.compile(r"^([^\w\u2013\u2014]{0,6})[\u2013\u2014](?= )")  # after a line's indent, `# ` or `> ` at most
_DASH_OPTION = re.compile(r"(^|[\s'\"=(\[])[\u2013\u2014](?=[A-Za-z])")


def straight_quotes(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with typographic quotes made straight when the paste shows an editor made them (module doc)."""
    marked = [i for i, line in enumerate(lines) if any(q in line for q in "\u2018\u2019\u201c\u201d")]
    if not marked:
        return lines, None
    frame = any(_FRAME.match(lines[i]) and any(q in lines[i] for q in "\u201c\u201d") for i in marked)
    if not frame and sum(len(_QUOTED.findall(lines[i])) for i in marked) < MIN_QUOTED:
        return _contractions(lines, marked)
    out = list(lines)
    for i in marked:
        out[i] = lines[i].translate(_TYPOGRAPHIC)
    return out, f"typographic quotes ({len(marked)} lines)"


def _contractions(lines: list[str], marked: list[int]) -> tuple[list[str], str | None]:
    """``lines`` with only the typographic apostrophes between two letters made straight (module doc)."""
    out = list(lines)
    for i in marked:
        out[i] = _CONTRACTION.sub("'", lines[i])
    changed = sum(out[i] != lines[i] for i in marked)
    return (out, f"typographic apostrophes ({changed} lines)") if changed else (lines, None)


def straight_dashes(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with an editor's dashes for ``--`` made ``--`` again where a log writes ``--`` (module doc)."""
    out, changed = list(lines), 0
    for i, line in enumerate(lines):
        if "\u2013" not in line and "\u2014" not in line:
            continue
        fixed = _DASH_OPTION.sub(r"\1--", _DASH_OPENS.sub(r"\1--", line))
        if fixed != line:
            out[i], changed = fixed, changed + 1
    return (out, f"typographic dashes ({changed} lines)") if changed else (lines, None)


__all__ = ["MIN_QUOTED", "straight_dashes", "straight_quotes"]
