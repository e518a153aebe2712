"""Multi-network training launches (real incidents batch 152, docs/rules.md "Session 33: batch 152"): the readings the
batch held, pinned with their wording variants. mp.spawn's ``-- Process N terminated with the following error:`` names
process N even when the author truncated the traceback (StyleGAN2-ADA's ``Truncated Traceback``); every worker
rejecting the launcher's ``--local-rank`` and every worker lacking NCCL on Windows (their messages glued on shared
lines, torch 1.9's root-cause table naming rank 0) fail them all alike and name no one; a lone rank's BROADCAST
watchdog under blocking wait, glued to the main process's progress bar, is a waiter and names no one. A CUDA OOM's
``GPU N`` is the allocator's device index and names no rank, even with the agent SIGTERMing every other worker; the
agent's own ``failed (exitcode: 1) local_rank: N`` line still names that worker. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)

SPAWN = [
    "Distributing across 2 GPUs...",
    "Setting up training phases...",
    "{head} (most recent call last):",
    "    torch.multiprocessing.spawn(fn=subprocess_fn, args=(args, temp_dir), nprocs=args.num_gpus)",
    '  File "/opt/conda/lib/python3.7/site-packages/torch/multiprocessing/spawn.py", line 118, in join',
    "    raise Exception(msg)",
    "Exception:",
    " ",
    "-- Process {p} terminated with the following error:",
    "{head} (most recent call last):",
]

OOM = (
    "RuntimeError: CUDA out of memory. Tried to allocate 3.20 GiB (GPU {gpu}; 10.76 GiB total capacity; 3.22 GiB "
    "already allocated; 3.18 GiB free; 3.28 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
    "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
    "PYTORCH_CUDA_ALLOC_CONF"
)
REDUCER = [
    "    model = torch.nn.parallel.DistributedDataParallel(",
    '  File "/data1/sd/venv/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", line 724, in '
    "_ddp_init_helper",
    "    self.reducer = dist.Reducer(",
]
LEGACY_TERM = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGTERM"
NEW_TERM = (
    "[2024-03-01 10:00:0{i},000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {pid} "
    "closing signal SIGTERM"
)
LEGACY_FAIL = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {r} (pid: {pid}) "
    "of binary: /data1/sd/venv/bin/python"
)


def _spawn(p: int, head: str) -> list[str]:
    return [s.format(p=p, head=head) for s in SPAWN]


def _oom(
    gpu: int, others: list[int], new: bool = False, fail: tuple[int, int] | None = None
) -> list[str]:
    term = [
        NEW_TERM.format(i=i, pid=pid) if new else LEGACY_TERM.format(pid=pid)
        for i, pid in enumerate(others)
    ]
    return [
        *REDUCER,
        OOM.format(gpu=gpu),
        *term,
        *([LEGACY_FAIL.format(r=fail[0], pid=fail[1])] if fail else []),
    ]


ARGPARSE = [
    "train.py: error: unrecognized arguments: --local-rank=1",
    "[2024-04-12 09:48:38,075] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 2) "
    "local_rank: 0 (pid: 69084) of binary: /data/envs/sr/bin/python",
    "Traceback (most recent call last):",
    '  File "/data/envs/sr/lib/python3.11/site-packages/torch/distributed/run.py", line 803, in run',
    "    elastic_launch(",
]
NO_NCCL = [
    " line 625, in _new_process_group_helper",
    '    raise RuntimeError("Distributed package doesn\'t have NCCL "    raise RuntimeError("Distributed package '
    "doesn't have NCCL \"",
    "RuntimeError: Distributed package doesn't have NCCL built inRuntimeError: Distributed package doesn't have "
    "NCCL built in",
    ": Distributed package doesn't have NCCL built in",
    "Distributed package doesn't have NCCL built in",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "=========================================",
    "  D:\\SR\\train.py FAILED",
    "=========================================",
    "Root Cause:",
    "[0]:",
    "  time: 2021-08-18_10:28:49",
    "  rank: 0 (local_rank: 0)",
    "  exitcode: 1 (pid: 13540)",
    "  error_file: <N/A>",
    '  msg: "Process failed with exitcode 1"',
]
BAR = (
    "Epoch 0:  95%|"
    + "\u2588" * 73
    + "\u258a    | {step}/9188 [30:57<01:45,  4.68it/s, loss=11.5, v_num=0]"
)
WAITER = [
    BAR.format(step=8692)
    + "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=4013, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600009 "
    "milliseconds before timing out.",
    "[rank1]:[E ProcessGroupNCCL.cpp:626] [Rank 1] Work WorkNCCL(SeqNum=4013, OpType=BROADCAST, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).",
    BAR.format(step=8695)
    + "[rank1]:[E ProcessGroupNCCL.cpp:583] [Rank 1] To avoid data inconsistency, we are "
    "taking the entire process down.",
    "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 4013, last enqueued NCCL work: 4013, "
    "last completed NCCL work: 4012.",
]

#: key: (the pasted lines, processes per node, the rank a warning/critical finding must name alone: None for none,
#: the cause one of them gives: None for any)
CASES = {
    # stylegan2-ada-pytorch-139's shape: the author's "Truncated Traceback", process 1 of 2; Python's own wording too
    "spawn-process1-truncated-traceback": (
        _spawn(1, "Truncated Traceback"),
        2,
        1,
        "python-exception",
    ),
    "spawn-process1-traceback": (_spawn(1, "Traceback"), 2, 1, "python-exception"),
    "spawn-process0-truncated-traceback": (
        _spawn(0, "Truncated Traceback"),
        2,
        0,
        "python-exception",
    ),
    # kohya_ss-745's shape: DDP's reducer OOM on GPU 0, the agent SIGTERMs the six others, its naming line cut
    "reducer-oom-gpu0-six-sigterm-legacy": (
        _oom(0, list(range(45737, 45743))),
        None,
        None,
        None,
    ),
    "reducer-oom-gpu0-six-sigterm-new-agent": (
        _oom(0, list(range(45737, 45743)), new=True),
        None,
        None,
        None,
    ),
    "reducer-oom-gpu3-three-sigterm": (_oom(3, [501, 502, 503]), 4, None, None),
    # contrast: the agent's line naming the failed worker is in the paste
    "reducer-oom-gpu0-agent-names-local-rank0": (
        _oom(0, list(range(45737, 45743)), fail=(0, 45736)),
        None,
        0,
        None,
    ),
    # Real-ESRGAN-780's shape: every worker's argparse rejects the launcher's --local-rank
    "argparse-local-rank1-agent-local-rank0": (ARGPARSE, 2, None, None),
    # Real-ESRGAN-39's shape: four workers' no-NCCL messages glued, torch 1.9's root cause rank 0
    "windows-no-nccl-glued-root-cause-rank0": (NO_NCCL, 4, None, None),
    # lama-324's shape: a lone rank's BROADCAST watchdog under blocking wait, glued to the progress bar
    "lone-broadcast-waiter-blocking-wait-glued-bar": (WAITER, None, None, None),
}
BATCHED = Batched("b152", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_multi_network_launch_readings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])
