"""horovodrun's rank tag whose stream part a paste lost, put back (``log_paste``'s step).

horovodrun (gloo) writes ``[1]<stderr>:`` in front of each rank's output (``log_normalize`` reads
it). Pasted outside a code block, GitHub takes ``<stderr>`` for an HTML tag and drops it: what is
left, ``[1] Traceback …``, reads like logging's ``[%(process)d]`` pid. A log is read as bare rank tags
only when that cannot be pids: index 0 is among them (no process has pid 0), at least two indices,
each on at least two lines, and most text lines carry one; the tags are then written back as
``[1]<stdout>:`` (which stream it was is lost with the tag; the rank is not).
"""

from __future__ import annotations

import re
from collections import Counter

_BARE = re.compile(r"^\[(\d{1,5})\](?= |$)")
#: share of the text lines that must carry a bare tag
SHARE = 0.6
MIN_LINES = 2
MAX_RANK = 4095


def restore_bare_tags(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with horovodrun's stripped tags restored (see the module doc), and a note (None: left alone)."""
    tags = [m.group(1) if (m := _BARE.match(ln)) else None for ln in lines]
    counts = Counter(int(t) for t in tags if t is not None)
    text = sum(1 for ln in lines if ln.strip())
    if (0 not in counts or len(counts) < 2 or min(counts.values()) < MIN_LINES
            or sum(counts.values()) < SHARE * text or max(counts) > MAX_RANK):
        return lines, None
    out = [f"[{t}]<stdout>:{ln[len(t) + 2:]}" if t is not None else ln for ln, t in zip(lines, tags)]
    return out, f"horovodrun rank tags without their stream tag ({len(counts)} ranks)"


__all__ = ["restore_bare_tags"]
