"""Timeline: the incident's events per rank on one time axis, so the cascade reads left to
right (the OOM on rank 9, then the watchdog timeouts on every other rank, then the
restart). Lanes are ranks when the event can be tied to one, else pods, nodes, objects.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import duckdb
import plotly.graph_objects as go

from k10s_forensics.store.bundle import Bundle, parse_iso

from .common import Absent, Plot, count, figure_json, plot_text, query
from .findings import culprit_ranks
from .plots import CRITICAL, GRID, MUTED, base_layout, scatter_cls

MAX_EVENTS = 6000
MAX_TICKS = 48
#: category -> (color, marker symbol, priority when events must be dropped)
CATEGORIES: dict[str, tuple[str, str, int]] = {
    "OOM": ("#c62828", "x", 0),
    "Xid / GPU": ("#6a1b9a", "star", 1),
    "NCCL / watchdog": ("#e65100", "diamond", 3),
    "Exit / restart": ("#37474f", "triangle-down", 2),
    "Eviction / preemption": ("#ad1457", "square", 2),
    "Scheduling": ("#1f5fa8", "circle-open", 4),
    "Other warning": ("#8d6e63", "circle", 5),
}


@dataclass
class TimelineContext:
    """The timeline section."""

    plot: Plot | Absent = field(metadata={"help": "events per lane over time"})
    counts: list[tuple[str, int]] = field(metadata={"help": "(category, events) shown"})
    dropped: int = field(metadata={"help": "events left out to keep the file small"})
    lanes: int = field(metadata={"help": "lanes (ranks, pods, nodes, objects) with events"})


def _lane(e: dict[str, Any], multi_job: bool) -> tuple[tuple, str]:
    """Sort key and label of an event's lane."""
    if e["lane_kind"] == "rank":
        label = f"{e['job_key']} rank {e['rank']}" if multi_job else f"rank {e['rank']}"
        return (0, e["job_key"] or "", e["rank"], ""), label
    order = {"pod": 1, "node": 2, "object": 3}.get(e["lane_kind"], 4)
    return (order, "", 0, e["lane_name"] or ""), f"{e['lane_kind']} {e['lane_name']}"


def _keep(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """At most MAX_EVENTS, dropping the least telling categories' latest events first."""
    if len(events) <= MAX_EVENTS:
        return events, 0
    ranked = sorted(events, key=lambda e: (CATEGORIES.get(e["category"], ("", "", 9))[2], e["ts"]))
    kept = sorted(ranked[:MAX_EVENTS], key=lambda e: e["ts"])
    return kept, len(events) - MAX_EVENTS


def figure(events: list[dict[str, Any]], culprits: dict[str, dict[int, list[str]]], markers: list[tuple[str, str]]) -> tuple[go.Figure, int]:
    """The timeline figure and its number of lanes."""
    multi_job = len({e["job_key"] for e in events if e["lane_kind"] == "rank"}) > 1
    lanes: dict[tuple, str] = {}
    for e in events:
        key, label = _lane(e, multi_job)
        e["_lane"] = key
        lanes.setdefault(key, label)
    order = sorted(lanes)
    y_of = {k: i for i, k in enumerate(order)}
    fig = go.Figure()
    for cat, (color, symbol, _) in CATEGORIES.items():
        pts = [e for e in events if e["category"] == cat]
        if not pts:
            continue
        trace = scatter_cls(len(events))
        fig.add_trace(trace(
            x=[e["ts"].strftime("%Y-%m-%dT%H:%M:%S.%fZ") for e in pts], y=[y_of[e["_lane"]] for e in pts], mode="markers", name=cat,
            marker=dict(color=color, symbol=symbol, size=9 if len(order) < 80 else 6, line=dict(width=1, color=color)),
            hovertext=[f"{plot_text(lanes[e['_lane']], 80)} · {plot_text(e['kind'], 40)}<br>{plot_text(e['text'], 200)}" for e in pts],
            hoverinfo="x+text",
        ))
    culprit_lanes = [(y_of[k], lanes[k]) for k in order if k[0] == 0 and k[2] in culprits.get(k[1], {})]
    for y, label in culprit_lanes:
        fig.add_shape(type="rect", xref="paper", x0=0, x1=1, y0=y - 0.5, y1=y + 0.5, line=dict(width=0),
                      fillcolor="rgba(198,40,40,0.12)", layer="below", name=f"culprit {label}")
    for y, label in culprit_lanes[:8]:
        fig.add_annotation(xref="paper", x=1.0, y=y, xanchor="left", showarrow=False, text=f"<b>{plot_text(label)}</b> culprit",
                           font=dict(color=CRITICAL, size=11), name=f"culprit {label}")
    for ts, label in markers:
        fig.add_vline(x=ts, line=dict(color=MUTED, width=1, dash="dot"))
        fig.add_annotation(x=ts, y=1.0, yref="paper", yanchor="bottom", xanchor="left", text=plot_text(label), showarrow=False,
                           font=dict(size=10, color=MUTED))
    ticks = _ticks(order, {y for y, _ in culprit_lanes})
    fig.update_yaxes(tickvals=ticks, ticktext=[plot_text(lanes[order[i]], 48) for i in ticks], autorange="reversed",
                     gridcolor=GRID, zeroline=False, range=[len(order) - 0.5, -0.5])
    fig.update_xaxes(gridcolor=GRID)
    height = int(min(900, max(260, 110 + 16 * len(order))))
    fig.update_layout(**base_layout(height, showlegend=True, margin=dict(l=170, r=130, t=40, b=80),
                                    legend=dict(orientation="h", yanchor="top", y=-60 / height, x=0, font=dict(size=11))))
    return fig, len(order)


def _ticks(order: list[tuple], culprit_ys: set[int]) -> list[int]:
    if len(order) <= MAX_TICKS:
        return list(range(len(order)))
    step = max(1, len(order) // MAX_TICKS)
    return sorted(set(range(0, len(order), step)) | culprit_ys)


def _finding_markers(analysis: dict[str, Any] | None) -> list[tuple[str, str]]:
    """Start of the critical findings: one dotted line per distinct minute, labelled."""
    by_minute: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    for i, f in enumerate((analysis or {}).get("findings") or []):
        started = parse_iso(str(f.get("started_at") or ""))
        if f.get("severity") == "critical" and started is not None:
            minute = started.strftime("%Y-%m-%dT%H:%M")
            first.setdefault(minute, started.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
            by_minute.setdefault(minute, []).append(f"{i + 1} {f.get('rule')}")  # escaped by plot_text below
    return [(first[m], "finding " + ", ".join(labels)) for m, labels in sorted(by_minute.items())[:4]]


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> TimelineContext:
    """The timeline context."""
    events = query(con, "timeline_events")
    if not events:
        sources = [t for t in ("log_events", "events", "containers") if count(con, t)]
        why = ("no incident events: no OOM, NCCL error, exit, eviction, scheduling failure or Xid in "
               + (", ".join(sources) if sources else "this bundle (no logs, events or container statuses captured)"))
        return TimelineContext(Absent(why), [], 0, 0)
    events, dropped = _keep(events)
    fig, lanes = figure(events, culprit_ranks(analysis), _finding_markers(analysis))
    counts = sorted(Counter(e["category"] for e in events).items(), key=lambda kv: CATEGORIES.get(kv[0], ("", "", 9))[2])
    caption = "Each row is a rank (or a pod, node or object when the event names no rank); culprit ranks are shaded red."
    return TimelineContext(Plot("timeline-plot", "Incident timeline", figure_json(fig), caption, int(fig.layout.height)), counts, dropped, lanes)
