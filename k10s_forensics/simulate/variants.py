"""Variants: small planted changes on top of a scenario, for ``k10s diff`` (docs/simulator.md).

A variant never draws from the scenario's generators (it has its own, seeded by the seed),
so a bundle simulated with variants is the same cluster, job and incident as without, but
for the planted change. No variant: the output is byte-identical to before variants existed.

* ``later``: the same cluster captured 7 minutes later, with other sampling noise;
* ``driver-node``: the last node runs another driver;
* ``nccl-env``: the training container sets ``NCCL_IB_QPS_PER_CONNECTION=4``;
* ``image-digest``: the training image resolves to another digest (same tag);
* ``power-cap``: one GPU (the last of the first node) capped at 60 % of its power limit;
* ``fabric``: nodes carry a fabric block label (first half ``block-a``, second ``block-b``);
* ``rank-moved``: with ``fabric``: the first and the last pod swap nodes (their ranks move
  to a node in the other block);
* ``kueue``: the job is admitted by Kueue (ResourceFlavor, ClusterQueue, LocalQueue, Workload);
* ``kueue-quota``: with ``kueue``: the ClusterQueue's GPU quota is cut by a quarter.
"""

from __future__ import annotations

import datetime as dt
import random

import numpy as np

from k10s_forensics.errors import SimulationError
from k10s_forensics.simulate.cluster import DRIVERS

PRE = ("later",)
POST = ("driver-node", "nccl-env", "image-digest", "power-cap", "fabric", "rank-moved", "kueue", "kueue-quota")
VARIANTS = PRE + POST
FABRIC_LABEL = "topology.k10s.io/fabric-block"


def check(variants: tuple[str, ...]) -> None:
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SimulationError(f"unknown variant {unknown[0]!r}; choose from: {', '.join(VARIANTS)}")
    if "rank-moved" in variants and "fabric" not in variants:
        raise SimulationError("variant rank-moved needs variant fabric")
    if "kueue-quota" in variants and "kueue" not in variants:
        raise SimulationError("variant kueue-quota needs variant kueue")


def apply_pre(sim, variants: tuple[str, ...]) -> None:
    """Before the scenario runs: the capture time and the noise."""
    if "later" in variants:
        shift = dt.timedelta(minutes=7)
        sim.start, sim.end = sim.start + shift, sim.end + shift
        sim.rounds = [t + shift for t in sim.rounds]
        sim.nrng = np.random.default_rng(sim.seed + 7_000_001)


def _rng(sim) -> random.Random:
    return random.Random(f"k10s-variant/{sim.seed}")


def _kueue(sim, quota_cut: bool) -> None:
    from k10s_forensics.simulate.job_objects import kueue_objects
    from k10s_forensics.simulate.k8s_objects import Versions

    job, rng = sim.job, _rng(sim)
    need = job.replicas * job.gpus_per_pod
    nominal = max(need, len(sim.cluster.gpus)) * (3 if quota_cut else 4) // 4
    uids = {k: f"{rng.getrandbits(128):032x}" for k in ("rf", "cq", "lq", "wl")}
    job.queue = "team-queue"
    objs = kueue_objects(job, Versions(3_200_000), uids, "gpu-flavor", "cluster-gpu-queue", "team-queue", nominal, need, 0, "", sim.start)
    wl = objs[-1][1]
    podset = wl["spec"]["podSets"][0]["name"]
    t = dt.datetime.strftime(job.created + dt.timedelta(seconds=2), "%Y-%m-%dT%H:%M:%SZ")
    wl["status"] = {"conditions": [{"type": c, "status": "True", "reason": c, "message": "", "lastTransitionTime": t}
                                   for c in ("QuotaReserved", "Admitted")],
                    "admission": {"clusterQueue": "cluster-gpu-queue",
                                  "podSetAssignments": [{"name": podset, "count": job.replicas, "flavors": {"nvidia.com/gpu": "gpu-flavor"}}]}}
    sim.extra_objects.extend(objs)


def _swap_pods(sim) -> None:
    pods = sim.job.latest()
    a, b = pods[0], pods[-1]
    a.node, b.node = b.node, a.node
    a.gpu_ids, b.gpu_ids = b.gpu_ids, a.gpu_ids
    a.ip, b.ip = b.ip, a.ip


def apply_post(sim, variants: tuple[str, ...]) -> None:
    """After the scenario: the planted changes."""
    cl, rng = sim.cluster, _rng(sim)
    if "driver-node" in variants:
        cl.nodes[-1].driver = next(d for d in sorted(DRIVERS, reverse=True) if d != cl.driver)
    if "nccl-env" in variants and sim.job:
        sim.job.extra_env.append({"name": "NCCL_IB_QPS_PER_CONNECTION", "value": "4"})
    if "image-digest" in variants and sim.job:
        sim.job.image_id = "nvcr.io/nvidia/pytorch@sha256:" + f"{rng.getrandbits(256):064x}"
    if "power-cap" in variants:
        gpu = cl.nodes[0].gpus[-1]
        gpu.power_limit_w = round(cl.model["power_limit_w"] * 0.6)
    if "fabric" in variants:
        half = max(1, len(cl.nodes) // 2)
        for i, node in enumerate(cl.nodes):
            node.labels[FABRIC_LABEL] = "block-a" if i < half else "block-b"
    if "rank-moved" in variants and sim.job and len(sim.job.latest()) > 1:
        _swap_pods(sim)
    if "kueue" in variants and sim.job:
        _kueue(sim, "kueue-quota" in variants)


__all__ = ["VARIANTS", "check", "apply_pre", "apply_post", "FABRIC_LABEL"]
