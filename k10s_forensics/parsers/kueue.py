"""Kueue: ``kueue_workloads``, ``kueue_cluster_queues`` and ``kueue_local_queues``.

Reads kinds Workload, ClusterQueue and LocalQueue of ``kueue.x-k8s.io`` (v1beta1 and
v1beta2; keys are looked up case-insensitively because some tools print them capitalised).
A ClusterQueue becomes one row per flavor x resource, joining the quota in
``spec.resourceGroups[].flavors[].resources[]`` with ``status.flavorsUsage`` and
``status.flavorsReservation``; a ClusterQueue with neither still gets one row (flavor and
resource null) so its counters and Active condition are not lost.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from k10s_forensics.parsers.common import quantity
from k10s_forensics.parsers.k8s_common import (
    Obj, as_dict, as_list, cond_time, condition, condition_true, controller_owner, first, is_gpu_resource,
    iter_objects, json_text, labels, latest, pod_gpu_request, text_or_none, to_int, ts,
)

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext


def derive(ctx: "DeriveContext") -> None:
    ctx.emit("kueue_workloads", [workload_row(o) for o in _last_listings(ctx, "Workload")])
    cq_rows: list[dict[str, Any]] = []
    for obj in _last_listings(ctx, "ClusterQueue"):
        cq_rows.extend(cluster_queue_rows(obj))
    ctx.emit("kueue_cluster_queues", cq_rows)
    ctx.emit("kueue_local_queues", [local_queue_row(o) for o in _last_listings(ctx, "LocalQueue")])


def _last_listings(ctx: "DeriveContext", kind: str) -> list[Obj]:
    groups: dict[tuple[str, str], list[Obj]] = defaultdict(list)
    for obj in iter_objects(ctx, kind):
        groups[(obj.namespace or "", obj.name)].append(obj)
    return [latest(objs) for _, objs in sorted(groups.items())]


def ci(mapping: Any, *keys: str) -> Any:
    """``mapping[key]`` for the first key present, compared case-insensitively."""
    if not isinstance(mapping, dict):
        return None
    lowered = {str(k).lower(): v for k, v in mapping.items()}
    for key in keys:
        if key.lower() in lowered:
            return lowered[key.lower()]
    return None


def _status(obj: Obj) -> dict[str, Any]:
    return as_dict(ci(obj.body, "status"))


def _conditions_view(status: dict[str, Any]) -> dict[str, Any]:
    """The status with condition keys normalised (``Type``/``Status`` spellings accepted)."""
    conds = []
    for c in as_list(ci(status, "conditions")):
        if isinstance(c, dict):
            conds.append({k: ci(c, k) for k in ("type", "status", "reason", "message", "lastTransitionTime")})
    return {"conditions": conds}


def _cond_field(status: dict[str, Any], ctype: str, field: str) -> str | None:
    return text_or_none((condition(status, ctype) or {}).get(field))


def workload_message(st: dict[str, Any]) -> str | None:
    """The most telling condition message: eviction, preemption, missing quota, admission, pods."""
    order = (("Evicted", True), ("Preempted", True), ("QuotaReserved", False), ("Admitted", False), ("PodsReady", False), ("Finished", True))
    for ctype, bad in order:
        if condition_true(st, ctype) is bad:
            msg = _cond_field(st, ctype, "message")
            if msg:
                return msg
    conds = st.get("conditions") or []
    return text_or_none(conds[-1].get("message")) if conds else None


def workload_gpu_request(spec: dict[str, Any], status: dict[str, Any]) -> int | None:
    """GPUs over pod sets: spec.podSets count x pod request, else status.resourceRequests totals."""
    pod_sets = [as_dict(p) for p in as_list(ci(spec, "podSets"))]
    if pod_sets:
        return sum((to_int(ci(p, "count")) or 0) * pod_gpu_request(as_dict(ci(as_dict(ci(p, "template")), "spec"))) for p in pod_sets)
    requests = ci(status, "resourceRequests")
    entries = [requests] if isinstance(requests, dict) else as_list(requests)
    total, found = 0.0, False
    for entry in entries:
        for name, value in as_dict(ci(entry, "resources")).items():
            if is_gpu_resource(str(name).lower()):
                total += quantity(value) or 0.0
                found = True
    return int(total) if found else (0 if entries else None)


def workload_row(obj: Obj) -> dict[str, Any]:
    spec, status = as_dict(ci(obj.body, "spec")), _status(obj)
    st = _conditions_view(status)
    okind, oname = controller_owner(obj.meta)
    admission = as_dict(ci(status, "admission"))
    admitted_cond = condition(st, "Admitted")
    return {
        "namespace": obj.namespace,
        "workload": obj.name,
        "queue_name": text_or_none(ci(spec, "queueName")) or first(labels(obj.body), "kueue.x-k8s.io/queue-name"),
        "cluster_queue": text_or_none(ci(admission, "clusterQueue", "clusterQueueName")),
        "owner_kind": okind,
        "owner_name": oname,
        "quota_reserved": condition_true(st, "QuotaReserved"),
        "admitted": condition_true(st, "Admitted"),
        "evicted": condition_true(st, "Evicted"),
        "message": workload_message(st),
        "uid": obj.uid,
        "created_at": ts(obj.meta.get("creationTimestamp")),
        "priority": to_int(ci(spec, "priority")),
        "pods_ready": condition_true(st, "PodsReady"),
        "preempted": condition_true(st, "Preempted"),
        "requeued": condition_true(st, "Requeued"),
        "finished": condition_true(st, "Finished"),
        "quota_reserved_reason": _cond_field(st, "QuotaReserved", "reason"),
        "evicted_reason": _cond_field(st, "Evicted", "reason"),
        "preempted_reason": _cond_field(st, "Preempted", "reason"),
        "admitted_at": cond_time(admitted_cond) if condition_true(st, "Admitted") else None,
        "gpu_request": workload_gpu_request(spec, status),
        "requeue_count": to_int(ci(as_dict(ci(status, "requeueState")), "count")),
        "conditions_json": json_text(st["conditions"]),
    }


def _flavor_totals(status: dict[str, Any], key: str) -> dict[tuple[str, str], dict[str, float | None]]:
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for flavor in as_list(ci(status, key)):
        for res in as_list(ci(flavor, "resources")):
            out[(str(ci(flavor, "name")), str(ci(res, "name")))] = {
                "total": quantity(ci(res, "total")),
                "borrowed": quantity(ci(res, "borrowed")),
            }
    return out


def cluster_queue_rows(obj: Obj) -> list[dict[str, Any]]:
    spec, status = as_dict(ci(obj.body, "spec")), _status(obj)
    st = _conditions_view(status)
    quotas: dict[tuple[str, str], dict[str, Any]] = {}
    for group in as_list(ci(spec, "resourceGroups")):
        for flavor in as_list(ci(group, "flavors")):
            for res in as_list(ci(flavor, "resources")):
                quotas[(str(ci(flavor, "name")), str(ci(res, "name")))] = as_dict(res)
    usage = _flavor_totals(status, "flavorsUsage")
    reservation = _flavor_totals(status, "flavorsReservation")
    keys = list(quotas) + [k for k in list(usage) + list(reservation) if k not in quotas]
    keys = list(dict.fromkeys(keys)) or [(None, None)]
    common = {
        "cluster_queue": obj.name,
        "pending_workloads": to_int(ci(status, "pendingWorkloads")),
        "admitted_workloads": to_int(ci(status, "admittedWorkloads")),
        "reserving_workloads": to_int(ci(status, "reservingWorkloads")),
        "cohort": text_or_none(ci(spec, "cohort", "cohortName")),
        "active": condition_true(st, "Active"),
        "active_reason": _cond_field(st, "Active", "reason"),
        "active_message": _cond_field(st, "Active", "message"),
    }
    rows = []
    for key in keys:
        quota = quotas.get(key, {})
        used = usage.get(key, {})
        reserved = reservation.get(key, {})
        rows.append({
            **common,
            "flavor": key[0],
            "resource": key[1],
            "nominal_quota": quantity(ci(quota, "nominalQuota")),
            "borrowing_limit": quantity(ci(quota, "borrowingLimit")),
            "lending_limit": quantity(ci(quota, "lendingLimit")),
            "used": used.get("total") if used.get("total") is not None else reserved.get("total"),
            "reserved": reserved.get("total"),
            "borrowed": used.get("borrowed") if used.get("borrowed") is not None else reserved.get("borrowed"),
        })
    return rows


def local_queue_row(obj: Obj) -> dict[str, Any]:
    spec, status = as_dict(ci(obj.body, "spec")), _status(obj)
    return {
        "namespace": obj.namespace,
        "local_queue": obj.name,
        "cluster_queue": text_or_none(ci(spec, "clusterQueue")),
        "pending_workloads": to_int(ci(status, "pendingWorkloads")),
        "admitted_workloads": to_int(ci(status, "admittedWorkloads")),
        "reserving_workloads": to_int(ci(status, "reservingWorkloads")),
        "active": condition_true(_conditions_view(status), "Active"),
    }
