"""``jobs``: one row per training job (last listing of namespace/kind/name).

Kinds: Kubeflow training-operator v1 jobs (PyTorchJob, MPIJob, TFJob, JAXJob, PaddleJob,
XGBoostJob, MXNetJob), Trainer v2 TrainJob, JobSet, batch Job, RayJob/RayCluster and
LeaderWorkerSet. Every kind is listed, with ``parent_kind``/``parent`` set when another
job owns it (JobSet under TrainJob, Job under JobSet), so queries can keep the top job
with ``WHERE parent IS NULL``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Callable

from k10s_forensics.parsers.k8s_pods import launch_args
from k10s_forensics.parsers.k8s_common import (
    JOB_KINDS, KUBEFLOW_KINDS, Obj, as_dict, as_list, condition, conditions, controller_owner, first,
    iter_objects, labels, latest, pod_gpu_request, text_or_none, to_int, ts,
)

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

#: Condition types that name a job state, and how they read in ``state``.
STATE_TYPES = {
    "created": "Created", "running": "Running", "restarting": "Restarting", "succeeded": "Succeeded",
    "complete": "Succeeded", "completed": "Succeeded", "failed": "Failed", "suspended": "Suspended",
    "pending": "Pending", "available": "Running",
}
#: Replica types whose pods run ranks in training-operator jobs (never ps/evaluator/launcher).
RANK_REPLICA_TYPES = ("master", "chief", "worker")
#: JobSet replicated jobs of Kubeflow Trainer v2 that prepare data/models and run no ranks.
INITIALIZER_RJS = frozenset({"dataset-initializer", "model-initializer", "initializer"})


def derive(ctx: "DeriveContext") -> None:
    rows = []
    for kind in JOB_KINDS:
        groups: dict[tuple[str | None, str], list[Obj]] = defaultdict(list)
        for obj in iter_objects(ctx, kind):
            groups[(obj.namespace, obj.name)].append(obj)
        for _, objs in sorted(groups.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
            rows.append(job_row(latest(objs)))
    ctx.emit("jobs", rows)


def job_row(obj: Obj) -> dict[str, Any]:
    status, meta = obj.status, obj.meta
    row: dict[str, Any] = {
        "namespace": obj.namespace,
        "job": obj.name,
        "kind": obj.kind,
        "uid": obj.uid,
        "created_at": ts(meta.get("creationTimestamp")),
        "api_version": obj.api_version,
        "queue_name": first(labels(obj.body), "kueue.x-k8s.io/queue-name"),
        "started_at": ts(status.get("startTime")),
        "finished_at": ts(status.get("completionTime")),
        "raw_row": obj.row,
    }
    okind, oname = controller_owner(meta)
    if okind in JOB_KINDS:
        row["parent_kind"], row["parent"] = okind, oname
    handler = KIND_HANDLERS.get(obj.kind, _kubeflow if obj.kind in KUBEFLOW_KINDS else None)
    if handler:
        row.update(handler(obj))
    state, message = state_from_conditions(status)
    row["state"] = row.get("state") or state
    row["message"] = message
    if row.get("replicas") is not None and row.get("nproc_per_node") is not None and "world_size" not in row:
        row["world_size"] = row["replicas"] * row["nproc_per_node"]
    return row


def state_from_conditions(status: dict[str, Any]) -> tuple[str | None, str | None]:
    """State of the last true state condition, and the message of the last condition."""
    conds = conditions(status)
    state = None
    for c in conds:
        name = STATE_TYPES.get(c["type"].lower())
        if name and str(c.get("status", "")).lower() == "true":
            state = name
    message = text_or_none(conds[-1].get("message")) if conds else None
    return state, message


def template_nproc(templates: list[dict[str, Any]]) -> str | None:
    """PET_NPROC_PER_NODE from the env of a pod template, else torchrun's ``--nproc-per-node`` in its
    command/args (int text, auto, gpu, cpu): what the pods said, for when they are gone."""
    for tpl in templates:
        for c in as_list(as_dict(tpl.get("spec")).get("containers")):
            for env in as_list(as_dict(c).get("env")):
                env = as_dict(env)
                if env.get("name") in ("PET_NPROC_PER_NODE", "NPROC_PER_NODE") and env.get("value") is not None:
                    return str(env["value"])
            arg = launch_args(as_dict(c)).get("ARG_NPROC_PER_NODE")
            if arg is not None:
                return arg
    return None


def resolve_nproc(value: Any, gpus_per_pod: int | None) -> int | None:
    """``8`` -> 8; ``auto``/``gpu`` -> the GPUs per pod (if any); ``cpu``/unknown -> None; absent -> 1."""
    if value is None or value == "":
        return 1
    number = to_int(value)
    if number is not None:
        return number if number > 0 else None
    if str(value).lower() in ("auto", "gpu"):
        return gpus_per_pod if gpus_per_pod and gpus_per_pod > 0 else None
    return None


def _replica_specs(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    for key, value in spec.items():
        if key.endswith("ReplicaSpecs") and isinstance(value, dict):
            return {str(k): as_dict(v) for k, v in value.items()}
    return {}


def _kubeflow(obj: Obj) -> dict[str, Any]:
    """PyTorchJob and the other training-operator v1 kinds (MPIJob has its own handler)."""
    spec = obj.spec
    specs = _replica_specs(spec)
    run_policy = as_dict(spec.get("runPolicy"))
    elastic = as_dict(spec.get("elasticPolicy"))
    counts = {rt.lower(): (to_int(s.get("replicas")) if s.get("replicas") is not None else 1) for rt, s in specs.items()}
    rank_types = [rt for rt in specs if rt.lower() in RANK_REPLICA_TYPES]
    worker = next((specs[rt] for rt in rank_types if rt.lower() == "worker"), None) or (specs[rank_types[0]] if rank_types else {})
    gpus = pod_gpu_request(as_dict(as_dict(worker.get("template")).get("spec"))) if worker else None
    templates = [as_dict(specs[rt].get("template")) for rt in rank_types]
    nproc_raw = spec.get("nprocPerNode") or elastic.get("nProcPerNode") or template_nproc(templates)
    return {
        "replicas": sum(counts[rt.lower()] or 0 for rt in rank_types) if rank_types else None,
        "master_replicas": counts.get("master", 0) + counts.get("chief", 0) if specs else None,
        "nproc_per_node": resolve_nproc(nproc_raw, gpus),
        "gpus_per_pod": gpus,
        "suspended": bool(run_policy.get("suspend")),
        "max_restarts": to_int(elastic.get("maxRestarts")) if elastic.get("maxRestarts") is not None else to_int(run_policy.get("backoffLimit")),
        "replica_specs_json": _specs_json({rt: (counts[rt.lower()], 1, as_dict(s.get("template"))) for rt, s in specs.items()}),
    }


def _mpijob(obj: Obj) -> dict[str, Any]:
    spec = obj.spec
    specs = _replica_specs(spec)
    worker = next((s for rt, s in specs.items() if rt.lower() == "worker"), {})
    workers = to_int(worker.get("replicas")) if worker.get("replicas") is not None else (1 if worker else None)
    slots = to_int(spec.get("slotsPerWorker")) or 1
    run_policy = as_dict(spec.get("runPolicy"))
    return {
        "replicas": workers,
        "master_replicas": 0,
        "nproc_per_node": slots,
        "gpus_per_pod": pod_gpu_request(as_dict(as_dict(worker.get("template")).get("spec"))) if worker else None,
        "suspended": bool(run_policy.get("suspend")),
        "max_restarts": to_int(run_policy.get("backoffLimit")),
        "replica_specs_json": _specs_json({rt: (to_int(s.get("replicas")), 1, as_dict(s.get("template"))) for rt, s in specs.items()}),
    }


def _trainjob(obj: Obj) -> dict[str, Any]:
    spec = obj.spec
    trainer = as_dict(spec.get("trainer"))
    per_node = as_dict(trainer.get("resourcesPerNode"))
    gpus = pod_gpu_request({"containers": [{"resources": per_node}]}) if per_node else None
    return {
        "replicas": to_int(trainer.get("numNodes")),
        "nproc_per_node": resolve_nproc(trainer.get("numProcPerNode"), gpus),
        "gpus_per_pod": gpus,
        "suspended": bool(spec.get("suspend")),
    }


def _jobset(obj: Obj) -> dict[str, Any]:
    spec, status = obj.spec, obj.status
    entries, templates, gpus = {}, [], None
    for rj in as_list(spec.get("replicatedJobs")):
        rj = as_dict(rj)
        job_spec = as_dict(as_dict(rj.get("template")).get("spec"))
        replicas = to_int(rj.get("replicas")) if rj.get("replicas") is not None else 1
        parallelism = to_int(job_spec.get("parallelism")) if job_spec.get("parallelism") is not None else 1
        tpl = as_dict(job_spec.get("template"))
        templates.append(tpl)
        entries[str(rj.get("name"))] = (replicas, parallelism, tpl)
        pod_gpus = pod_gpu_request(as_dict(tpl.get("spec")))
        gpus = gpus if gpus else (pod_gpus or gpus)
    training = [v for k, v in entries.items() if k not in INITIALIZER_RJS]  # Trainer v2 initializers run no ranks
    pods = sum((r or 0) * (p or 0) for r, p, _ in training) if training else None
    failure = as_dict(spec.get("failurePolicy"))
    restarts = to_int(status.get("restarts"))
    return {
        "replicas": pods,
        "nproc_per_node": resolve_nproc(template_nproc(templates), gpus),
        "gpus_per_pod": gpus,
        "suspended": bool(spec.get("suspend")),
        "restart_attempts": restarts,
        "restarts_count_towards_max": to_int(status.get("restartsCountTowardsMax")),
        "max_restarts": to_int(failure.get("maxRestarts")),
        "state": _terminal(status.get("terminalState")),
        "replica_specs_json": _specs_json(entries),
    }


def _batch_job(obj: Obj) -> dict[str, Any]:
    spec, status = obj.spec, obj.status
    tpl = as_dict(spec.get("template"))
    gpus = pod_gpu_request(as_dict(tpl.get("spec")))
    parallelism = to_int(spec.get("parallelism")) if spec.get("parallelism") is not None else 1
    state = None
    if condition(status, "Complete") is None and condition(status, "Failed") is None:
        state = "Running" if (to_int(status.get("active")) or 0) > 0 else ("Suspended" if spec.get("suspend") else None)
    return {
        "replicas": parallelism,
        "nproc_per_node": resolve_nproc(template_nproc([tpl]), gpus),
        "gpus_per_pod": gpus,
        "suspended": bool(spec.get("suspend")),
        "max_restarts": to_int(spec.get("backoffLimit")),
        "completion_mode": text_or_none(spec.get("completionMode")),
        "state": state if state and not _state_cond(status) else None,
        "replica_specs_json": _specs_json({"job": (1, parallelism, tpl)}),
    }


def _ray(obj: Obj) -> dict[str, Any]:
    spec, status = obj.spec, obj.status
    cluster = as_dict(spec.get("rayClusterSpec")) if obj.kind == "RayJob" else spec
    groups = {str(as_dict(g).get("groupName")): as_dict(g) for g in as_list(cluster.get("workerGroupSpecs"))}
    replicas = sum(to_int(g.get("replicas")) or 0 for g in groups.values()) if groups else None
    gpus = next((pod_gpu_request(as_dict(as_dict(g.get("template")).get("spec"))) for g in groups.values()), None)
    ray_state = text_or_none(status.get("jobStatus")) or text_or_none(status.get("state"))
    return {
        "replicas": replicas,
        "gpus_per_pod": gpus,
        "suspended": bool(spec.get("suspend")),
        "world_size": None,
        "finished_at": ts(status.get("endTime")),
        "state": ray_state.capitalize() if ray_state else None,
        "replica_specs_json": _specs_json({n: (to_int(g.get("replicas")), 1, as_dict(g.get("template"))) for n, g in groups.items()}),
    }


def _lws(obj: Obj) -> dict[str, Any]:
    spec = obj.spec
    tmpl = as_dict(spec.get("leaderWorkerTemplate"))
    groups = to_int(spec.get("replicas")) if spec.get("replicas") is not None else 1
    size = to_int(tmpl.get("size")) if tmpl.get("size") is not None else 1
    worker_tpl = as_dict(tmpl.get("workerTemplate"))
    return {
        "replicas": (groups or 0) * (size or 0),
        "gpus_per_pod": pod_gpu_request(as_dict(worker_tpl.get("spec"))),
        "world_size": None,
        "replica_specs_json": _specs_json({"group": (groups, size, worker_tpl)}),
    }


def _terminal(value: Any) -> str | None:
    text = text_or_none(value)
    return STATE_TYPES.get(text.lower(), text) if text else None


def _state_cond(status: dict[str, Any]) -> bool:
    return any(STATE_TYPES.get(c["type"].lower()) and str(c.get("status")).lower() == "true" for c in conditions(status))


def _specs_json(entries: dict[str, tuple[int | None, int | None, dict[str, Any]]]) -> str | None:
    """{name: {replicas, parallelism, gpus_per_pod}} of each replica type / replicated job."""
    if not entries:
        return None
    out = {
        name: {"replicas": r, "parallelism": p, "gpus_per_pod": pod_gpu_request(as_dict(tpl.get("spec")))}
        for name, (r, p, tpl) in entries.items()
    }
    return json.dumps(out, sort_keys=True)


KIND_HANDLERS: dict[str, Callable[[Obj], dict[str, Any]]] = {
    "MPIJob": _mpijob,
    "TrainJob": _trainjob,
    "JobSet": _jobset,
    "Job": _batch_job,
    "RayJob": _ray,
    "RayCluster": _ray,
    "RayService": _ray,
    "LeaderWorkerSet": _lws,
}
