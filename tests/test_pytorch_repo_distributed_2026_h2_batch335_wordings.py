"""pytorch/pytorch threads with a multi-rank log and a settled cause (real incidents batch 335), pinned as read.
Four controls, collected blind; three read right as collected, one (NOT_YET, batch 335) is pinned here as read so a change
of reading is seen. NCCL 2.12's ``enqueue.cc:336 NCCL WARN Cuda failure 'invalid resource handle'`` from CUDA device
``[0]`` over rank 1's ``[rank1]:`` traceback through ``dist.barrier()`` (pytorch/pytorch#130414: PyTorch 2.3's
single-device-style collectives with NCCL <= 2.12, every rank) is a cuda-error of no rank; both processes' NCCL 2.7.8
``Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 3000`` (pytorch/pytorch#47885: two ranks placed on one
GPU) is read as nothing at all; the fix PR's reproducer output for pytorch/pytorch#191305 (global rank 1's staged
timeouts under ``[PG GUID 1 Rank 1]`` and the group-local ``[PG GUID 2 Rank 0]``; pytorch/pytorch#191440) names no one as
pasted, and laid out as a world of three is an info ``never-joined`` of rank 2 (the group-local ``Rank 0`` is taken as
global rank 0); spawn's ``-- Process 5 terminated with the following error:`` over a DataLoader traceback
(pytorch/pytorch#14390: spawn's daemonic workers may not start DataLoader workers, every process) names rank 5. Scored
3/4 both ways as collected; no rule changed (measure only). Contrasts: the device-``[0]`` NCCL warning alone names rank 0
(cuda-error) and with rank 1's ``unhandled cuda error`` it is rank 0's critical cuda-error; rank 1's traceback alone is
only an info; one process's own ``Cuda failure`` in place of the duplicate-GPU warnings names it; rank 1's
``DistBackendError`` quoting the duplicate GPU is an nccl-error of no rank; a rank's CUDA OOM after the staged timeouts
is named critical; spawn's ``Process 2`` names rank 2; without spawn's header nothing is named. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

NCCL212_BARRIER = corpus_lines("pytorch-130414-")
DUPLICATE_GPU = corpus_lines("pytorch-47885-")
GROUP_LOCAL_PREFIX = corpus_lines("pytorch-191440-")
SPAWN_PROCESS_5 = corpus_lines("pytorch-14390-")

#: the device-[0] NCCL warning without rank 1's traceback
NCCL212_WARN_ONLY = NCCL212_BARRIER[:2]
#: rank 1's traceback without the NCCL warning
NCCL212_TRACEBACK_ONLY = NCCL212_BARRIER[2:]
#: the same paste with rank 1's own exception line
NCCL212_RANK1_ERROR = NCCL212_BARRIER + [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
    "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.12.10"
]
#: process 5924's own CUDA failure in place of both duplicate-GPU warnings
DUPLICATE_GPU_ONE_FAILURE = DUPLICATE_GPU[:-2] + [
    "hostmachine:5924:5948 [1] enqueue.cc:336 NCCL WARN Cuda failure 'invalid resource handle'"
]
#: the warnings followed by rank 1's ``DistBackendError`` quoting the duplicate GPU (NCCL >= 2.19's wording)
DUPLICATE_GPU_RANK1_ERROR = DUPLICATE_GPU + [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
    "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3",
    "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "[rank1]: Last error:",
    "[rank1]: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 3000",
]
#: the staged timeouts, then rank 2's own CUDA OOM
GROUP_LOCAL_RANK2_OOM = GROUP_LOCAL_PREFIX + [
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of "
    "79.15 GiB of which 1.25 GiB is free."
]
#: the same spawn report for process 2
SPAWN_PROCESS_2 = [
    line.replace("-- Process 5 ", "-- Process 2 ") for line in SPAWN_PROCESS_5
]
#: process 5's traceback without spawn's ``-- Process 5 terminated`` header (and the parent's traceback above it)
SPAWN_NO_HEADER = SPAWN_PROCESS_5[12:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "nccl212-barrier-as-pasted": (NCCL212_BARRIER, None, None, None, None),
    "nccl212-barrier-two-gpus": (NCCL212_BARRIER, 2, 2, None, None),
    "duplicate-gpu-as-pasted": (DUPLICATE_GPU, None, None, None, None),
    "duplicate-gpu-two-gpus": (DUPLICATE_GPU, 2, 2, None, None),
    "group-local-prefix-as-pasted": (GROUP_LOCAL_PREFIX, None, None, None, None),
    "group-local-prefix-world-3": (GROUP_LOCAL_PREFIX, None, 3, None, None),
    "spawn-process5-as-pasted": (SPAWN_PROCESS_5, None, None, 5, "python-exception"),
    "spawn-process5-eight-gpus": (SPAWN_PROCESS_5, 8, 8, 5, "python-exception"),
    # contrasts
    # device [0]'s WARN alone named rank 0; since session 59 NCCL's CUDA failure launching its collective, in a lone
    # paste, is a suspect only (info)
    "nccl212-warn-only-names-none": (NCCL212_WARN_ONLY, 2, 2, None, None),
    "nccl212-traceback-only-names-none": (NCCL212_TRACEBACK_ONLY, 2, 2, None, None),
    "nccl212-rank1-error-names-rank0": (NCCL212_RANK1_ERROR, 2, 2, 0, "cuda-error"),
    # device [1]'s `enqueue.cc … invalid resource handle` alone named rank 1; since session 59 a suspect only (info)
    "duplicate-gpu-one-failure-names-none": (DUPLICATE_GPU_ONE_FAILURE, 2, 2, None, None),
    "duplicate-gpu-rank1-error-names-none": (
        DUPLICATE_GPU_RANK1_ERROR,
        2,
        2,
        None,
        None,
    ),
    "group-local-rank2-oom-names-rank2": (
        GROUP_LOCAL_RANK2_OOM,
        None,
        3,
        2,
        "cuda-oom",
    ),
    "spawn-process2-names-rank2": (SPAWN_PROCESS_2, 8, 8, 2, "python-exception"),
    "spawn-no-header-names-none": (SPAWN_NO_HEADER, 8, 8, None, None),
}
BATCHED = Batched("b335", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_pytorch_repo_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["severity"] in ("critical", "warning", "info")
    ]


def test_nccl212_barrier_is_a_cuda_error_of_no_rank(tmp_path):
    """Rank 0's warning (keyed by CUDA device ``[0]``) and rank 1's traceback together: one cuda-error warning naming
    no rank; rank 1's traceback alone is only an info of rank 1."""
    assert _gist(NCCL212_BARRIER, tmp_path / "a", 2, 2) == [
        ("rank-failure", "warning", "cuda-error", [])
    ]
    assert _gist(NCCL212_TRACEBACK_ONLY, tmp_path / "b", 2, 2) == [
        ("rank-failure", "info", "python-exception", [1])
    ]


def test_nccl212_rank1_error_makes_rank0_critical(tmp_path):
    """With rank 1's ``unhandled cuda error``, the device-[0] warning is read as rank 0's own CUDA failure (critical)."""
    assert _gist(NCCL212_RANK1_ERROR, tmp_path, 2, 2) == [
        ("rank-failure", "critical", "cuda-error", [0])
    ]


def test_duplicate_gpu_warnings_are_not_read(tmp_path):
    """NCCL's ``Duplicate GPU detected`` from both processes is an nccl-error of no rank (the launch's placement, since
    session 62; no finding before); quoted in rank 1's ``DistBackendError`` it is an nccl-error of no rank."""
    assert _gist(DUPLICATE_GPU, tmp_path / "a", 2, 2) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(DUPLICATE_GPU_RANK1_ERROR, tmp_path / "b", 2, 2) == [
        ("rank-failure", "warning", "nccl-error", [])
    ]


def test_group_local_prefix_is_taken_as_a_global_rank(tmp_path):
    """As pasted, an info with no single culprit; laid out as a world of three, ``[PG GUID 2 Rank 0]`` (global rank 1's
    group-local rank) is taken as global rank 0, so rank 2 is the info ``never-joined`` one."""
    assert _gist(GROUP_LOCAL_PREFIX, tmp_path / "a", None, None) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]
    assert _gist(GROUP_LOCAL_PREFIX, tmp_path / "b", None, 3) == [
        ("nccl-hang", "info", "never-joined", [2])
    ]
