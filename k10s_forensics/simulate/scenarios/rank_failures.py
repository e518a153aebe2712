"""A rank fails on its own and torchrun tears the job down: rank-host-oom, rank-segfault,
rank-exception, rank-cuda-error (the rank-failure rule's scenarios).

* rank-host-oom: the host's OOM killer SIGKILLs one worker (dmesg ``Out of memory: Killed
  process``), torchrun reports ``exitcode: -9`` for it and SIGTERMs its siblings; a sibling that
  ignores SIGTERM past the grace period is SIGKILLed too (its -9 in the failure table is the
  escalation, not a second OOM kill).
* rank-segfault: a worker dies of SIGSEGV (faulthandler's ``Fatal Python error``).
* rank-exception: a worker raises a Python exception (its traceback, exit status 1).
* rank-cuda-error: an illegal memory access (``CUDA error: …``) with an Xid 31/13/43 on its GPU.

The other pods' ranks then get remote errors or time out in the NCCL watchdog (cascade.py).
Each job writes its lines behind one of several log-shipper prefixes (``job.log_prefix``).
"""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.scenarios.cascade import cascade, give_up
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, launch, pick_rank, steady_segments
from k10s_forensics.simulate.logs import agent
from k10s_forensics.simulate.training import agent_pid, train, worker_pid

PREFIX_STYLES = (None, "pod", "host", "clock")
EXCEPTIONS = (
    ("KeyError", "'input_ids'"),
    ("ValueError", "Expected input batch_size (16) to match target batch_size (12)."),
    ("FileNotFoundError", "[Errno 2] No such file or directory: '/data/shards/train-00017.arrow'"),
    ("AssertionError", "loss is nan at step {step}"),
)
XIDS = ((31, "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f3a_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
        (13, "Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address"),
        (43, "Ch 00000008"))


def _py(style: str, rank: int, text: str) -> str:
    return text if style == "1.13" else f"[rank{rank}]: {text}"


def _culprit_lines(sim, kind: str, rank: int, step: int) -> tuple[list[str], int]:
    """The failing worker's own lines and its exit code."""
    style = sim.job.torch_style
    frame = ['Traceback (most recent call last):', '  File "/workspace/train.py", line 311, in <module>', "    main()",
             '  File "/workspace/train.py", line 252, in main', "    loss = model(**batch).loss"]
    if kind == "host-oom-kill":
        return [], -9
    if kind == "segfault":
        return [_py(style, rank, s) for s in ("Fatal Python error: Segmentation fault", "",
                                              "Thread 0x00007f2b4d7fe640 (most recent call first):",
                                              '  File "/usr/lib/python3.10/threading.py", line 324 in wait')], -11
    if kind == "python-exception":
        name, msg = sim.rng.choice(EXCEPTIONS)
        return [_py(style, rank, s) for s in frame + [f"{name}: {msg.format(step=step)}"]], 1
    return [_py(style, rank, s) for s in frame + [
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]], 1


def _node_lines(sim, kind: str, rank: int, pid: int, gid: int, t: dt.datetime) -> None:
    """What the kernel logs on the culprit's node (host OOM kill, Xid)."""
    pod, _, _ = sim.rank_gpu(rank)
    node = pod.node.name
    host_pid = 100000 + pid * 13 + rank
    if kind == "host-oom-kill":
        rss = sim.rng.randrange(60, 200) * 1024 * 1024
        sim.add_dmesg(node, t - SEC * 0.01, "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        sim.add_dmesg(node, t, f"Out of memory: Killed process {host_pid} (python3) total-vm:{rss + 9_000_000}kB, anon-rss:{rss}kB, "
                               f"file-rss:81236kB, shmem-rss:2097152kB, UID:0 pgtables:{rss // 2000}kB oom_score_adj:0")
    elif kind == "cuda-error":
        gpu = sim.cluster.gpus[gid]
        xid, text = sim.rng.choice(XIDS)
        sim.add_dmesg(node, t - SEC * 0.2, f"NVRM: Xid (PCI:0000:{gpu.bus.lower()}:00): {xid}, pid={host_pid}, name=python3, {text}")
        sim.activity.set_xid(gid, t - SEC * 0.2, xid)


def _rank_failure(sim, kind: str) -> None:
    window = (sim.end - sim.start).total_seconds()
    t_frac = sim.rng.uniform(0.15, 0.35)
    mode = "remote" if sim.rng.random() < 0.5 else "timeout"
    timeout = next((t for t in (600000, 300000, 180000, 120000, 60000) if t / 1000 + 60 <= window * (0.9 - t_frac)), None)
    if mode == "timeout" and timeout is None:
        mode = "remote"
    pods, runs, t0 = launch(sim, timeouts=(timeout or 600000,))
    job = sim.job
    job.restart_policy = "Never"
    job.log_prefix = sim.rng.choice(PREFIX_STYLES)
    last, t_last = train(sim, pods, runs, t0, sim.at(t_frac), 0)
    t_fail = t_last + SEC * sim.rng.uniform(0.2, 0.9)
    rank = pick_rank(sim)
    pod, local, gid = sim.rank_gpu(rank)
    pid = worker_pid(pod, 0, local, job.nproc)
    lines, exit_code = _culprit_lines(sim, kind, rank, last)
    _node_lines(sim, kind, rank, pid, gid, t_fail)
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    down = cascade(sim, pods, runs, pod, local, t_fail, mode, seq, 0, lines, exit_code)
    escalated = None
    if kind == "host-oom-kill" and job.nproc > 1:  # one sibling outlives the SIGTERM grace period: SIGKILLed
        t_down, failures = down[pod.uid]
        i = 1 + sim.rng.randrange(len(failures) - 1)
        escalated = failures[i][0]
        failures[i] = (failures[i][0], failures[i][1], -9, failures[i][3])
        down[pod.uid] = (t_down + SEC * 30, failures)
        if sim.rng.random() < 0.5:  # torchrun >= 2.0 says so; older versions only list the -9
            runs[pod.uid].log(t_down + SEC * 30, agent(job.torch_style, t_down + SEC * 30, "W", agent_pid(pod, 0), "torch/distributed/elastic/multiprocessing/api.py", 916,
                                                       f"Unable to shutdown process {failures[i][3]} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"))
    t_down, start = give_up(sim, pods, runs, down)
    fb = sim.fb_train_mib
    sim.segs([gid], steady_segments(sim, start, t0, t_fail) + [Seg(t_fail, sim.end + FAR, fb0_mib=0)])
    sibs = [g for g in pod.gpu_ids if g != gid]
    sim.segs(sibs, steady_segments(sim, start, t0, t_fail) + [Seg(t_fail, t_fail + SEC * 2, wait=1.0, fb0_mib=fb), Seg(t_fail + SEC * 2, sim.end + FAR)])
    rest = [g for p in pods if p is not pod for g in p.gpu_ids]
    wait_end = max(t_down, t_fail + SEC * 3)
    sim.segs(rest, steady_segments(sim, start, t0, t_fail) + [Seg(t_fail, wait_end, wait=1.0, fb0_mib=fb), Seg(wait_end, sim.end + FAR)])
    job_info(sim)
    sim.expect("rank-failure", kind, [rank], [pod], [gid])
    allowed = ["rank-failure", "nccl-hang", "crashloop"] + (["gpu-health"] if kind == "cuda-error" else [])
    forbid(sim, *allowed)
    sim.truth["notes"] = (f"Rank {rank} ({pod.name}, local rank {local}) fails on its own ({kind}, exit {exit_code}) after step {last}; "
                          f"torchrun SIGTERMs its siblings{f' (rank {escalated} is SIGKILLed after the grace period)' if escalated is not None else ''}"
                          f" and the other pods' ranks get {'remote errors' if mode == 'remote' else 'watchdog timeouts'}"
                          f"; log prefix style: {job.log_prefix or 'none'}.")


def rank_host_oom(sim) -> None:
    _rank_failure(sim, "host-oom-kill")


def rank_segfault(sim) -> None:
    _rank_failure(sim, "segfault")


def rank_exception(sim) -> None:
    _rank_failure(sim, "python-exception")


def rank_cuda_error(sim) -> None:
    _rank_failure(sim, "cuda-error")
