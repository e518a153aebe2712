"""Terminal wrapping undone (``log_paste`` step 6): lines cut at the terminal's width (any width from 40
columns), with or without padding spaces to it. A line that fills the width exactly is joined to the next one
unless that one starts a record of its own (a timestamp, a rank tag...; not the tail of a dotted name the row
was cut inside, ``torch.distributed.elast`` | ``ic.…ChildFailedError:``). Separators, boxes and aligned
tables' rows fill the width by design and are never joined.
"""

from __future__ import annotations

import re
from collections import Counter

from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_table_rows import same_columns

#: ``>`` quoting a paste's lines may carry (nested too)
QUOTE = re.compile(r"^ {0,3}((?:> ?)+)")
#: The start of a record: a line that begins so is never the tail of a wrapped line.
_RECORD = re.compile(
    r"^\s*(?:Traceback \(|File \"|[A-Za-z_][\w.]{0,80}(?:Error|Exception|Warning)\b|\[|\d{4}-\d\d-\d\d|[EWIF]\d{4} "
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b"
    # a C++ backtrace's frame (c10::Error's ``Exception raised from …``: ``frame #6: c10d::TCPStore::doGet(…) + 0x2a (…)``)
    r"|frame #\d{1,4}: "
    # Slurm's own lines (``srun: error: nid001097: task 5: …``, ``slurmstepd: error: *** STEP … CANCELLED …``) and Cray
    # MPICH's fatal-error report (``MPICH ERROR [Rank 5] …``): each starts a line of its own, never a wrapped row's tail
    r"|(?:srun|slurmstepd|salloc|sbatch): |MPICH ERROR \[Rank \d"
    # Go controllers (the training operators, kube components): logrus time="…", zap's epoch seconds
    r"|(?:time|ts)=\"?\d{4}-\d\d-\d\d|\d{10}(?:\.\d{1,9})?\s|\d\.\d{1,17}e\+09\s"
    r"|[A-Za-z0-9][\w.-]{0,252}:\d+:\d+ \[\d+\]|[\w.-]{1,253}: [\w.-]{1,253}:\d+:\d+ \["
    # the kernel's log as journalctl -k / syslog print it (``kernel: NVRM: Xid (PCI:…): 45, …``, ``Feb 14 05:03:41 host
    # kernel: …``) and the driver's own ``NVRM: `` lines: one record each, of one format that often fills one width
    r"|kernel: |NVRM: |(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d )"
    r"|^\s+(?:time|host|rank|exitcode|error_file|traceback)\s*:")
#: Tags PyTorch and NCCL print only inside a line, never at its start: c10d's ``[c10d]`` after the glog
#: header, the items of NCCL's interface lists (``Using [0]eth0:…``, ``[1]mlx5_1:1/IB``: an index glued to a
#: name). A line cut right before one goes on, though it looks like a bracketed record start (batch 19).
_MIDLINE_TAG = re.compile(r"^\s{0,2}(?:\[c10d\] |\[\d{1,3}\][A-Za-z])")
#: A dotted name ending a row: a word, then ``.word`` once or more (not inside a path or an address).
_DOTTED_TAIL = re.compile(r"(?<![\w./\\:-])[A-Za-z_]\w*(?:\.\w+)+$")
#: an NCCL record's header (``host:pid:tid [dev]``) starting a row; a word glued to a row's end; an NCCL header or
#: the word NCCL anywhere; what may stand right before a record's host: nothing, a launcher's tag (mpirun's
#: ``[1,12]<stdout>:``, torchrun's ``[default3]:``, srun's ``12: ``) or a timestamp (``2019-06-02T16:13:44.884Z: ``)
_NCCL_HEAD = re.compile(r"^[\w.-]{1,253}:\d{1,9}:\d{1,9} \[\d{1,3}\]")
_HOST_HEAD = re.compile(r"[A-Za-z0-9][\w.-]{0,252}$")
_NCCL_IN = re.compile(r"[\w.-]:\d{1,9}:\d{1,9} \[\d{1,3}\]|\bNCCL\b")
_BEFORE_HOST = re.compile(r"(?:^|<std(?:out|err)>:|\[[^\]\s]{1,40}\]:?|^\s*\d{1,5}: "
                          r"|\[?\d{4}-\d\d-\d\d[T ][\d:.,]{5,20}Z?\]?:? ?)$")
#: an NCCL record's level word after ``NCCL`` (one list for the two patterns below)
_NCCL_LEVEL = r"NCCL (?:WARN|INFO|ERROR|TRACE|ABORT)"
#: a record of a known kind in a row: an NCCL record's level (``NCCL WARN``) or a C++ source location (``argcheck.cc:30``);
#: a camel-case name's head glued to a row's end (a lower-case word, a capital inside: ``ncclGet``, ``cudaGetLast``); the
#: first word of an NCCL record's message glued to a row's end, in lower case (``NCCL WARN nccl``)
_KNOWN_KIND = re.compile(r"\b" + _NCCL_LEVEL + r" |[\w-]\.(?:cc|cpp|cxx|cu|cuh|c|h|hpp):\d{1,6}\b")
_CAMEL_HEAD = re.compile(r"(?<![\w.])[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$")
_NCCL_FIRST_WORD = re.compile(r"\b" + _NCCL_LEVEL + r" [a-z][a-z0-9]*$")
_DECORATION_CHARS = frozenset("-*+•|│┃>")
_RULE = re.compile(r"^\s*(?:[-=_*#~─━═]{8,}|[╭╰┏┗┌└].*)\s*$")
_FILE_LINE = re.compile(r'^\s*File "[^"]{1,1000}", line \d+, in \S+$')  # a traceback frame, whole
_FRAME_END = frozenset("│┃║╮╯┐┘┓┛|")
#: srun's ``--label`` (``10: …``) where it starts a row, and one anywhere in a row (at its start or after a blank: a
#: flattened paste holds several tasks' lines in one); a row that fills the width ending in a number after a blank
_LABEL_START = re.compile(r"^(\d{1,4}): ")
_LABEL_ANY = re.compile(r"(?<!\S)(\d{1,5}): ")
_DIGITS_END = re.compile(r"(?<!\S)(\d{1,4})$")
MIN_WRAP = 40
#: In a padded paste a cut that fell on up to this many spaces still reads as a cut
PAD_CUT = 2
#: A line beginning with this many characters of the line above (words, not padding) is a record of its own
SAME_START = 8
#: The share of a paste's lines a shape must mark (quoting, bullets, padding) to be undone
SHARE = 0.6


def blank(line: str) -> bool:
    return not line.strip()


def wrap_width(lines: list[str]) -> tuple[int | None, bool]:
    """(terminal width, padded) when the lines look cut at one width; (None, False) otherwise."""
    text = [ln for ln in lines if not blank(ln)]
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


def _continues(prev: str, nxt: str, width: int, padded: bool, quoted: bool = False,
               labels: frozenset[str] = frozenset()) -> str | None:
    """The separator that joins ``nxt`` to ``prev`` when ``prev`` was cut at ``width`` (None: no wrap);
    ``quoted``: most lines still carry a quote mark (undone later), so a quoted line starts a record;
    ``labels``: the srun task labels the paste holds whole (``_cut_label``)."""
    body = prev.rstrip()
    if quoted and QUOTE.match(nxt):
        return None
    if _RULE.match(body) or _RULE.match(nxt) or body[-1:] in _FRAME_END or same_columns(body, nxt) \
            or (_FILE_LINE.match(body) and nxt[:1].isspace()):
        return None  # separators, boxes (failure tables, rich tracebacks) and aligned tables' rows fill the width by design
    # an identifier cut after its underscore or hyphen (``SYSTEM_`` | ``ERROR``, ``worker-`` | ``1: ssh …``, which
    # alone reads as srun's label), a ``key=`` cut before its value (``addr=`` | ``[localhost]:59170``), goes on,
    # whatever the next line looks like
    cut_identifier = (body.endswith(("_", "-")) and body[-2:-1].isalnum() and nxt[:1].isalnum()) \
        or (body.endswith("=") and body[-2:-1].isalnum() and not nxt[:1].isspace())
    goes_on = cut_identifier or _cut_dotted_name(body, nxt, width) or _MIDLINE_TAG.match(nxt) is not None \
        or _cut_label(body, nxt, width, labels) or _cut_nccl_host(body, nxt, width) or _cut_camel_name(body, nxt, width)
    if blank(nxt) or (not goes_on and (_RECORD.match(nxt) or _same_start(body, nxt) or (normalize(nxt).stripped and nxt.lstrip()[:1] not in _DECORATION_CHARS))):
        return None
    if not padded:
        return "" if len(prev) == width else None
    if width - PAD_CUT <= len(body) <= width and len(prev) >= width:
        return " " * (width - len(body))  # the cut fell on spaces the padding hides
    return None


def _same_start(body: str, nxt: str) -> bool:
    """``nxt`` begins with the same words as ``body`` (eight characters or more, a space or colon among them):
    a record of the same format as the line above, not its tail (a text cut at the width goes on mid-sentence,
    it does not begin again the way the line began). Lines of one format are often of one length too: seven
    kernel lines ``kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=…`` all of 105 columns (real incidents batch 113)."""
    if not nxt[:1].strip():
        return False
    n = 0
    for a, b in zip(body, nxt):
        if a != b:
            break
        n += 1
    return n >= SAME_START and any(c in " :" for c in nxt[:n])


def _cut_label(body: str, nxt: str, width: int, labels: frozenset[str]) -> bool:
    """srun's task label cut by a row that fills the width exactly: ``… NCCL version 2.18.5 1`` | ``0: ncclSystemError …``
    (a flattened paste: several tasks' lines in one, ``10: …`` fragments). The tail reads as task 0's own line, yet the
    row ends in a number after a blank, and that number glued to the tail's label is a label the paste holds whole
    elsewhere (``10``) while the tail's own (``0``) is none it holds: the label goes on. A real task line after a row of
    exactly the width keeps its label, which the paste holds."""
    if len(body) != width:
        return False
    head, tail = _DIGITS_END.search(body), _LABEL_START.match(nxt)
    if head is None or tail is None:
        return False
    return head.group(1) + tail.group(1) in labels and tail.group(1) not in labels


def paste_labels(lines: list[str], width: int) -> frozenset[str]:
    """The srun labels (``10: ``) a paste's rows hold whole, at a row's start or after a blank; a row's leading
    label right after a row of the full width that ends in a number after a blank (perhaps a label cut) is not counted."""
    found: set[str] = set()
    prev = ""
    for line in lines:
        for m in _LABEL_ANY.finditer(line):
            if m.start() == 0 and len(prev.rstrip()) == width and _DIGITS_END.search(prev.rstrip()):
                continue
            found.add(m.group(1))
        prev = line
    return frozenset(found)


def _cut_nccl_host(body: str, nxt: str, width: int) -> bool:
    """An NCCL record's host name cut by a row that fills the width: ``… [1,12]<stdout>:container-…-12124-01-0`` |
    ``00057:815:864 [0] transport/net_ib.cu:80 NCCL WARN …``. The tail reads as an NCCL record of its own
    (``host:pid:tid [dev]``), yet the row holds only a launcher's tag or a timestamp before a word glued to the
    width's edge: the word is the host's head and the row goes on (its tag, the rank, with it). A row that holds an
    NCCL header of its own (``host-a:12:12 [0] … NCCL INFO …``) is a record, and one under it another rank's."""
    if len(body) != width or not _NCCL_HEAD.match(nxt):
        return False
    m = _HOST_HEAD.search(body)
    return m is not None and _NCCL_IN.search(body) is None and _BEFORE_HOST.search(body[:m.start()]) is not None


def _cut_camel_name(body: str, nxt: str, width: int) -> bool:
    """A function name cut inside by a row of a known record kind that fills the width exactly: ``… argcheck.cc:30 NCCL
    WARN ncclGet`` | ``AsyncError : comm argument is NULL``. The tail reads as an exception line starting a record, yet
    the row ends glued to the head of a camel-case name (a lower-case word with a capital inside, which no sentence's
    word is), or to the first word of an NCCL record's message in lower case (``NCCL WARN nccl`` | ``GetAsyncError``;
    no NCCL message is that one word): the row goes on. A row ending in a plain word (``… Connected all rings``) before
    ``RuntimeError: …`` or ``Traceback …`` is a record's end, and stays one."""
    if len(body) != width or not (nxt[:1].isalnum() or nxt[:1] == "_") or _KNOWN_KIND.search(body) is None:
        return False
    return _CAMEL_HEAD.search(body) is not None or _NCCL_FIRST_WORD.search(body) is not None


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


def _head_cut(lines: list[str], width: int, padded: bool) -> int | None:
    """The index of a padded paste's first row when the selection began inside a screen row: every row of such a
    paste is padded to the width, so a first row shorter than it with no padding is the right part of a row that
    filled the width, copied from mid-row (``| WARNING | fairseq.trainer | OOM: … exception: CUD`` | ``A out of
    memory. …``). Only a row cut inside a word counts (it ends in a letter or digit and the next row begins with
    one): a short line the author wrote above the paste (``Error:``) ends otherwise or is followed by a record."""
    first = next((i for i, ln in enumerate(lines) if not blank(ln)), None)
    if not padded or first is None or first + 1 >= len(lines):
        return None
    row, nxt = lines[first], lines[first + 1]
    if row != row.rstrip() or not width // 2 <= len(row) < width - PAD_CUT:
        return None
    return first if row[-1:].isalnum() and nxt[:1].isalnum() else None


def unwrap(lines: list[str]) -> tuple[list[str], str | None]:
    width, padded = wrap_width(lines)
    if width is None:
        return lines, None
    text = [ln for ln in lines if not blank(ln)]
    quoted = sum(1 for ln in text if QUOTE.match(ln)) >= SHARE * len(text)
    labels = paste_labels(lines, width)
    out: list[str] = []
    joined = 0
    cur: str | None = None
    last_piece = ""
    head = _head_cut(lines, width, padded)
    for i, line in enumerate(lines):
        if cur is not None:
            sep = _continues(last_piece, line, width, padded, quoted, labels)
            if sep is not None:
                cur = (cur.rstrip() + sep + line.rstrip()) if padded else cur + line
                last_piece = line
                joined += 1
                continue
            out.append(cur.rstrip() if padded else cur)
        cur, last_piece = line, (line.rjust(width) if i == head else line)  # a first row cut mid-row: a full one
    if cur is not None:
        out.append(cur.rstrip() if padded else cur)
    if joined < (1 if padded else 2):  # without padding one full-width line is no evidence of a terminal
        return lines, None
    return out, f"terminal wrapping at {width} columns ({joined} lines joined)" + (" with padding" if padded else "")


__all__ = ["MIN_WRAP", "QUOTE", "SHARE", "blank", "unwrap", "wrap_width"]
