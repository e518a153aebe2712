"""Small text helpers shared by the rules' narrative steps."""

from __future__ import annotations

from typing import Iterable


def ranks_text(ranks: Iterable[int], limit: int = 6) -> str:
    """``Rank 9`` / ``Ranks 1, 2, 3`` / ``Ranks 0, 1, ... (+12 more)``; ``A rank`` when empty."""
    items = list(ranks)
    if not items:
        return "A rank"
    if len(items) == 1:
        return f"Rank {items[0]}"
    shown = ", ".join(str(r) for r in items[:limit])
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return f"Ranks {shown}{more}"


def known(value: object, why: str) -> str:
    """``value`` as text, or ``---`` and why it is absent (``--- (not logged)``): an absent field is never "None"."""
    return f"--- ({why})" if value is None or value == "" else str(value)


def mib_text(mib: float | None) -> str:
    """MiB as ``15.2GB`` (GiB, one decimal) or ``---``."""
    if mib is None:
        return "---"
    return f"{mib / 1024:.1f}GB"


def duration_text(ms: float | None) -> str:
    """Milliseconds as ``10m`` / ``45s`` / ``1h30m``."""
    if ms is None:
        return "---"
    s = int(round(ms / 1000))
    if s >= 3600:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    if s >= 60 and s % 60 == 0:
        return f"{s // 60}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


#: a rank that lost its DataLoader worker mid-handover, the worker's death named before by the rank's own process
#: (queries/_failure_line.sql's loader_said, session 70): by the signal that process named
LOADER_LOST_WHAT = {
    "sigbus": "lost a DataLoader worker to SIGBUS (shared memory, /dev/shm, too small most often) and failed on it",
    "segfault": "lost a DataLoader worker to a segmentation fault in the worker and failed on it",
    "sigfpe": "lost a DataLoader worker to SIGFPE in the worker and failed on it",
}
