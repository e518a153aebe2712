"""Long (row, bin, value...) query results → dense matrices for heatmaps and sparklines."""

from __future__ import annotations

import datetime as dt
import warnings

import numpy as np
import pyarrow as pa


def pivot(table: pa.Table, row_key: str, keys: list, columns: list[str]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Matrices (len(keys) × bins) per column, NaN where absent, and the ISO bin starts.

    Args:
        table: query result with ``row_key``, ``bin``, ``t0``, ``bin_s`` and ``columns``.
        row_key: the column naming the row (``rank``, ``first_rank``, ``node``).
        keys: row values in display order.
        columns: value columns to pivot.
    """
    if table is None or table.num_rows == 0:
        return {c: np.full((len(keys), 0), np.nan) for c in columns}, []
    bi = table.column("bin").to_numpy(zero_copy_only=False).astype(np.int64)
    bins = int(bi.max()) + 1
    index = {k: i for i, k in enumerate(keys)}
    ri = np.array([index.get(k, -1) for k in table.column(row_key).to_pylist()], dtype=np.int64)
    keep = ri >= 0
    out = {}
    for c in columns:
        m = np.full((len(keys), bins), np.nan, dtype=np.float64)
        values = table.column(c).cast(pa.float64()).to_numpy(zero_copy_only=False)
        m[ri[keep], bi[keep]] = values[keep]
        out[c] = m
    t0: dt.datetime = table.column("t0")[0].as_py()
    step = float(table.column("bin_s")[0].as_py())
    times = [(t0 + dt.timedelta(seconds=step * b)).strftime("%Y-%m-%dT%H:%M:%SZ") for b in range(bins)]
    return out, times


def has_values(m: np.ndarray) -> bool:
    """True when the matrix holds at least one number."""
    return bool(m.size) and bool(np.isfinite(m).any())


def row_mean(m: np.ndarray) -> np.ndarray:
    """Mean of each row over its finite values (NaN for an empty row)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.where(np.isfinite(m), m, np.nan), axis=1) if m.size else np.full(m.shape[0], np.nan)


def row_max(m: np.ndarray) -> np.ndarray:
    """Max of each row over its finite values (NaN for an empty row)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(np.where(np.isfinite(m), m, np.nan), axis=1) if m.size else np.full(m.shape[0], np.nan)


def row_min(m: np.ndarray) -> np.ndarray:
    """Min of each row over its finite values (NaN for an empty row)."""
    return -row_max(-m)


def sparkline(values: np.ndarray, lo: float, hi: float, width: int = 100, height: int = 20, points: int = 60) -> str:
    """SVG polyline points (numbers only) for one row, downsampled to ``points``."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0 or not np.isfinite(v).any():
        return ""
    if v.size > points:
        edges = np.linspace(0, v.size, points + 1).astype(int)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            v = np.array([np.nanmean(v[a:b]) if b > a else np.nan for a, b in zip(edges[:-1], edges[1:])])
    span = (hi - lo) or 1.0
    xs = np.linspace(0, width, v.size) if v.size > 1 else np.array([0.0])
    parts = []
    for x, y in zip(xs, v):
        if np.isfinite(y):
            yy = height - (min(max(y, lo), hi) - lo) / span * height
            parts.append(f"{x:.1f},{yy:.1f}")
    return " ".join(parts)


__all__ = ["pivot", "has_values", "row_mean", "row_max", "row_min", "sparkline"]
