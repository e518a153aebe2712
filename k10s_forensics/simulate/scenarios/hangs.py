"""Hang-evidence scenarios: nccl-size-mismatch, nccl-desync-report, collective-mismatch, nccl-stall-all.

Each plants one kind of evidence docs/rules.md "Hang evidence" describes, in the job's
torch style (1.13 / 2.3 / 2.5) or the >= 2.6 wording, behind a log shipper's prefix or none,
with 1 or several ranks per pod:

* nccl-size-mismatch: one rank enters the collective every rank times out on with another
  NumelIn/NumelOut (watchdog-compare, size-mismatch: cause collective-mismatch).
* nccl-desync-report: one rank stalls; timed-out ranks print TORCH_NCCL_DESYNC_DEBUG reports
  naming it (desync-report).
* collective-mismatch: TORCH_DISTRIBUTED_DEBUG=DETAIL; one rank issues another collective and
  every rank raises "Detected mismatch between collectives" (fingerprint).
* nccl-stall-all: every rank joined the collective and none finished (a fabric stall); the
  desync reports say so and nccl-hang must name no culprit.
"""

from __future__ import annotations

from k10s_forensics.simulate import hang_logs, logs
from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.scenarios.cascade import end_attempt
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, pick_rank, steady_segments
from k10s_forensics.simulate.scenarios.crashes import launch_until_hang
from k10s_forensics.simulate.scenarios.rank_failures import PREFIX_STYLES
from k10s_forensics.simulate.training import agent_pid, worker_pid

OPS = ("ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST")
NUMELS = (1, 25165824, 220084533, 466119168)


def _start(sim, styles: tuple[str, ...]):
    """Launch, train until the hang; returns (pods, runs, t0, t_hang, last step, seq, culprit rank)."""
    pods, runs, t0, t_hang, last = launch_until_hang(sim, styles)
    sim.job.log_prefix = sim.rng.choice(PREFIX_STYLES)  # a log shipper's prefix (or none) on every line
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    return pods, runs, t0, t_hang, last, seq, pick_rank(sim)


def _teardown(sim, pods, runs, t_fail, failed: dict[int, tuple[int, float]]) -> dict:
    """Every pod's agent tears its workers down after they failed; ``failed`` = rank -> (exit code, delay s)."""
    job, style, out = sim.job, sim.job.torch_style, {}
    for pod in pods:
        run, apid = runs[pod.uid], agent_pid(pod, 0)
        failures = []
        for local in range(job.nproc):
            rank = pod.node_rank * job.nproc + local
            if rank in failed:
                failures.append((rank, local, failed[rank][0], worker_pid(pod, 0, local, job.nproc), failed[rank][1]))
        if not failures:
            continue
        failures.sort(key=lambda f: (f[4], f[1]))
        t_agent = t_fail + SEC * (max(f[4] for f in failures) + sim.rng.uniform(0.2, 1.0))
        for f in failures[1:]:
            run.log(t_agent, logs.sigterm(style, t_agent, apid, f[3]))
        root = failures[0]
        run.log(t_agent + SEC * 0.05, logs.worker_failed(style, t_agent, apid, root[2], root[1], root[3]))
        out[pod.uid] = (t_agent + SEC * 0.1, [f[:4] for f in failures])
    return out


def _finish(sim, pods, runs, t0, t_hang, t_end, down, culprit_gid: int | None, culprit_idle: bool) -> None:
    job = sim.job
    t_down = end_attempt(sim, pods, runs, down, 0, 1) if down else t_end
    for p in pods:
        if runs[p.uid].finished is not None:
            sim.final_pods.add(p.uid)
    start = min(r.started for r in runs.values())
    sim.state_changes = [(job.created, "Created"), (start, "Running"), (t_down, "Failed")]
    fb = sim.fb_train_mib
    hung = [Seg(t_hang, t_end, wait=1.0, fb0_mib=fb), Seg(t_end, sim.end + FAR, fb0_mib=0)]
    sim.segs([g for g in sim.job_gids() if g != culprit_gid], steady_segments(sim, start, t0, t_hang) + hung)
    if culprit_gid is not None:
        mine = [Seg(t_hang, t_end, busy=0.0, fb0_mib=fb), Seg(t_end, sim.end + FAR, fb0_mib=0)] if culprit_idle else hung
        sim.segs([culprit_gid], steady_segments(sim, start, t0, t_hang) + mine)
    job_info(sim)


def _timeouts(sim, pods, runs, t_fail, seq, op, numel, skip: set[int], sizes: dict[int, tuple[int, int]] | None = None):
    """Watchdog timeouts of every rank not in ``skip``; returns (rank -> (exit, delay), last timeout time)."""
    job, rng = sim.job, sim.rng
    failed, t_last = {}, t_fail
    for pod in pods:
        for local in range(job.nproc):
            rank = pod.node_rank * job.nproc + local
            if rank in skip:
                continue
            delay = job.timeout_ms / 1000.0 + rng.uniform(0.02, 0.3)
            t = t_fail + SEC * delay
            n_in, n_out = (sizes or {}).get(rank, (numel, numel))
            for line in hang_logs.watchdog(job.torch_style, t, rank, seq, op, n_in, n_out, job.timeout_ms, job.timeout_ms + rng.randrange(15, 120), seq, seq - 1):
                runs[pod.uid].log(t, line)
            failed[rank] = (-6, delay)
            t_last = max(t_last, t)
    return failed, t_last


def nccl_size_mismatch(sim) -> None:
    pods, runs, t0, t_hang, last, seq, rank = _start(sim, ("2.3", "2.5", "2.6"))
    pod, local, gid = sim.rank_gpu(rank)
    op, numel = sim.rng.choice(OPS), sim.rng.choice(NUMELS)
    odd = numel + sim.rng.choice((-1, 1)) * sim.rng.randrange(1, max(2, numel // 2 + 1))
    odd = odd if odd > 0 and odd not in NUMELS else numel * 2 + 3
    sizes = {rank: (odd, odd if op == "ALLREDUCE" or op == "BROADCAST" else odd * sim.job.world_size)}
    if op == "_ALLGATHER_BASE":
        sizes = {r: (numel, numel * sim.job.world_size) for r in range(sim.job.world_size)} | {rank: (odd, odd * sim.job.world_size)}
    failed, t_wd = _timeouts(sim, pods, runs, t_hang, seq, op, numel, set(), sizes)
    down = _teardown(sim, pods, runs, t_hang, failed)
    _finish(sim, pods, runs, t0, t_hang, t_wd, down, None, False)
    sim.expect("nccl-hang", "collective-mismatch", [rank], [pod], [gid], seq_num=seq)
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"Every rank times out on SeqNum={seq} ({op}); rank {rank} entered it with NumelIn={sizes[rank][0]} "
                          f"while the others used {numel} (size mismatch, Timeout(ms)={sim.job.timeout_ms}).")


def nccl_desync_report(sim) -> None:
    pods, runs, t0, t_hang, last, seq, rank = _start(sim, ("1.13", "2.3", "2.5", "2.6"))
    pod, local, gid = sim.rank_gpu(rank)
    op, numel = sim.rng.choice(OPS), sim.rng.choice(NUMELS)
    failed, t_wd = _timeouts(sim, pods, runs, t_hang, seq, op, numel, {rank})
    how = "not_joined" if sim.rng.random() < 0.7 else "not_finished"
    others = sorted(failed)
    reporters = sim.rng.sample(others, k=min(len(others), sim.rng.randint(1, 3)))
    compact = sim.rng.random() < 0.3
    for r in reporters:
        rpod, _, _ = sim.rank_gpu(r)
        t = t_hang + SEC * (failed[r][1] + 0.01)
        for line in hang_logs.desync_report(sim.job.torch_style, t, r, seq, op, [rank], others, how, compact):
            runs[rpod.uid].log(t, line)
    down = _teardown(sim, pods, runs, t_hang, failed)
    _finish(sim, pods, runs, t0, t_hang, t_wd, down, gid, how == "not_joined")
    sim.expect("nccl-hang", "never-joined" if how == "not_joined" else "lagging-rank", [rank], [pod], [gid], seq_num=seq)
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"Rank {rank} stalls ({how.replace('_', ' ')} collective #{seq}); the others time out and "
                          f"{len(reporters)} of them print TORCH_NCCL_DESYNC_DEBUG reports naming it.")


def collective_mismatch(sim) -> None:
    pods, runs, t0, t_hang, last, seq, rank = _start(sim, ("1.13", "2.3", "2.5"))
    pod, local, gid = sim.rank_gpu(rank)
    op = sim.rng.choice(OPS[:2])
    shape = [sim.rng.choice((1, 4, 1024, 4096))]
    own = hang_logs.fingerprint(seq, op, shape, "Float")
    if sim.rng.random() < 0.5:
        odd, diff = hang_logs.fingerprint(seq, "BROADCAST", shape, "Float"), f"  Op type: {op}vs BROADCAST"
    else:
        odd, diff = hang_logs.fingerprint(seq, op, [shape[0] * 2 + 1], "Float"), f"  Tensor Tensor shapes: [{shape[0]}]vs [{shape[0] * 2 + 1}]"
    failed = {}
    for r in range(sim.job.world_size):
        rpod, _, _ = sim.rank_gpu(r)
        delay = sim.rng.uniform(0.01, 0.4)
        if r == rank:
            first = 0 if rank != 0 else 1
            lines = hang_logs.mismatch_error(sim.job.torch_style, r, odd, first, own, diff)
        else:
            lines = hang_logs.mismatch_error(sim.job.torch_style, r, own, rank, odd, diff)
        for line in lines:
            runs[rpod.uid].log(t_hang + SEC * delay, line)
        failed[r] = (1, delay)
    down = _teardown(sim, pods, runs, t_hang, failed)
    _finish(sim, pods, runs, t0, t_hang, t_hang + SEC * 0.5, down, None, False)
    sim.expect("nccl-hang", "collective-mismatch", [rank], [pod], [gid], seq_num=seq)
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"TORCH_DISTRIBUTED_DEBUG=DETAIL: rank {rank} issues a different collective at sequence {seq}; every rank "
                          "raises 'Detected mismatch between collectives on ranks' and the job fails.")


def nccl_stall_all(sim) -> None:
    pods, runs, t0, t_hang, last, seq, _rank = _start(sim, ("2.3", "2.5", "2.6"))
    op, numel = sim.rng.choice(OPS), sim.rng.choice(NUMELS)
    failed, t_wd = _timeouts(sim, pods, runs, t_hang, seq, op, numel, set())
    everyone = sorted(failed)
    for r in sim.rng.sample(everyone, k=min(len(everyone), sim.rng.randint(1, 3))):
        rpod, _, _ = sim.rank_gpu(r)
        t = t_hang + SEC * (failed[r][1] + 0.01)
        for line in hang_logs.desync_report(sim.job.torch_style, t, r, seq, op, everyone, everyone, "not_finished", sim.rng.random() < 0.3):
            runs[rpod.uid].log(t, line)
    down = _teardown(sim, pods, runs, t_hang, failed)
    _finish(sim, pods, runs, t0, t_hang, t_wd, down, None, False)
    sim.expect("nccl-hang", "no-single-culprit", [], [], [], seq_num=seq)
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"Every rank joined collective #{seq} ({op}) and none finished it (a fabric stall); the desync reports "
                          "say so, and no single rank is to blame.")
