"""Face recognition, re-identification and multi-object tracking training (real incidents batch 178): their wordings,
pinned as read. Held controls: arcface_torch's Partial FC label ``all_gather`` refusing its tensors in one unranked
worker traceback before the legacy launcher's ``Killing subprocess`` lines (deepinsight/insightface#1890, with DALI;
eight or four children, with or without the launcher's own traceback head), workers' tracebacks interleaved in
``init_process_group``'s NCCL ``barrier()`` (insightface#1435, also with an ``unhandled system error`` line after them),
two workers' tracebacks interleaved in ``get_dataloader`` under torchrun (insightface#2163, after the legacy or the glog
banner), ranks 0 and 1 initialised and the first collective (``SeqNum=1`` ALLREDUCE) timing out (megvii-research/MOTR#63:
rank 0's watchdog line alone, both ranks' lines, PyTorch 2.x's ``[rankN]:`` wording) and workers failing
``set_device(distributed_rank())`` with ``invalid device ordinal`` (MCG-NJU/MeMOTR#7, two or three copies, or one copy
tagged ``[rank5]:`` in a world of 8: every rank past the last GPU fails alike) name no one. Contrasts: three of four
ranks timing out on the first ALLREDUCE name the absent rank (never-joined); the Partial FC traceback tagged
``[rank3]:`` names rank 3. No rule changed for the batch (all five met as collected). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)


PFC = corpus_lines("insightface-1890-dali-")
BARRIER = corpus_lines("insightface-1435-nproc4-")
DATALOADER = corpus_lines("insightface-2163-torchrun-")
MOTR = corpus_lines("MOTR-63-")
ORDINAL = corpus_lines("MeMOTR-7-")
WATCH = (
    "[E ProcessGroupNCCL.cpp:821] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
    "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {ms} milliseconds before timing out."
)
WATCH_2X = (
    "[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for {ms} milliseconds before timing out."
)
NCCL_ERROR = (
    "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled system error, "
    "NCCL version 2.7.8"
)
GLOG = "W1108 09:01:31.112000 140 torch/distributed/run.py:757] "
INIT_23 = [
    "| distributed init (rank 2): env://",
    "| distributed init (rank 3): env://",
    "",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # insightface-1890's shape: one unranked Partial FC traceback, the launcher's kills
    "partial-fc-allgather-as-pasted": (PFC, None, None, None, None),
    "partial-fc-allgather-layout-8": (PFC, 8, 8, None, None),
    "partial-fc-allgather-without-launcher-traceback": (
        PFC[:21],
        None,
        None,
        None,
        None,
    ),
    "partial-fc-allgather-four-kills": (PFC[:14] + PFC[18:21], 4, 4, None, None),
    # insightface-1435's shape: interleaved tracebacks in the start-up barrier
    "init-barrier-interleaved-as-pasted": (BARRIER, None, None, None, None),
    "init-barrier-interleaved-layout-4": (BARRIER, 4, 4, None, None),
    "init-barrier-interleaved-with-nccl-error": (
        BARRIER + [NCCL_ERROR],
        4,
        4,
        None,
        None,
    ),
    # insightface-2163's shape: two workers interleaved in get_dataloader under torchrun
    "get-dataloader-interleaved-as-pasted": (DATALOADER, None, None, None, None),
    "get-dataloader-interleaved-layout-2": (DATALOADER, 2, 2, None, None),
    "get-dataloader-interleaved-glog-banner": (
        [GLOG, GLOG + "*" * 41, GLOG + DATALOADER[2].rstrip(), GLOG + "*" * 41]
        + DATALOADER[4:],
        2,
        2,
        None,
        None,
    ),
    # MOTR-63's shape: the first collective never completes
    "first-allreduce-rank0-watchdog-as-pasted": (MOTR, None, None, None, None),
    "first-allreduce-rank0-watchdog-layout-2": (MOTR, 2, 2, None, None),
    "first-allreduce-both-watchdogs": (
        MOTR + [WATCH.format(r=1, ms=1809351)],
        2,
        2,
        None,
        None,
    ),
    "first-allreduce-both-watchdogs-2x-wording": (
        MOTR[:-1]
        + [WATCH_2X.format(r=0, ms=1809347), WATCH_2X.format(r=1, ms=1809351)],
        2,
        2,
        None,
        None,
    ),
    # MeMOTR-7's shape: more processes than visible GPUs
    "set-device-invalid-ordinal-as-pasted": (ORDINAL, None, None, None, None),
    "set-device-invalid-ordinal-layout-8": (ORDINAL, 8, 8, None, None),
    "set-device-invalid-ordinal-three-copies": (
        ORDINAL + ORDINAL[5:11] + ORDINAL[:5],
        8,
        8,
        None,
        None,
    ),
    "set-device-invalid-ordinal-rank5-tagged": (
        [f"[rank5]: {x}" for x in ORDINAL[:10]],
        8,
        8,
        None,
        None,
    ),
    # contrasts: three of four ranks wait on the first ALLREDUCE; the Partial FC traceback under a rank tag
    "first-allreduce-three-of-four-waiters": (
        MOTR[:-1] + INIT_23 + [WATCH.format(r=r, ms=1809347 + r) for r in (0, 2, 3)],
        4,
        4,
        1,
        "never-joined",
    ),
    "partial-fc-allgather-rank3-tagged": (
        [f"[rank3]: {x}" for x in PFC[:13]],
        8,
        8,
        3,
        "python-exception",
    ),
}
BATCHED = Batched("b178", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_face_reid_tracking_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
