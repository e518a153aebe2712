"""Building blocks shared by scenarios: a job that has been training since before the window."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.job import Pod, Run
from k10s_forensics.simulate.training import start_workers

SEC = dt.timedelta(seconds=1)
FAR = dt.timedelta(days=30)
ALL_RULES = ("straggler", "nccl-hang", "oom-cascade", "crashloop", "idle-gpu", "pending", "gpu-health", "network", "rank-failure",
             "gpu-startup", "disruption", "nic-open")


def forbid(sim, *allowed: str) -> None:
    """Forbid every fault rule except ``allowed``."""
    sim.truth["forbidden_rules"] = [r for r in ALL_RULES if r not in allowed]


def launch(sim, lead_min: tuple[float, float] = (6.0, 40.0), **job_kw) -> tuple[list[Pod], dict[str, Run], dt.datetime]:
    """Create the job before the window and start its workers; returns (pods, runs, training start)."""
    created = sim.start - dt.timedelta(minutes=sim.rng.uniform(*lead_min))
    job = sim.full_job(created, **job_kw)
    pods = job.pods
    for p in pods:
        p.created = created + SEC * sim.rng.uniform(1, 5)
    t_run = created + SEC * sim.rng.uniform(15, 40)
    runs = start_workers(sim, pods, t_run, attempt=0, new_container=True)
    sim.job_started = t_run
    sim.train_from = t_run + SEC * sim.rng.uniform(40, 80)
    return pods, runs, sim.train_from


def pick_rank(sim) -> int:
    return sim.rng.randrange(sim.job.world_size)


def steady_segments(sim, start: dt.datetime, train_from: dt.datetime, until: dt.datetime = None, busy=None, wait=None) -> list[Seg]:
    busy = sim.busy if busy is None else busy
    wait = (1.0 - busy) * 0.97 if wait is None else wait
    fb = sim.fb_train_mib
    return [Seg(start, train_from, busy=0.04, fb0_mib=600.0, fb1_mib=fb * 0.9),
            Seg(train_from, until or sim.end + FAR, busy=busy, wait=wait, fb0_mib=fb, fb1_mib=fb)]


def job_info(sim) -> None:
    job = sim.job
    sim.truth.update({"job": f"{job.namespace}/{job.name}", "job_kind": job.kind, "world_size": job.world_size, "nproc_per_node": job.nproc})
