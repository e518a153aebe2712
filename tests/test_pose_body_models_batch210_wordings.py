"""Multi-GPU training of human pose, hand and body-mesh models (real incidents batch 210): their wordings, pinned as read.
Culprit: HigherHRNet's ``tools/dist_train.py`` resumed from a checkpoint, whose spawn report ``-- Process 0 terminated
with the following error:`` carries process 0's own ``RuntimeError: CUDA out of memory ... (GPU 0; ...)``
(HRNet/HigherHRNet-Human-Pose-Estimation#80), names rank 0 (cuda-oom); in layouts of 2 and 4 it still names rank 0 (and process 2's copy
on GPU 2 rank 2) but as a rank-failure read as python-exception, a cause drift noted, not fixed (measure-only batch). Held controls: HMR 2.0's lone ``torch.cuda.OutOfMemoryError ... (GPU 0; 16.00 GiB ...)``
under Lightning DDP on four 16 GB cards (shubham-goel/4D-Humans#78), HumanGaussian's two processes' identical
``trainer.fit`` tracebacks cut before the exception (alvinliu0/HumanGaussian#23) and DDP's unused-parameter error as
rank 2 printed it with the next process's ``RuntimeError`` glued to its hint (open-mmlab/mmpose#3111) name no one, as
pasted and in their layouts. Contrast: the same HMR 2.0 OOM under ``[rank1]:`` tags names rank 1 (cuda-oom). No rule
changed for the batch (all four met as collected). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 13, 0, tzinfo=dt.timezone.utc)


SPAWN_OOM = corpus_lines("HigherHRNet-80-")
HMR2_OOM = corpus_lines("4D-Humans-78-")
FIT_TWICE = corpus_lines("HumanGaussian-23-")
UNUSED = corpus_lines("mmpose-3111-")

#: process 2's copy of the spawn report, its OOM on its own GPU 2
SPAWN_OOM_P2 = [
    line.replace("Process 0", "Process 2").replace("(GPU 0;", "(GPU 2;")
    for line in SPAWN_OOM
]
#: the HMR 2.0 traceback and OOM as PyTorch 2.x tags rank 1's stderr
HMR2_OOM_RANK1 = [f"[rank1]: {line}" for line in HMR2_OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # HigherHRNet-80's shape: spawn names process 0, whose own traceback is the OOM
    "spawn-process0-oom-as-pasted": (SPAWN_OOM, None, None, 0, "cuda-oom"),
    # in a given layout too (before session 36's spawn fix it was a rank-failure read as python-exception: the OOM
    # under spawn's `-- Process N terminated` header was no process's; docs/rules.md, "Session 36: spawn's OOM")
    "spawn-process0-oom-layout-2": (SPAWN_OOM, 2, 2, 0, "cuda-oom"),
    "spawn-process0-oom-layout-4": (SPAWN_OOM, 4, 4, 0, "cuda-oom"),
    "spawn-process2-oom-layout-4": (SPAWN_OOM_P2, 4, 4, 2, "cuda-oom"),
    # 4D-Humans-78's shape: one OOM with a device ordinal and no rank
    "hmr2-lone-gpu0-oom-as-pasted": (HMR2_OOM, None, None, None, None),
    "hmr2-lone-gpu0-oom-layout-4": (HMR2_OOM, 4, 4, None, None),
    "hmr2-lone-gpu0-oom-layout-8x2": (HMR2_OOM, 8, 16, None, None),
    # HumanGaussian-23's shape: two identical tracebacks into trainer.fit, cut
    "lightning-fit-twice-cut-as-pasted": (FIT_TWICE, None, None, None, None),
    "lightning-fit-twice-cut-layout-2": (FIT_TWICE, 2, 2, None, None),
    # mmpose-3111's shape: DDP's unused-parameter error, rank 2's copy interleaved with the next
    "ddp-unused-params-rank2-as-pasted": (UNUSED, None, None, None, None),
    "ddp-unused-params-rank2-layout-4": (UNUSED, 4, 4, None, None),
    "ddp-unused-params-rank2-layout-8": (UNUSED, 8, 8, None, None),
    # contrast: the HMR 2.0 OOM under rank 1's tags is rank 1's own
    "hmr2-oom-under-rank1-tags-contrast": (HMR2_OOM_RANK1, 4, 4, 1, "cuda-oom"),
}
BATCHED = Batched("b210", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_pose_body_models_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
