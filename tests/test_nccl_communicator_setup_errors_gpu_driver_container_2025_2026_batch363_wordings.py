"""NCCL communicator-setup errors from the GPU generation, the driver stack or the container, 2025-2026 (real
incidents batch 363), pinned as read. Four controls, collected blind, all read right both ways as collected (b9b7f219):

- pytorch/pytorch#152077: one process's NCCL debug lines, device [0] ``NCCL WARN Cuda failure 'named symbol not found'``
  under ``NCCL version 2.14.3+cuda11.8`` on RTX 5090 (sm_120) GPUs: PyTorch 2.0 / CUDA 11.8 is too old for the GPU
  generation (a maintainer's word), every GPU alike. As pasted (no layout): a cuda-error warning of no rank.
- vllm-project/vllm#19613: one line, ``kilo ... [5] misc/ibvwrap.cc:183 NCCL WARN Call to ibv_reg_dmabuf_mr failed
  with error Cannot allocate memory`` from a 4-node x 8-GPU Ray cluster: NCCL_BUFFSIZE set too large (the author), a
  job-wide setting. No finding, as pasted or as 4 x 8.
- ai-dynamo/dynamo#1408: a TP2 pod whose /dev/shm is full: device [0]'s ``Error while creating shared memory segment
  ... No space left on device (28)``, both workers unwinding ``-> 2``, ``WorkerProc failed to start.``. No finding.
- vllm-project/production-stack#276: ``DistBackendError ... unhandled system error`` / ``Last error:`` / ``Error
  while creating shared memory segment /dev/shm/nccl-F9ffgB`` from a TP2 pod with a 64 MB /dev/shm: an nccl-error
  warning of no rank.

No rule changed (measure only). Readings as collected that a later rule should change (not NOT_YET: the incident as
collected has no layout): the RTX 5090 lines laid out as 2 or 8 GPUs named rank 0 (warning, cuda-error) for device [0]'s
lone ``Cuda failure 'named symbol not found'``, a failure of the NCCL build (the GPU generation has no kernels), which is
every rank's (since session 59 a suspect at info: tests/test_cuda_stack_mismatch.py); and the 64 MB-shm error tagged ``[rank0]:`` names rank 0 for a shared-memory segment the pod's /dev/shm
could not hold. Contrasts: the same WARN from device [0] and device [1] names no one; device [1]'s alone named rank 1 (since session
59 no one);
the shm error tagged ``[rank1]:`` names rank 1, both tags no one; an untagged ``RuntimeError: NCCL error: unhandled
system error`` after the dynamo lines is an nccl-error warning of no rank; vLLM's untagged ``cupy_backends ...
NcclError: NCCL_ERROR_SYSTEM_ERROR`` after the one WARN is an nccl-error warning of no rank (a python-exception until
session 59: tests/test_wrapped_failure_wordings.py).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

OLD_NCCL = corpus_lines("pytorch-152077-")
BUFFSIZE = corpus_lines("vllm-19613-")
POD_SHM_FULL = corpus_lines("dynamo-1408-")
POD_SHM_64M = corpus_lines("production-stack-276-")

#: device [1]'s own shm warnings, pasted just above the excerpt in dynamo#1408's description
DEVICE1_SHM = [
    "[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:87 NCCL WARN Error: failed to extend "
    "/dev/shm/nccl-YrFC5V to 33030532 bytes, error: No space left on device (28)",
    "",
    "[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:129 NCCL WARN Error while creating "
    "shared memory segment /dev/shm/nccl-YrFC5V (size 33030528), error: No space left on device (28)",
    "",
]
POD_SHM_FULL_BOTH = DEVICE1_SHM + POD_SHM_FULL
#: device [1]'s copy of the RTX 5090 lines beside device [0]'s (a second process of the same job)
OLD_NCCL_DEVICE1 = [line.replace(":50555:", ":50556:").replace("[0]", "[1]") for line in OLD_NCCL if "[0]" in line]
OLD_NCCL_BOTH = OLD_NCCL + OLD_NCCL_DEVICE1
#: the same lines from device [1] alone
OLD_NCCL_ONLY_DEVICE1 = [line.replace("[0]", "[1]") for line in OLD_NCCL]
#: the 64 MB-shm error tagged by one rank, and by both
POD_SHM_64M_RANK0 = ["[rank0]: " + line for line in POD_SHM_64M]
POD_SHM_64M_RANK1 = ["[rank1]: " + line for line in POD_SHM_64M]
POD_SHM_64M_BOTH = POD_SHM_64M_RANK0 + POD_SHM_64M_RANK1

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "old-nccl-as-pasted": (OLD_NCCL, None, None, None, None),
    "buffsize-as-pasted": (BUFFSIZE, None, None, None, None),
    "buffsize-four-nodes-of-eight": (BUFFSIZE, 8, 32, None, None),
    "pod-shm-full-as-pasted": (POD_SHM_FULL, None, None, None, None),
    "pod-shm-full-tp2": (POD_SHM_FULL, 2, 2, None, None),
    "pod-shm-64m-as-pasted": (POD_SHM_64M, None, None, None, None),
    "pod-shm-64m-tp2": (POD_SHM_64M, 2, 2, None, None),
    # variants that must not change the reading
    "pod-shm-full-both-devices-warn": (POD_SHM_FULL_BOTH, 2, 2, None, None),
    "old-nccl-both-devices": (OLD_NCCL_BOTH, 2, 2, None, None),
    "pod-shm-64m-both-ranks-tagged": (POD_SHM_64M_BOTH, 2, 2, None, None),
    # since session 59: a lone paste's build misfit (`named symbol not found`) is a suspect only, said at info
    "old-nccl-two-gpus-names-none": (OLD_NCCL, 2, 2, None, None),
    "old-nccl-eight-gpus-names-none": (OLD_NCCL, 8, 8, None, None),
    "old-nccl-device1-only-names-none": (OLD_NCCL_ONLY_DEVICE1, 2, 2, None, None),
    # today's reading, wrong (see the module docstring): a lone rank's copy of the pod's shm error names it
    "pod-shm-64m-rank0-tagged-names-rank0": (POD_SHM_64M_RANK0, 2, 2, 0, "nccl-error"),
    # contrasts
    "pod-shm-64m-rank1-tagged-names-rank1": (POD_SHM_64M_RANK1, 2, 2, 1, "nccl-error"),
}
BATCHED = Batched("b363", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_nccl_setup_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(lines: list[str], nproc: int | None, world: int | None) -> list[tuple]:
    with tempfile.TemporaryDirectory() as tmp:
        return [(f["rule"], f["severity"], f["cause"], f["ranks"])
                for f in pasted_findings(lines, Path(tmp), nproc, world, NOW)]


def test_old_nccl_as_pasted_is_a_cuda_error_of_no_rank():
    """pytorch#152077 as pasted (no layout: the thread gives none): device [0]'s ``Cuda failure 'named symbol not
    found'`` is the one failure, a cuda-error warning naming no rank; the expectation's nccl-error is not checked for a
    control. Laid out as 2 GPUs it named rank 0 at warning as collected; since session 59 (the build's misfit with the
    GPU, in a paste of one rank's lines) rank 0 is a suspect only, at info; with device [1]'s copy beside it, no one."""
    assert _read(OLD_NCCL, None, None) == [("rank-failure", "warning", "cuda-error", [])]
    assert _read(OLD_NCCL, 2, 2) == [("rank-failure", "info", "cuda-error", [0])]
    assert _read(OLD_NCCL_BOTH, 2, 2) == [("rank-failure", "warning", "cuda-error", [])]


def test_old_nccl_rank1_traceback_still_names_device0_critical():
    """A ``[rank1]:`` ``DistBackendError ... unhandled cuda error`` / ``ncclUnhandledCudaError`` traceback after
    device [0]'s lines is read today as rank 0's failure, critical: device [0]'s WARN comes first and rank 1's NCCL
    error is taken for its consequence. Pinned as read (both are the same common-mode build failure)."""
    rank1 = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "train.py", line 10, in <module>',
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:3384, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3",
        "[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.",
    ]
    assert _read(OLD_NCCL + rank1, 2, 2) == [("rank-failure", "critical", "cuda-error", [0])]


def test_pod_shm_64m_is_an_nccl_error_of_no_rank():
    """production-stack#276's four lines, as pasted or as TP2: an nccl-error warning naming no rank."""
    for nproc in (None, 2):
        assert _read(POD_SHM_64M, nproc, nproc) == [("rank-failure", "warning", "nccl-error", [])]


def test_lone_nccl_warns_are_no_finding():
    """vllm#19613's one ``ibv_reg_dmabuf_mr failed`` WARN and dynamo#1408's shm WARN with the unwinding return codes
    and ``WorkerProc failed to start.`` (its traceback cut before the exception line) are no finding at all, whatever
    the layout, device [1]'s own shm WARN added or not."""
    assert _read(BUFFSIZE, None, None) == []
    assert _read(BUFFSIZE, 8, 32) == []
    assert _read(POD_SHM_FULL, 2, 2) == []
    assert _read(POD_SHM_FULL_BOTH, 2, 2) == []


def test_untagged_error_lines_after_the_warns_are_failures_of_no_rank():
    """An untagged error line after the WARNs makes a failure of no rank: dynamo's ``RuntimeError: NCCL error:
    unhandled system error`` an nccl-error; vLLM's ``cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR``
    (the description's last line) an nccl-error too since session 59 (NCCL's system error by its enum's name)."""
    dynamo = POD_SHM_FULL + ["RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"]
    assert _read(dynamo, 2, 2) == [("rank-failure", "warning", "nccl-error", [])]
    vllm = BUFFSIZE + [
        "ERROR 06-13 07:35:59 [core.py:517] cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: "
        "unhandled system error (run with NCCL_DEBUG=INFO for details)"
    ]
    assert _read(vllm, 8, 32) == [("rank-failure", "warning", "nccl-error", [])]
