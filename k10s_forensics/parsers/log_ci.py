"""A CI job's raw log, as the program's lines: GitLab's job log with timestamps (``FF_TIMESTAMPS``, GitLab 17.1+,
runner 17.0+), downloaded raw.

Every line is ``<RFC 3339 UTC time> <stream><O|E><space|+><text>``: the stream two hex digits (the runner's own lines
``00``, the script's ``01``…), ``O``/``E`` stdout or stderr, ``+`` a line the runner flushed in parts (its text goes on
the line before it). The runner's ``section_start:<epoch>:<name>`` / ``section_end:…`` markers (each ended by ``\\r``
and ``ESC[0K``) fold the log in its web view and are no output of the job. ``ci_text`` gives the lines back as
``<time> <text>`` (the time kept: it orders the lines, as a GitHub Actions log's does), the marker taken off, or None
for any other text. ``k10s import-logs`` reads it before anything else (logimport.py).
"""

from __future__ import annotations

import re

_GITLAB = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z) [0-9a-f]{2}[OE]([ +])(.*)$")
_SECTION = re.compile(r"section_(?:start|end):\d{1,12}:[A-Za-z0-9_.-]{1,200}(?:\[[^\]\r\n]{0,200}\])?\r?(?:\x1b\[0K)?")
_ERASE = re.compile(r"\x1b\[0?K")
#: at least this share of a text's non-blank lines carry the runner's prefix for it to be a GitLab job log
SHARE = 0.6


def ci_text(text: str) -> str | None:
    """``text`` as the job's lines (see the module doc), or None when it is no GitLab job log with timestamps."""
    if " 00O " not in text[:4096] and " 01O " not in text[:4096] and " 01E " not in text[:4096]:
        return None
    lines = text.split("\n")
    found = [_GITLAB.match(line) for line in lines]
    filled = [line for line in lines if line.strip()]
    if not filled or sum(1 for m in found if m) < SHARE * len(filled):
        return None
    out: list[list] = []  # [time, text, whether a section marker was taken off it]
    for line, m in zip(lines, found):
        if not m:
            out.append([None, line, False])
            continue
        body = _SECTION.sub("", m.group(3))
        if m.group(2) == "+" and out:
            out[-1][1] += body
        else:
            out.append([m.group(1), body, body != m.group(3)])
    # a marker's line with nothing after it is no line of the job; a line the job left empty is kept
    return "\n".join(b if t is None else f"{t} {b}" for t, b, marker in out if not (marker and not _ERASE.sub("", b).strip()))


__all__ = ["ci_text"]
