"""Recommendation/CTR training with sharded embedding tables (real incidents batch 156): their wordings, pinned as read.
A lone ``[rankN]:`` traceback out of TorchRec's KJT input distribution ending in all_to_all_single's local check
(meta-pytorch/torchrec#2728: ``RuntimeError: Split sizes doesn't match total dim 0 size``) names that rank, whatever
its number and with the PyTorch 2.x caret lines; torchx's ``<role>/<replica> [<worker>]:`` C++ frames of one worker
(meta-pytorch/torchrec#197) name no one; HugeCTR's NCCL proxy warnings naming the peers it could not reach
(NVIDIA-Merlin/HugeCTR#433: ``Could not receive type from localRank 7``, ``Connect from rank 15``, the paste's
markdown links kept or not) name no one; per-rank progress bars with two ranks' ALLTOALL_BASE watchdog timeouts after
the others finished (meta-pytorch/torchrec#189) name no one; three of eight ranks' all-to-all timeouts on one SeqNum
(facebookresearch/dlrm#292) name no one confidently (the five absent ranks cannot be told apart; NOT_YET for its
reporter's rank 7). Contrast: seven of eight waiters on one all-to-all SeqNum still name the absent rank. No rule
changed for the batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
SITE = "/usr/local/lib/python3.9/site-packages"


def _kjt_split(r: int, carets: bool = False) -> list[str]:
    """torchrec-2728's shape: rank ``r``'s traceback out of the KJT input dist into all_to_all_single's check."""
    frames = [
        (
            f"{SITE}/torchrec/distributed/embedding_sharding.py",
            757,
            "_wait_impl",
            "KJTAllToAllTensorsAwaitable(",
        ),
        (
            f"{SITE}/torchrec/distributed/dist_data.py",
            368,
            "__init__",
            "awaitable = dist.all_to_all_single(",
        ),
        (
            f"{SITE}/torch/distributed/c10d_logger.py",
            83,
            "wrapper",
            "return func(*args, **kwargs)",
        ),
        (
            f"{SITE}/torch/distributed/distributed_c10d.py",
            4000,
            "all_to_all_single",
            "work = group.alltoall_base(",
        ),
    ]
    out = [f"[rank{r}]: Traceback (most recent call last):"]
    for path, line, fn, code in frames:
        out += [
            f'[rank{r}]:   File "{path}", line {line}, in {fn}',
            f"[rank{r}]:     {code}",
        ]
        if carets:
            out.append(f"[rank{r}]:     " + "^" * len(code))
    return out + [
        f"[rank{r}]: RuntimeError: Split sizes doesn't match total dim 0 size"
    ]


def _torchx_frames(worker: int = 1) -> list[str]:
    """torchrec-197's shape: one torchx worker's C++ frames, the other worker's progress bar between them."""
    py = "/home/jingqi/anaconda3/envs/rec/bin/python"
    w = f"dlrm_main/0 [{worker}]:"
    return [
        f"{w}frame #58: <unknown function> + 0x17cd15 (0x55ad313f2d15 in {py})",
        f"{w}frame #59: _PyEval_EvalFrameDefault + 0x4c0 (0x55ad3144ce60 in {py})",
        f"{w}frame #60: _PyEval_EvalCodeWithName + 0x260 (0x55ad31442600 in {py})",
        "dlrm_main/0 [0]:",
        f"dlrm_main/0 [0]:Evaluating test set: 0it [00:00, ?it/s][{worker}]:frame #61: _PyFunction_Vectorcall + "
        f"0x534 (0x55ad31443b64 in {py})",
        f"{w}frame #62: <unknown function> + 0x166b2e (0x55ad313dcb2e in {py})",
    ]


def _proxy(links: bool = True) -> list[str]:
    """HugeCTR-433's shape: one process's NCCL proxy warnings naming the peers it lost."""

    def src(f: str) -> str:
        return f"[[{f}](http://{f}/)](http://{f}/)" if links else f

    h = "A100-02:2358430:2358556 [1]"
    return [
        f"{h} {src('proxy.cc:1495')} NCCL WARN [Service thread] Could not receive type from localRank 7, res=3, "
        "closed=0",
        "",
        f"{h} {src('proxy.cc:1519')} NCCL WARN [Proxy Service 9] Failed to execute operation Connect from rank 15, "
        "retcode 3",
        f"{h} NCCL INFO socketProgressOpt: abort called",
        f"{h} NCCL INFO misc/socket.cc:805 -> 3",
    ]


def _a2a(r: int, seq: int, ms: int = 1803059) -> str:
    """The legacy watchdog line of rank ``r`` on an all-to-all."""
    return (
        f"[E ProcessGroupNCCL.cpp:821] [Rank {r}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum={seq}, OpType=ALLTOALL_BASE, Timeout(ms)=1800000) ran for {ms + r} milliseconds before "
        "timing out."
    )


def _uneven_epoch() -> list[str]:
    """torchrec-189's shape: five ranks finish the epoch, ranks 4 and 1 time out in the all-to-all."""
    bars = [
        f"Epoch 9, Rank {r}, world_size 8: 35batch [00:03, 10.5{r}batch/s]"
        for r in (7, 2, 5, 0, 3)
    ]
    return bars + [
        "Epoch 9, Rank 6, world_size 8: 16batch [00:17, 11.32batch/s][E ProcessGroupNCCL.cpp:717] [Rank 4] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=4190, OpType=ALLTOALL_BASE, Timeout(ms)=1800000) ran "
        "for 1803657 milliseconds before timing out.",
        "[E ProcessGroupNCCL.cpp:717] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4188, "
        "OpType=ALLTOALL_BASE, Timeout(ms)=1800000) ran for 1803676 milliseconds before timing out.",
        "Epoch 9, Rank 4, world_size 8: 26batch [30:06, 69.48s/batch]",
        "Traceback (most recent call last):",
        '  File "/GitSource/collaborative_filtering/src/main_torchrec.py", line 300, in <module>',
        "    main()",
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # torchrec-2728's shape: a lone rank's local split-size check, as pasted, with carets, and a low rank number
    "kjt-split-rank29": (_kjt_split(29), None, None, 29),
    "kjt-split-rank29-carets": (_kjt_split(29, carets=True), 8, 32, 29),
    "kjt-split-rank3-of-8": (_kjt_split(3), 8, 8, 3),
    # torchrec-197's shape: one torchx worker's frames, with and without a layout
    "torchx-worker1-frames": (_torchx_frames(), 2, 2, None),
    "torchx-worker1-frames-no-layout": (_torchx_frames(), None, None, None),
    # HugeCTR-433's shape: with the paste's markdown links and without them
    "proxy-peers-links": (_proxy(), 8, 16, None),
    "proxy-peers-plain": (_proxy(links=False), 8, 16, None),
    "proxy-peers-no-layout": (_proxy(), None, None, None),
    # torchrec-189's shape: uneven last epoch, two waiters on different SeqNums
    "uneven-epoch-two-waiters": (_uneven_epoch(), 8, 8, None),
    "uneven-epoch-two-waiters-no-layout": (_uneven_epoch(), None, None, None),
    # dlrm-292's shape: three of eight waiters on one SeqNum, five unseen (NOT_YET: the reporter's rank 7)
    "three-of-eight-a2a-waiters": ([_a2a(r, 512012) for r in (2, 5, 6)], 8, 8, None),
    # contrast: seven of eight waiters on one all-to-all SeqNum name the absent rank
    "seven-of-eight-a2a-waiters-rank7-absent": (
        [_a2a(r, 512012) for r in range(7)],
        8,
        8,
        7,
    ),
}
BATCHED = Batched("b156", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_recsys_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
