"""A log's bytes as text, whatever wrote them: UTF-8 (with or without a byte-order mark), UTF-16 and UTF-32.

Windows PowerShell 5.1's ``kubectl logs pod > log.txt`` writes UTF-16 LE with a byte-order mark (its
``Out-File`` default), ``Out-File -Encoding unicode`` the same, ``bigendianunicode`` UTF-16 BE, some
editors UTF-16 without a mark; a log copied from such a file into an archive keeps its encoding. Those
bytes are full of NULs and read as binary data without this step. The rule: a byte-order mark decides;
without one, text whose odd (or even) bytes are nearly all NUL and the others nearly never is UTF-16 of
mostly ASCII text (a log is); text with a stray NUL here and there is read with the NULs dropped: torch's
DataLoader worker signal handler writes its message's terminating NUL to stderr (``ERROR: Unexpected bus error
encountered in worker. ...`` then ``\0``), so a worker's SIGBUS/SIGSEGV/SIGFPE leaves one in the rank's log; anything
else holding NUL is binary (``None``): NULs or other control bytes more than one in a hundred of the sniffed bytes.
UTF-8 is read with invalid bytes replaced (a Latin-1 or cp1252 letter becomes U+FFFD; the log's ASCII wording is
intact).
"""

from __future__ import annotations

import codecs

_SNIFF_BYTES = 65536
#: share of the sniffed half that must be NUL (and of the other half that must not) for UTF-16 without a mark
_NUL_SHARE = 0.9
#: the most NULs (and, apart, other control bytes but tab, line ends, form feed, backspace and ESC) text may hold, as a
#: share of the sniffed bytes: a stray NUL in a log is a C program's terminator written with its message
_STRAY_SHARE = 0.01
_TEXT_CONTROLS = frozenset(b"\t\n\r\x0b\x0c\x08\x1b")
_OTHER_CONTROLS = bytes(b for b in range(1, 32) if b not in _TEXT_CONTROLS)

_MARKS = (  # longest first: UTF-32 LE's mark begins with UTF-16 LE's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _marked(data: bytes) -> tuple[str, int] | None:
    for mark, encoding in _MARKS:
        if data.startswith(mark):
            return encoding, len(mark)
    return None


def _unmarked_utf16(data: bytes) -> str | None:
    """``utf-16-le``/``utf-16-be`` when the sniffed bytes alternate text and NUL, else None."""
    head = data[: _SNIFF_BYTES - _SNIFF_BYTES % 2]
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul >= _NUL_SHARE and even_nul <= 1 - _NUL_SHARE:
        return "utf-16-le"
    if even_nul >= _NUL_SHARE and odd_nul <= 1 - _NUL_SHARE:
        return "utf-16-be"
    return None


def _stray_nuls(data: bytes) -> bool:
    """True when the sniffed bytes are text holding a few NULs (see the module doc)."""
    head = data[:_SNIFF_BYTES]
    most = int(len(head) * _STRAY_SHARE)  # a file under a hundred bytes holds no stray NUL: binary
    others = len(head) - len(head.translate(None, _OTHER_CONTROLS))
    return head.count(0) <= most and others <= most


def decode_log(data: bytes) -> str | None:
    """The text of a log's bytes, or None when they are binary data (see the module doc)."""
    marked = _marked(data)
    if marked:
        encoding, skip = marked
        return data[skip:].decode(encoding, errors="replace")
    if b"\x00" not in data[:_SNIFF_BYTES]:
        return data.decode("utf-8", errors="replace")
    encoding = _unmarked_utf16(data)
    if encoding:
        return data.decode(encoding, errors="replace")
    return data.replace(b"\x00", b"").decode("utf-8", errors="replace") if _stray_nuls(data) else None


__all__ = ["decode_log"]
