"""Running a DDP job: container starts, NCCL init lines, step lines, GPU activity segments.

Step lines are kept as ``StepBlock`` objects (shared arrays) and expanded only when a log
body is written, so a 60-minute 4096-GPU job does not hold millions of strings.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from k10s_forensics.simulate import logs
from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.cluster import DRIVERS
from k10s_forensics.simulate.job import Pod, Run

SEC = dt.timedelta(seconds=1)
US = dt.timedelta(microseconds=1)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@dataclass
class StepBlock:
    """Steps ``steps[i]`` finishing at ``t0 + ends_s[i]`` with duration ``dur_ms[i]``."""

    t0: dt.datetime
    steps: np.ndarray
    ends_s: np.ndarray
    dur_ms: np.ndarray
    loss: np.ndarray


def agent_pid(pod: Pod, attempt: int) -> int:
    return 7 + attempt * 0


def worker_pid(pod: Pod, attempt: int, local: int, nproc: int) -> int:
    return 60 + attempt * (nproc + 3) + local + (pod.node_rank % 7) * 0


def start_workers(sim, pods: list[Pod], at: dt.datetime, attempt: int, new_container: bool) -> dict[str, Run]:
    """Start (or restart) the worker group in each pod: torchrun lines, NCCL init, PG options."""
    job = sim.job
    runs: dict[str, Run] = {}
    cuda = DRIVERS[sim.cluster.driver][0]
    for pod in pods:
        if new_container or not pod.runs:
            pod.runs.append(Run(started=at + SEC * sim.rng.uniform(0.2, 2.0)))
        run = pod.runs[-1]
        runs[pod.uid] = run
        t = max(at, run.started)
        apid = agent_pid(pod, 0)
        if attempt == 0 or new_container:
            for line in logs.torchrun_start(job.torch_style, t, apid, job.nproc):
                run.log(t, line)
        else:
            run.log(t, logs.agent(job.torch_style, t, "I", apid, "torch/distributed/elastic/agent/server/api.py", 696, "[default] Starting worker group"))
        t_init = t + SEC * sim.rng.uniform(8, 20)
        for local in range(job.nproc):
            rank = pod.node_rank * job.nproc + local
            gpu = sim.cluster.gpus[pod.gpu_ids[local]]
            pid = worker_pid(pod, attempt, local, job.nproc)
            if job.nccl_info:
                for line in logs.nccl_init(pod.hostname, pid, local, pod.ip, rank, job.world_size, gpu.nccl_bus_id,
                                           f"0x{sim.rng.getrandbits(44):x}", sim.comm_id(attempt), job.nccl_version, cuda, "eth0"):
                    run.log(t_init + SEC * local * 0.01, line)
            if local == 0:
                run.log(t_init, logs.pg_options(job.torch_style, t_init, rank, job.world_size, job.timeout_ms))
    return runs


def train(sim, pods: list[Pod], runs: dict[str, Run], t0: dt.datetime, t1: dt.datetime, step0: int,
          slow: list[tuple[dt.datetime, float]] | None = None) -> tuple[int, dt.datetime]:
    """Log steps from ``t0`` until ``t1`` on every pod; returns (last step, its end time).

    ``slow`` = [(from, factor)]: the step time is multiplied by ``factor`` from that time on.
    """
    base = sim.step_ms
    total_s = (t1 - t0).total_seconds()
    if total_s <= 0:
        return step0, t0
    n_max = int(total_s / (base / 1000.0 * 0.7)) + 2
    r = sim.nrng
    dur = base * r.normal(1.0, 0.025, n_max)
    if slow:
        ends_guess = np.cumsum(dur) / 1000.0
        for at, factor in slow:
            off = (at - t0).total_seconds()
            dur = np.where(ends_guess >= off, dur * factor, dur)
            ends_guess = np.cumsum(dur) / 1000.0
    ends = np.cumsum(dur) / 1000.0
    keep = ends <= total_s
    dur, ends = dur[keep], ends[keep]
    steps = np.arange(step0 + 1, step0 + 1 + len(ends))
    loss = 2.1 + 6.0 * np.exp(-steps / 900.0) + r.normal(0, 0.05, len(steps))
    block = StepBlock(t0, steps, ends, dur, loss)
    for pod in pods:
        runs[pod.uid].lines.append((t0, block))
    last = int(steps[-1]) if len(steps) else step0
    return last, t0 + SEC * (float(ends[-1]) if len(ends) else 0.0)


def render_block(sim, pod: Pod, block: StepBlock, until_us: int) -> list[tuple[int, str]]:
    """Expand a step block into (epoch µs, 'RFC3339 line') for ``pod`` (its local rank 0 logs progress)."""
    job = sim.job
    rank = pod.node_rank * job.nproc
    mem_total = sim.cluster.model["memory_mib"] / 1024
    jitter_us = (pod.node_rank % 13) * 700
    t0_us = (block.t0 - EPOCH) // US
    keys = (t0_us + (block.ends_s * 1e6).astype(np.int64) + jitter_us)
    keep = keys <= until_us
    keys = keys[keep]
    stamps = np.datetime_as_string(keys.astype("datetime64[us]"), unit="us").tolist()
    prefix = "" if (job.torch_style == "1.13" or job.step_format == "titan") else f"[rank{rank}]:"
    mem_gib = sim.fb_train_mib / 1024
    mem_pct = 100 * mem_gib / mem_total
    out = []
    for key, stamp, step, ms, loss in zip(keys.tolist(), stamps, block.steps[keep].tolist(), block.dur_ms[keep].tolist(), block.loss[keep].tolist()):
        mfu = 41.0 * sim.step_ms / ms
        line = logs.step_line(job.step_format, stamp, rank, step, loss, ms, mfu, mem_gib, mem_pct, sim.tokens_per_step)
        frac = stamp[20:].rstrip("0")
        out.append((key, f"{stamp[:19]}{'.' + frac if frac else ''}Z {prefix}{line}"))
    return out


def activity_segments(sim, start: dt.datetime, train_from: dt.datetime, stop: dt.datetime, busy: float, wait: float, **kw) -> list[Seg]:
    """Load (fb ramps up) then train segments for a worker-group attempt."""
    fb = sim.fb_train_mib
    return [
        Seg(start, train_from, busy=0.04, wait=0.0, fb0_mib=600.0, fb1_mib=fb * 0.9),
        Seg(train_from, stop, busy=busy, wait=wait, fb0_mib=fb, fb1_mib=fb, **kw),
    ]
