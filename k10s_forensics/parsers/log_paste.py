"""The shape of a paste, undone: what copying a log into a ticket or an issue thread did to it.

``repair_paste(text)`` returns the log as the program wrote it, and what it undid, in order:

1. **line ends**: CRLF and lone CR (a carriage-return redraw is a line of its own);
2. **ANSI** colour and cursor codes (``log_normalize.ANSI``);
3. **markdown** GitHub left in: ```` ``` ````/``~~~`` fences, ``<details>``/``<summary>Click to
   expand</summary>``/``<pre>`` lines, ``>`` quoting (nested too) and list bullets (``- ``,
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
6. **terminal wrapping**: lines cut at the terminal's width (any width from 40 columns),
   with or without padding spaces to it: a line that fills the width exactly is joined to
   the next one unless that one starts a record of its own (a timestamp, a rank tag...; not the tail
   of a dotted name the row was cut inside, ``torch.distributed.elast`` | ``ic.…ChildFailedError:``);
6. **one known wording cut in two** where the paste wrapped only that line (``log_cut_wordings``);
7. **horovodrun's rank tags** whose ``<stderr>`` a markdown renderer dropped (``log_bare_tags``);
8. **a rank range** (``[Rank 1-7] Watchdog caught …``) written out once per rank (``log_rank_ranges``);
   and, after markdown, **typographic quotes** a chat's editor made (``log_quotes``).

A log that shows none of these shapes comes back unchanged. The repairs are applied by
``k10s import-logs`` (docs/import.md); container logs read from the API are never pasted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from k10s_forensics.parsers.log_bare_tags import restore_bare_tags
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from k10s_forensics.parsers.log_normalize import ANSI, normalize
from k10s_forensics.parsers.log_quotes import straight_quotes
from k10s_forensics.parsers.log_rank_ranges import expand_rank_ranges
from k10s_forensics.parsers.log_table_rows import same_columns

_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*[\w+.#-]{0,30}\s*$")
_HTML = re.compile(r"</?(?:details|summary|pre|code|br|p)\b[^>]{0,200}>", re.IGNORECASE)
_SUMMARY = re.compile(r"<summary\b[^>]{0,200}>.{0,300}?</summary>", re.IGNORECASE)
_QUOTE = re.compile(r"^ {0,3}((?:> ?)+)")
_BULLET = re.compile(r"^ {0,3}(?:[-*+]|\d{1,4}[.)]) ")
#: The start of a record: a line that begins so is never the tail of a wrapped line.
_RECORD = re.compile(
    r"^\s*(?:Traceback \(|File \"|[A-Za-z_][\w.]{0,80}(?:Error|Exception|Warning)\b|\[|\d{4}-\d\d-\d\d|[EWIF]\d{4} "
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b"
    # Go controllers (the training operators, kube components): logrus time="…", zap's epoch seconds
    r"|(?:time|ts)=\"?\d{4}-\d\d-\d\d|\d{10}(?:\.\d{1,9})?\s|\d\.\d{1,17}e\+09\s"
    r"|[A-Za-z0-9][\w.-]{0,252}:\d+:\d+ \[\d+\]|[\w.-]{1,253}: [\w.-]{1,253}:\d+:\d+ \[)"
    r"|^\s+(?:time|host|rank|exitcode|error_file|traceback)\s*:")
#: Tags PyTorch and NCCL print only inside a line, never at its start: c10d's ``[c10d]`` after the glog
#: header, the items of NCCL's interface lists (``Using [0]eth0:…``, ``[1]mlx5_1:1/IB``: an index glued to a
#: name). A line cut right before one goes on, though it looks like a bracketed record start (batch 19).
_MIDLINE_TAG = re.compile(r"^\s{0,2}(?:\[c10d\] |\[\d{1,3}\][A-Za-z])")
#: A dotted name ending a row: a word, then ``.word`` once or more (not inside a path or an address).
_DOTTED_TAIL = re.compile(r"(?<![\w./\\:-])[A-Za-z_]\w*(?:\.\w+)+$")
_DECORATION_CHARS = frozenset("-*+•|│┃>")
_RULE = re.compile(r"^\s*(?:[-=_*#~─━═]{8,}|[╭╰┏┗┌└].*)\s*$")
_FILE_LINE = re.compile(r'^\s*File "[^"]{1,1000}", line \d+, in \S+$')  # a traceback frame, whole
_FRAME_END = frozenset("│┃║╮╯┐┘┓┛|")
MIN_WRAP = 40
#: In a padded paste a cut that fell on up to this many spaces still reads as a cut
PAD_CUT = 2
SHARE = 0.6


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
    for step in (_markdown, straight_quotes, _quoting_whole, _bullets, _double_spacing, _interrupted, _unwrap, _quoting, rejoin_cut_wordings,
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
        while lines and _blank(lines[0]):
            lines.pop(0)
    return Repaired("\n".join(lines) if notes else text, notes)


def _blank(line: str) -> bool:
    return not line.strip()


def _markdown(lines: list[str]) -> tuple[list[str], str | None]:
    out, dropped = [], 0
    for line in lines:
        bare = _QUOTE.sub("", line)
        if _FENCE.match(bare):
            dropped += 1
            continue
        if "<" in line and _HTML.search(line):
            cleaned = _HTML.sub("", _SUMMARY.sub("", line))
            if _blank(cleaned) or _blank(_QUOTE.sub("", cleaned)):
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
    text = [ln for ln in lines if not _blank(ln)]
    depths = [len(m.group(1).replace(" ", "")) if (m := _QUOTE.match(ln)) else 0 for ln in text]
    quoted = [d for d in depths if d]
    if not text or len(quoted) < (len(text) if whole else SHARE * len(text)):
        return lines, 0
    depth = min(quoted)
    rx = re.compile(r"^ {0,3}(?:> ?){1,%d}" % depth)  # noqa: UP031 (braces of the regex)
    return [rx.sub("", ln, count=1) for ln in lines], depth


def _bullets(lines: list[str]) -> tuple[list[str], str | None]:
    text = [ln for ln in lines if not _blank(ln)]
    marked = [ln for ln in text if _BULLET.match(ln)]
    if len(text) < 2 or len(marked) < SHARE * len(text):
        return lines, None
    return [_BULLET.sub("", ln, count=1) for ln in lines], "list bullets"


def _double_spacing(lines: list[str]) -> tuple[list[str], str | None]:
    runs, run, seen_text = [], 0, False
    for line in lines:
        if _blank(line):
            run += 1
        else:
            if seen_text:
                runs.append(run)
            seen_text, run = True, 0
    if not runs or min(runs) < 1 or sum(r % 2 for r in runs) < 0.9 * len(runs):
        return lines, None
    if len(runs) < 3 and _wrap_width(lines)[0] is None:  # too few lines to tell, unless they are cut at one width
        return lines, None
    out: list[str] = []
    pending = 0
    for line in lines:
        if _blank(line):
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


def _wrap_width(lines: list[str]) -> tuple[int | None, bool]:
    """(terminal width, padded) when the lines look cut at one width; (None, False) otherwise."""
    text = [ln for ln in lines if not _blank(ln)]
    if len(text) < 2:
        return None, False
    raw = Counter(len(ln) for ln in text)
    width, count = max(raw), raw[max(raw)]
    padded = count >= SHARE * len(text) and sum(ln != ln.rstrip() for ln in text) >= len(text) // 2
    full = [ln for ln in text if (len(ln.rstrip()) >= width - PAD_CUT if padded else len(ln) == width)]
    if width < MIN_WRAP or not full:
        return None, False
    if not padded:  # no padding to go by: cuts of different text at one width, far more than lines a bit shorter,
        # or nearly every one followed by its tail (a pane that trims its rows' trailing blanks: tmux capture-pane)
        near = sum(1 for ln in text if width - 8 <= len(ln) < width)
        if len(set(full)) < 2 or (len(full) < 2 * near and not _tails_follow(lines, width)):
            return None, False
    return width, padded


def _tails_follow(lines: list[str], width: int) -> bool:
    """Four or more lines of exactly ``width``, at least 80 % of them followed by a line that starts no record."""
    cut = [i for i, ln in enumerate(lines[:-1]) if len(ln) == width]
    tails = sum(1 for i in cut if _continues(lines[i], lines[i + 1], width, False) is not None)
    return len(cut) >= 4 and tails >= 0.8 * len(cut)


def _continues(prev: str, nxt: str, width: int, padded: bool, quoted: bool = False) -> str | None:
    """The separator that joins ``nxt`` to ``prev`` when ``prev`` was cut at ``width`` (None: no wrap);
    ``quoted``: most lines still carry a quote mark (undone later), so a quoted line starts a record."""
    body = prev.rstrip()
    if quoted and _QUOTE.match(nxt):
        return None
    if _RULE.match(body) or _RULE.match(nxt) or body[-1:] in _FRAME_END or same_columns(body, nxt) \
            or (_FILE_LINE.match(body) and nxt[:1].isspace()):
        return None  # separators, boxes (failure tables, rich tracebacks) and aligned tables' rows fill the width by design
    # an identifier cut after its underscore or hyphen (``SYSTEM_`` | ``ERROR``, ``worker-`` | ``1: ssh …``, which
    # alone reads as srun's label), a ``key=`` cut before its value (``addr=`` | ``[localhost]:59170``), goes on,
    # whatever the next line looks like
    cut_identifier = (body.endswith(("_", "-")) and body[-2:-1].isalnum() and nxt[:1].isalnum()) \
        or (body.endswith("=") and body[-2:-1].isalnum() and not nxt[:1].isspace())
    goes_on = cut_identifier or _cut_dotted_name(body, nxt, width) or _MIDLINE_TAG.match(nxt) is not None
    if _blank(nxt) or (not goes_on and (_RECORD.match(nxt) or (normalize(nxt).stripped and nxt.lstrip()[:1] not in _DECORATION_CHARS))):
        return None
    if not padded:
        return "" if len(prev) == width else None
    if width - PAD_CUT <= len(body) <= width and len(prev) >= width:
        return " " * (width - len(body))  # the cut fell on spaces the padding hides
    return None


def _cut_dotted_name(body: str, nxt: str, width: int) -> bool:
    """A dotted name (a module path, a qualified exception) cut inside by a row that fills the width:
    ``torch.distributed.elast`` | ``ic.multiprocessing.errors.ChildFailedError: …``. The tail reads as an
    exception line starting a record, yet a record never starts glued to a name: the row goes on. Cut inside
    a word, only a tail in lower case goes on (``errors.Chil`` | ``dFailedError``); cut right after a dot,
    only a name of two parts or more (``elastic.multiprocessing.errors.`` | ``ChildFailedError``): a word
    and a full stop is the end of a sentence (``with 7 nodes.`` | ``torch.distributed…: INFO``)."""
    if len(body) < width or not (nxt[:1].isalpha() or nxt[:1] == "_"):
        return False
    if body.endswith("."):
        return _DOTTED_TAIL.search(body[:-1]) is not None
    return (nxt[:1].islower() or nxt[:1] == "_") and _DOTTED_TAIL.search(body) is not None


def _unwrap(lines: list[str]) -> tuple[list[str], str | None]:
    width, padded = _wrap_width(lines)
    if width is None:
        return lines, None
    text = [ln for ln in lines if not _blank(ln)]
    quoted = sum(1 for ln in text if _QUOTE.match(ln)) >= SHARE * len(text)
    out: list[str] = []
    joined = 0
    cur: str | None = None
    last_piece = ""
    for line in lines:
        if cur is not None:
            sep = _continues(last_piece, line, width, padded, quoted)
            if sep is not None:
                cur = (cur.rstrip() + sep + line.rstrip()) if padded else cur + line
                last_piece = line
                joined += 1
                continue
            out.append(cur.rstrip() if padded else cur)
        cur, last_piece = line, line
    if cur is not None:
        out.append(cur.rstrip() if padded else cur)
    if joined < (1 if padded else 2):  # without padding one full-width line is no evidence of a terminal
        return lines, None
    return out, f"terminal wrapping at {width} columns ({joined} lines joined)" + (" with padding" if padded else "")


__all__ = ["Repaired", "repair_paste"]
