"""Plotly figures of the report, built in Python from SQL-aggregated matrices.

Ranks × time data is drawn as heatmaps (one image per panel, whatever the rank count) and
many-point scatter as WebGL (``Scattergl``), so a 1024-rank job stays a few MB. Culprit
ranks get a red outline across every panel and a labelled annotation. Every piece of
cluster text that reaches a figure goes through ``plot_text`` (entity-escaped).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import plot_text

CRITICAL = "#c62828"
WARNING = "#b26a00"
INFO = "#1f5fa8"
INK = "#1d2329"
MUTED = "#6b7580"
GRID = "#e3e7eb"
FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
MAX_POINTS_SVG = 2000  # more markers than this go to WebGL


@dataclass
class Panel:
    """One heatmap panel: a ranks × bins matrix and how to color it."""

    title: str
    z: np.ndarray
    colorscale: str
    unit: str
    zmin: float | None = None
    zmax: float | None = None
    digits: int = 0


def base_layout(height: int, **extra) -> dict:
    """Layout shared by every figure: system fonts, quiet grid, no plotly branding."""
    layout = dict(
        height=height,
        margin=dict(l=60, r=20, t=34, b=40),
        font=dict(family=FONT, size=11, color=INK),
        paper_bgcolor="white",
        plot_bgcolor="white",
        hoverlabel=dict(font=dict(family=FONT, size=11)),
        showlegend=False,
    )
    layout.update(extra)
    return layout


def heatmap_height(rows: int) -> int:
    """Pixel height for a ranks heatmap: readable for 8 ranks, bounded for 4096."""
    return int(min(760, max(240, 90 + rows * 9)))


def rank_heatmaps(rows: list[int], times: list[str], panels: list[Panel], marks: dict[int, str], row_label: str = "rank",
                  ticktext: list[str] | None = None) -> go.Figure:
    """Small multiples: one heatmap per metric, ranks (or pods) as rows, time as columns.

    Args:
        rows: y value of each row (the rank number, or a row index when ``ticktext`` names rows).
        times: ISO text of each bin start.
        panels: metric matrices of shape (len(rows), len(times)).
        marks: y value -> culprit label (plotly text, already escaped); outlined in red in
            every panel and labelled on the right.
        row_label: word for a row in hover text.
        ticktext: labels of the rows (escaped), when rows are indexes.
    """
    n = len(panels)
    fig = make_subplots(rows=1, cols=n, shared_yaxes=True, horizontal_spacing=0.025 if n > 1 else 0.0,
                        subplot_titles=[p.title for p in panels])
    y = np.asarray(rows, dtype=np.int32)
    names = None
    if ticktext is not None and len(rows) * len(times) <= 5_000:
        names = [[t] * len(times) for t in ticktext]
    who = "%{customdata}" if names is not None else f"{row_label} %{{y}}"
    for i, p in enumerate(panels, start=1):
        domain_w = 1.0 / n
        fig.add_trace(go.Heatmap(
            z=p.z.astype(np.float32), x=times, y=y, colorscale=p.colorscale, zmin=p.zmin, zmax=p.zmax, customdata=names,
            hovertemplate=f"{who}<br>%{{x}}<br>{p.title}: %{{z:.{p.digits}f}}{p.unit}<extra></extra>",
            colorbar=dict(orientation="h", x=(i - 0.5) * domain_w, xanchor="center", y=-0.04, yanchor="top",
                          len=domain_w * 0.85, thickness=8, tickfont=dict(size=9)),
        ), row=1, col=i)
        fig.update_xaxes(showticklabels=False, row=1, col=i)
    shown = set(rows)
    for i in range(1, n + 1):
        _outline(fig, marks, shown, i)
    _label(fig, marks, shown)
    fig.update_yaxes(autorange="reversed", title_text=row_label, row=1, col=1)
    if ticktext is not None:
        step = max(1, len(rows) // 40)
        ticks = sorted(set(range(0, len(rows), step)) | {r for r in marks if r in shown})
        fig.update_yaxes(tickvals=[rows[i] for i in ticks if i < len(rows)], ticktext=[ticktext[i] for i in ticks if i < len(rows)], row=1, col=1)
    fig.update_layout(**base_layout(heatmap_height(len(rows)), margin=dict(l=70, r=150, t=34, b=60)))
    fig.update_annotations(font_size=11)
    return fig


def _axis_ref(i: int) -> str:
    return "" if i == 1 else str(i)


def _outline(fig: go.Figure, marks: dict[int, str], shown: set[int], col: int) -> None:
    for row in sorted(marks):
        if row in shown:
            fig.add_shape(type="rect", xref=f"x{_axis_ref(col)} domain", yref=f"y{_axis_ref(col)}", x0=0, x1=1,
                          y0=row - 0.5, y1=row + 0.5, line=dict(color=CRITICAL, width=2), fillcolor="rgba(0,0,0,0)",
                          name="culprit")


def _label(fig: go.Figure, marks: dict[int, str], shown: set[int]) -> None:
    for row in sorted(marks)[:8]:
        if row in shown:
            fig.add_annotation(xref="paper", yref="y", x=1.0, y=row, xanchor="left", showarrow=True, ax=24, ay=0,
                               arrowcolor=CRITICAL, arrowhead=2, text=marks[row], font=dict(color=CRITICAL, size=11),
                               align="left", bgcolor="white", name="culprit")


def culprit_marks(culprits: dict[int, list[str]], word: str = "rank") -> dict[int, str]:
    """Rank -> annotation text ("<b>rank 9</b> culprit<br>oom-cascade")."""
    return {r: f"<b>{word} {r}</b> culprit<br>{plot_text(', '.join(sorted(set(rules))))}" for r, rules in culprits.items()}


def _band(times: list[str], lo: np.ndarray, hi: np.ndarray) -> tuple[list, list]:
    """A closed polygon per run of finite values (None between runs), for fill='toself'."""
    xs: list = []
    ys: list = []
    ok = np.isfinite(lo) & np.isfinite(hi)
    i = 0
    while i < len(ok):
        if not ok[i]:
            i += 1
            continue
        j = i
        while j < len(ok) and ok[j]:
            j += 1
        seg = list(range(i, j))
        xs += [times[k] for k in seg] + [times[k] for k in reversed(seg)] + [None]
        ys += [float(hi[k]) for k in seg] + [float(lo[k]) for k in reversed(seg)] + [None]
        i = j
    return xs, ys


def culprit_lines(times: list[str], panels: list[Panel], ranks: list[int], culprits: dict[int, list[str]]) -> go.Figure:
    """Per metric: the job's median and p10–p90 band in grey, each culprit rank in red."""
    n = len(panels)
    titles = [f"{p.title} ({p.unit.strip()})" if p.unit.strip() else p.title for p in panels]
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.05, subplot_titles=titles)
    index = {r: i for i, r in enumerate(ranks)}
    for i, p in enumerate(panels, start=1):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo = np.nanpercentile(p.z, 10, axis=0) if p.z.size else np.array([])
            hi = np.nanpercentile(p.z, 90, axis=0) if p.z.size else np.array([])
            med = np.nanmedian(p.z, axis=0) if p.z.size else np.array([])
        bx, by = _band(times, lo, hi)
        fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", line=dict(width=0), fill="toself",
                                 fillcolor="rgba(107,117,128,0.18)", name="p10–p90 of ranks", hoverinfo="skip"), row=i, col=1)
        fig.add_trace(go.Scatter(x=times, y=med, mode="lines", line=dict(color=MUTED, width=1.5), name="median rank",
                                 hovertemplate=f"median %{{y:.{p.digits}f}}{p.unit}<extra></extra>"), row=i, col=1)
        for rank in sorted(culprits)[:4]:
            if rank in index:
                fig.add_trace(go.Scatter(x=times, y=p.z[index[rank]], mode="lines", line=dict(color=CRITICAL, width=2),
                                         name=f"rank {rank} (culprit)",
                                         hovertemplate=f"rank {rank} %{{y:.{p.digits}f}}{p.unit}<extra></extra>"), row=i, col=1)
        fig.update_yaxes(gridcolor=GRID, zeroline=False, tickfont=dict(size=9), row=i, col=1)
    fig.update_xaxes(gridcolor=GRID)
    fig.update_layout(**base_layout(90 + 110 * n, margin=dict(l=60, r=20, t=30, b=30)))
    fig.update_annotations(font_size=11)
    return fig


def scatter_cls(points: int):
    """``go.Scattergl`` for many points, SVG ``go.Scatter`` otherwise (prints crisper)."""
    return go.Scattergl if points > MAX_POINTS_SVG else go.Scatter


__all__ = ["Panel", "rank_heatmaps", "culprit_lines", "culprit_marks", "base_layout", "heatmap_height", "scatter_cls",
           "CRITICAL", "WARNING", "INFO", "MUTED", "GRID", "FONT", "INK"]
