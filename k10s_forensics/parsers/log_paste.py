"""The shape of a paste, undone: what copying a log into a ticket or an issue thread did to it.

``repair_paste(text)`` returns the log as the program wrote it, and what it undid, in order:

1. **line ends**: CRLF and lone CR (a carriage-return redraw is a line of its own);
2. **ANSI** colour and cursor codes (``log_normalize.ANSI``);
3. **a page's copy**: non-breaking and zero-width spaces, line numbers a viewer copied with the lines (``cat -n``,
   ``less -N``, a gutter), a page's HTML escaping (``&lt;module&gt;``) and an indent every line shares (markdown's
   four-space code block; again after ``>`` quoting and fences are undone), and, once fences and whole ``>``
   quoting are undone, a code view's empty table cells (``… | |``) (``log_page_copies``);
3. **markdown** GitHub left in: ```` ``` ````/``~~~`` fences, ``<details>``/``<summary>Click to
   expand</summary>``/``<pre>`` lines, a forum's ``[code]…[/code]`` and Jira's ``{code:java}…{code}``/``{noformat}``
   (on lines of their own or glued to the first and last lines), ``>`` quoting (nested too) and list bullets (``- ``,
   ``* ``, ``1. ``) when most lines carry them; quoting that every line carries is undone here,
   quoting of most lines only last (a log quoted before the terminal cut it: the cut rows carry
   no ``>``);
4. **double spacing**: a blank line after every line (some terminals and web pages copy so):
   detected when every gap between two text lines is blank and almost all of them odd (with
   fewer than four text lines, only when they are also cut at one terminal width);
   a run of ``2k+1`` blank lines is ``k`` blank lines of the log, so blank lines the log
   itself held are kept; undone up to twice more while the result is still double-spaced
   (a double-spaced paste copied double-spaced again);
5. **an interrupt**: a line ending in the tty's ``^C`` echo (``kubectl logs -f`` stopped mid-line) is dropped: what
   came before it on that line is cut where the interrupt fell, no line the program wrote (a cut
   ``Connection closed by pe`` reads as a failure of its own);
6. **newest first**: a console's rows copied newest line first (its times falling, its tracebacks' headers below
   their frames) are put back in the order they were written (``log_newest_first``); a paste whose times or tracebacks
   run both ways is left as it is, noted ``line order unknown`` (no first failure is read from its order);
6. **terminal wrapping**: lines cut at the terminal's width (any width from 40 columns), with or
   without padding spaces to it (``log_unwrap``);
6. **records run together on one line** where the paste lost the line breaks between a launcher's and c10d's
   records (``log_flat_records``);
6. **one known wording cut in two** where the paste wrapped only that line (``log_cut_wordings``);
7. **horovodrun's rank tags** whose ``<stderr>`` a markdown renderer dropped (``log_bare_tags``);
8. **a rank range** (``[Rank 1-7] Watchdog caught …``) written out once per rank (``log_rank_ranges``);
   and, after markdown, **typographic quotes and dashes** a chat's editor made (``log_quotes``).

A log that shows none of these shapes comes back unchanged. The repairs are applied by
``k10s import-logs`` (docs/import.md); container logs read from the API are never pasted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from k10s_forensics.parsers.log_bare_tags import restore_bare_tags
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from k10s_forensics.parsers.log_flat_records import split_flat_records
from k10s_forensics.parsers.log_newest_first import newest_first
from k10s_forensics.parsers.log_normalize import ANSI
from k10s_forensics.parsers.log_page_copies import decode_entities, dedent_shared, strip_line_numbers, strip_table_cells, web_spaces
from k10s_forensics.parsers.log_quotes import straight_dashes, straight_quotes
from k10s_forensics.parsers.log_rank_ranges import expand_rank_ranges
from k10s_forensics.parsers.log_unwrap import QUOTE, SHARE, blank, unwrap, wrap_width

_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*[\w+.#-]{0,30}\s*$")
_HTML = re.compile(r"</?(?:details|summary|pre|code|br|p)\b[^>]{0,200}>", re.IGNORECASE)
_SUMMARY = re.compile(r"<summary\b[^>]{0,200}>.{0,300}?</summary>", re.IGNORECASE)
#: a forum's (BBCode ``[code]``, ``[code=python]``) or Jira's (``{code:java}``, ``{noformat}``) code tags, on a line of
#: their own or glued to the block's first and last lines
_FORUM_OPEN = re.compile(r"^\s{0,3}(?:\[code(?:=[\w+#.-]{1,20})?\]|\{(?:code|noformat)(?::[^}\n]{0,80})?\})")
_FORUM_CLOSE = re.compile(r"(?:\[/code\]|\{(?:code|noformat)\})\s*$")
_BULLET = re.compile(r"^ {0,3}(?:[-*+]|\d{1,4}[.)]) ")
@dataclass
class Repaired:
    """The repaired text and what was undone (``notes``, in order; empty: the text was left alone)."""

    text: str
    notes: list[str] = field(default_factory=list)


def repair_paste(text: str) -> Repaired:
    """The log a paste came from (see the module doc)."""
    notes: list[str] = []
    if "\r" in text:
        notes.append("CRLF line ends" if "\r\n" in text else "carriage returns")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text or "m" in text and ANSI.search(text):
        stripped = ANSI.sub("", text)
        if stripped != text:
            notes.append("ANSI codes")
            text = stripped
    lines = text.split("\n")
    depth, at = 0, -1
    for step in (web_spaces, strip_line_numbers, decode_entities, dedent_shared, _markdown, straight_quotes,
                 straight_dashes, _quoting_whole, strip_table_cells, dedent_shared, _bullets, _double_spacing, _interrupted, newest_first, unwrap, _quoting,
                 split_flat_records, rejoin_cut_wordings,
                 restore_bare_tags, expand_rank_ranges):
        lines, note = step(lines)
        for _ in range(2 if step is _double_spacing and note else 0):  # a double-spaced paste copied double-spaced again
            lines, again = step(lines)
            if not again:
                break
        if isinstance(note, int):  # quoting, before and after the rest: one note, at its first place
            if note and at < 0:
                at = len(notes)
                notes.append("")
            depth += note
            if at >= 0:
                notes[at] = f"> quoting (depth {depth})"
        elif note:
            notes.append(note)
    if any(n.startswith("markdown") for n in notes):  # the blank lines around a removed block are the block's
        while lines and blank(lines[0]):
            lines.pop(0)
    return Repaired("\n".join(lines) if notes else text, notes)


def _markdown(lines: list[str]) -> tuple[list[str], str | None]:
    out, dropped = [], 0
    for line in lines:
        if ("[" in line or "{" in line) and (_FORUM_OPEN.match(line) or _FORUM_CLOSE.search(line)):
            line = _FORUM_CLOSE.sub("", _FORUM_OPEN.sub("", line, count=1), count=1)  # a forum's or wiki's code tags
            dropped += 1
            if blank(line):
                continue
        bare = QUOTE.sub("", line)
        if _FENCE.match(bare):
            dropped += 1
            continue
        if "<" in line and _HTML.search(line):
            cleaned = _HTML.sub("", _SUMMARY.sub("", line))
            if blank(cleaned) or blank(QUOTE.sub("", cleaned)):
                dropped += 1
                continue
        out.append(line)
    return out, (f"markdown fences/details ({dropped} lines)" if dropped else None)


def _quoting_whole(lines: list[str]) -> tuple[list[str], int]:
    """``>`` quoting of every line, level by level (a reply quoted whole, a quote of a quoted paste):
    undone first, as it was done last."""
    return _quoting(lines, whole=True)


def _quoting(lines: list[str], whole: bool = False) -> tuple[list[str], int]:
    """``>`` quoting of most lines, level by level: last, after double spacing and wrapping (a log
    quoted before the terminal cut it: the rows the cut made carry no ``>``, and the width is that
    of the quoted lines as they are). Returns the depth undone."""
    total = 0
    for _ in range(8):
        lines, depth = _unquote(lines, whole)
        if not depth:
            break
        total += depth
    return lines, total


def _unquote(lines: list[str], whole: bool = False) -> tuple[list[str], int]:
    text = [ln for ln in lines if not blank(ln)]
    depths = [len(m.group(1).replace(" ", "")) if (m := QUOTE.match(ln)) else 0 for ln in text]
    quoted = [d for d in depths if d]
    if not text or len(quoted) < (len(text) if whole else SHARE * len(text)):
        return lines, 0
    depth = min(quoted)
    rx = re.compile(r"^ {0,3}(?:> ?){1,%d}" % depth)  # noqa: UP031 (braces of the regex)
    return [rx.sub("", ln, count=1) for ln in lines], depth


def _bullets(lines: list[str]) -> tuple[list[str], str | None]:
    text = [ln for ln in lines if not blank(ln)]
    marked = [ln for ln in text if _BULLET.match(ln)]
    if len(text) < 2 or len(marked) < SHARE * len(text):
        return lines, None
    return [_BULLET.sub("", ln, count=1) for ln in lines], "list bullets"


def _double_spacing(lines: list[str]) -> tuple[list[str], str | None]:
    runs, run, seen_text = [], 0, False
    for line in lines:
        if blank(line):
            run += 1
        else:
            if seen_text:
                runs.append(run)
            seen_text, run = True, 0
    if not runs or min(runs) < 1 or sum(r % 2 for r in runs) < 0.9 * len(runs):
        return lines, None
    if len(runs) < 3 and wrap_width(lines)[0] is None:  # too few lines to tell, unless they are cut at one width
        return lines, None
    out: list[str] = []
    pending = 0
    for line in lines:
        if blank(line):
            pending += 1
            continue
        out.extend([""] * (pending // 2))
        out.append(line)
        pending = 0
    out.extend([""] * (pending // 2))
    return out, "double spacing"


def _interrupted(lines: list[str]) -> tuple[list[str], str | None]:
    kept = [ln for ln in lines if not ln.rstrip().endswith("^C")]
    cut = len(lines) - len(kept)
    return (kept, f"{cut} line{'s' * (cut > 1)} cut by ^C dropped") if cut else (lines, None)


__all__ = ["Repaired", "repair_paste"]
