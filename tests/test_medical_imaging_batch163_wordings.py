"""Medical imaging and computational pathology training (real incidents batch 163): their wordings, pinned as read.
torch-elastic's lone ``failed (exitcode: -9) local_rank: 2`` after SIGTERMs to the other workers while every worker
fills a MONAI ``CacheDataset`` (Project-MONAI/research-contributions#157: the legacy ``WARNING:``/``ERROR:`` logging,
the paste's markdown backtick glued to the first line kept; PyTorch 2.1's bracketed wording and 2.x's glog wording)
names local rank 2, host-oom-kill. Held controls: a lone rank's ALLGATHER watchdog timeout in nnU-Net v2's DDP (the
waiter, not the rank it waited for: MIC-DKFZ/nnUNet#1516 in a world of 4, PyTorch 2.2's ``[E ProcessGroupNCCL.cpp:N]``;
ivadomed/seg-sc-ms-lesion-multicontrast#53 in a world of 2 after nnU-Net's epoch banner, PyTorch 2.5's glog stamps),
nnU-Net's background augmenter ``Exception in thread Thread-1:`` after both devices' pin-memory notices
(MIC-DKFZ/nnUNet#2070), the parent's ``mp.spawn`` traceback cut before the failed process's index
(Project-MONAI/research-contributions#169) and every worker's argparse refusal of ``--local-rank`` (ge-xing/Diff-UNet#40,
rank 1's message first, or both) name no one. Contrast: three of four ranks waiting on the same ALLGATHER name the
absent rank. No rule changed for the batch (all six met as collected). Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
PY = "/home/fyc/anaconda3/envs/cv/bin/python"
API = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
LAUNCH_TB = [
    "Traceback (most recent call last):",
    '  File "/home/fyc/anaconda3/envs/cv/lib/python3.8/runpy.py", line 194, in _run_module_as_main',
    "    return _run_code(code, main_globals, None,",
    '  File "/home/fyc/anaconda3/envs/cv/lib/python3.8/site-packages/torch/distributed/launch.py", line 195, in <module>',
    "    main()",
]


def _agent_old(backtick: bool) -> list[str]:
    """research-contributions-157's shape: two SIGTERMs, then local rank 2's -9, legacy logging."""
    head = "`" if backtick else ""
    return [
        f"{head}WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 239172 closing signal SIGTERM",
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 239173 closing signal SIGTERM",
        f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 239174) of binary: {PY}",
    ] + LAUNCH_TB


AGENT_BRACKET = [
    f"[2024-01-09 10:14:02,{118 + p % 10}] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {p} "
    "closing signal SIGTERM"
    for p in (239172, 239173, 239175)
] + [
    "[2024-01-09 10:14:08,604] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 2 "
    f"(pid: 239174) of binary: {PY}"
]
AGENT_GLOG = [
    f"W0109 10:14:02.{118 + p % 10}000 239170 {API}:897] Sending process {p} closing signal SIGTERM"
    for p in (239172, 239173, 239175)
] + [
    f"E0109 10:14:08.604000 239170 {API}:869] failed (exitcode: -9) local_rank: 2 (pid: 239174) of binary: {PY}"
]


def _waiter_old(rank: int) -> list[str]:
    """nnUNet-1516's shape: one rank's ALLGATHER #5 timeout in a world of 4, PyTorch 2.2's wording."""
    p = f"[rank{rank}]:[E ProcessGroupNCCL.cpp:"
    watch = (
        f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLGATHER, NumelIn=4, "
        "NumelOut=16, Timeout(ms)=600000) ran for 600081 milliseconds before timing out."
    )
    return [
        f"{p}563] {watch}",
        f"{p}1537] [PG 0 Rank {rank}] Timeout at NCCL work: 5, last enqueued NCCL work: 7, last completed NCCL work: 4.",
        f"{p}577] [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA "
        "kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"{p}583] [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
        f"{p}1414] [PG 0 Rank {rank}] Process group watchdog thread terminated with exception: {watch}",
        "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call "
        "first):",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7ff35e37a897 in "
        "/usr/local/lib/python3.10/site-packages/torch/lib/libc10.so)",
    ]


BANNER = [
    "Epoch 453",
    "Current learning rate: 0.00581",
    "2025-04-12 03:48:04.017921:",
    "2025-04-12 03:48:04.077450: Epoch 453",
    "2025-04-12 03:48:04.078914: Current learning rate: 0.00581",
]
GLOG_WAITER = [
    "[rank1]:[E412 04:21:24.254321149 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=4128661, OpType=ALLGATHER, NumelIn=3, NumelOut=6, Timeout(ms)=600000) ran for 600060 milliseconds "
    "before timing out.",
    "[rank1]:[E412 04:21:25.573289685 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception "
    "(either an error or timeout) detected by watchdog at work: 4128661, last enqueued NCCL work: 4128690, last "
    "completed NCCL work: 4128660.",
    "[rank1]:[E412 04:21:25.573431017 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 1] Timeout at "
    "NCCL work: 4128661, last enqueued NCCL work: 4128690, last completed NCCL work: 4128660.",
    "[rank1]:[E412 04:21:25.573475777 ProcessGroupNCCL.cpp:636] [Rank 1] To avoid data inconsistency, we are taking "
    "the entire process down.",
]
CONDA = "/home/wu/.conda/envs/nnUNet/lib/python3.9"
AUGMENTER = [
    "Epoch 0",
    "Current learning rate: 0.01",
    "using pin_memory on device 1",
    "2024-04-08 14:18:26.408904: ",
    "2024-04-08 14:18:26.409347: Epoch 0",
    "2024-04-08 14:18:26.409994: Current learning rate: 0.01",
    "using pin_memory on device 0",
    "Exception in thread Thread-1:",
    "Traceback (most recent call last):",
    f'  File "{CONDA}/threading.py", line 980, in _bootstrap_inner',
    "    self.run()",
    f'  File "{CONDA}/threading.py", line 917, in run',
    "    self._target(*self._args, **self._kwargs)",
]
SPAWN = "//cluster/gpu/data/OE0441/c306h/alternative_env/lib/python3.7/site-packages/torch/multiprocessing/spawn.py"
SPAWN_CUT = [
    "> /cluster/gpu/data/OE0441/c306h/alternative_env/lib/python3.7/multiprocessing/semaphore_tracker.py:144: "
    "UserWarning: semaphore_tracker: There appear to be 1 leaked semaphores to clean up at shutdown",
    "  len(cache))",
    "Traceback (most recent call last):",
    '  File "/home/c306h/SwinUNETR/research-contributions/SwinUNETR/BTCV/main.py", line 107, in main',
    "    mp.spawn(main_worker, nprocs=args.ngpus_per_node, args=(args,))",
    f'  File "{SPAWN}", line 198, in start_processes',
    "    while not context.join():",
    f'  File "{SPAWN}", line 160, in join',
    "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
]
RUN = "W1120 14:22:31.912734 139788717360320 torch/distributed/run.py:779] "
USAGE = "usage: train.py [-h] [--local_rank LOCAL_RANK] [--not_call_launch]"


def _argparse(ranks: list[int]) -> list[str]:
    """Diff-UNet-40's shape: the launcher's banner, then each worker's refusal of ``--local-rank``."""
    out = [
        RUN,
        RUN + "*" * 41,
        RUN
        + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default",
        RUN + "*" * 41,
    ]
    for r in ranks:
        out += [USAGE, f"train.py: error: unrecognized arguments: --local-rank={r}"]
    return out + [USAGE]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # research-contributions-157's shape: the SIGKILLed worker while every worker caches, in three wordings
    "agent-old-local-rank2-sigkill-backtick": (
        _agent_old(True),
        None,
        None,
        2,
        "host-oom-kill",
    ),
    "agent-old-local-rank2-sigkill-layout": (
        _agent_old(False),
        3,
        3,
        2,
        "host-oom-kill",
    ),
    "agent-bracket-local-rank2-sigkill": (AGENT_BRACKET, 4, 4, 2, "host-oom-kill"),
    "agent-glog-local-rank2-sigkill": (AGENT_GLOG, None, None, 2, "host-oom-kill"),
    # held controls: a lone ALLGATHER waiter (worlds of 4 and 2), the augmenter thread, a spawn report cut, argparse
    "lone-rank1-allgather-world4": (_waiter_old(1), 4, 4, None, None),
    "lone-rank1-allgather-no-layout": (_waiter_old(1), None, None, None, None),
    "lone-rank1-allgather-glog-world2-after-banner": (
        BANNER + GLOG_WAITER,
        None,
        2,
        None,
        None,
    ),
    "lone-rank1-allgather-glog-no-layout": (
        BANNER + GLOG_WAITER,
        None,
        None,
        None,
        None,
    ),
    "augmenter-thread1-two-devices": (AUGMENTER, 2, 2, None, None),
    "spawn-report-cut-before-index": (SPAWN_CUT, None, None, None, None),
    "argparse-local-rank-1-first": (_argparse([1]), None, None, None, None),
    "argparse-local-rank-both": (_argparse([1, 0]), 2, 2, None, None),
    # contrast: three of four ranks wait on the same ALLGATHER, the absent one is named
    "three-allgather-waiters-of-four": (
        [x for r in (0, 1, 3) for x in _waiter_old(r)],
        4,
        4,
        2,
        None,
    ),
}
BATCHED = Batched("b163", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_medical_imaging_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
