"""Terminal formatting: bar gauges, sparklines, sizes. Numbers and times are formatted the
report's way (reports/common.py), absent values are ``---``."""

from __future__ import annotations

import math
from collections.abc import Sequence

from k10s_forensics.output import ABSENT
from k10s_forensics.reports.common import fmt_num, fmt_ts

SPARKS = "▁▂▃▄▅▆▇█"
BAR_FULL, BAR_EMPTY = "█", "░"


def _finite(v: float | None) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def bar(value: float | None, hi: float = 100.0, width: int = 8) -> str:
    """``████░░░░ 52%``: a gauge of value/hi; ``---`` when absent."""
    if not _finite(value):
        return ABSENT
    frac = min(max(float(value) / hi if hi else 0.0, 0.0), 1.0)
    full = int(round(frac * width))
    return BAR_FULL * full + BAR_EMPTY * (width - full) + f" {float(value):3.0f}%"


def spark(values: Sequence[float | None] | None, lo: float = 0.0, hi: float | None = None) -> str:
    """A unicode sparkline, one character per value (space where absent); ``---`` when none."""
    vals = [v for v in (values or []) if _finite(v)]
    if not vals:
        return ABSENT
    top = hi if hi is not None else max(vals)
    span = (top - lo) or 1.0
    out = []
    for v in values or []:
        if not _finite(v):
            out.append(" ")
            continue
        i = int((min(max(float(v), lo), top) - lo) / span * (len(SPARKS) - 1) + 0.5)
        out.append(SPARKS[i])
    return "".join(out)


def fmt_mib(mib: float | None) -> str:
    """``15.2GB`` (MiB / 1024, as the OOM narrative writes it); ``---`` when absent."""
    if not _finite(mib):
        return ABSENT
    return f"{float(mib) / 1024:.1f}GB" if abs(float(mib)) >= 1024 else f"{float(mib):.0f}MiB"


def short_uuid(uuid: str | None) -> str:
    return ABSENT if not uuid else (uuid[:12] + "…" if len(uuid) > 13 else uuid)


__all__ = ["bar", "spark", "fmt_mib", "fmt_num", "fmt_ts", "short_uuid", "ABSENT"]
