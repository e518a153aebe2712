"""Multi-GPU training and evaluation with the OpenMMLab toolboxes the corpus lacked (real incidents batch 214): their
wordings, pinned as read. Held culprit: MMClassification's Swin-Tiny under ``srun --ntasks=4`` whose slurmstepd counts
cgroup oom-kill events and whose srun reports ``task 3: Out Of Memory`` (open-mmlab/mmpretrain#473) names rank 3,
host-oom-kill, as pasted and in a layout of 4 (the same report for task 1 names rank 1). Miss, left NOT_YET: MMAction's
dist_test on two GPUs whose rank 1 stops printing ``rank 1, data_batch M`` after batch 0 while rank 0 reaches 1400
(open-mmlab/mmaction#141): no error line, no finding, as pasted and in a layout of 2. Held controls: H2RBox's one
untagged MMEngine ``train_step`` traceback on 8 GPUs (VisionXLab/h2rbox-mmrotate#6), MMAction SSN's start-up on 2
GPUs (open-mmlab/mmaction#211) and MMAction2's resumed start-up with four identical warnings on four RTX 3090s
(open-mmlab/mmaction2#432) name no one, as pasted and in their layouts. No rule changed for the batch (measure only).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 14, 0, tzinfo=dt.timezone.utc)


SRUN_OOM = corpus_lines("mmpretrain-473-")
RANK1_STALL = corpus_lines("mmaction-141-")
H2RBOX = corpus_lines("h2rbox-mmrotate-6-")
SSN_START = corpus_lines("mmaction-211-")
RESUMED_START = corpus_lines("mmaction2-432-")

#: the same srun report for another task of the step
SRUN_OOM_TASK1 = [line.replace("task 3:", "task 1:") for line in SRUN_OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # mmpretrain-473's shape: srun names the task the cgroup OOM killer took
    "srun-task3-out-of-memory-as-pasted": (SRUN_OOM, None, None, 3, "host-oom-kill"),
    "srun-task3-out-of-memory-layout-4": (SRUN_OOM, 4, 4, 3, "host-oom-kill"),
    "srun-task1-out-of-memory-layout-4": (SRUN_OOM_TASK1, 4, 4, 1, "host-oom-kill"),
    # mmaction-141's shape (NOT_YET): a stopped per-rank progress counter, no error line: no one named
    "dist-test-rank1-stalls-as-pasted": (RANK1_STALL, None, None, None, None),
    "dist-test-rank1-stalls-layout-2": (RANK1_STALL, 2, 2, None, None),
    # h2rbox-mmrotate-6's shape: one untagged MMEngine traceback, the exception cut
    "mmengine-train-step-traceback-as-pasted": (H2RBOX, None, None, None, None),
    "mmengine-train-step-traceback-layout-8": (H2RBOX, 8, 8, None, None),
    # mmaction-211's shape: start-up only
    "ssn-start-up-as-pasted": (SSN_START, None, None, None, None),
    "ssn-start-up-layout-2": (SSN_START, 2, 2, None, None),
    # mmaction2-432's shape: a resumed run's start-up, four processes' identical warnings
    "resumed-start-up-four-warnings-as-pasted": (RESUMED_START, None, None, None, None),
    "resumed-start-up-four-warnings-layout-4": (RESUMED_START, 4, 4, None, None),
}
BATCHED = Batched("b214", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_openmmlab_less_traveled_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
