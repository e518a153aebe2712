"""The rank identity of a pod for ``ranks``: its node rank and where it comes from (env the controller
injected, index labels, JobSet job indexes, the pod's name), and its processes per node."""

from __future__ import annotations

import json
from typing import Any

from k10s_forensics.parsers.k8s_common import KUBEFLOW_KINDS, to_int
from k10s_forensics.parsers.k8s_jobs import INITIALIZER_RJS, resolve_nproc
from k10s_forensics.parsers.pod_names import jobset_parallelism

NO_RANK_ROLES = frozenset({"ps", "evaluator", "launcher"})


def node_rank(pod: dict[str, Any], env: dict[str, str], job: dict[str, Any] | None, members: list[dict[str, Any]],
              jobs: dict[tuple[Any, ...], dict[str, Any]]) -> tuple[int | None, str] | None:
    """(node_rank, rank_source); (None, why) when unknown; None when the pod runs no rank."""
    kind, role = pod["job_kind"], (pod["replica_type"] or "")
    if kind == "MPIJob":
        if role == "launcher":
            return None
        idx = pod["replica_index"]
        return (idx, "label:replica-index") if idx is not None else (None, "MPIJob worker without replica-index")
    if kind in KUBEFLOW_KINDS:
        if role in NO_RANK_ROLES:
            return None
        explicit = env_node_rank(env)
        if explicit is not None:
            return explicit
        if kind in ("PyTorchJob", "XGBoostJob") and to_int(env.get("RANK")) is not None:
            return to_int(env["RANK"]), "env:RANK"
        return _kubeflow_label_rank(pod, job, members)
    if kind in ("TrainJob", "JobSet"):
        if pod["replicated_job"] in INITIALIZER_RJS or (kind == "TrainJob" and pod["replicated_job"] == "launcher"):
            return None
        return env_node_rank(env) or _jobset_rank(pod, members, jobs)
    if kind == "Job":
        index = pod["completion_index"] if pod["completion_index"] is not None else to_int(env.get("JOB_COMPLETION_INDEX"))
        if index is not None:
            return index, "label:job-completion-index"
        if job is not None and job.get("replicas") == 1:
            return 0, "single-pod"
        return None, "Job is not Indexed and runs several pods"
    return None, f"no rank rule for {kind}"


#: Where a launcher is told its node rank, in this order (torchrun --node-rank in the command as ARG_NODE_RANK).
NODE_RANK_KEYS = ("PET_NODE_RANK", "GROUP_RANK", "ARG_NODE_RANK", "NODE_RANK")


def env_node_rank(env: dict[str, str]) -> tuple[int, str] | None:
    """(node rank, source) from the pod's env or launcher arguments, when one is set to a number."""
    for key in NODE_RANK_KEYS:
        value = to_int(env.get(key))
        if value is not None:
            return value, ("arg:--node-rank" if key == "ARG_NODE_RANK" else f"env:{key}")
    return None


def _kubeflow_label_rank(pod: dict[str, Any], job: dict[str, Any] | None, members: list[dict[str, Any]]) -> tuple[int | None, str]:
    role, idx = pod["replica_type"] or "", pod["replica_index"]
    if idx is None or role not in ("master", "chief", "worker"):
        return None, "no replica-type/replica-index labels"
    if role in ("master", "chief"):
        return idx, "label:replica-index"
    if job is not None and job.get("master_replicas") is not None:
        has_master = job["master_replicas"] > 0
    elif any(m["replica_type"] in ("master", "chief") for m in members):
        has_master = True
    else:
        return None, "job object absent and no master pod seen: worker offset unknown"
    return idx + (1 if has_master else 0), "label:replica-index"


def _jobset_rank(pod: dict[str, Any], members: list[dict[str, Any]], jobs: dict[tuple[Any, ...], dict[str, Any]]) -> tuple[int | None, str]:
    """Within one replicated job: job-index x parallelism + completion index; across several
    replicated jobs of equal parallelism: job-global-index x parallelism + completion index."""
    ci = pod["completion_index"]
    if ci is None:
        return None, "no job-completion-index"
    rjs = {m["replicated_job"] for m in members if m["replicated_job"] not in INITIALIZER_RJS and m["replicated_job"] != "launcher"}
    par = {rj: _parallelism(pod, rj, members, jobs) for rj in rjs}
    mine = par.get(pod["replicated_job"])
    job_index = pod["jobset_job_index"]
    if len(rjs) <= 1:
        if job_index in (None, 0):
            if job_index is None and not _single_job(pod):
                return None, "no jobset job-index"
            return ci, "label:job-completion-index"
        mine = mine if mine is not None or not pod.get("_from_name") else jobset_parallelism(pod, members)
        if mine is None:
            return None, "parallelism of the replicated job unknown"
        return job_index * mine + ci, "label:job-index+job-completion-index"
    values = set(par.values())
    if None in values or len(values) != 1 or pod["jobset_job_global_index"] is None:
        return None, "several replicated jobs of unknown or different parallelism"
    return pod["jobset_job_global_index"] * values.pop() + ci, "label:job-global-index+job-completion-index"


def _single_job(pod: dict[str, Any]) -> bool:
    labels = json.loads(pod["labels_json"]) if pod["labels_json"] else {}
    return labels.get("jobset.sigs.k8s.io/replicatedjob-replicas") == "1" or pod["replicated_job"] is None


def _parallelism(pod: dict[str, Any], rj: str | None, members: list[dict[str, Any]], jobs: dict[tuple[Any, ...], dict[str, Any]]) -> int | None:
    """Pods per Job of a replicated job: from a child Job object, else the JobSet spec."""
    ns = pod["namespace"]
    for m in members:
        if m["replicated_job"] == rj and m["batch_job"]:
            child = jobs.get((ns, "Job", m["batch_job"]))
            if child and child.get("replicas") is not None:
                return child["replicas"]
    jobset = jobs.get((ns, "JobSet", _jobset_name(pod) or ""))
    if jobset and jobset.get("replica_specs_json"):
        spec = json.loads(jobset["replica_specs_json"]).get(rj or "")
        if spec and spec.get("parallelism") is not None:
            return spec["parallelism"]
    return None


def _jobset_name(pod: dict[str, Any]) -> str | None:
    labels = json.loads(pod["labels_json"]) if pod["labels_json"] else {}
    return labels.get("jobset.sigs.k8s.io/jobset-name")


def nproc_of(pod: dict[str, Any], env: dict[str, str], job: dict[str, Any] | None,
             dcgm: dict[str, set[str]] | None = None) -> int | None:
    """PET_NPROC_PER_NODE / NPROC_PER_NODE env, torchrun's --nproc-per-node, LOCAL_WORLD_SIZE, else the
    job's nproc_per_node, else 1 (auto/gpu -> GPUs of the pod); a pod known by its name only
    (no env, no job object) runs one process per GPU it requested or DCGM saw it hold."""
    raw = env.get("PET_NPROC_PER_NODE") or env.get("NPROC_PER_NODE") or env.get("ARG_NPROC_PER_NODE") or env.get("LOCAL_WORLD_SIZE")
    if raw is not None:
        return resolve_nproc(raw, pod["gpu_request"])
    if job is not None:
        return job.get("nproc_per_node")  # None: the spec says cpu or an auto that cannot be resolved
    if pod.get("_from_name"):
        return pod["gpu_request"] or len((dcgm or {}).get(pod["pod_uid"]) or ()) or 1
    return 1


def first_rank(node: int, nproc: int, counts: dict[int, set[int]]) -> int:
    """The global rank of a node's local rank 0. torchrun lets nodes run different process counts (``--nproc-per-node 2``
    on node 0, ``3`` on node 1: ranks 0-1, then 2-4): where every lower node's count is known (one per node rank, from
    its own pod) and the counts differ, the sum of the lower nodes' counts; else ``node x nproc`` (uniform)."""
    lower = [counts.get(k) or set() for k in range(node)]
    if node > 0 and all(len(c) == 1 for c in lower):
        vals = [next(iter(c)) for c in lower]
        if len(set(vals + [nproc])) > 1:
            return sum(vals)
    return node * nproc


def job_world(counts: dict[int, set[int]], nnodes: int | None, nproc: int) -> int | None:
    """``nnodes x nproc``, or the sum of the nodes' own counts where each is known and they differ."""
    if nnodes is None:
        return None
    per = [counts.get(k) or set() for k in range(nnodes)]
    if all(len(c) == 1 for c in per) and len({next(iter(c)) for c in per}) > 1:
        return sum(next(iter(c)) for c in per)
    return nnodes * nproc


__all__ = ["NODE_RANK_KEYS", "NO_RANK_ROLES", "env_node_rank", "first_rank", "job_world", "node_rank", "nproc_of"]
