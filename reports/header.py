"""Header: cluster, capture window, completeness and what was captured, source by source.

A source with no data shows ``---`` with the reason: the collector's own status and error
from the manifest when it says why, else "not captured".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import duckdb

from k10s_forensics.analyze.incidents import counted, incidents_of
from k10s_forensics.store.bundle import Bundle, parse_iso
from k10s_forensics.store.derived import record_of

from .common import Absent, fmt_duration, fmt_num, fmt_ts, query

STATUS_ORDER = ("failed", "partial", "skipped", "ok")


@dataclass
class SourceRow:
    """One kind of evidence and what the bundle holds of it."""

    name: str = field(metadata={"help": "kind of evidence, e.g. GPU metrics"})
    collectors: str = field(metadata={"help": "collectors that feed it"})
    status: str = field(metadata={"help": "ok, partial, failed, skipped, or absent (no collector ran)"})
    detail: str | Absent = field(metadata={"help": "what was captured, or Absent(reason)"})
    note: str = field(default="", metadata={"help": "collector errors when the status is not ok"})


@dataclass
class HeaderContext:
    """The report header."""

    title: str = field(metadata={"help": "page title"})
    cluster_context: str | Absent = field(metadata={"help": "kubeconfig context"})
    cluster_server: str | Absent = field(metadata={"help": "API server URL"})
    kubernetes_version: str | Absent = field(metadata={"help": "server version"})
    window_start: str | Absent = field(metadata={"help": "capture window start (UTC)"})
    window_end: str | Absent = field(metadata={"help": "capture window end (UTC)"})
    window_duration: str = field(metadata={"help": "capture window length"})
    complete: bool = field(metadata={"help": "false when the capture was interrupted"})
    created_at: str = field(metadata={"help": "when the bundle was written"})
    tool_version: str = field(metadata={"help": "k10s version that captured the bundle"})
    parser_version: str | Absent = field(metadata={"help": "parser version of tables/"})
    scope: str | Absent = field(metadata={"help": "namespaces and jobs in scope"})
    simulated: str = field(metadata={"help": "non-empty for simulator bundles: scenario and seed"})
    sources: list[SourceRow] = field(metadata={"help": "what was captured, source by source"})
    severity_counts: dict[str, int] = field(metadata={"help": "findings per severity"})
    incident_counts: dict[str, int] = field(default_factory=dict, metadata={"help": "incidents per severity (one incident: its root cause and symptoms)"})
    history: str = field(default="", metadata={"help": "Prometheus history window (UTC) when capture fetched one, else empty"})
    damage: list[str] = field(default_factory=list, metadata={"help": "damaged evidence files and what they cost"})


def _history(history: Any) -> str:
    if not isinstance(history, dict) or not history.get("start"):
        return ""
    start, end = parse_iso(history.get("start")), parse_iso(history.get("end"))
    return f"{fmt_ts(start)} → {fmt_ts(end)}" if start and end else ""


def _text(value: Any, reason: str) -> str | Absent:
    return str(value) if value not in (None, "", []) else Absent(reason)


def _detail_gpu(c: dict[str, Any]) -> str | None:
    if not c["gpu_samples_n"]:
        return None
    span = ""
    if c["gpu_samples_first"] is not None:
        span = f" · {fmt_ts(c['gpu_samples_first'])} → {fmt_ts(c['gpu_samples_last'])}"
    return (f"{fmt_num(c['gpu_samples_n'])} samples · {c['gpu_samples_gpus']} GPUs on {c['gpu_samples_nodes']} nodes"
            f" · {c['gpu_samples_sources']}{span}")


#: (name, collectors, detail(counts) -> text or None when the bundle holds none of it).
SOURCES: tuple[tuple[str, tuple[str, ...], Callable[[dict[str, Any]], str | None]], ...] = (
    ("Nodes", ("nodes",), lambda c: c["nodes_n"] and f"{c['nodes_n']} nodes · {c['nodes_gpu_n']} with GPUs · {fmt_num(c['nodes_gpu_capacity'])} GPUs"),
    ("Pods and containers", ("pods",), lambda c: c["pods_n"] and f"{fmt_num(c['pods_n'])} pod incarnations · {fmt_num(c['pods_gpu_n'])} request GPUs"),
    ("Training jobs and ranks", ("training-jobs", "pods"), lambda c: (c["jobs_n"] or c["ranks_n"]) and f"{c['jobs_n']} jobs ({c['jobs_kinds'] or 'kind unknown'}) · {fmt_num(c['ranks_n'])} ranks"),
    ("GPU ↔ rank mapping", ("visible-devices", "dcgm"), lambda c: c["ranks_gpu_n"] and f"{fmt_num(c['ranks_gpu_n'])} of {fmt_num(c['ranks_n'])} ranks mapped to a GPU UUID"),
    ("GPU metrics", ("dcgm", "nvidia-smi", "prometheus"), _detail_gpu),
    ("GPU inventory", ("nvidia-smi", "dcgm"), lambda c: c["gpus_n"] and f"{fmt_num(c['gpus_n'])} GPUs"),
    ("TCP sockets (ss)", ("ss",), lambda c: c["tcp_samples_n"] and f"{fmt_num(c['tcp_samples_n'])} socket samples from {c['tcp_samples_pods']} pods"),
    ("Container logs", ("logs",), lambda c: c["logs_n"] and f"{fmt_num(c['logs_n'])} logs · {fmt_num(c['log_events_n'])} recognised lines" + (f" · {c['logs_error_n']} could not be fetched" if c["logs_error_n"] else "")),
    ("Kernel log (dmesg)", ("dmesg",), lambda c: (c["dmesg_n"] - c["dmesg_error_n"]) > 0 and f"{c['dmesg_n'] - c['dmesg_error_n']} nodes" + (f" · {c['dmesg_error_n']} failed" if c["dmesg_error_n"] else "")),
    ("Kubernetes events", ("events",), lambda c: c["events_n"] and f"{fmt_num(c['events_n'])} events · {fmt_num(c['events_warning_n'])} warnings"),
    ("Kueue", ("kueue",), lambda c: (c["kueue_cq_n"] or c["kueue_lq_n"] or c["kueue_workloads_n"]) and f"{c['kueue_cq_n']} ClusterQueues · {c['kueue_lq_n']} LocalQueues · {c['kueue_workloads_n']} workloads"),
)


def _collector_state(manifest: dict[str, Any], names: tuple[str, ...]) -> tuple[str, str]:
    """Worst status of the collectors ``names`` and their first errors; ("absent", "") if none ran."""
    runs = [c for c in manifest.get("collectors") or [] if isinstance(c, dict) and c.get("name") in names]
    if not runs:
        return "absent", ""
    statuses = [str(c.get("status")) for c in runs]
    worst = min(statuses, key=lambda s: STATUS_ORDER.index(s) if s in STATUS_ORDER else 0)
    errors = [f"{c.get('name')}: {e}" for c in runs if c.get("status") != "ok" for e in (c.get("errors") or [])[:2]]
    return worst, "; ".join(errors)[:400]


def source_rows(counts: dict[str, Any], manifest: dict[str, Any]) -> list[SourceRow]:
    """Per source: what was captured, or ``Absent`` with the collector's reason."""
    rows = []
    for name, collectors, detail_of in SOURCES:
        status, errors = _collector_state(manifest, collectors)
        detail = detail_of(counts) or None
        if detail:
            ran_ok = any(c.get("name") in collectors and c.get("status") == "ok" for c in manifest.get("collectors") or [] if isinstance(c, dict))
            shown = "ok" if ran_ok or status == "absent" else status
            rows.append(SourceRow(name, ", ".join(collectors), shown, detail, errors if status not in ("ok", "absent") else ""))
            continue
        if status == "absent":
            reason = f"not captured: no {' / '.join(collectors)} collector ran"
        elif errors:
            reason = f"collector {status}: {errors}"
        else:
            reason = f"collector {status}, but the bundle holds none"
        rows.append(SourceRow(name, ", ".join(collectors), status, Absent(reason)))
    return rows


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> HeaderContext:
    """The header context of ``bundle``."""
    m = bundle.manifest
    cluster = m.get("cluster") or {}
    window = m.get("window") or {}
    start, end = parse_iso(window.get("start")), parse_iso(window.get("end"))
    scope = m.get("scope") or {}
    scope_text = " · ".join(
        f"{label}: {', '.join(map(str, values))}" for label, values in (("namespaces", scope.get("namespaces")), ("jobs", scope.get("jobs"))) if values
    )
    sim = m.get("simulated")
    simulated = ""
    if sim:
        simulated = f"scenario {sim.get('scenario')}, seed {sim.get('seed')}" if isinstance(sim, dict) else str(sim)
    counts = query(con, "header_counts")[0]
    severity = {s: 0 for s in ("critical", "warning", "info")}
    for f in (analysis or {}).get("findings") or []:
        if f.get("severity") in severity:
            severity[f["severity"]] += 1
    incidents = {s: 0 for s in ("critical", "warning", "info")}
    for inc in counted(incidents_of(analysis)) if analysis and isinstance(analysis.get("findings"), list) else []:
        if inc.get("severity") in incidents:
            incidents[inc["severity"]] += 1
    context = cluster.get("context")
    return HeaderContext(
        title=f"k10s postmortem — {context}" if context else "k10s postmortem",
        cluster_context=_text(context, "not recorded in the manifest"),
        cluster_server=_text(cluster.get("server"), "not recorded in the manifest"),
        kubernetes_version=_text(cluster.get("kubernetes_version"), "not recorded in the manifest"),
        window_start=fmt_ts(start) if start else Absent("capture window start not recorded"),
        window_end=fmt_ts(end) if end else Absent("capture window end not recorded"),
        window_duration=fmt_duration((end - start).total_seconds()) if start and end else "---",
        complete=bool(m.get("complete", True)),
        created_at=fmt_ts(m.get("created_at")),
        tool_version=str((m.get("tool") or {}).get("version") or "---"),
        parser_version=_text(record_of(bundle).get("parser_version"), "tables/ not built"),
        damage=[str(line) for line in record_of(bundle).get("damage") or []],
        scope=scope_text or Absent("no scope recorded: whole cluster"),
        simulated=simulated,
        sources=source_rows(counts, m),
        severity_counts=severity,
        incident_counts=incidents,
        history=_history(m.get("history")),
    )
