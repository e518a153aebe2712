"""Tree-free reading of machine-written XML: one split per document, one tree per skeleton.

Tools like ``nvidia-smi -q -x`` print the same tags in the same order every time; only the
texts between tags change. So a document is cut at every ``<`` and ``>`` into
``parts = [text, tag, text, tag, ..., text]`` (two C-level string operations), and everything
structural is worked out once per distinct *skeleton* (the tag strings, texts left out):
whether the document is well-formed, which element each path names, attribute values. That
is done by ElementTree itself, on a *marker document* (the same tags, each text replaced by
``#<index in parts>``), so paths resolve exactly as ``Element.find`` resolves them on the
real document. A document then costs the split, a dict lookup and the texts it needs.

``split`` accepts only documents whose texts cannot change that equivalence: every ``<``
and ``>`` alternates (so no ``>`` in a text or attribute value), no ``&`` (entities,
character references), no control character XML forbids, no U+FFFE/U+FFFF or C1 control.
``Skeleton`` rejects comments, CDATA, processing instructions other than the leading XML
declaration, and ``<!`` declarations other than a prolog ``<!DOCTYPE`` (none can hold ``<``
or ``>`` here). Texts outside the root element must be XML whitespace (checked per document,
``outside_ok``). Everything else -- and anything ElementTree rejects in the marker
document -- is left to the caller's tree parser (``split``/``skeleton`` return None), so a
fast reader never accepts what the tree parser would not, and never reads it differently:
the marker document is well-formed exactly when the real one is, and has the same
elements, tags and attributes; an element's text there is ``#k`` where the real text is
``parts[k]`` (line ends normalised as expat does, ``clean``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

#: Bytes a fast-path document may not contain in a text: all but '<' and '>' are deleted
#: before the alternation check, so what is left must be exactly b"<>" * n.
_CHECKED = bytes(range(0x09)) + b"\x0b\x0c" + bytes(range(0x0E, 0x20)) + b"<>&\x7f"
_DELETE = bytes(b for b in range(256) if b not in _CHECKED)
#: Non-ASCII characters left to the tree parser (C1 controls, non-characters).
_ODD_CHAR = re.compile("[\x80-\x9f\ufffe\uffff]")
_XML_SPACE = " \t\r\n"
#: A plain prolog DOCTYPE (external DTD at most; never an internal subset).
_DOCTYPE = re.compile(r"!DOCTYPE[ \t\r\n]+[A-Za-z_][\w.-]*(?:[ \t\r\n]+(?:SYSTEM|PUBLIC)(?:[ \t\r\n]+(?:\"[^\"]*\"|'[^']*'))+)?[ \t\r\n]*")


def split(body: str) -> list[str] | None:
    """``[text, tag, text, ..., text]`` of a document that starts with '<', or None (not for the fast path)."""
    if not body.startswith("<"):
        return None
    try:
        data = body.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return None
    marks = data.translate(None, _DELETE)
    if len(marks) & 1 or marks.count(b"<>") * 2 != len(marks):
        return None
    if not data.isascii() and _ODD_CHAR.search(body):
        return None
    return body.replace(">", "<").split("<")


def key(parts: list[str]) -> str:
    """The skeleton of a split document: its tags, in order."""
    return "<".join(parts[1::2])


class Skeleton:
    """The marker tree of one skeleton: ``root`` (an ElementTree element), ``outside`` (indices of
    texts outside the root element, which must be XML whitespace)."""

    __slots__ = ("outside", "root")

    def __init__(self, root, outside: tuple[int, ...]):
        self.root = root
        self.outside = outside


def skeleton(parts: list[str]) -> Skeleton | None:
    """Parse the marker document of ``parts``; None when the fast path cannot read it."""
    tags = parts[1::2]
    if not tags:
        return None
    first = 0
    if tags[0].startswith("?xml") and tags[0].endswith("?"):
        first = 1
    if first < len(tags) and tags[first].startswith("!"):
        if not _DOCTYPE.fullmatch(tags[first]):
            return None
        first += 1
    last = len(tags) - 1
    if first > last or any(tag[:1] in ("!", "?") for tag in tags[first:]):
        return None
    pieces = []
    for i, tag in enumerate(tags):
        pieces.append("<" + tag + ">")
        if first <= i < last:
            pieces.append(f"#{2 * i + 2}")
    try:
        root = ET.fromstring("".join(pieces))
    except (ET.ParseError, ValueError, RecursionError):
        return None
    outside = tuple(range(0, 2 * first + 1, 2)) + (2 * last + 2,)
    return Skeleton(root, outside)


def outside_ok(parts: list[str], outside: tuple[int, ...]) -> bool:
    for k in outside:
        if parts[k].strip(_XML_SPACE):
            return False
    return True


def slot(el) -> int:
    """Index in ``parts`` of an element's text; 0 (always ``''``: a document starts with '<') when
    there is no element or it is ``<tag/>``."""
    if el is None or not el.text:
        return 0
    return int(el.text[1:])


def clean(raw: str) -> str | None:
    """The text ElementTree gives for a raw text, stripped (``(el.text or '').strip() or None``)."""
    value = raw.strip()
    if not value:
        return None
    if "\r" in value:  # expat normalises line ends inside texts
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    return value


#: Longest raw text a memo keeps (longer ones are converted every time: memory stays bounded).
MEMO_CHARS = 256


class Memo(dict):
    """``memo[raw]`` = ``fn(raw)``, remembered (values repeat across elements and documents)."""

    def __init__(self, fn, limit: int = 1 << 16):
        super().__init__()
        self.fn, self.limit = fn, limit

    def __missing__(self, raw):
        value = self.fn(raw)
        if raw is None or len(raw) <= MEMO_CHARS:
            if len(self) >= self.limit:
                self.clear()
            self[raw] = value
        return value


def memo_key_ok(raws: tuple) -> bool:
    """Whether a tuple of raw texts is short enough to key a memo."""
    return sum(map(len, raws)) <= 4 * MEMO_CHARS


__all__ = ["MEMO_CHARS", "Memo", "memo_key_ok", "Skeleton", "clean", "key", "outside_ok", "skeleton", "slot", "split"]
