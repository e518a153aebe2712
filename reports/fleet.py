"""Fleet: GPU nodes as rows, idle first (idle is the problem): amber when a node has idle
GPUs, red when they have been idle for more than 6 hours. Model, GPU count, allocation,
util/power/memory/temperature and the workloads on each node, plus a nodes × time
activity heatmap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import plotly.graph_objects as go

from k10s_forensics.store.bundle import Bundle

from . import matrix
from .common import Absent, Plot, count, figure_json, fmt_num, plot_text, query, query_table
from .plots import CRITICAL, base_layout, heatmap_height

RED_AFTER_HOURS = 6.0
MAX_ROWS = 400
MAX_HEATMAP_NODES = 2000
WORKLOADS_SHOWN = 3


@dataclass
class NodeRow:
    """One GPU node."""

    node: str = field(metadata={"help": "node name"})
    status: str = field(metadata={"help": "idle-red, idle-amber or '' (CSS class)"})
    status_text: str = field(metadata={"help": "idle GPUs and for how long, or 'busy'"})
    model: str = field(metadata={"help": "GPU model"})
    gpus: str = field(metadata={"help": "GPUs: capacity (allocatable when lower)"})
    allocated: str = field(metadata={"help": "GPUs requested by live pods / capacity"})
    util: str = field(metadata={"help": "mean GPU util %"})
    activity: str = field(metadata={"help": "mean tensor/SM activity %"})
    power: str = field(metadata={"help": "mean power W (of limit)"})
    memory: str = field(metadata={"help": "mean memory used %"})
    temp: str = field(metadata={"help": "mean / max temperature C"})
    workload: str = field(metadata={"help": "jobs or pods using its GPUs"})
    notes: str = field(metadata={"help": "not ready, cordoned, taints"})


@dataclass
class FleetContext:
    """The fleet section."""

    rows: list[NodeRow] = field(metadata={"help": "idle nodes first"})
    absent: Absent | None = field(metadata={"help": "why there are no GPU nodes, when there are none"})
    metrics_absent: Absent | None = field(metadata={"help": "why util/power/... are ---"})
    idle_nodes: int = field(metadata={"help": "nodes with idle GPUs"})
    idle_gpus: int = field(metadata={"help": "idle GPUs in total"})
    hidden: int = field(metadata={"help": "nodes not listed (more than MAX_ROWS)"})
    plot: Plot | Absent = field(metadata={"help": "nodes × time activity heatmap"})


def _status(r: dict[str, Any]) -> tuple[str, str]:
    if not r["idle_gpus"]:
        return "", "busy" if r["samples"] else "---"
    hours = r["idle_hours"] or 0.0
    bound = "≥ " if r["idle_lower_bound"] else ""
    alloc = f", {r['idle_allocated_gpus']} allocated" if r["idle_allocated_gpus"] else ""
    text = f"{r['idle_gpus']} idle{alloc} · {bound}{hours:.1f} h"
    return ("idle-red" if hours >= RED_AFTER_HOURS else "idle-amber"), text


def _row(r: dict[str, Any]) -> NodeRow:
    status, status_text = _status(r)
    cap, alloc_able = r["gpu_capacity"], r["gpu_allocatable"]
    gpus = fmt_num(cap if cap is not None else r["gpus_seen"])
    if cap is not None and alloc_able is not None and alloc_able < cap:
        gpus += f" ({alloc_able} allocatable)"
    total = cap if cap else r["gpus_seen"]
    workloads = sorted(r["workloads"] or [])
    notes = []
    if r["ready"] is False:
        notes.append("NotReady")
    if r["unschedulable"]:
        notes.append("cordoned")
    notes += [f"taint {t}" for t in (r["taints"] or [])[:3]]
    power = fmt_num(r["power_w"], 0)
    if r["power_limit_w"]:
        power += f" / {r['power_limit_w']:.0f}"
    return NodeRow(
        node=r["node"], status=status, status_text=status_text, model=r["model"] or "---", gpus=gpus,
        allocated=f"{r['allocated']} / {total}" if total else fmt_num(r["allocated"]),
        util=fmt_num(r["util_pct"]), activity=fmt_num(r["activity_pct"]), power=power, memory=fmt_num(r["fb_used_pct"]),
        temp=f"{fmt_num(r['temp_c'], 0)} / {fmt_num(r['temp_max_c'], 0)}",
        workload=", ".join(workloads[:WORKLOADS_SHOWN]) + (f" (+{len(workloads) - WORKLOADS_SHOWN})" if len(workloads) > WORKLOADS_SHOWN else ""),
        notes=", ".join(notes),
    )


def _plot(con: duckdb.DuckDBPyConnection, order: list[str], idle: dict[str, str]) -> Plot | Absent:
    if not order:
        return Absent("no GPU samples in this bundle")
    if len(order) > MAX_HEATMAP_NODES:
        return Absent(f"{len(order)} nodes: too many for one heatmap (limit {MAX_HEATMAP_NODES})")
    max_bins = int(min(120, max(30, 60_000 // len(order))))
    table = query_table(con, "fleet_activity", max_bins=max_bins)
    m, times = matrix.pivot(table, "node", order, ["activity_pct"])
    if not times:
        return Absent("no GPU samples in this bundle")
    y = np.arange(len(order))
    fig = go.Figure(go.Heatmap(z=m["activity_pct"].astype(np.float32), x=times, y=y, zmin=0, zmax=100, colorscale="Viridis",
                               colorbar=dict(title=dict(text="%", side="top"), thickness=10, len=0.8),
                               customdata=[[plot_text(n, 80)] * len(times) for n in order] if len(order) * len(times) <= 5_000 else None,
                               hovertemplate=("%{customdata}" if len(order) * len(times) <= 5_000 else "node #%{y}") + "<br>%{x}<br>activity %{z:.0f}%<extra></extra>"))
    step = max(1, len(order) // 40)
    ticks = sorted(set(range(0, len(order), step)) | {i for i, n in enumerate(order) if n in idle})
    fig.update_yaxes(tickvals=ticks, ticktext=[plot_text(order[i], 40) for i in ticks], autorange="reversed")
    for i, n in enumerate(order):
        if idle.get(n) == "idle-red":
            fig.add_shape(type="rect", xref="x domain", x0=0, x1=1, y0=i - 0.5, y1=i + 0.5, line=dict(color=CRITICAL, width=1.5))
    fig.update_layout(**base_layout(heatmap_height(len(order)), margin=dict(l=170, r=20, t=20, b=40)))
    return Plot("fleet-plot", "GPU activity per node", figure_json(fig),
                "Mean tensor/SM activity (else util) of each node's GPUs; idle nodes are the dark rows, red outline after 6 h idle.",
                heatmap_height(len(order)))


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> FleetContext:
    """The fleet context."""
    rows = query(con, "fleet_nodes")
    if not rows:
        why = "no GPU nodes: no node advertises nvidia.com/gpu and no GPU was sampled" if count(con, "nodes") else "no nodes in this bundle (nodes collector absent)"
        return FleetContext([], Absent(why), None, 0, 0, 0, Absent(why))
    views = [_row(r) for r in rows]
    metrics_absent = None if count(con, "gpu_samples") else Absent("no GPU samples (DCGM and nvidia-smi absent): utilisation, power, memory and temperature unknown")
    idle = {v.node: v.status for v in views if v.status}
    sampled = [r["node"] for r in rows if r["samples"]]
    return FleetContext(
        rows=views[:MAX_ROWS], absent=None, metrics_absent=metrics_absent,
        idle_nodes=sum(1 for r in rows if r["idle_gpus"]), idle_gpus=sum(r["idle_gpus"] for r in rows),
        hidden=max(0, len(views) - MAX_ROWS), plot=_plot(con, sampled, idle),
    )


__all__ = ["build", "FleetContext", "NodeRow"]
