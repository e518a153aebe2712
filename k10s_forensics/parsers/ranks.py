"""``ranks``: one row per training process (pod incarnation x local rank).

Runs after pods, jobs and the GPU parsers. The node rank of a pod comes from env the
controller injected (``PET_NODE_RANK``, ``RANK`` for PyTorchJob/XGBoostJob) or from its
index labels (see :func:`node_rank`); global rank = node_rank x nproc_per_node +
local_rank. The GPU of a rank comes from ``printenv NVIDIA_VISIBLE_DEVICES`` run in the pod
(raw/exec source=visible-devices: the UUID order is the local-rank order), else from
dcgm-exporter pod labels in ``gpu_samples`` (a set without order: named only for one GPU, or
identical GPUs ordered by PCI bus id as CUDA enumerates them). Nothing is guessed.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from k10s_forensics.parsers.k8s_common import KUBEFLOW_KINDS, to_int
from k10s_forensics.parsers.k8s_jobs import INITIALIZER_RJS, resolve_nproc
from k10s_forensics.parsers.pod_names import POD_NAME_SOURCE, jobset_parallelism, with_name_identity
from k10s_forensics.parsers import scratch

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

_UUID = re.compile(r"^(GPU|MIG)-[0-9A-Za-z][0-9A-Za-z/._-]*$")
NO_RANK_ROLES = frozenset({"ps", "evaluator", "launcher"})
NO_RANK_KINDS = frozenset({"RayJob", "RayCluster", "RayService", "LeaderWorkerSet"})
_FAR = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
_NEVER = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def derive(ctx: "DeriveContext") -> None:
    pods = [p for p in ctx.table("pods").to_pylist() if p["job"] and p["job_kind"] not in NO_RANK_KINDS]
    if not pods:
        return
    jobs = {(j["namespace"], j["kind"], j["job"]): j for j in ctx.table("jobs").to_pylist()}
    windows = incarnation_windows(ctx.table("pods").to_pylist())
    gpu_info = gpu_facts(ctx)
    visible = visible_devices(ctx, windows)
    dcgm = dcgm_gpus(ctx, windows)
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for pod in pods:
        groups[(pod["namespace"], pod["job_kind"], pod["job"])].append(pod)
    rows: list[dict[str, Any]] = []
    for (ns, kind, name), members in sorted(groups.items(), key=lambda kv: tuple(x or "" for x in kv[0])):
        job = jobs.get((ns, kind, name))
        members = with_name_identity(members)  # pods whose labels are gone: the operator's naming convention
        for pod in sorted(members, key=lambda p: (p["pod"], p["started_at"] or p["created_at"] or _NEVER)):
            env = json.loads(pod["rank_env_json"]) if pod["rank_env_json"] else {}
            ident = node_rank(pod, env, job, members, jobs)
            if ident is None:
                continue
            rank_of_node, source = ident
            if rank_of_node is None:
                ctx.issue("ranks", f"no rank identity ({source})", f"{ns}/{pod['pod']} ({kind} {name})")
                continue
            if pod.get("_from_name") and source.startswith("label:"):
                source = POD_NAME_SOURCE
            nproc = nproc_of(pod, env, job, dcgm)
            if nproc is None:
                ctx.issue("ranks", "nproc_per_node unknown (cpu or unresolvable)", f"{ns}/{pod['pod']}")
                continue
            gpus, gpu_source = rank_gpus(pod, nproc, visible, dcgm, gpu_info)
            world = (job or {}).get("world_size")
            nnodes = to_int(env.get("PET_NNODES")) if to_int(env.get("PET_NNODES")) is not None else to_int(env.get("ARG_NNODES"))
            if world is None and nnodes is not None:
                world = nnodes * nproc
            if world is None and to_int(env.get("WORLD_SIZE")) is not None and kind not in KUBEFLOW_KINDS:
                world = to_int(env["WORLD_SIZE"])  # the launcher's world (Kubeflow's WORLD_SIZE counts pods)
            for local in range(nproc):
                uuid = gpus[local] if gpus else None
                rows.append({
                    "namespace": ns, "job": name, "rank": rank_of_node * nproc + local, "node_rank": rank_of_node,
                    "local_rank": local, "pod": pod["pod"], "pod_uid": pod["pod_uid"], "node": pod["node"],
                    "gpu_uuid": uuid, "job_kind": kind, "world_size": world, "nproc_per_node": nproc,
                    "replica_type": pod["replica_type"] or pod["replicated_job"],
                    "replica_index": pod["replica_index"] if pod["replica_index"] is not None else pod["completion_index"],
                    "rank_source": source, "gpu_source": gpu_source if uuid else None,
                    "pci_bus_id": gpu_info.get(uuid, {}).get("pci") if uuid else None,
                    "pod_ip": pod["pod_ip"], "started_at": pod["started_at"], "finished_at": pod["finished_at"],
                    "rank_confidence": "low" if source == POD_NAME_SOURCE else "high",
                })
    ctx.emit("ranks", rows)


# ---- rank identity --------------------------------------------------------------------
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


# ---- GPUs of a rank -------------------------------------------------------------------
def incarnation_windows(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[start, end) of every pod incarnation; an open end closes where the next uid of the name starts."""
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for p in pods:
        start = p["started_at"] or p["created_at"] or p["first_seen_at"] or _NEVER
        by_name[(p["namespace"], p["pod"])].append({"namespace": p["namespace"], "pod": p["pod"], "pod_uid": p["pod_uid"],
                                                   "node": p["node"], "start": start, "end": p["finished_at"] or p["deleted_at"]})
    out = []
    for items in by_name.values():
        items.sort(key=lambda w: w["start"])
        for i, w in enumerate(items):
            nxt = items[i + 1]["start"] if i + 1 < len(items) else _FAR
            w["end"] = min(w["end"] or _FAR, nxt)
            out.append(w)
    return out


def _match(by_name: dict[tuple[str, str], list[dict[str, Any]]], ns: str, pod: str, node: str | None, at: dt.datetime) -> str | None:
    hits = [w["pod_uid"] for w in by_name.get((ns, pod), []) if w["start"] <= at < w["end"]
            and (node is None or w["node"] is None or w["node"] == node)]
    return hits[0] if len(hits) == 1 else None


def visible_devices(ctx: "DeriveContext", windows: list[dict[str, Any]]) -> dict[str, list[str] | None]:
    """pod_uid -> GPU UUIDs from NVIDIA_VISIBLE_DEVICES in local-rank order (None when runs disagree)."""
    table = ctx.raw("exec", source="visible-devices")
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for w in windows:
        by_name[(w["namespace"], w["pod"])].append(w)
    out: dict[str, list[str] | None] = {}
    for r in table.select(["namespace", "pod", "node", "captured_at", "stdout", "exit_code", "error"]).to_pylist():
        if r["error"] or (r["exit_code"] not in (None, 0)) or r["captured_at"] is None:
            continue
        tokens = [t.strip() for t in (r["stdout"] or "").strip().split(",")]
        if not tokens or not all(_UUID.match(t) for t in tokens):
            continue  # all / void / none / empty / indices: the GPUs are not named
        uid = _match(by_name, r["namespace"], r["pod"], r["node"], r["captured_at"])
        if uid is None:
            continue
        out[uid] = tokens if uid not in out or out[uid] == tokens else None
    return out


def dcgm_gpus(ctx: "DeriveContext", windows: list[dict[str, Any]]) -> dict[str, set[str]]:
    """pod_uid -> GPUs dcgm-exporter attributed to the incarnation within its window."""
    path = ctx.table_path("gpu_samples")
    if not path.is_file() or not windows:
        return {}
    win = pa.Table.from_pylist(windows)
    con = scratch.connection()
    con.register("win", win)
    rows = con.sql(
        """SELECT w.pod_uid, list(DISTINCT s.gpu_uuid) AS gpus
           FROM read_parquet($path) s JOIN win w
             ON (s.pod_uid IS NOT NULL AND s.pod_uid = w.pod_uid)
             OR (s.pod_uid IS NULL AND s.namespace = w.namespace AND s.pod = w.pod
                 AND (w.node IS NULL OR s.node = w.node) AND s.ts >= w.start AND s.ts < w."end")
           WHERE s.gpu_uuid IS NOT NULL GROUP BY w.pod_uid""",
        params={"path": str(path)},
    ).fetchall()
    con.close()
    return {uid: set(gpus) for uid, gpus in rows}


def gpu_facts(ctx: "DeriveContext") -> dict[str, dict[str, str | None]]:
    """gpu_uuid -> {pci, product} from the gpus emitted so far and dcgm labels (consistent values only)."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: {"pci": set(), "product": set()})
    for g in ctx.table("gpus").select(["gpu_uuid", "pci_bus_id", "product"]).to_pylist():
        if g["gpu_uuid"]:
            _add(seen[g["gpu_uuid"]], g["pci_bus_id"], g["product"])
    path = ctx.table_path("gpu_samples")
    if path.is_file():
        con = scratch.connection()
        q = "SELECT DISTINCT gpu_uuid, pci_bus_id, model_name FROM read_parquet($p) WHERE gpu_uuid IS NOT NULL"
        for uuid, pci, product in con.sql(q, params={"p": str(path)}).fetchall():
            _add(seen[uuid], pci, product)
        con.close()
    return {u: {k: next(iter(v)) if len(v) == 1 else None for k, v in facts.items()} for u, facts in seen.items()}


def _add(facts: dict[str, set[str]], pci: str | None, product: str | None) -> None:
    if pci:
        facts["pci"].add(pci.lower())
    if product:
        facts["product"].add(product.replace("-", " ").strip().lower())


def order_gpus(gpus: set[str], nproc: int, info: dict[str, dict[str, str | None]]) -> list[str] | None:
    """Local rank order of a pod's GPU set, or None when it is not certain."""
    if len(gpus) != nproc:
        return None
    if nproc == 1:
        return list(gpus)
    facts = [info.get(g, {}) for g in gpus]
    if any(not f.get("pci") for f in facts) or len({f.get("product") for f in facts}) != 1:
        return None
    return sorted(gpus, key=lambda g: (info[g]["pci"] or "", g))


def rank_gpus(pod: dict[str, Any], nproc: int, visible: dict[str, list[str] | None], dcgm: dict[str, set[str]],
              info: dict[str, dict[str, str | None]]) -> tuple[list[str] | None, str | None]:
    uid = pod["pod_uid"]
    listed = visible.get(uid)
    if listed and len(listed) == nproc and len(set(listed)) == nproc:
        return listed, "visible-devices"
    dset = dcgm.get(uid)
    if dset and (pod["gpu_request"] in (None, 0) or len(dset) == pod["gpu_request"]):
        ordered = order_gpus(dset, nproc, info)
        if ordered:
            return ordered, "dcgm-pod-label"
    return None, None
