"""``pods`` and ``containers``: one row per pod incarnation (uid), from raw/objects kind=Pod.

Pod names recycle across restarts (``<job>-worker-3`` comes back with a new uid), so the
key is the uid: the last listing of a uid gives its status, and first/last_seen_at span
every listing that showed it. The training job a pod belongs to is read from controller
labels first (see :mod:`k8s_owners`), then from the owner-reference chain.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from k10s_forensics.parsers.common import quantity
from k10s_forensics.parsers.k8s_common import (
    RAW_FILE, Obj, annotations, as_dict, as_list, condition, condition_true, container_gpu_request,
    controller_owner, first, iter_objects, json_text, labels, latest, pod_gpu_request, text_or_none, to_int, ts,
)
from k10s_forensics.parsers.k8s_owners import JobIndex, job_of_pod

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

NETWORK_STATUS_KEYS = ("k8s.v1.cni.cncf.io/network-status", "k8s.v1.cni.cncf.io/networks-status")

#: Env vars that identify a rank; only these are copied out of pod specs (env may hold secrets).
RANK_ENV = (
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "NODE_RANK", "PET_NODE_RANK", "PET_NPROC_PER_NODE", "PET_NNODES",
    "NPROC_PER_NODE", "JOB_COMPLETION_INDEX", "MASTER_ADDR", "MASTER_PORT", "PET_MASTER_ADDR", "PET_MASTER_PORT",
    "GROUP_RANK", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
)
#: Launcher flags in a container's command/args, copied as ``ARG_<NAME>`` (torchrun, torch.distributed.launch).
_LAUNCH_ARG = re.compile(r"--(nproc[-_]per[-_]node|node[-_]rank|nnodes)(?:=|\s+)(\S+)")
_FIELD_REF = re.compile(r"^metadata\.(labels|annotations)\['(?P<key>[^']+)'\]$")


def derive(ctx: "DeriveContext") -> None:
    index = JobIndex.build(ctx)
    by_uid: dict[tuple[str | None, str, str], list[Obj]] = defaultdict(list)
    for obj in iter_objects(ctx, "Pod"):
        if not obj.uid:
            ctx.issue("objects:Pod", "missing metadata.uid", f"{obj.namespace}/{obj.name}", RAW_FILE, obj.row)
            continue
        by_uid[(obj.namespace, obj.name, obj.uid)].append(obj)
    pods, containers = [], []
    for _, objs in sorted(by_uid.items()):
        last = latest(objs)
        seen = [o.captured_at for o in objs if o.captured_at is not None]
        row = pod_row(ctx, last, index)
        row["first_seen_at"] = min(seen) if seen else None
        row["last_seen_at"] = max(seen) if seen else None
        pods.append(row)
        containers.extend(container_rows(last))
    ctx.emit("pods", pods)
    ctx.emit("containers", containers)


def pod_row(ctx: "DeriveContext", obj: Obj, index: JobIndex) -> dict[str, Any]:
    meta, spec, status = obj.meta, obj.spec, obj.status
    lab, ann = labels(obj.body), annotations(obj.body)
    owner = controller_owner(meta)
    job_kind, job = job_of_pod(lab, owner, obj.namespace, index)
    sched = condition(status, "PodScheduled")
    disruption = condition(status, "DisruptionTarget") if condition_true(status, "DisruptionTarget") else {}
    affinity = as_dict(spec.get("affinity"))
    return {
        "namespace": obj.namespace,
        "pod": obj.name,
        "pod_uid": obj.uid,
        "node": text_or_none(spec.get("nodeName")),
        "phase": text_or_none(status.get("phase")),
        "pod_ip": text_or_none(status.get("podIP")),
        "created_at": ts(meta.get("creationTimestamp")),
        "started_at": ts(status.get("startTime")),
        "gpu_request": pod_gpu_request(spec),
        "finished_at": finished_at(status) or ts(meta.get("deletionTimestamp")),
        "deleted_at": ts(meta.get("deletionTimestamp")),
        "host_ip": text_or_none(status.get("hostIP")),
        "pod_ips": pod_ips(ctx, obj, status, ann),
        "host_network": bool(spec.get("hostNetwork")),
        "owner_kind": owner[0],
        "owner_name": owner[1],
        "job_kind": job_kind,
        "job": job,
        "queue_name": first(lab, "kueue.x-k8s.io/queue-name"),
        "scheduler_name": text_or_none(spec.get("schedulerName")),
        "priority_class": text_or_none(spec.get("priorityClassName")),
        "reason": text_or_none(status.get("reason")),
        "message": text_or_none(status.get("message")),
        "disruption_reason": text_or_none(disruption.get("reason")),
        "disruption_message": text_or_none(disruption.get("message")),
        "disrupted_at": ts(disruption.get("lastTransitionTime")),
        "scheduled": condition_true(status, "PodScheduled"),
        "unschedulable_message": text_or_none(sched.get("message")) if sched and condition_true(status, "PodScheduled") is False else None,
        "tolerations": tolerations(spec),
        "node_selector_json": json_text(as_dict(spec.get("nodeSelector"))),
        "has_node_affinity": bool(affinity.get("nodeAffinity")),
        "labels_json": json.dumps(lab, sort_keys=True) if lab else None,
        "replica_type": (first(lab, "training.kubeflow.org/replica-type", "training.kubeflow.org/job-role") or "").lower() or None,
        "replica_index": to_int(first(lab, "training.kubeflow.org/replica-index")),
        "completion_index": to_int(first(lab, "batch.kubernetes.io/job-completion-index") or first(ann, "batch.kubernetes.io/job-completion-index")),
        "batch_job": first(lab, "batch.kubernetes.io/job-name", "job-name") if lab.get("group-name") != "kubeflow.org" else None,
        "replicated_job": first(lab, "jobset.sigs.k8s.io/replicatedjob-name"),
        "jobset_job_index": to_int(first(lab, "jobset.sigs.k8s.io/job-index")),
        "jobset_job_global_index": to_int(first(lab, "jobset.sigs.k8s.io/job-global-index")),
        "rank_env_json": json_text(rank_env(obj, lab, ann)),
        "raw_row": obj.row,
    }


def finished_at(status: dict[str, Any]):
    """Latest finishedAt when every app container has terminated, else None."""
    statuses = [s for s in as_list(status.get("containerStatuses")) if isinstance(s, dict)]
    if not statuses:
        return None
    ends = []
    for s in statuses:
        term = as_dict(as_dict(s.get("state")).get("terminated"))
        if not term:
            return None
        ends.append(ts(term.get("finishedAt")))
    known = [e for e in ends if e is not None]
    return max(known) if known else None


def pod_ips(ctx: "DeriveContext", obj: Obj, status: dict[str, Any], ann: dict[str, str]) -> list[str]:
    """status.podIP(s) plus every IP of a Multus network-status annotation, first seen first."""
    ips = [text_or_none(status.get("podIP"))]
    ips += [text_or_none(as_dict(p).get("ip")) for p in as_list(status.get("podIPs"))]
    for key in NETWORK_STATUS_KEYS:
        if key not in ann:
            continue
        try:
            networks = json.loads(ann[key])
        except ValueError as exc:
            ctx.issue("objects:Pod", "unparseable network-status annotation", f"{obj.namespace}/{obj.name}: {exc}", RAW_FILE, obj.row)
            continue
        for net in as_list(networks):
            ips += [text_or_none(ip) for ip in as_list(as_dict(net).get("ips"))]
    out: list[str] = []
    for ip in ips:
        if ip and ip not in out:
            out.append(ip)
    return out


def rank_env(obj: Obj, lab: dict[str, str], ann: dict[str, str]) -> dict[str, str]:
    """Rank env vars of the first app container that sets any (GPU containers first).

    ``valueFrom.fieldRef`` values are resolved against the pod itself (Trainer v2 sets
    ``PET_NODE_RANK`` from the job-completion-index annotation this way).
    """
    containers = [c for c in as_list(obj.spec.get("containers")) if isinstance(c, dict)]
    containers.sort(key=lambda c: container_gpu_request(c) == 0)
    for c in containers:
        found: dict[str, str] = {}
        for env in as_list(c.get("env")):
            env = as_dict(env)
            name = env.get("name")
            if name not in RANK_ENV:
                continue
            value = env.get("value")
            if value is None and env.get("valueFrom") is not None:
                value = _field_ref(obj, as_dict(as_dict(env.get("valueFrom")).get("fieldRef")).get("fieldPath"), lab, ann)
            if value is not None:
                found[str(name)] = str(value)
        found.update(launch_args(c))
        if found:
            return found
    return {}


def launch_args(container: dict[str, Any]) -> dict[str, str]:
    """``--nproc-per-node 8`` / ``--nproc_per_node=8`` / ``--node-rank`` / ``--nnodes`` in command + args."""
    words = [str(w) for w in as_list(container.get("command")) + as_list(container.get("args")) if isinstance(w, (str, int))]
    out: dict[str, str] = {}
    for m in _LAUNCH_ARG.finditer(" ".join(words)):
        out["ARG_" + m.group(1).replace("-", "_").upper()] = m.group(2).strip("'\";")
    return out


def _field_ref(obj: Obj, path: Any, lab: dict[str, str], ann: dict[str, str]) -> str | None:
    if not isinstance(path, str):
        return None
    m = _FIELD_REF.match(path)
    if m:
        return (lab if m.group(1) == "labels" else ann).get(m.group("key"))
    simple = {"metadata.name": obj.name, "metadata.namespace": obj.namespace, "metadata.uid": obj.uid,
              "spec.nodeName": obj.spec.get("nodeName"), "status.podIP": obj.status.get("podIP")}
    return text_or_none(simple.get(path))


def tolerations(spec: dict[str, Any]) -> list[dict[str, str | None]]:
    return [
        {k: text_or_none(t.get(k)) for k in ("key", "operator", "value", "effect")}
        for t in as_list(spec.get("tolerations"))
        if isinstance(t, dict)
    ]


def container_rows(obj: Obj) -> list[dict[str, Any]]:
    """One row per spec container (init first), merged with its status when listed."""
    spec, status = obj.spec, obj.status
    rows = []
    for init, spec_key, status_key in ((True, "initContainers", "initContainerStatuses"), (False, "containers", "containerStatuses")):
        statuses = {s.get("name"): s for s in as_list(status.get(status_key)) if isinstance(s, dict)}
        specs = {c.get("name"): c for c in as_list(spec.get(spec_key)) if isinstance(c, dict) and c.get("name")}
        for name in list(specs) + [n for n in statuses if n not in specs and n]:
            rows.append(_container_row(obj, str(name), init, specs.get(name, {}), statuses.get(name, {})))
    return rows


def _container_row(obj: Obj, name: str, init: bool, cspec: dict[str, Any], cstatus: dict[str, Any]) -> dict[str, Any]:
    state_map = as_dict(cstatus.get("state"))
    state = next((k for k in ("terminated", "running", "waiting") if isinstance(state_map.get(k), dict)), None)
    cur = as_dict(state_map.get(state)) if state else {}
    last = as_dict(as_dict(cstatus.get("lastState")).get("terminated"))
    limits = as_dict(as_dict(cspec.get("resources")).get("limits"))
    memory = quantity(limits.get("memory"))
    return {
        "namespace": obj.namespace,
        "pod": obj.name,
        "pod_uid": obj.uid,
        "container": name,
        "restart_count": to_int(cstatus.get("restartCount")),
        "state": state,
        "reason": text_or_none(cur.get("reason")),
        "exit_code": to_int(cur.get("exitCode")),
        "last_reason": text_or_none(last.get("reason")),
        "last_exit_code": to_int(last.get("exitCode")),
        "last_finished_at": ts(last.get("finishedAt")),
        "init": init,
        "image": text_or_none(cstatus.get("image")) or text_or_none(cspec.get("image")),
        "ready": cstatus.get("ready") if isinstance(cstatus.get("ready"), bool) else None,
        "started_at": ts(cur.get("startedAt")),
        "finished_at": ts(cur.get("finishedAt")),
        "last_started_at": ts(last.get("startedAt")),
        "gpu_request": container_gpu_request(cspec),
        "memory_limit_bytes": int(memory) if memory is not None else None,
        "message": text_or_none(cur.get("message")),
        "last_message": text_or_none(last.get("message")),
    }
