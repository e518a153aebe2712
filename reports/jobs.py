"""Jobs: per training job, ranks as rows — GPU heatmaps, culprit vs the rest, network.

Per job: small-multiple heatmaps (ranks × time) of tensor/SM activity, power, memory, SM
clock and temperature, where a straggler is one odd row; the culprit ranks outlined in
red; the culprit's lines against the job's median and p10–p90 band; the per-pod TCP RTT,
min RTT and retransmits; and a table of ranks (culprits and the most deviant first) with
sparklines. All aggregation and downsampling happens in reports/sql/job_*.sql.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from k10s_forensics.analyze.node_unknown import nodes_count, shown
from k10s_forensics.store.bundle import Bundle

from . import matrix
from .common import Absent, Plot, anchor, count, figure_json, fmt_num, query, query_table
from .findings import culprit_ranks
from .common import rank_span
from .plots import Panel, culprit_lines, culprit_marks, heatmap_height, rank_heatmaps

MAX_JOBS = 12
MAX_CELLS_PER_PANEL = 60_000
MIN_BINS = 20
TABLE_ROWS = 24
THERMAL_BITS, POWER_BITS, HW_BITS = 0x20 | 0x40, 0x4 | 0x80, 0x8
GPU_COLUMNS = ["tensor_active", "sm_active", "util_pct", "power_w", "fb_used_mib", "fb_total_mib", "sm_clock_mhz", "temp_c", "throttle_reasons"]


@dataclass
class RankRow:
    """One rank in the job's rank table."""

    rank: int = field(metadata={"help": "global rank"})
    culprit: str = field(metadata={"help": "rules naming this rank, '' when none"})
    pod: str = field(metadata={"help": "pod (latest incarnation)"})
    node: str = field(metadata={"help": "node"})
    gpu: str = field(metadata={"help": "GPU UUID (shortened) or ---"})
    activity: str = field(metadata={"help": "mean tensor/SM activity %"})
    power: str = field(metadata={"help": "mean power W"})
    memory: str = field(metadata={"help": "peak memory %"})
    clock: str = field(metadata={"help": "mean SM clock MHz"})
    temp: str = field(metadata={"help": "peak temperature C"})
    throttle: str = field(metadata={"help": "throttle reasons seen"})
    rtt: str = field(metadata={"help": "mean RTT ms of the pod's sockets"})
    minrtt: str = field(metadata={"help": "min RTT ms"})
    retrans: str = field(metadata={"help": "segments retransmitted"})
    events: str = field(metadata={"help": "incident log lines and restarts"})
    spark: str = field(metadata={"help": "SVG polyline points of activity over time"})


@dataclass
class JobView:
    """One training job."""

    anchor: str = field(metadata={"help": "HTML id; plots are <anchor>-gpu, -lines, -net"})
    key: str = field(metadata={"help": "namespace/job"})
    kind: str = field(metadata={"help": "job kind"})
    state: str | Absent = field(metadata={"help": "job state"})
    summary: str = field(metadata={"help": "world size, ranks, nodes, incarnations"})
    culprits: str = field(metadata={"help": "culprit ranks named by findings"})
    gpu_plot: Plot | Absent = field(metadata={"help": "ranks × time heatmaps"})
    lines_plot: Plot | None = field(metadata={"help": "culprit vs median lines (only with culprits)"})
    net_plot: Plot | Absent = field(metadata={"help": "per-pod network heatmaps"})
    missing: list[str] = field(metadata={"help": "metrics absent from the samples, with why"})
    rank_rows: list[RankRow] = field(metadata={"help": "culprits and most deviant ranks"})
    rows_hidden: int = field(metadata={"help": "ranks not listed in the table"})


@dataclass
class JobsContext:
    """The jobs section."""

    jobs: list[JobView] = field(metadata={"help": "jobs with findings first, then by size"})
    absent: Absent | None = field(metadata={"help": "why there is no job, when there is none"})
    omitted: list[str] = field(metadata={"help": "jobs left out (more than MAX_JOBS)"})


ACTIVITY_TITLES = ("Tensor active", "SM active", "GPU util")


def _activity_panel(m: dict[str, np.ndarray]) -> tuple[Panel | None, str]:
    for col, title, scale in (("tensor_active", "Tensor active", 100.0), ("sm_active", "SM active", 100.0), ("util_pct", "GPU util", 1.0)):
        if matrix.has_values(m[col]):
            return Panel(title, m[col] * scale, "Viridis", " %", 0, 100), col
    return None, ""


def gpu_panels(m: dict[str, np.ndarray]) -> tuple[list[Panel], list[str]]:
    """The metric panels present in ``m`` and the names of the absent ones."""
    panels, missing = [], []
    act, _ = _activity_panel(m)
    (panels.append(act) if act else missing.append("tensor/SM activity and util"))
    if matrix.has_values(m["power_w"]):
        panels.append(Panel("Power", m["power_w"], "Cividis", " W", 0, None))
    else:
        missing.append("power")
    if matrix.has_values(m["fb_used_mib"]) and matrix.has_values(m["fb_total_mib"]):
        with np.errstate(all="ignore"):
            panels.append(Panel("Memory used", m["fb_used_mib"] / m["fb_total_mib"] * 100, "Blues", " %", 0, 100))
    elif matrix.has_values(m["fb_used_mib"]):
        panels.append(Panel("Memory used", m["fb_used_mib"] / 1024, "Blues", " GiB", 0, None, 1))
    else:
        missing.append("memory")
    for col, title, scale, unit in (("sm_clock_mhz", "SM clock", "Magma", " MHz"), ("temp_c", "Temperature", "YlOrRd", " °C")):
        (panels.append(Panel(title, m[col], scale, unit)) if matrix.has_values(m[col]) else missing.append(title.lower()))
    return panels, missing


def _throttle(bits: float) -> str:
    if not np.isfinite(bits) or int(bits) == 0:
        return ""
    b = int(bits)
    return ", ".join(w for w, mask in (("thermal", THERMAL_BITS), ("power", POWER_BITS), ("hw-slowdown", HW_BITS)) if b & mask)


def _throttle_bits(m: np.ndarray) -> np.ndarray:
    out = np.zeros(m.shape[0])
    for i, row in enumerate(m):
        vals = row[np.isfinite(row)].astype(np.int64)
        out[i] = float(np.bitwise_or.reduce(vals)) if vals.size else 0.0
    return out


def _pick_rows(ranks: list[int], activity: np.ndarray, culprits: dict[int, list[str]]) -> list[int]:
    """Culprit ranks, then the ranks furthest from the job median activity."""
    chosen = [r for r in ranks if r in culprits]
    with np.errstate(all="ignore"):
        med = np.nanmedian(activity) if np.isfinite(activity).any() else np.nan
    dev = np.abs(activity - med) if np.isfinite(med) else np.zeros(len(ranks))
    order = np.argsort(-np.nan_to_num(dev, nan=-1.0), kind="stable")
    for i in order:
        if len(chosen) >= TABLE_ROWS:
            break
        if ranks[i] not in culprits:
            chosen.append(ranks[i])
    return sorted(chosen, key=lambda r: (r not in culprits, r))


def _net(con, key: str, ranks: list[int], times_t0, bin_s, culprits) -> tuple[Plot | Absent, dict[int, tuple[float, float, float]]]:
    table = query_table(con, "job_net_bins", job_key=key, t0=times_t0, bin_s=bin_s, max_bins=120)
    if table is None or table.num_rows == 0:
        why = "no ss samples in this bundle" if count(con, "tcp_samples") == 0 else "no ss samples from this job's pods"
        return Absent(why), {}
    pods = sorted({first: tuple(rk) for first, rk in zip(table.column("first_rank").to_pylist(), table.column("ranks").to_pylist())}.items())
    keys = [p[0] for p in pods]
    m, times = matrix.pivot(table, "first_rank", keys, ["rtt_ms", "minrtt_ms", "retrans"])
    panels = [Panel("RTT", m["rtt_ms"], "Oranges", " ms", 0, None, 2), Panel("Min RTT", m["minrtt_ms"], "Oranges", " ms", 0, None, 2),
              Panel("Retransmits", m["retrans"], "Reds", "", 0, max(1.0, float(matrix.row_max(m["retrans"]).max(initial=0.0)) if matrix.has_values(m["retrans"]) else 1.0))]
    marks = {}
    for i, (_, rk) in enumerate(pods):
        bad = sorted(r for r in rk if r in culprits)
        if bad:
            marks[i] = culprit_marks({bad[0]: culprits[bad[0]]}, "pod of rank")[bad[0]]
    labels = [f"ranks {rank_span(list(rk))}" if len(rk) > 1 else f"rank {rk[0]}" for _, rk in pods]
    fig = rank_heatmaps(list(range(len(pods))), times, panels, marks, row_label="pod", ticktext=labels)
    per_rank = {}
    rtt, minrtt, retr = matrix.row_mean(m["rtt_ms"]), matrix.row_min(m["minrtt_ms"]), np.nansum(m["retrans"], axis=1)
    for i, (_, rk) in enumerate(pods):
        for r in rk:
            per_rank[r] = (rtt[i], minrtt[i], retr[i])
    plot = Plot(anchor("job", key) + "-net", "Network per pod (ss inside the pod)", figure_json(fig),
                "Rows are pods, labelled by their first rank; a pod's ranks share its sockets.", heatmap_height(len(keys)))
    return plot, per_rank


def job_view(con: duckdb.DuckDBPyConnection, job: dict[str, Any], culprits: dict[int, list[str]]) -> JobView:
    """Everything the report shows about one job."""
    key = job["job_key"]
    base = anchor("job", key)
    rank_info = {r["rank"]: r for r in query(con, "job_ranks", job_key=key)}
    ranks = sorted(rank_info)
    max_bins = int(min(120, max(MIN_BINS, MAX_CELLS_PER_PANEL // max(1, len(ranks)))))
    bins = query_table(con, "job_gpu_bins", job_key=key, max_bins=max_bins)
    m, times = matrix.pivot(bins, "rank", ranks, GPU_COLUMNS)
    panels, missing = gpu_panels(m) if times else ([], [])
    if panels:
        fig = rank_heatmaps(ranks, times, panels, culprit_marks(culprits))
        gpu_plot: Plot | Absent = Plot(base + "-gpu", "GPU activity per rank", figure_json(fig),
                                       f"Ranks as rows, {len(times)} time bins of {fmt_num(float(bins.column('bin_s')[0].as_py()), 0)} s.",
                                       heatmap_height(len(ranks)))
    else:
        why = "no GPU samples in this bundle" if count(con, "gpu_samples") == 0 else "no GPU samples match this job's ranks (GPU UUID unknown)"
        gpu_plot, missing = Absent(why), []
    lines = None
    if panels and any(r in culprits for r in ranks):
        lines = Plot(base + "-lines", "Culprit against the rest of the job", figure_json(culprit_lines(times, panels, ranks, culprits)),
                     "Grey: median rank and the p10–p90 band of all ranks. Red: culprit ranks.", 90 + 110 * len(panels))
    t0 = bins.column("t0")[0].as_py() if times else None
    bin_s = float(bins.column("bin_s")[0].as_py()) if times else None
    net_plot, net = _net(con, key, ranks, t0, bin_s, culprits)
    events = {r["rank"]: r for r in query(con, "job_rank_events", job_key=key)}
    rows = _rank_rows(ranks, rank_info, m, panels, net, events, culprits)
    names = ", ".join(str(r) for r in sorted(culprits)[:12]) if culprits else ""
    return JobView(
        anchor=base, key=key, kind=job.get("kind") or "job", state=job.get("state") or Absent("state not reported by the job object"),
        summary=(f"world size {fmt_num(job.get('world_size'))} · {len(ranks)} ranks seen on {nodes_count(job.get('nodes_n'), job.get('unplaced_n'), job.get('node_unknown'))}"
                 f" · {job.get('incarnations')} pod incarnations"),
        culprits=names, gpu_plot=gpu_plot, lines_plot=lines, net_plot=net_plot, missing=missing,
        rank_rows=rows, rows_hidden=max(0, len(ranks) - len(rows)),
    )


def _rank_rows(ranks, info, m, panels, net, events, culprits) -> list[RankRow]:
    if not ranks:
        return []
    act = panels[0].z if panels and panels[0].title in ACTIVITY_TITLES else np.full((len(ranks), 1), np.nan)
    act_mean = matrix.row_mean(act)
    power, clock = matrix.row_mean(m["power_w"]), matrix.row_mean(m["sm_clock_mhz"])
    temp = matrix.row_max(m["temp_c"])
    with np.errstate(all="ignore"):
        mem = matrix.row_max(m["fb_used_mib"] / m["fb_total_mib"] * 100)
    throttle = _throttle_bits(m["throttle_reasons"]) if m["throttle_reasons"].size else np.zeros(len(ranks))
    index = {r: i for i, r in enumerate(ranks)}
    out = []
    for r in _pick_rows(ranks, act_mean, culprits):
        i, inf, ev = index[r], info[r], events.get(r, {})
        rtt, minrtt, retr = net.get(r, (np.nan, np.nan, np.nan))
        ev_text = " · ".join(f"{k} {ev[k]}" for k in ("oom", "nccl", "exits", "restarts") if ev.get(k))
        out.append(RankRow(
            rank=r, culprit=", ".join(sorted(set(culprits.get(r, [])))), pod=inf["pod"] or "---", node=inf["node"] or shown(inf.get("node_unknown")),
            gpu=(inf["gpu_uuid"][:12] + "…") if inf.get("gpu_uuid") else "GPU ---",
            activity=fmt_num(act_mean[i]), power=fmt_num(power[i], 0), memory=fmt_num(mem[i]), clock=fmt_num(clock[i], 0),
            temp=fmt_num(temp[i], 0), throttle=_throttle(throttle[i]) or "", rtt=fmt_num(rtt, 2), minrtt=fmt_num(minrtt, 2),
            retrans=fmt_num(int(retr)) if np.isfinite(retr) else "---", events=ev_text,
            spark=matrix.sparkline(act[i], 0, 100) if act.shape[1] > 1 else "",
        ))
    return out


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> JobsContext:
    """The jobs context: the jobs with culprits first, then the biggest, up to MAX_JOBS."""
    jobs = query(con, "job_list")
    if not jobs:
        why = "no ranks of a training job in this bundle" + (" (no pods captured)" if count(con, "pods") == 0 else "")
        return JobsContext([], Absent(why), [])
    by_job = culprit_ranks(analysis)
    jobs.sort(key=lambda j: (j["job_key"] not in by_job, -(j["ranks_n"] or 0), j["job_key"]))
    shown, omitted = jobs[:MAX_JOBS], [j["job_key"] for j in jobs[MAX_JOBS:]]
    return JobsContext([job_view(con, j, by_job.get(j["job_key"], {})) for j in shown], None, omitted)
