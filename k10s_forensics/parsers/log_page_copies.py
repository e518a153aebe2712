"""What copying a log out of a web page or a numbering viewer adds to it, taken off again.

* **Web spaces**: a page renders runs of spaces (a traceback's indentation, a table's columns) as non-breaking spaces,
  and some sites put zero-width spaces where a long word may break; copied, ``File`` is no longer at the start of a
  frame after spaces and ``local_rank:`` no longer one word. Non-breaking, narrow, figure and typographic spaces become
  spaces and zero-width characters go (``web_spaces``); a program's own log has no use for either.

* **HTML entities**: a log taken from a page's source, a mailing-list archive or a feed keeps the page's escaping
  (``File "train.py", line 3, in &lt;module&gt;``, ``[1,0]&lt;stderr&gt;:``, ``KeyError: &#39;labels&#39;``). When
  the paste holds an escape of ``< > " ' &`` and no bare ``<`` or ``>`` outside the markdown tags a thread wraps a
  paste in (``<details>``, ``<pre>`` …), every entity is decoded (``html.unescape``): a program that writes HTML
  writes its tags too.
* **Line numbers**: ``cat -n``/``nl`` (``     1<TAB>…``), ``less -N`` (``      1 …``), ``grep -n ''`` (``1:…``) and
  viewers whose copy keeps the gutter (``12 | …``). When at least ``SHARE_NUMBERED`` of the lines (and at least
  ``MIN_NUMBERED``, or ``MIN_TAB_NUMBERED`` with a tab after the number) start with a number and the numbers of
  neighbouring numbered lines go up by one (a rank tag, ``srun --label``'s ``3: ``, or a step counter does not),
  the number and its separator are taken off (spaces: the narrowest run the lines share), so a line's own
  indentation (a traceback's frames) is kept.
* **A shared indent**: markdown's indented code block (four spaces or a tab before every line, as Stack Overflow, Reddit
  and older issue threads keep a log), an email's or a YAML block's indentation. When every non-blank line starts with
  the same run of at least ``MIN_SHARED_INDENT`` spaces or a tab, that run is taken off (``dedent_shared``; two spaces
  are a traceback's own, when only its frames were pasted): launchers' own prefixes are read at a
  line's start (``srun --label``'s `` 3: `` may carry only its own padding), and the lines keep their relative
  indentation. A paste whose lines do not all share the run (a log beside prose) is left alone: a log's own indented
  lines after a blank one (a traceback's code line, a table) look just like a markdown block.
* **Code-view table cells**: a code viewer that lays a file out as a table (a gist's or a repository's blob page,
  Hugging Face's file view) copies each row as its code followed by the empty cells around it: ``[rank14]: Traceback
  (most recent call last): | |``, sometimes with the row's opening ``| `` too. When at least ``SHARE_CELLS`` of the
  lines (and at least ``MIN_CELLS``) end so, the cells are taken off those lines (a last row cut mid-line by the copy
  has none); a markdown table's row ends in one ``|`` after a word, not in an empty cell.
"""

from __future__ import annotations

import html
import re

_ENTITY = re.compile(r"&(?:lt|gt|quot|amp|apos|#0*39|#x0*27|#0*60|#0*62);", re.IGNORECASE)
_PAGE_TAG = re.compile(r"</?(?:details|summary|pre|code|br|p|b|i|em|strong|span|div)\b[^<>]{0,200}>", re.IGNORECASE)

SHARE_NUMBERED = 0.9
MIN_NUMBERED = 4
#: the number, then its separator: a tab (``cat -n``, ``nl``), ``|`` with the spaces around it, ``:`` with none after
#: it (``grep -n``; ``srun --label``'s ``3: `` is a rank's tag), or spaces
_NUMBERED = re.compile(r"^( {0,8})(\d{1,7})(\t| *\| ?|:(?=\S)|:$| +|$)")
#: lines a tab-separated numbering needs (no launcher tags its lines ``<number><TAB>``); other numberings need more
MIN_TAB_NUMBERED = 2
#: the narrowest shared run of spaces taken off (a tab is always taken)
MIN_SHARED_INDENT = 3
#: share of the lines (and least number) that must end in a code view's empty cells
SHARE_CELLS = 0.75
MIN_CELLS = 3
_CELLS_END = re.compile(r" \| \|\s*$")
_CELL_START = re.compile(r"^\| ")


_WEB_SPACE = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")


def web_spaces(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with a page's non-breaking and zero-width spaces undone (module doc)."""
    out, changed = list(lines), 0
    for i, line in enumerate(lines):
        if line.isascii():
            continue
        fixed = _ZERO_WIDTH.sub("", _WEB_SPACE.sub(" ", line))
        if fixed != line:
            out[i], changed = fixed, changed + 1
    return (out, f"non-breaking or zero-width spaces ({changed} lines)") if changed else (lines, None)


def decode_entities(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with a page's HTML escaping decoded when the paste shows it (module doc)."""
    if not any("&" in line and _ENTITY.search(line) for line in lines):
        return lines, None
    if any(("<" in line or ">" in line) and re.search(r"[<>]", _PAGE_TAG.sub("", line)) for line in lines):
        return lines, None
    out = [html.unescape(line) if "&" in line else line for line in lines]
    changed = sum(a != b for a, b in zip(lines, out))
    return out, f"HTML entities ({changed} lines)"


def dedent_shared(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` without the run of spaces or tabs every non-blank one starts with (module doc)."""
    filled = [ln for ln in lines if ln.strip()]
    if not filled or not filled[0][:1].isspace():
        return lines, None
    lead = filled[0][:len(filled[0]) - len(filled[0].lstrip(" \t"))]
    for line in filled[1:]:
        n = 0
        while n < len(lead) and n < len(line) and line[n] == lead[n]:
            n += 1
        lead = lead[:n]
    if len(lead) < MIN_SHARED_INDENT and "\t" not in lead:
        return lines, None
    out = [line[len(lead):] if line.startswith(lead) else line.lstrip(" \t") for line in lines]
    return out, f"shared indent ({len(lead)} columns)"


def _numbers(lines: list[str]) -> list[tuple[int, re.Match[str]]]:
    """(line index, match of ``_NUMBERED``) of every numbered line."""
    return [(i, m) for i, line in enumerate(lines) if (m := _NUMBERED.match(line))]


def strip_line_numbers(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` without the line numbers a viewer copied with them (module doc)."""
    filled = [ln for ln in lines if ln.strip()]
    numbered = _numbers(lines)
    least = MIN_TAB_NUMBERED if all(m.group(3) in ("\t", "") for _, m in numbered) else MIN_NUMBERED
    if len(numbered) < least or len(numbered) < SHARE_NUMBERED * len(filled):
        return lines, None
    steps = [int(b.group(2)) - int(a.group(2)) for (_, a), (_, b) in zip(numbered, numbered[1:])]
    if sum(s == 1 for s in steps) < SHARE_NUMBERED * len(steps):
        return lines, None
    # spaces alone: the narrowest run the lines share is the separator, the rest a line's own indentation
    spaced = lambda m: m.group(3).strip(" ") == ""  # noqa: E731
    width = min((len(m.group(3)) for i, m in numbered if spaced(m) and m.end() < len(lines[i])), default=0)
    out = list(lines)
    for i, m in numbered:
        out[i] = lines[i][m.end(2) + (min(width, len(m.group(3))) if spaced(m) else len(m.group(3))):]
    return out, f"line numbers ({len(numbered)} lines)"


def strip_table_cells(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` without the empty cells a code view's table rendering added to each row (module doc)."""
    filled = [ln for ln in lines if ln.strip()]
    rows = [i for i, line in enumerate(lines) if line.rstrip().endswith("|") and _CELLS_END.search(line)]
    if len(rows) < MIN_CELLS or len(rows) < SHARE_CELLS * len(filled):
        return lines, None
    opened = all(_CELL_START.match(lines[i]) for i in rows)  # every row copied with its opening cell too
    out = list(lines)
    for i in rows:
        row = _CELLS_END.sub("", lines[i])
        out[i] = row[2:] if opened else row
    return out, f"code-view table cells ({len(rows)} lines)"


__all__ = ["MIN_CELLS", "MIN_NUMBERED", "MIN_SHARED_INDENT", "MIN_TAB_NUMBERED", "SHARE_CELLS", "SHARE_NUMBERED", "decode_entities", "dedent_shared", "strip_line_numbers", "strip_table_cells", "web_spaces"]
