"""Video understanding training and testing (real incidents batch 168): their wordings, pinned as read.
PyTorch 2.x's glog agent line ``failed (exitcode: -9) local_rank: 2`` before the agent's own Python 3.11 traceback
with caret lines (xiaomi-research/time-r1#9; also in the older ``ERROR:torch.distributed...`` wording and at local
rank 5 of a known 8-process node) names that worker, host-oom-kill. Held controls: a lone rank-0 ALLREDUCE watchdog
waiter glued to mmcv's test progress bar, then the agent's SIGTERMs (open-mmlab/mmtracking#557; also PyTorch 2.x's
``[rank0]:`` wording), PySlowFast's spawn report ``-- Process 6 terminated`` with ``invalid device ordinal`` at
``set_device`` (facebookresearch/TimeSformer#35; also process 3), two or three workers' identical unprefixed
``IndexError`` building the dataset before the launcher's traceback head (sunlicai/MAE-DFER#7), and three workers'
character-interleaved CUDA OOM messages at one allocation on GPUs 2, 1, 3 (PKU-YuanGroup/Video-LLaVA#66) name no one.
The missed culprit (modelscope/ms-swift#10183, NOT_YET_S34: one size of a BROADCAST mismatch in the excerpt) is
pinned as read: two waiters on one SeqNum name no one. Contrast: the same spawn report with the worker's own CUDA
OOM names process 6. No rule changed for the batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
ENV = "/mnt/hwnasbj/huixuan/miniconda3/envs/timer1"
SITE = f"{ENV}/lib/python3.11/site-packages/torch/distributed"
API = "site-packages/torch/distributed/elastic/multiprocessing/api.py"


def _agent_tb() -> list[str]:
    """time-r1-9's shape: the agent's torchrun traceback with Python 3.11 caret lines, cut at the raise."""
    return [
        "Traceback (most recent call last):",
        f'  File "{ENV}/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        "             ^^^^^^",
        f'  File "{SITE}/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
        "    return f(*args, **kwargs)",
        "           ^^^^^^^^^^^^^^^^^^",
        f'  File "{SITE}/run.py", line 918, in main',
        "    run(args)",
        f'  File "{SITE}/launcher/api.py", line 269, in launch_agent',
        "    raise ChildFailedError(",
    ]


def _kill(rank: int, glog: bool = True) -> list[str]:
    if glog:
        head = (
            f"E0813 06:19:49.809000 161210 {API}:869] failed (exitcode: -9) local_rank: {rank} (pid: {161615 + rank}) "
            f"of binary: {ENV}/bin/python3.11"
        )
    else:
        head = (
            f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: {rank} "
            f"(pid: {161615 + rank}) of binary: {ENV}/bin/python3.11"
        )
    return [head] + _agent_tb()


BAR = "[>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>           ] 1126168/1426764, 137.6 task/s, elapsed: 8183s, ETA:  2184s"
WAIT = (
    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=6, OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1808307 milliseconds before timing out."
)
SIGTERMS = [
    f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {p} closing signal SIGTERM"
    for p in range(23037, 23041)
]


def _waiter(new: bool = False) -> list[str]:
    """mmtracking-557's shape: the progress bar glued to rank 0's own watchdog, teardown, the agent's SIGTERMs."""
    if new:
        head = [
            f"{BAR}[rank0]:[E1123 00:52:57.664949121 ProcessGroupNCCL.cpp:607] {WAIT}",
            "[rank0]:[E1123 00:52:57.665427695 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error "
            "or timeout) detected by watchdog at work: 6, last enqueued NCCL work: 6, last completed NCCL work: 5.",
        ]
    else:
        head = [f"{BAR}[E ProcessGroupNCCL.cpp:719] {WAIT}"]
    return (
        head
        + [
            "[E ProcessGroupNCCL.cpp:406] Some NCCL operations have failed or timed out. Due to the asynchronous nature "
            "of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this "
            "inconsistency, we are taking the entire process down.",
            "terminate called after throwing an instance of 'std::runtime_error'",
            f"  what():  {WAIT}",
        ]
        + SIGTERMS
    )


TORCH = "/usr/local/lib/python3.7/site-packages/torch"


def _spawn(proc: int, err: list[str] | None = None) -> list[str]:
    """TimeSformer-35's shape: PySlowFast's spawn join report for one process."""
    tail = err or [
        f'  File "{TORCH}/cuda/__init__.py", line 261, in set_device',
        "    torch._C._cuda_setDevice(device)",
        "RuntimeError: CUDA error: invalid device ordinal",
    ]
    return (
        [
            f"-- Process {proc} terminated with the following error:",
            "Traceback (most recent call last):",
            f'  File "{TORCH}/multiprocessing/spawn.py", line 59, in _wrap',
            "    fn(i, *args)",
            '  File "/content/TimeSformer/timesformer/utils/multiprocessing.py", line 58, in run',
        ]
        + (
            [
                "    torch.cuda.set_device(local_rank)",
            ]
            if err is None
            else ["    ret = func(cfg)"]
        )
        + tail
    )


OOM_OWN = [
    '  File "/content/TimeSformer/tools/train_net.py", line 112, in train_epoch',
    "    preds = model(inputs)",
    "RuntimeError: CUDA out of memory. Tried to allocate 1.17 GiB (GPU 6; 31.75 GiB total capacity; 29.84 GiB "
    "already allocated; 843.50 MiB free; 30.02 GiB reserved in total by PyTorch)",
]
DATA = "/opt/data/private/MAE-DFER-master"


def _indexerror(copies: int) -> list[str]:
    """MAE-DFER-7's shape: identical unprefixed worker tracebacks, a print between, the launcher's head."""
    tb = [
        "Traceback (most recent call last):",
        '  File "run_class_finetuning.py", line 679, in <module>',
        "    main(opts, ds_init)",
        '  File "run_class_finetuning.py", line 256, in main',
        "    dataset_val, _ = build_dataset(is_train=False, test_mode=False, args=args)",
        f'  File "{DATA}/datasets.py", line 224, in build_dataset',
        "    args=args)",
        f'  File "{DATA}/kinetics.py", line 331, in __init__',
        "    self.label_array = list(cleaned.values[:, 1])",
        "IndexError: index 1 is out of bounds for axis 1 with size 1",
    ]
    out = tb + ["Number of the class = 7"]
    for _ in range(copies - 1):
        out += tb
    return out + ["Traceback (most recent call last):"]


HINT = (
    "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
    "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
)


def _oom(gpu: int, free: str = "1.49") -> str:
    return (
        f"CUDA out of memory. Tried to allocate 6.30 GiB (GPU {gpu}; 47.54 GiB total capacity; 45.45 GiB already "
        f"allocated; {free} GiB free; 45.47 GiB reserved in total by PyTorch) {HINT}"
    )


INTERLEAVED = [
    f"torch.cuda.OutOfMemoryErrortorch.cuda: .torch.cudaCUDA {_oom(2)[5:]}OutOfMemoryError.",
    f": OutOfMemoryError{_oom(1)}: ",
    _oom(3, "1.56"),
    "Traceback (most recent call last):",
    '  File "/pasteur/u/orrzohar/LLAQA/VL/llava/train/train_mem.py", line 13, in <module>',
    "    train()",
    '  File "/pasteur/u/orrzohar/LLAQA/Video-LLaVA/llava/train/train.py", line 1060, in train',
    "    trainer.train()",
]
PG = "[PG ID 0 PG GUID 0(default_pg) Rank {r}]  failure detected by watchdog at work sequence id: 7219 PG status: "
BCAST = [
    f"2026-09-18 19:29:24 [rank3]:[E918 19:29:24.440481846 ProcessGroupNCCL.cpp:2303] {PG.format(r=3)}"
    "last enqueued work: 7220, last completed work: 7218",
    "2026-09-18 19:29:25 [rank2]:[E918 19:29:25.950601628 ProcessGroupNCCL.cpp:689] [Rank 2] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=7219, OpType=BROADCAST, NumelIn=24084544, NumelOut=24084544, "
    "Timeout(ms)=3000000) ran for 3000074 milliseconds before timing out.",
    f"2026-09-18 19:29:25 [rank2]:[E918 19:29:25.950900997 ProcessGroupNCCL.cpp:2303] {PG.format(r=2)}"
    "last enqueued work: 7219, last completed work: 7218",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # time-r1-9's shape: the agent's lone SIGKILL, glog and old wording, and at a known layout
    "agent-glog-local-rank2-sigkill": (_kill(2), None, None, 2, "host-oom-kill"),
    "agent-old-local-rank2-sigkill": (
        _kill(2, glog=False),
        None,
        None,
        2,
        "host-oom-kill",
    ),
    "agent-glog-local-rank5-sigkill-layout": (_kill(5), 8, 8, 5, "host-oom-kill"),
    # held controls
    "lone-rank0-allreduce-waiter-on-progress-bar": (_waiter(), None, None, None, None),
    "lone-rank0-allreduce-waiter-on-progress-bar-pt2": (
        _waiter(new=True),
        None,
        None,
        None,
        None,
    ),
    "spawn-process6-invalid-ordinal": (_spawn(6), None, None, None, None),
    "spawn-process3-invalid-ordinal": (_spawn(3), None, None, None, None),
    "two-workers-same-indexerror": (_indexerror(2), None, None, None, None),
    "three-workers-same-indexerror": (_indexerror(3), None, None, None, None),
    "interleaved-oom-gpus-2-1-3": (INTERLEAVED, 4, 4, None, None),
    "interleaved-oom-gpus-2-1-3-no-layout": (INTERLEAVED, None, None, None, None),
    # the missed culprit as read (NOT_YET_S34): two waiters on one SeqNum, one size of the mismatch
    "two-broadcast-waiters-one-size": (BCAST, 4, 4, None, None),
    # contrast: the same spawn report with the worker's own CUDA OOM names it
    "spawn-process6-own-cuda-oom": (_spawn(6, OOM_OWN), None, None, 6, None),
}
BATCHED = Batched("b168", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_video_understanding_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
