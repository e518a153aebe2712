"""Newer training frameworks' multi-GPU failures of 2025-2026 (real incidents batch 288), pinned as read.
Three incidents, collected blind: two controls and one culprit. slime's Ray driver traceback ending at ``raise
value.as_instanceof_cause()`` (THUDM/slime#45: NCCL's NVLS on an 8xH100 node, fixed by ``NCCL_NVLS_ENABLE=0`` for
every actor) names no one, as wanted; prime-rl's loguru backward traceback under torchrun's ``[default0]:`` tee prefix
(PrimeIntellect-ai/prime-rl#1009: a first-step activation-checkpointing ``CheckpointError`` for one MoE model, every
rank) names no one, as wanted; torchforge's Monarch report ``Got failure on replica 0. Error:`` with the reference
model's traceback (meta-pytorch/torchforge#500: replica 0's CUDA OOM, its ``torch.OutOfMemoryError`` line cut from the
kept excerpt) names no one: NOT_YET (batch 288). Scored 2/3 both ways as collected; no rule changed (measure only).
Contrasts: a rank's own ``DistBackendError`` or ``RuntimeError`` under slime's ``(MegatronTrainRayActor ...) [rank3]:``
names rank 3 (nccl-error, python-exception), while Ray's re-raised ``RayTaskError(RuntimeError)`` names no one; under
``[default0]:`` a ``CheckpointError`` reads as a Python failure of no rank but a ``RuntimeError`` names rank 0, and the
same under ``[default2]:`` names rank 2; the OOM line kept reads as a critical cuda-oom of no rank (``replica 0`` is
not a rank), and tagged ``[rank0]:`` or ``[rank3]:`` names that rank (warning). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 30, tzinfo=dt.timezone.utc)

NVLS_DRIVER = corpus_lines("slime-45-")
DEFAULT0_BACKWARD = corpus_lines("prime-rl-1009-")
REPLICA0_REFERENCE = corpus_lines("torchforge-500-")

#: the driver traceback followed by one train actor's own NCCL error, tagged by Ray and by torch
NVLS_RANK3_NCCL = NVLS_DRIVER + [
    "(MegatronTrainRayActor pid=228664) [rank3]: torch.distributed.DistBackendError: NCCL error in: "
    "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for "
    "details), NCCL version 2.27.5"
]
#: the same with a plain Python exception of that actor's rank 3
NVLS_RANK3_RUNTIME = NVLS_DRIVER + [
    "(MegatronTrainRayActor pid=228664) [rank3]: RuntimeError: boom"
]
#: the driver's re-raised task error and its exception, with no rank tag
NVLS_RAY_RUNTIME = NVLS_DRIVER + [
    "ray.exceptions.RayTaskError(RuntimeError): ray::TrainRayActor.train() (pid=1, ip=10.0.0.1)",
    "RuntimeError: boom",
]
#: the backward traceback ending in the CheckpointError the title names
CHECKPOINT_ERROR = (
    "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the "
    "following tensors have different metadata than during the forward pass."
)
DEFAULT0_CHECKPOINT = DEFAULT0_BACKWARD + ["[default0]:" + CHECKPOINT_ERROR]
#: the same traceback ending in a plain RuntimeError (a rank's own failure)
DEFAULT0_RUNTIME = DEFAULT0_BACKWARD + ["[default0]:RuntimeError: boom"]
#: that RuntimeError under local rank 2's tee prefix
DEFAULT2_RUNTIME = [
    line.replace("[default0]", "[default2]") for line in DEFAULT0_RUNTIME
]
#: the paste's next, cut line kept (shortened at its first sentence)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 37.09 GiB. GPU 0 has a total capacity of "
    "79.44 GiB of which 34.81 GiB is free."
)
REPLICA0_OOM = REPLICA0_REFERENCE + [OOM]
#: the OOM tagged by torch with rank 0, and with rank 3
REPLICA0_RANK0_OOM = REPLICA0_REFERENCE + ["[rank0]: " + OOM]
REPLICA0_RANK3_OOM = REPLICA0_REFERENCE + ["[rank3]: " + OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "nvls-driver-as-pasted": (NVLS_DRIVER, None, None, None, None),
    "nvls-driver-eight-gpus": (NVLS_DRIVER, 8, 8, None, None),
    "default0-backward-as-pasted": (DEFAULT0_BACKWARD, None, None, None, None),
    "default0-backward-four-ranks": (DEFAULT0_BACKWARD, 4, 4, None, None),
    # NOT_YET (batch 288): replica 0's OOM is cut from the excerpt, and ``replica 0`` is not read as a rank
    "replica0-reference-as-pasted": (REPLICA0_REFERENCE, None, None, None, None),
    # contrasts
    "nvls-rank3-nccl-names-rank3": (NVLS_RANK3_NCCL, 8, 8, 3, "nccl-error"),
    "nvls-rank3-runtime-names-rank3": (NVLS_RANK3_RUNTIME, 8, 8, 3, "python-exception"),
    "nvls-ray-runtime-names-none": (NVLS_RAY_RUNTIME, 8, 8, None, None),
    "default0-checkpoint-error-names-none": (DEFAULT0_CHECKPOINT, 4, 4, None, None),
    "default0-runtime-names-rank0": (DEFAULT0_RUNTIME, 4, 4, 0, "python-exception"),
    "default2-runtime-names-rank2": (DEFAULT2_RUNTIME, 4, 4, 2, "python-exception"),
    "replica0-oom-kept-names-none": (REPLICA0_OOM, None, None, None, None),
    "replica0-rank0-oom-names-rank0": (REPLICA0_RANK0_OOM, None, None, 0, "cuda-oom"),
    "replica0-rank3-oom-names-rank3": (REPLICA0_RANK3_OOM, 4, 4, 3, "cuda-oom"),
}
BATCHED = Batched("b288", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_new_training_framework_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["severity"] in ("critical", "warning")
    ]


def test_checkpoint_error_is_a_failure_of_no_rank(tmp_path):
    """Under ``[default0]:`` the CheckpointError still reads as a Python failure (warning), but of no rank."""
    assert _findings(DEFAULT0_CHECKPOINT, tmp_path, 4) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_replica_oom_is_a_critical_oom_of_no_rank(tmp_path):
    """Replica 0's OOM kept: a critical cuda-oom of no rank (Monarch's ``replica 0`` is not read as a rank)."""
    assert _findings(REPLICA0_OOM, tmp_path, None) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]


def test_cut_pastes_read_as_nothing(tmp_path):
    """As collected, the slime driver traceback and the torchforge replica traceback give no warning or critical."""
    assert _findings(NVLS_DRIVER, tmp_path / "a", 8) == []
    assert _findings(REPLICA0_REFERENCE, tmp_path / "b", None) == []
