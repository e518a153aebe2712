"""RE2 prefilters: which texts (and which parts of them) redaction has to look at.

The redaction rules themselves live in ``secrets.py`` and ``replace.py`` (Python ``re``);
they are exact but slow when tried at every character of gigabytes of text. The patterns
here run in RE2 (linear time, DFA) over whole Arrow columns through ``pyarrow.compute``
and only select; every selected text is then handled by the exact Python rules, so the
output is byte for byte what the rules give on the whole text.

* ``SECRET_PREFILTER`` matches every text in which ``SecretScanner.scan`` could find
  anything (each detector's own shape, without its look-arounds; ``NAME=value`` /
  ``--name value`` shapes for the name-based rule). Texts it does not match are unchanged.
* ``candidate_segments`` builds the pattern of *segments* that can hold a name or an
  address: maximal runs of ``SEGMENT_CHARS`` (``[A-Za-z0-9_.:-]``) containing a vocabulary
  name (with word boundaries) or an IPv4/IPv6/IP-host shape. Every name, address and
  look-around of ``TextReplacer.regex`` lies inside one such run, so replacing each run on
  its own gives exactly the replacement of the whole text (names holding other characters
  are "odd": rows containing one take the whole-text path).
* ``SLOW_CHARS``: characters whose case folding Python and RE2 treat differently
  (``İ ı ſ K``); rows holding one take the exact whole-text path.
"""

from __future__ import annotations

import re

SEGMENT_CHARS = "A-Za-z0-9_.:-"
_SEGMENT_CHAR = re.compile(f"[{SEGMENT_CHARS}]")
_WORD = re.compile(r"[A-Za-z0-9_]")
SLOW_CHARS = "\u0130\u0131\u017f\u212a"
_FRAGMENTS = "pass|secret|token|key|credential|auth|cookie|session|private"
_NAME = r"[A-Za-z0-9_.-]"

SECRET_PREFILTER = "|".join(
    (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----",
        r"private_key",
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.",
        r"://[^/\s:@\"'<>]*:[^/\s@\"'<>]+@",
        r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}",
        r"gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22}",
        r"glpat-[A-Za-z0-9_-]{20}",
        r"xox[abposr]-[A-Za-z0-9-]{10}|hooks\.slack\.com/services/",
        r"hf_[A-Za-z0-9]{30}",
        r"sk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{20}",
        r"AIza[0-9A-Za-z_-]{35}",
        r"[sr]k_live_[0-9A-Za-z]{16}",
        r"npm_[A-Za-z0-9]{36}",
        r"(?i:(?:AccountKey|SharedAccessKey|SharedAccessSignature)=|[?&]sig=)",
        r"(?i:bearer|cookie)",
        # NAME=value, NAME: value, "name": "value" where NAME holds a sensitive fragment
        rf"(?i:{_FRAGMENTS}){_NAME}*\\?[\"']?[ \t]*[:=]",
        # --name value
        rf"-{_NAME}*(?i:{_FRAGMENTS}){_NAME}*[ \t]+[^\s\"'-]",
        f"[{SLOW_CHARS}]",
    )
)

_OCT = r"[0-9]{1,3}"
_HEX = r"[0-9A-Fa-f]{1,4}"
ADDRESS_SHAPES = (
    rf"{_OCT}\.{_OCT}\.{_OCT}\.{_OCT}",
    rf"{_OCT}-{_OCT}-{_OCT}-{_OCT}",
    r"::",
    rf"(?:{_HEX}:){{7}}[0-9A-Fa-f]",
)
#: Above this many names the candidate test uses name prefixes (a smaller RE2 program).
MAX_LITERAL_NAMES = 4000


def is_odd_name(name: str) -> bool:
    """A name with characters outside the segment class (handled by the whole-text path)."""
    return any(not _SEGMENT_CHAR.match(ch) for ch in name)


def re2_escape(text: str) -> str:
    """``text`` as an RE2 literal (RE2 rejects some of Python's escapes, e.g. of a space)."""
    out = []
    for ch in text:
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            out.append(ch)
        elif ch.isascii() and ch.isprintable() and ch != " ":
            out.append("\\" + ch)
        else:
            out.append(f"\\x{{{ord(ch):x}}}")
    return "".join(out)


def _bounded(literal: str, name: str) -> str:
    left = r"\b" if _WORD.match(name[0]) else ""
    right = r"\b" if _WORD.match(name[-1]) else ""
    return f"{left}{literal}{right}"


def candidate_segments(names: list[str]) -> str:
    """RE2 pattern matching whole segments that may hold a name or an address."""
    normal = sorted({n for n in names if n and not is_odd_name(n)})
    if len(normal) <= MAX_LITERAL_NAMES:
        name_parts = [_bounded(re2_escape(n), n) for n in normal]
    else:
        prefixes = sorted({n[:4] for n in normal})
        name_parts = [(r"\b" if _WORD.match(p[0]) else "") + re2_escape(p) for p in prefixes]
    cand = "|".join([*ADDRESS_SHAPES, *name_parts])
    return f"[{SEGMENT_CHARS}]*(?:{cand})[{SEGMENT_CHARS}]*"


def odd_names_pattern(names: list[str]) -> str | None:
    """RE2 pattern of the odd names (or None): rows holding one take the whole-text path."""
    odd = sorted({n for n in names if n and is_odd_name(n)})
    if not odd:
        return None
    return "|".join(re2_escape(n) for n in odd)


__all__ = ["SECRET_PREFILTER", "SEGMENT_CHARS", "SLOW_CHARS", "candidate_segments", "odd_names_pattern", "is_odd_name", "re2_escape"]
