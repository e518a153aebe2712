"""Multi-GPU training with a teacher model beside the student (real incidents batch 221: GKD in ms-swift and TRL,
OpenRLHF's ``train_kd``): their wordings, pinned as read. Miss, left NOT_YET: ms-swift GKD on a pod whose every line
carries an ISO timestamp and the pod's name before rank 3's ``[rank3]:`` traceback head, cut before its exception (the
thread's intermittent CUDA illegal memory access is in prose only; modelscope/ms-swift#9609): no warning names rank 3,
with the prefix, without it and in a layout of 4; the same traceback ending in the illegal-memory-access line names rank
3, cuda-error (what the log would need). Held controls: TRL's ``GKDTrainer`` under ZeRO-3 with rank 5's torn traceback
into ``generate_on_policy_outputs`` (huggingface/trl#3351), a GKD model-load hang whose excerpt is the torchrun agent's
SIGTERM and ``ChildFailedError`` with the table cut (modelscope/ms-swift#4724), OpenRLHF ``train_kd``'s start-up with a
14B teacher and a 7B student on 2 GPUs (OpenRLHF/OpenRLHF#641) and Megatron-SWIFT GKD's rank 1 traceback head whose
title's NaN check names rank 7 (modelscope/ms-swift#8366) name no one, as pasted and in their layouts. No rule changed
for the batch (measure only). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)

POD_RANK3 = corpus_lines("ms-swift-9609-")
GKD_ZERO3 = corpus_lines("trl-3351-")
LOAD_HANG = corpus_lines("ms-swift-4724-")
KD_START = corpus_lines("OpenRLHF-641-")
MEGATRON_GKD = corpus_lines("ms-swift-8366-")

#: ms-swift-9609's traceback without the platform's timestamp-and-pod prefix
PREFIX = POD_RANK3[0].split("[rank3]:")[0]
BARE_RANK3 = [line.removeprefix(PREFIX) for line in POD_RANK3]
#: the same traceback as the log would need it: ending in the exception the thread speaks of
IMA = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"
RANK3_IMA = [*BARE_RANK3, f"[rank3]: {IMA}"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # ms-swift-9609's shape (NOT_YET): a lone rank's traceback head cut before its exception
    "pod-prefixed-rank3-traceback-head-as-pasted": (POD_RANK3, None, None, None, None),
    "pod-prefixed-rank3-traceback-head-layout-4": (POD_RANK3, 4, 4, None, None),
    "rank3-traceback-head-without-prefix": (BARE_RANK3, None, None, None, None),
    "rank3-traceback-ending-in-ima": (RANK3_IMA, None, None, 3, "cuda-error"),
    # trl-3351's shape: a torn lone-rank traceback into the trainer's generate, the exception cut
    "gkd-zero3-rank5-generate-as-pasted": (GKD_ZERO3, None, None, None, None),
    "gkd-zero3-rank5-generate-layout-8": (GKD_ZERO3, 8, 8, None, None),
    # ms-swift-4724's shape: the agent's SIGTERM to a survivor and ChildFailedError, the table cut
    "load-hang-sigterm-childfailed-as-pasted": (LOAD_HANG, None, None, None, None),
    "load-hang-sigterm-childfailed-layout-8": (LOAD_HANG, 8, 8, None, None),
    # OpenRLHF-641's shape: the launch command and DeepSpeed's config print only
    "kd-start-up-as-pasted": (KD_START, None, None, None, None),
    "kd-start-up-layout-2": (KD_START, 2, 2, None, None),
    # ms-swift-8366's shape: rank 1's Megatron GKD traceback head, the exception cut
    "megatron-gkd-rank1-head-as-pasted": (MEGATRON_GKD, None, None, None, None),
    "megatron-gkd-rank1-head-layout-8": (MEGATRON_GKD, 8, 8, None, None),
}
BATCHED = Batched("b221", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kd_teacher_student_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
