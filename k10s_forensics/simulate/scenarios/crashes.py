"""oom-crashloop, nccl-hang, xid-79."""

from __future__ import annotations

from types import SimpleNamespace

from k10s_forensics.simulate import logs
from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.scenarios.cascade import cascade, end_attempt, give_up
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, launch, pick_rank, steady_segments
from k10s_forensics.simulate.training import start_workers, train

TIMEOUTS = (1800000, 600000, 300000, 180000, 120000, 60000)


def _fit_timeout(sim, cycle_s: float, cycles: int, room_s: float) -> int | None:
    """Largest common/configured NCCL timeout that lets ``cycles`` failures fit in ``room_s``."""
    for t in TIMEOUTS:
        if cycles * (cycle_s + t / 1000.0) <= room_s:
            return t
    return None


def oom_crashloop(sim) -> None:
    window = (sim.end - sim.start).total_seconds()
    step_s = sim.step_ms / 1000.0
    startup = sim.rng.uniform(30, 50)
    run_s = max(5 * step_s, window * sim.rng.uniform(0.12, 0.18))
    mode = "remote" if sim.rng.random() < 0.4 else "timeout"
    timeout = _fit_timeout(sim, startup + run_s + 15, 3, window * 0.95) if mode == "timeout" else None
    if timeout is None:
        mode = "remote"
    pods, runs, t0 = launch(sim, lead_min=(startup / 60 + 0.4, startup / 60 + 1.0), timeouts=(timeout or 600000,))
    job = sim.job
    job.restart_policy = "OnFailure"
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    m = sim.cluster.model
    full = m["memory_mib"] - m["reserved_mib"] - sim.rng.uniform(60, 300)
    per_step = sim.rng.randrange(20, 60)
    ckpt = sim.rng.randrange(500, 5000)
    oom_step = ckpt + max(3, int(run_s / step_s))
    seg_c, seg_sib, seg_rest = [], [], []
    attempts, ooms, oom_times = 0, 0, []
    t_train = t0
    t_start = min(r.started for r in runs.values())
    max_restarts = 1
    while True:
        last, t_last = train(sim, pods, runs, t_train, t_train + SEC * (run_s + step_s * 3), ckpt)
        if last < oom_step - 1 and t_last + SEC * step_s < sim.end:
            pass
        t_fail = t_last + SEC * step_s * sim.rng.uniform(0.4, 0.8)
        if t_fail >= sim.end:
            for lst in (seg_c, seg_sib, seg_rest):
                lst.extend(steady_segments(sim, t_start, t_train))
            break
        ooms += 1
        oom_times.append(t_fail)
        fb = sim.fb_train_mib
        seg_c += [Seg(t_start, t_train, busy=0.04, fb0_mib=600, fb1_mib=fb * 0.9),
                  Seg(t_train, t_fail, busy=sim.busy, wait=1 - sim.busy - 0.02, fb0_mib=fb, fb1_mib=full)]
        for lst in (seg_sib, seg_rest):
            lst.extend(steady_segments(sim, t_start, t_train, t_fail))
        seq = last * per_step + sim.rng.randrange(3, per_step)
        lines = logs.cuda_oom(job.torch_style, rank, local, m["memory_mib"], full, sim.rng.choice((1024.0, 2048.0, 4480.0, 8192.0)), 4000 + rank)
        down = cascade(sim, pods, runs, pod, local, t_fail, mode, seq, attempts, lines, 1)
        attempts += 1
        left = max_restarts - (attempts - 1) % (max_restarts + 1)
        gave_up = (attempts % (max_restarts + 1)) == 0
        t_down = end_attempt(sim, pods, runs, down, 0 if gave_up else left, max_restarts)
        seg_c.append(Seg(t_fail, t_down, fb0_mib=0))
        seg_sib.append(Seg(t_fail, t_down, fb0_mib=0))
        wait_end = t_fail + SEC * (job.timeout_ms / 1000.0) if mode == "timeout" else t_fail + SEC * 2
        seg_rest += [Seg(t_fail, min(wait_end, t_down), wait=1.0, fb0_mib=fb), Seg(min(wait_end, t_down), t_down, fb0_mib=0)]
        if gave_up:
            n_restart = attempts // (max_restarts + 1)
            back = 10 * 2 ** (n_restart - 1)
            t_new = t_down + SEC * (back + sim.rng.uniform(1, 3))
            for p in pods:
                sim.event(job.namespace, "Pod", p.name, p.uid, "BackOff", "Warning",
                          f"Back-off restarting failed container {job.container} in pod {p.name}_{job.namespace}({p.uid})",
                          t_down + SEC * 2, t_new, n_restart, host=p.node.name)
            runs = start_workers(sim, pods, t_new, attempt=attempts, new_container=True)
            t_start = min(r.started for r in runs.values())
        else:
            t_new = t_down + SEC * sim.rng.uniform(3, 8)
            runs = start_workers(sim, pods, t_new, attempt=attempts, new_container=False)
            t_start = t_new
        for lst in (seg_c, seg_sib, seg_rest):
            lst.append(Seg(t_down, t_start, fb0_mib=0))
        t_train = t_start + SEC * startup
        if t_train >= sim.end:
            for lst in (seg_c, seg_sib, seg_rest):
                lst.append(Seg(t_start, sim.end + FAR, busy=0.04, fb0_mib=600, fb1_mib=sim.fb_train_mib))
            break
    sibs = [g for g in pod.gpu_ids if g != gid]
    rest = [g for p in pods if p is not pod for g in p.gpu_ids]
    sim.segs([gid], seg_c)
    sim.segs(sibs, seg_sib)
    sim.segs(rest, seg_rest)
    job_info(sim)
    kept = [r for r in pod.runs if r.started <= sim.end][-2:]
    in_logs = sum(1 for r in kept for _, line in r.lines if isinstance(line, str) and "CUDA out of memory" in line)
    sim.expect("oom-cascade", "cuda-oom", [rank], [pod], [gid], step=oom_step, ooms=ooms, ooms_in_logs=in_logs)
    sim.expect("crashloop", "cuda-oom", [rank], [pod], [gid], ooms=ooms, ooms_in_logs=in_logs)
    forbid(sim, "oom-cascade", "crashloop", "nccl-hang", "gpu-health")
    sim.truth["notes"] = (f"Rank {rank} runs out of GPU memory at step {oom_step} {ooms} times ({mode} cascade, NCCL timeout "
                          f"{job.timeout_ms} ms); torchrun --max-restarts=1 restarts the worker group, then the container restarts.")


def launch_until_hang(sim, styles: tuple[str, ...] | None = None):
    """Launch a job (restartPolicy Never, a timeout that fits the window) and train until it hangs.

    ``styles``: torch log styles the scenario needs (the job's is kept when it is one of them).
    Returns (pods, runs, training start, hang time, last step).
    """
    window = (sim.end - sim.start).total_seconds()
    th_frac = sim.rng.uniform(0.12, 0.3)
    timeout = _fit_timeout(sim, 60, 1, window * (0.9 - th_frac)) or 60000
    pods, runs, t0 = launch(sim, timeouts=(timeout,))
    job = sim.job
    job.restart_policy = "Never"
    if styles and job.torch_style not in styles:
        job.torch_style = sim.rng.choice(styles)
    last, t_last = train(sim, pods, runs, t0, sim.at(th_frac), 0)
    return pods, runs, t0, t_last + SEC * 0.2, last


def nccl_hang(sim) -> None:
    pods, runs, t0, t_hang, last = launch_until_hang(sim)
    job = sim.job
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    desync = sim.rng.random() < 0.4
    t_fail = t_hang
    nobody = SimpleNamespace(ip=pod.ip)  # no rank died: everyone but the hung culprit times out
    down = cascade(sim, pods, runs, nobody, local, t_fail, "timeout", seq, 0, [], -15, spare={rank})
    start = min(r.started for r in runs.values())
    t_wd = t_fail + SEC * (job.timeout_ms / 1000.0)
    if desync:
        crun = runs[pod.uid]
        for line in logs.watchdog_timeout(job.torch_style, t_wd, rank, seq + 1, "BROADCAST", 1, job.timeout_ms, job.timeout_ms + 40, seq + 1, seq - 1):
            crun.log(t_wd + SEC * 0.4, line)
    elif job.nccl_info and len(pods) > 1:
        peer = pods[(pods.index(pod) + 1) % len(pods)]
        for line in logs.nccl_warn_peer(pod.hostname, 60 + local, local, peer.ip, sim.rng.randrange(33000, 60000), closed=True):
            runs[pod.uid].log(t_wd + SEC * 2, line)
    t_down = end_attempt(sim, pods, runs, down, 0, 1) if down else t_wd
    for p in pods:
        if runs[p.uid].finished is not None:
            sim.final_pods.add(p.uid)
    sim.state_changes = [(job.created, "Created"), (start, "Running"), (t_down, "Failed")]
    fb = sim.fb_train_mib
    sim.segs([g for g in sim.job_gids() if g != gid], steady_segments(sim, start, t0, t_hang)
             + [Seg(t_hang, t_wd, wait=1.0, fb0_mib=fb), Seg(t_wd, sim.end + FAR, fb0_mib=0)])
    culprit_after = [Seg(t_hang, sim.end + FAR, busy=0.0, wait=0.0, fb0_mib=fb)] if not desync else [Seg(t_hang, t_wd, wait=1.0, fb0_mib=fb), Seg(t_wd, sim.end + FAR, fb0_mib=0)]
    if job.nproc > 1:
        culprit_after = [Seg(t_hang, t_wd, busy=0.0, fb0_mib=fb), Seg(t_wd, sim.end + FAR, fb0_mib=0)]
    sim.segs([gid], steady_segments(sim, start, t0, t_hang) + culprit_after)
    job_info(sim)
    sim.expect("nccl-hang", "desync" if desync else "never-joined", [rank], [pod], [gid], seq_num=seq)
    forbid(sim, "nccl-hang", "idle-gpu")
    sim.truth["notes"] = (f"Rank {rank} stops making progress after step {last}; the other ranks time out on SeqNum={seq} "
                          f"(Timeout(ms)={job.timeout_ms})" + (" while the culprit waits on a different collective (desync)." if desync else "; the culprit logs nothing."))


def train_until_fault(sim, remote_p: float):
    """Launch a job (restartPolicy Never) and train it to a fault at 15-35 % of the window; the peers will get NCCL's
    remote error (probability ``remote_p``) or a watchdog timeout that fits the window. (pods, runs, training start,
    mode, last step, its time)."""
    window = (sim.end - sim.start).total_seconds()
    tx_frac = sim.rng.uniform(0.15, 0.35)
    mode = "remote" if sim.rng.random() < remote_p else "timeout"
    timeout = _fit_timeout(sim, 30, 1, window * (0.9 - tx_frac)) if mode == "timeout" else 600000
    if timeout is None:
        mode, timeout = "remote", 600000
    pods, runs, t0 = launch(sim, timeouts=(timeout,))
    sim.job.restart_policy = "Never"
    last, t_last = train(sim, pods, runs, t0, sim.at(tx_frac), 0)
    return pods, runs, t0, mode, last, t_last


def xid_79(sim) -> None:
    pods, runs, t0, mode, last, t_last = train_until_fault(sim, 0.5)
    job = sim.job
    t_x = t_last + SEC * 0.3
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    gpu = sim.cluster.gpus[gid]
    node = pod.node.name
    pci = f"0000:{gpu.bus.lower()}:00"
    for dt_s, line in ((0.0, f"NVRM: Xid (PCI:{pci}): 79, pid={4000 + rank}, name=python3, GPU has fallen off the bus."),
                       (0.0, f"NVRM: GPU at PCI:{pci}: {gpu.uuid}"), (0.0, f"NVRM: GPU Board Serial Number: {gpu.serial}"),
                       (0.001, f"NVRM: GPU {pci}.0: GPU has fallen off the bus."),
                       (0.002, "NVRM: A GPU crash dump has been created. If possible, please run"),
                       (0.002, "NVRM: nvidia-bug-report.sh as root to collect this data before"),
                       (0.002, "NVRM: the NVIDIA kernel module is unloaded.")):
        sim.add_dmesg(node, t_x + SEC * dt_s, line)
    sim.activity.set_xid(gid, t_x, 79)
    sim.lost[node] = t_x + SEC * sim.rng.uniform(20, 40)
    prefix = (lambda s: s) if job.torch_style == "1.13" else (lambda s: f"[rank{rank}]: {s}")
    lines = [prefix(s) for s in ("Traceback (most recent call last):", '  File "/workspace/train.py", line 252, in main',
                                 "    loss.backward()", "RuntimeError: CUDA error: unspecified launch failure",
                                 "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                                 "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                                 "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")]
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    t_fail = t_x + SEC * sim.rng.uniform(0.5, 3.0)
    down = cascade(sim, pods, runs, pod, local, t_fail, mode, seq, 0, lines, 1)
    t_down, start = give_up(sim, pods, runs, down)
    fb = sim.fb_train_mib
    gone = t_x + SEC * sim.interval_s * 1.5
    sim.segs([gid], steady_segments(sim, start, t0, t_x) + [Seg(t_x, gone, fb0_mib=fb), Seg(gone, sim.end + FAR, present=False)])
    sibs = [g for g in pod.gpu_ids if g != gid]
    sim.segs(sibs, steady_segments(sim, start, t0, t_x) + [Seg(t_x, t_fail + SEC, wait=1.0, fb0_mib=fb), Seg(t_fail + SEC, sim.end + FAR)])
    rest = [g for p in pods if p is not pod for g in p.gpu_ids]
    wait_end = max(t_down, t_fail + SEC * 3)
    sim.segs(rest, steady_segments(sim, start, t0, t_x) + [Seg(t_x, wait_end, wait=1.0, fb0_mib=fb), Seg(wait_end, sim.end + FAR)])
    job_info(sim)
    sim.expect("gpu-health", "xid-79", [rank], [pod], [gid], xid=79)
    sim.expect("rank-failure", "cuda-error", [rank], [pod], [gid])
    forbid(sim, "gpu-health", "nccl-hang", "crashloop", "rank-failure")
    sim.truth["notes"] = (f"GPU {gpu.uuid} ({node}, PCI {pci}) fell off the bus (Xid 79) at {t_x.isoformat()}; rank {rank} died with a "
                          f"CUDA error, its peers got {'ncclRemoteError' if mode == 'remote' else 'watchdog timeouts'}; the node advertises one GPU less.")
