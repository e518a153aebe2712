"""How one rank's death spreads through a DDP job (research section 1, takeaway 6).

The culprit's siblings in its pod are SIGTERM'd by torchrun; ranks in other pods either get
``ncclRemoteError`` naming the culprit pod's IP within seconds (``remote``) or sit in the
collective until the watchdog fires after Timeout(ms) and SIGABRT (``timeout``).
"""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate import logs
from k10s_forensics.simulate.job import Pod, Run
from k10s_forensics.simulate.training import agent_pid, worker_pid

SEC = dt.timedelta(seconds=1)


def cascade(sim, pods: list[Pod], runs: dict[str, Run], culprit: Pod, culprit_local: int, t_fail: dt.datetime, mode: str,
            seq: int, attempt: int, culprit_lines: list[str] | None, culprit_exit: int, op: str = "ALLREDUCE",
            spare: set[int] | None = None) -> dict[str, tuple[dt.datetime, list[tuple[int, int, int, int]]]]:
    """Log the failure on every pod; returns pod uid -> (time its workers were all down, failures root first).

    ``spare`` = global ranks that neither time out nor fail (a hung culprit in nccl-hang). ``culprit_lines`` None: the
    culprit pod logs nothing at all (its node died with it: node-lost), its ranks belong in ``spare``.
    """
    job, rng, style = sim.job, sim.rng, sim.job.torch_style
    nproc = job.nproc
    numel = rng.choice((1, 25165824, 220084533, 466119168))
    peer_port = rng.randrange(33000, 60000)
    out = {}
    spare = spare or set()
    for pod in pods:
        run = runs[pod.uid]
        apid = agent_pid(pod, attempt)
        failures: list[tuple[int, int, int, int]] = []
        if pod is culprit and culprit_lines is not None:
            rank = pod.node_rank * nproc + culprit_local
            pid = worker_pid(pod, attempt, culprit_local, nproc)
            for line in culprit_lines:
                run.log(t_fail, line)
            t_agent = t_fail + SEC * rng.uniform(0.3, 1.2)
            failures.append((rank, culprit_local, culprit_exit, pid))
            for local in range(nproc):
                if local != culprit_local:
                    run.log(t_agent, logs.sigterm(style, t_agent, apid, worker_pid(pod, attempt, local, nproc)))
                    failures.append((pod.node_rank * nproc + local, local, -15, worker_pid(pod, attempt, local, nproc)))
            run.log(t_agent + SEC * 0.05, logs.worker_failed(style, t_agent, apid, culprit_exit, culprit_local, pid))
            out[pod.uid] = (t_agent + SEC * 0.1, failures)
            continue
        ranks = [pod.node_rank * nproc + local for local in range(nproc)]
        if all(r in spare for r in ranks):
            continue
        t_last = t_fail
        for local in range(nproc):
            rank = ranks[local]
            if rank in spare:
                continue
            pid = worker_pid(pod, attempt, local, nproc)
            if mode == "remote":
                t = t_fail + SEC * rng.uniform(0.4, 4.0)
                if job.nccl_info:
                    for line in logs.nccl_warn_peer(pod.hostname, pid, local, culprit.ip, peer_port, closed=True):
                        run.log(t, line)
                for line in logs.remote_error(style, rank, culprit.ip, peer_port, job.nccl_version):
                    run.log(t, line)
                code = 1
            else:
                t = t_fail + SEC * (job.timeout_ms / 1000.0 + rng.uniform(0.02, 0.3))
                ran = job.timeout_ms + rng.randrange(15, 120)
                for line in logs.watchdog_timeout(style, t, rank, seq, op, numel, job.timeout_ms, ran, seq + rng.randrange(0, 3), seq - 1):
                    run.log(t, line)
                code = -6
            failures.append((rank, local, code, pid))
            t_last = max(t_last, t)
        failures.sort(key=lambda f: f[1])
        t_agent = t_last + SEC * rng.uniform(0.2, 1.0)
        root = failures[0]
        for f in failures[1:]:
            run.log(t_agent, logs.sigterm(style, t_agent, apid, f[3]))
        run.log(t_agent + SEC * 0.05, logs.worker_failed(style, t_agent, apid, root[2], root[1], root[3]))
        out[pod.uid] = (t_agent + SEC * 0.1, failures)
    return out


def end_attempt(sim, pods: list[Pod], runs: dict[str, Run], down: dict, attempts_left: int, max_restarts: int) -> dt.datetime:
    """Agents either restart the worker group or give up (container exits 1); returns when all are down."""
    style = sim.job.torch_style
    t_all = max(t for t, _ in down.values())
    for pod in pods:
        if pod.uid not in down:
            continue
        t, failures = down[pod.uid]
        run = runs[pod.uid]
        if attempts_left > 0:
            run.log(t, logs.worker_group_failed(style, t, agent_pid(pod, 0), attempts_left, max_restarts))
        else:
            for line in logs.child_failed(t, pod.hostname, failures):
                run.log(t, line)
            run.finished = t + SEC * sim.rng.uniform(0.5, 1.5)
            run.exit_code = 1
            run.reason = "Error"
    return t_all


def give_up(sim, pods: list[Pod], runs: dict[str, Run], down: dict) -> tuple[dt.datetime, dt.datetime]:
    """The agents give up (no restart): every pod's last run ends, the job is Failed; (all down, job start)."""
    job = sim.job
    t_down = end_attempt(sim, pods, runs, down, 0, 1)
    for p in pods:
        sim.final_pods.add(p.uid)
    start = min(r.started for r in runs.values())
    sim.state_changes = [(job.created, "Created"), (start, "Running"), (t_down, "Failed")]
    return t_down, start
