"""``ranks``: one row per training process (pod incarnation x local rank).

Runs after pods, jobs and the GPU parsers. The node rank of a pod comes from env the
controller injected (``PET_NODE_RANK``, ``RANK`` for PyTorchJob/XGBoostJob) or from its
index labels (see :func:`node_rank`); global rank = node_rank x nproc_per_node +
local_rank, or, where each lower node's pod says its own process count and the counts differ
(torchrun's heterogeneous nodes), the sum of the lower nodes' counts + local_rank (``first_rank``). The GPU of a rank comes from ``printenv NVIDIA_VISIBLE_DEVICES`` run in the pod
(raw/exec source=visible-devices: the UUID order is the local-rank order), else from
dcgm-exporter pod labels in ``gpu_samples`` (a set without order: named only for one GPU, or
identical GPUs ordered by PCI bus id as CUDA enumerates them). Nothing is guessed.


Parts: ``rank_identity`` (node rank, its source, processes per node) and ``rank_gpus`` (the GPUs of
a rank); this module joins them into the table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from k10s_forensics.parsers.k8s_common import KUBEFLOW_KINDS, to_int
from k10s_forensics.parsers.k8s_runtime import ASSUMED, BASE_UNKNOWN, LAYOUT_LABEL
from k10s_forensics.parsers.log_unplaced import UNPLACED
from k10s_forensics.parsers.pod_names import POD_NAME_SOURCE, with_name_identity
from k10s_forensics.parsers.rank_gpus import _NEVER, dcgm_gpus, gpu_facts, incarnation_windows, order_gpus, rank_gpus, visible_devices
from k10s_forensics.parsers.rank_identity import NO_RANK_ROLES, NODE_RANK_KEYS, env_node_rank, first_rank, job_world, node_rank, nproc_of

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

NO_RANK_KINDS = frozenset({"RayJob", "RayCluster", "RayService", "LeaderWorkerSet"})


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
        placed = []
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
            layout = json.loads(pod["labels_json"] or "{}").get(LAYOUT_LABEL)
            if layout == BASE_UNKNOWN:  # import-logs: the log contradicts node x nproc and the lower nodes' counts are unknown
                ctx.issue("ranks", "first rank of the node unknown (processes of the nodes below it unknown)", f"{ns}/{pod['pod']}")
                continue
            if layout in (ASSUMED, UNPLACED):
                source = layout  # import-logs: assumed, or named by the log on no node
            nproc = nproc_of(pod, env, job, dcgm)
            if nproc is None:
                ctx.issue("ranks", "nproc_per_node unknown (cpu or unresolvable)", f"{ns}/{pod['pod']}")
                continue
            placed.append((pod, env, rank_of_node, source, nproc))
        counts: dict[int, set[int]] = defaultdict(set)  # node rank -> the process counts its pods say
        for _, _, rank_of_node, _, nproc in placed:
            counts[rank_of_node].add(nproc)
        for pod, env, rank_of_node, source, nproc in placed:
            gpus, gpu_source = rank_gpus(pod, nproc, visible, dcgm, gpu_info)
            world = (job or {}).get("world_size")
            nnodes = to_int(env.get("PET_NNODES")) if to_int(env.get("PET_NNODES")) is not None else to_int(env.get("ARG_NNODES"))
            if world is None and nnodes is not None:
                world = job_world(counts, nnodes, nproc)
            base = first_rank(rank_of_node, nproc, counts)
            if world is None and to_int(env.get("WORLD_SIZE")) is not None and kind not in KUBEFLOW_KINDS:
                world = to_int(env["WORLD_SIZE"])  # the launcher's world (Kubeflow's WORLD_SIZE counts pods)
            for local in range(nproc):
                uuid = gpus[local] if gpus else None
                rows.append({
                    "namespace": ns, "job": name, "rank": base + local, "node_rank": rank_of_node,
                    "local_rank": local, "pod": pod["pod"], "pod_uid": pod["pod_uid"], "node": pod["node"],
                    "gpu_uuid": uuid, "job_kind": kind, "world_size": world, "nproc_per_node": nproc,
                    "replica_type": pod["replica_type"] or pod["replicated_job"],
                    "replica_index": pod["replica_index"] if pod["replica_index"] is not None else pod["completion_index"],
                    "rank_source": source, "gpu_source": gpu_source if uuid else None,
                    "pci_bus_id": gpu_info.get(uuid, {}).get("pci") if uuid else None,
                    "pod_ip": pod["pod_ip"], "started_at": pod["started_at"], "finished_at": pod["finished_at"],
                    "rank_confidence": "low" if source in (POD_NAME_SOURCE, ASSUMED) else "medium" if source == UNPLACED else "high",
                })
    ctx.emit("ranks", rows)


__all__ = ["NO_RANK_KINDS", "NO_RANK_ROLES", "NODE_RANK_KEYS", "derive", "env_node_rank", "node_rank", "nproc_of",
           "incarnation_windows", "visible_devices", "dcgm_gpus", "gpu_facts", "order_gpus", "rank_gpus"]
