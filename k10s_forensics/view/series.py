"""Long (key, bin, metric...) query rows turned into per-key metric series, for the
sparklines of the Jobs and node views."""

from __future__ import annotations

from typing import Any

#: Metric columns turned into per-row series for sparklines, in display order.
SERIES_COLUMNS = ("activity_pct", "tensor_active", "sm_active", "util_pct", "power_w", "fb_used_pct", "fb_used_mib",
                  "fb_total_mib", "temp_c", "sm_clock_mhz", "xid")


def series(rows: list[dict[str, Any]], key: str) -> dict[Any, dict[str, list[float | None]]]:
    """Long (key, bin, metrics...) rows → per key, per metric a list over bins (None where absent)."""
    if not rows:
        return {}
    bins = max(r["bin"] for r in rows) + 1
    out: dict[Any, dict[str, list[float | None]]] = {}
    for r in rows:
        per = out.setdefault(r[key], {})
        for col in SERIES_COLUMNS:
            if col in r:
                per.setdefault(f"{col}_series", [None] * bins)[r["bin"]] = r[col]
    for per in out.values():
        if "activity_pct_series" not in per and "tensor_active_series" in per:
            per["activity_pct_series"] = [_activity(t, s, u) for t, s, u in zip(per["tensor_active_series"], per["sm_active_series"], per["util_pct_series"])]
        if "fb_used_pct_series" not in per and "fb_used_mib_series" in per:
            per["fb_used_pct_series"] = [u / t * 100 if u is not None and t else None for u, t in zip(per["fb_used_mib_series"], per["fb_total_mib_series"])]
    return out


def _activity(tensor: float | None, sm: float | None, util: float | None) -> float | None:
    ratio = tensor if tensor is not None else sm
    return ratio * 100 if ratio is not None else util


__all__ = ["SERIES_COLUMNS", "series"]
