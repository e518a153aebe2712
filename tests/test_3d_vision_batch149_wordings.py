"""Multi-process training of 3D perception and reconstruction models (real incidents batch 149): the shapes, pinned as
read. No rule changed for the batch; these pin what holds and why the misses stay (tests/corpus_not_yet_s33.py).
DUSt3R's fine-tune (naver/dust3r#192): ranks 1, 0 and 3 time out in one gradient all-reduce and only rank 0's teardown
(``Some NCCL operations have failed``) follows before the paste ends: the waiters' reports are uneven, the paste does
not hold every line they printed, and the rank it never shows (2) is said at info, not charged. Contrast: the same
three waiters with every one's teardown, or none's, or an unranked one (older wordings: nothing tells whose), name rank 2
``never-joined`` (the corpus's absent-rank reading).
FCOS3D's rank-0 evaluation (open-mmlab/mmdetection3d#1635): rank-less tqdm bars then three of eight ranks timing out in
an ALLREDUCE of PyTorch <= 1.10's wording (no SeqNum): five ranks unseen, no one named. A user's own per-rank prints
(open-mmlab/mmdetection3d#952: ``rank N, fetch sample M`` for seven of eight ranks) are no framework's record: no one
named. The controls: UniAD's unranked DDP parameter-shape mismatch against ``process 0`` with rank 1's broadcast timeout
(OpenDriveLab/UniAD#189), gsplat's two spawned workers and the parent's join traceback cut (nerfstudio-project/gsplat#715).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)


def _wd(rank: int, ms: int, prefixed: bool = True) -> str:
    """A PyTorch 2.1-2.3 watchdog timeout of the gradient all-reduce (dust3r-192's wording)."""
    head = f"[rank{rank}]:" if prefixed else ""
    return (
        f"{head}[E ProcessGroupNCCL.cpp:523] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum=367201, OpType=ALLREDUCE, NumelIn=443012, NumelOut=443012, Timeout(ms)=600000) ran for "
        f"{ms} milliseconds before timing out."
    )


def _teardown(rank: int, prefixed: bool = True) -> list[str]:
    head = f"[rank{rank}]:" if prefixed else ""
    return [
        f"{head}[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous "
        "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"{head}[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.",
    ]


WAITERS = [_wd(1, 600031), _wd(0, 600187), _wd(3, 600229)]


def _old_wd(rank: int, ms: int) -> str:
    """PyTorch <= 1.10's watchdog line: no SeqNum, no size (mmdetection3d-1635's wording)."""
    return (
        f"[E ProcessGroupNCCL.cpp:566] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {ms} milliseconds before timing out."
    )


EVAL_BARS = [
    " 94%|#########3| 5651/6019 [00:10<00:00, 998.96it/s]",
    " 97%|#########7| 5853/6019 [00:10<00:00, 1245.09it/s]",
    " " * 53,
]
FETCH = [
    f"rank {r}, fetch sample {s}"
    for r, s in [
        (4, 1469),
        (2, 3282),
        (5, 2757),
        (1, 1355),
        (3, 279),
        (0, 4107),
        (7, 2834),
    ]
]
SHAPE_MISMATCH = [
    "Traceback (most recent call last):",
    '  File "./tools/test.py", line 227, in main',
    "    model = MMDistributedDataParallel(",
    '  File "/home/u/miniconda3/envs/uniad/lib/python3.8/site-packages/torch/nn/parallel/distributed.py", line 496, in '
    "__init__",
    "    dist._verify_model_across_ranks(self.process_group, parameters)",
    "RuntimeError: replicas[0][0] in this process with sizes [200, 128] appears not to match sizes of the same param in "
    "process 0.",
    "[E ProcessGroupNCCL.cpp:325] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA "
    "kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are "
    "taking the entire process down.",
    "terminate called after throwing an instance of 'std::runtime_error'",
    "  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=BROADCAST, Timeout(ms)=1800000) "
    "ran for 1801258 milliseconds before timing out.",
]
GSPLAT = [
    "Running garden",
    "Distributed worker: 2 / 2",
    "[Parser] 185 images, taken by 1 cameras.",
    "Distributed worker: 1 / 2",
    "[Parser] 185 images, taken by 1 cameras.",
    "Model initialized. Number of GS: 69383",
    "Model initialized. Number of GS: 69383",
    "Traceback (most recent call last):",
    '  File "/workspace/gsplat/examples/simple_trainer.py", line 1268, in <module>',
    "    cli(main, cfg, verbose=True)",
    '  File "/usr/local/lib/python3.10/dist-packages/gsplat/distributed.py", line 344, in cli',
    "    process_context.join()",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # dust3r-192 as pasted: one waiter's teardown, then the paste ends: rank 2's absence may be the cut's
    "waiters-uneven-teardown": (WAITERS + _teardown(0), None, None, None),
    "waiters-uneven-teardown-world4": (WAITERS + _teardown(0), 4, 4, None),
    # contrast: every waiter's report whole (each one's teardown, or none's): the absent rank never joined
    "waiters-even-teardown": (
        WAITERS + _teardown(1) + _teardown(0) + _teardown(3),
        None,
        None,
        2,
    ),
    "waiters-no-teardown": (WAITERS, 4, 4, 2),
    # ... and PyTorch <= 2.1's lines, no `[rankN]:` tag: an unranked teardown tells no waiter's report from another's,
    # so nothing shows the paste uneven (the corpus's culprits of this shape: yolov5-4400, xtuner-354, ace-348)
    "waiters-unranked-teardown": (
        [_wd(1, 600031, False), _wd(0, 600187, False), _wd(3, 600229, False)]
        + _teardown(0, False),
        None,
        None,
        2,
    ),
    # mmdetection3d-1635: the evaluation's bars, then three of eight ranks time out without a SeqNum
    "eval-bars-three-of-eight-old-wording": (
        EVAL_BARS + [_old_wd(7, 1806871), _old_wd(3, 1806762), _old_wd(6, 1806761)],
        None,
        None,
        None,
    ),
    "eval-bars-three-of-eight-old-wording-world8": (
        EVAL_BARS + [_old_wd(7, 1806871), _old_wd(3, 1806762), _old_wd(6, 1806761)],
        8,
        8,
        None,
    ),
    # mmdetection3d-952: a user's per-rank prints, one rank missing
    "user-fetch-prints": (FETCH, None, None, None),
    "user-fetch-prints-world8": (FETCH, 8, 8, None),
    # UniAD-189: an unranked shape mismatch against process 0, rank 1's broadcast timeout in `what():`
    "ddp-shape-mismatch-vs-process0": (SHAPE_MISMATCH, 4, 4, None),
    # gsplat-715: two spawned workers alike, the parent's join traceback cut
    "spawn-workers-join-cut": (GSPLAT, 2, 2, None),
}
BATCHED = Batched("b149", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_3d_vision_shapes_name_only_a_rank_the_log_shows(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(
        named, CASES[key][3], "never-joined" if CASES[key][3] is not None else None
    )
