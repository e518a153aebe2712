"""healthy, straggler-compute, straggler-input, straggler-network."""

from __future__ import annotations

from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, launch, pick_rank, steady_segments
from k10s_forensics.simulate.training import train

DATALOADER_WARN = (
    "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 16 "
    "worker processes in total. Our suggested max number of worker in current system is 8, which is smaller than what this "
    "DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even "
    "freeze, lower the worker number to avoid potential slowness/freeze if necessary."
)


def healthy(sim) -> None:
    pods, runs, t0 = launch(sim)
    train(sim, pods, runs, t0, sim.end + SEC * 5, 0)
    start = min(r.started for r in runs.values())
    sim.segs(sim.job_gids(), steady_segments(sim, start, t0))
    job_info(sim)
    forbid(sim)
    sim.truth["notes"] = "A healthy DDP job: every rank computes ~90% of the step and spends the rest in NCCL."


def _fault_start(sim):
    return sim.at(sim.rng.uniform(0.15, 0.4))


def straggler_compute(sim) -> None:
    pods, runs, t0 = launch(sim)
    tf = _fault_start(sim)
    clock = sim.rng.uniform(0.55, 0.7)
    factor = 1.0 / clock * sim.rng.uniform(0.92, 0.98)
    train(sim, pods, runs, t0, sim.end + SEC * 5, 0, slow=[(tf, factor)])
    start = min(r.started for r in runs.values())
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    peers = [g for g in sim.job_gids() if g != gid]
    busy_peer = sim.busy / factor
    sim.segs(peers, steady_segments(sim, start, t0, tf) + [Seg(tf, sim.end + FAR, busy=busy_peer, wait=1 - busy_peer - 0.01, fb0_mib=sim.fb_train_mib)])
    sim.segs([gid], steady_segments(sim, start, t0, tf) + [Seg(tf, sim.end + FAR, busy=0.97, wait=0.02, fb0_mib=sim.fb_train_mib,
                                                                clock=clock, temp_add_c=sim.rng.uniform(20, 26), throttle=0x40 | 0x20)])
    job_info(sim)
    sim.expect("straggler", "gpu-throttle", [rank], [pod], [gid], started_at=tf.isoformat())
    forbid(sim, "straggler", "gpu-health")
    sim.truth["notes"] = (f"GPU of rank {rank} thermally throttled (HW+SW thermal slowdown bits, SM clock x{clock:.2f}) from "
                          f"{tf.isoformat()}; the step time of every rank grew x{factor:.2f}; peers wait in NCCL at ~100% util, low power.")


def straggler_input(sim) -> None:
    pods, runs, t0 = launch(sim)
    tf = _fault_start(sim)
    factor = sim.rng.uniform(1.8, 3.0)
    train(sim, pods, runs, t0, sim.end + SEC * 5, 0, slow=[(tf, factor)])
    start = min(r.started for r in runs.values())
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    busy = sim.busy / factor
    peers = [g for g in sim.job_gids() if g != gid]
    sim.segs(peers, steady_segments(sim, start, t0, tf) + [Seg(tf, sim.end + FAR, busy=busy, wait=1 - busy - 0.01, fb0_mib=sim.fb_train_mib)])
    sim.segs([gid], steady_segments(sim, start, t0, tf) + [Seg(tf, sim.end + FAR, busy=busy, wait=0.02, fb0_mib=sim.fb_train_mib)])
    if sim.rng.random() < 0.6:
        run = runs[pod.uid]
        prefix = "" if sim.job.torch_style == "1.13" else f"[rank{rank}]: "
        run.log(t0 - SEC * 5, prefix + DATALOADER_WARN)
        run.log(t0 - SEC * 5, prefix + "  warnings.warn(_create_warning_msg(")
    job_info(sim)
    sim.expect("straggler", "host-input", [rank], [pod], [gid], started_at=tf.isoformat())
    forbid(sim, "straggler")
    sim.truth["notes"] = (f"Rank {rank} starved by its data loader from {tf.isoformat()}: its GPU idles (low util, power, tensor) "
                          f"while peers spin in NCCL at ~100% util and low power; step time x{factor:.2f}.")


def straggler_network(sim) -> None:
    pods, runs, t0 = launch(sim)
    tf = _fault_start(sim)
    factor = sim.rng.uniform(1.6, 2.6)
    train(sim, pods, runs, t0, sim.end + SEC * 5, 0, slow=[(tf, factor)])
    start = min(r.started for r in runs.values())
    busy = sim.busy / factor
    sim.segs(sim.job_gids(), steady_segments(sim, start, t0, tf) + [Seg(tf, sim.end + FAR, busy=busy, wait=1 - busy - 0.01, fb0_mib=sim.fb_train_mib)])
    pod = sim.rng.choice(pods)
    sim.net_bad[pod.ip] = (tf, sim.rng.uniform(60, 250))
    ranks = [pod.node_rank * sim.job.nproc + i for i in range(sim.job.nproc)]
    job_info(sim)
    if len(pods) >= 3:
        sim.expect("network", "pod-path", ranks, [pod], [], started_at=tf.isoformat())
    elif len(pods) == 2:
        sim.expect("network", "link", [r for p in pods for r in range(p.node_rank * sim.job.nproc, (p.node_rank + 1) * sim.job.nproc)], pods, [], started_at=tf.isoformat())
    forbid(sim, "network", "straggler")
    sim.truth["notes"] = (f"NCCL TCP flows to/from pod {pod.name} ({pod.ip}) show rtt/minrtt >> 1 and retransmits from {tf.isoformat()}; "
                          f"every rank slows x{factor:.2f}." + ("" if len(pods) >= 2 else " Single-pod job: no inter-pod path, nothing to find."))
