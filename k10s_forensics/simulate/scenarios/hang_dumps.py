"""Hangs whose decisive evidence is a Flight Recorder dump or an NCCL RAS answer.

``hang-flight-recorder``: the job runs with ``TORCH_NCCL_TRACE_BUFFER_SIZE`` and
``TORCH_NCCL_DUMP_ON_TIMEOUT`` (and ``TORCH_NCCL_ASYNC_ERROR_HANDLING=0``, so the hung
processes are not taken down: the pods stay Running and the dumps stay in the containers).
One rank stops before collective N; every other rank enters N and times out. Every rank
dumps its ring buffer (the culprit's ends at N-1, completed) or, in the ``no-dump`` variant,
the culprit writes none. Dumps are pickles or JSON, default or custom path prefix.

``hang-ras-dead``: one training process freezes (uninterruptible sleep; torchrun does not
notice) while the others wait inside the collective, well before the 30-minute watchdog.
NCCL >= 2.26 RAS declares the process dead and names it by pod IP, pid and GPU; the capture
asks ``ncclras`` in one pod (text, or JSON with NCCL >= 2.28.7).
"""

from __future__ import annotations

import json

from k10s_forensics.simulate import logs
from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.fr_dumps import DEFAULT_PREFIX, encode_dump, fr_dump, fr_entry, ras_text
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, launch, pick_rank, steady_segments
from k10s_forensics.simulate.training import train, worker_pid

OTHER_RULES = ("straggler", "oom-cascade", "crashloop", "pending", "gpu-health", "network")


def _fit_timeout_ms(sim, room_s: float) -> int:
    for t in (600000, 300000, 180000, 120000, 60000, 30000):
        if t / 1000.0 <= room_s:
            return t
    return 30000


def _hang_segments(sim, start, t0, t_hang, culprit_gid: int) -> None:
    fb = sim.fb_train_mib
    sim.segs([g for g in sim.job_gids() if g != culprit_gid], steady_segments(sim, start, t0, t_hang) + [Seg(t_hang, sim.end + FAR, wait=1.0, fb0_mib=fb)])
    sim.segs([culprit_gid], steady_segments(sim, start, t0, t_hang) + [Seg(t_hang, sim.end + FAR, busy=0.0, wait=0.0, fb0_mib=fb)])


def hang_flight_recorder(sim) -> None:
    window = (sim.end - sim.start).total_seconds()
    th_frac = sim.rng.uniform(0.15, 0.3)
    timeout = _fit_timeout_ms(sim, window * (0.85 - th_frac))
    pods, runs, t0 = launch(sim, timeouts=(timeout,))
    job = sim.job
    job.flight_recorder = True
    job.fr_prefix = sim.rng.choice((DEFAULT_PREFIX, DEFAULT_PREFIX, "/workspace/fr/trace_rank_"))
    last, t_last = train(sim, pods, runs, t0, sim.at(th_frac), 0)
    t_hang = t_last + SEC * 0.2
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    numel = sim.rng.choice((25165824, 220084533, 1048576))
    variant = "no-dump" if sim.rng.random() < 0.35 else "lag"
    fmt = sim.rng.choice(("pickle", "json"))
    buffer = sim.rng.choice((40, 120))
    t_wd = t_hang + SEC * (job.timeout_ms / 1000.0)
    t_ns = int(t_hang.timestamp() * 1e9)
    world = list(range(job.world_size))
    for p in pods:
        for lr in range(job.nproc):
            r = p.node_rank * job.nproc + lr
            if r == rank and variant == "no-dump":
                continue
            top = seq - 1 if r == rank else seq
            entries = [fr_entry(i, s, "ALLREDUCE", numel, "completed", t_ns - (top - s) * 40_000_000, timeout_ms=job.timeout_ms)
                       for i, s in enumerate(range(max(1, top - buffer + 1), top))]
            state = "completed" if r == rank else sim.rng.choice(("started", "scheduled"))
            entries.append(fr_entry(len(entries), top, "ALLREDUCE", numel, state, t_ns, timeout_ms=job.timeout_ms))
            sim.fr_dumps.setdefault(p.uid, {})[f"{job.fr_prefix}{r}"] = encode_dump(fr_dump(entries, world), fmt)
            if r != rank:
                t = t_wd + SEC * sim.rng.uniform(0.02, 0.3)
                ran = job.timeout_ms + sim.rng.randrange(15, 120)
                for line in logs.watchdog_timeout(job.torch_style, t, r, seq, "ALLREDUCE", numel, job.timeout_ms, ran, seq, seq - 1)[:2]:
                    runs[p.uid].log(t, line)
    start = min(r.started for r in runs.values())
    sim.state_changes = [(job.created, "Created"), (start, "Running")]
    _hang_segments(sim, start, t0, t_hang, gid)
    job_info(sim)
    sim.expect("nccl-hang", "never-joined", [rank], [pod], [gid], seq_num=seq)
    sim.truth["hang_evidence"] = [{"evidence": "flight-recorder", "culprit_ranks": [rank], "seq_num": seq, "variant": variant}]
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"Rank {rank} never enters collective #{seq} (ALLREDUCE); the others time out after {job.timeout_ms} ms "
                          f"and dump their Flight Recorder buffers ({fmt}, prefix {job.fr_prefix}); variant {variant}.")


def hang_ras_dead(sim) -> None:
    pods, runs, t0 = launch(sim, timeouts=(1800000,))
    job = sim.job
    job.nccl_version = sim.rng.choice(("2.26.2", "2.27.3", "2.28.9"))
    last, t_last = train(sim, pods, runs, t0, sim.at(sim.rng.uniform(0.2, 0.5)), 0)
    t_hang = t_last + SEC * 0.2
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    pid = worker_pid(pod, 0, local, job.nproc)
    start = min(r.started for r in runs.values())
    sim.state_changes = [(job.created, "Created"), (start, "Running")]
    _hang_segments(sim, start, t0, t_hang, gid)
    nodes = len(pods)
    if job.nccl_version >= "2.28.7":
        sim.ras_answer = ras_json(sim, pods, dead_rank=rank, dead_pid=pid)
    else:
        sim.ras_answer = ras_text(nodes, job.nproc, version=job.nccl_version, dead=[(pod.ip, pid, local, rank)],
                                  collection_s=sim.rng.uniform(0.02, 2.5))
    job_info(sim)
    sim.expect("nccl-hang", "rank-dead", [rank], [pod], [gid])
    sim.truth["hang_evidence"] = [{"evidence": "ras", "culprit_ranks": [rank]}]
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"Rank {rank} (pid {pid} on {pod.ip}, GPU {local}) freezes; the others wait in the collective "
                          f"(timeout 30 min, not reached). NCCL {job.nccl_version} RAS declares the process dead.")


def ras_json(sim, pods, dead_rank: int, dead_pid: int) -> str:
    job = sim.job
    ranks, missing = [], []
    for p in pods:
        for lr in range(job.nproc):
            r = p.node_rank * job.nproc + lr
            item = {"rank": r, "host": p.ip, "pid": worker_pid(p, 0, lr, job.nproc), "cuda_dev": lr, "nvml_dev": lr}
            if r == dead_rank:
                missing.append({**item, "status": {"unresponsive": True, "considered_dead": True}})
            else:
                ranks.append({**item, "status": {"init_state": 0, "async_error": 0, "finalize_called": False, "destroy_flag": False, "abort_flag": False},
                              "collective_counts": {"Broadcast": 3, "Reduce": 0, "AllGather": 12, "ReduceScatter": 0, "AllReduce": 4000}})
    doc = {"nccl_version": job.nccl_version, "cuda_runtime_version": 12080, "cuda_driver_version": 12080,
           "timestamp": sim.end.strftime("%Y-%m-%d %H:%M:%S"), "communicators_count": 1,
           "communicators": [{"hash": f"0x{sim.rng.getrandbits(64):016x}", "secondary_hash": "0x1:0x2", "size": job.world_size,
                              "ranks_count": len(ranks), "missing_ranks_count": len(missing), "ranks": ranks, "missing_ranks": missing}],
           "ras": {"collection_time_sec": 0.0, "timeouts_count": 0}}
    return json.dumps(doc, indent=2)


__all__ = ["hang_flight_recorder", "hang_ras_dead"]
