"""Queues: the Kueue ClusterQueue → LocalQueue → Workload hierarchy, usage against quota,
pending and admitted workloads — or a clear "Kueue not present" with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb

from k10s_forensics.store.bundle import Bundle

from .common import Absent, fmt_num, fmt_ts, query

MAX_WORKLOADS = 50


@dataclass
class ResourceRow:
    """Quota and usage of one flavor × resource of a ClusterQueue."""

    flavor: str = field(metadata={"help": "ResourceFlavor"})
    resource: str = field(metadata={"help": "resource name"})
    quota: str = field(metadata={"help": "nominal quota"})
    used: str = field(metadata={"help": "in use"})
    percent: float = field(metadata={"help": "used / quota × 100 (bar width, capped at 100)"})
    over: bool = field(metadata={"help": "used beyond the nominal quota (borrowing)"})
    borrowed: str = field(metadata={"help": "borrowed from the cohort"})


@dataclass
class WorkloadRow:
    """One Kueue Workload."""

    name: str = field(metadata={"help": "namespace/workload"})
    owner: str = field(metadata={"help": "owner kind and name"})
    state: str = field(metadata={"help": "pending, admitted, quota reserved, evicted, preempted, finished"})
    gpus: str = field(metadata={"help": "GPUs requested"})
    priority: str = field(metadata={"help": "priority"})
    created_at: str = field(metadata={"help": "creation time"})
    message: str = field(metadata={"help": "why pending / evicted"})


@dataclass
class LocalQueueView:
    """A LocalQueue and its workloads."""

    name: str = field(metadata={"help": "namespace/localqueue"})
    pending: str = field(metadata={"help": "pending workloads"})
    admitted: str = field(metadata={"help": "admitted workloads"})
    workloads: list[WorkloadRow] = field(metadata={"help": "pending first"})


@dataclass
class ClusterQueueView:
    """A ClusterQueue with quota, usage and its LocalQueues."""

    name: str = field(metadata={"help": "ClusterQueue name"})
    cohort: str = field(metadata={"help": "cohort or ---"})
    note: str = field(metadata={"help": "inactive reason, when not active"})
    pending: str = field(metadata={"help": "pending workloads"})
    admitted: str = field(metadata={"help": "admitted workloads"})
    resources: list[ResourceRow] = field(metadata={"help": "per flavor × resource"})
    local_queues: list[LocalQueueView] = field(metadata={"help": "LocalQueues feeding it"})


@dataclass
class QueuesContext:
    """The queues section."""

    cluster_queues: list[ClusterQueueView] = field(metadata={"help": "ClusterQueues by cohort"})
    absent: Absent | None = field(metadata={"help": "'Kueue not present' with the reason"})
    pending_total: int = field(metadata={"help": "pending workloads"})
    admitted_total: int = field(metadata={"help": "admitted workloads"})


def _kueue_absent_reason(bundle: Bundle) -> str:
    runs = [c for c in bundle.manifest.get("collectors") or [] if isinstance(c, dict) and c.get("name") == "kueue"]
    if not runs:
        return "Kueue not present: no ClusterQueue, LocalQueue or Workload in this bundle (no kueue collector ran)"
    run = runs[0]
    errors = "; ".join(str(e) for e in (run.get("errors") or [])[:2])
    if run.get("status") == "ok":
        return "Kueue not present: the kueue collector found no ClusterQueue, LocalQueue or Workload"
    return f"Kueue not present: kueue collector {run.get('status')}" + (f" — {errors}" if errors else "")


def _resource(r: dict[str, Any]) -> ResourceRow:
    quota, used = r["nominal_quota"], r["used"]
    pct = (used / quota * 100) if quota and used is not None else (100.0 if used else 0.0)
    return ResourceRow(r["flavor"] or "---", r["resource"] or "---", fmt_num(quota, 0 if quota is None or float(quota).is_integer() else 1),
                       fmt_num(used, 0 if used is None or float(used).is_integer() else 1), min(100.0, max(0.0, pct)),
                       bool(quota is not None and used is not None and used > quota), fmt_num(r["borrowed"], 0))


def _workload(w: dict[str, Any]) -> WorkloadRow:
    return WorkloadRow(f"{w['namespace']}/{w['workload']}", w["owner"], w["state"], fmt_num(w["gpu_request"]), fmt_num(w["priority"]),
                       fmt_ts(w["created_at"]), (w["message"] or "")[:300] if w["state"] != "admitted" else "")


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> QueuesContext:
    """The queues context."""
    cqs, lqs, wls = query(con, "queues_cluster"), query(con, "queues_local"), query(con, "queues_workloads")
    if not (cqs or lqs or wls):
        return QueuesContext([], Absent(_kueue_absent_reason(bundle)), 0, 0)
    names = list(dict.fromkeys([r["cluster_queue"] for r in cqs] + [q["cluster_queue"] for q in lqs] + [w["cluster_queue"] for w in wls]))
    views = []
    for name in names:
        res = [r for r in cqs if r["cluster_queue"] == name]
        first = res[0] if res else {}
        note = "" if first.get("active", True) is not False else f"inactive: {first.get('active_reason') or ''} {first.get('active_message') or ''}".strip()
        local = []
        for q in [q for q in lqs if q["cluster_queue"] == name]:
            mine = [w for w in wls if w["namespace"] == q["namespace"] and w["queue_name"] == q["local_queue"]]
            local.append(LocalQueueView(f"{q['namespace']}/{q['local_queue']}", fmt_num(q["pending_workloads"]), fmt_num(q["admitted_workloads"]),
                                        [_workload(w) for w in mine[:MAX_WORKLOADS]]))
        known = {(q["namespace"], q["local_queue"]) for q in lqs}
        orphans = [w for w in wls if w["cluster_queue"] == name and (w["namespace"], w["queue_name"]) not in known]
        if orphans:
            local.append(LocalQueueView("(LocalQueue not captured)", fmt_num(sum(w["state"] == "pending" for w in orphans)),
                                        fmt_num(sum(w["state"] == "admitted" for w in orphans)), [_workload(w) for w in orphans[:MAX_WORKLOADS]]))
        views.append(ClusterQueueView(
            name=name or "(no ClusterQueue)", cohort=first.get("cohort") or "---", note=note,
            pending=fmt_num(first.get("pending_workloads")), admitted=fmt_num(first.get("admitted_workloads")),
            resources=[_resource(r) for r in res], local_queues=local,
        ))
    return QueuesContext(views, None, sum(w["state"] == "pending" for w in wls), sum(w["state"] == "admitted" for w in wls))
