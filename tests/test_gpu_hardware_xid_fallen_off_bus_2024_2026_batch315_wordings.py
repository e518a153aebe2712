"""One GPU's or one node's hardware under multi-GPU jobs (real incidents batch 315), pinned as read.
One culprit and five controls, collected blind. The culprit is missed as collected (NOT_YET, batch 315): nccl-tests'
``Test CUDA failure common.cu:1007`` with its quoted message wrapped onto the next line (scitix/sichek#51: GPU1 left
needing a reset, CUDA device 0 under ``CUDA_VISIBLE_DEVICES=1,0``, so NCCL rank 0) reads as nothing; joined it is a
cuda-error of no rank. The five controls name no one: the NVHPC/OpenACC runtime's ``Accelerator Fatal Error: call to
cuCtxCreate returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE)`` (MFlowCode/MFC#1748: one node's ECC) is not read at
all, nor is the driver API's ``CUDA_ERROR_*`` name in another wording; alpaka's ``'cudaErrorIllegalAddress': 'an
illegal memory access was encountered'!`` under Open MPI's ``[taurusi2061:25688] *** Process received signal ***``
(ComputationalRadiationPhysics/picongpu#3077: a bad node) is not read; a node's GSP timeout ``Xid (PCI:0000:0b:00):
119 ... from GPU3 GSP!`` (vllm-project/vllm#40652: an NVLink node fault) is a critical gpu-health finding of no rank;
``torch.distributed.launch``'s bare ``ChildFailedError:`` tail (PKU-DAIR/Hetu-Galvatron#3) and NCCL's ``nvls.cc:223
NCCL WARN Cuda failure 999 'unknown error`` with its closing quote lost (NVIDIA/nccl-tests#276: Fabric Manager
restarted without a GPU reset) read as nothing. Scored 5/6 both ways as collected, 0 of 5 controls named; no rule
changed (measure only). Contrasts: the same errors in PyTorch's words under a rank tag name that rank (cuda-error);
mpirun's ``process rank 3 ... exited on signal 6`` names rank 3 (abort); a vLLM worker's ``TP3`` CUDA error names
rank 3 beside the node's Xid; the launcher's failure table names its root-cause rank; the Xid line removed, nothing is
found; an Xid 79 in its place is again a node finding of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 14, 0, tzinfo=dt.timezone.utc)

NCCLTEST_WRAPPED = corpus_lines("sichek-51-")
ACC_ECC = corpus_lines("MFC-1748-")
ALPAKA_ILLEGAL = corpus_lines("picongpu-3077-")
GSP_XID119 = corpus_lines("vllm-40652-")
CHILD_FAILED_TAIL = corpus_lines("Hetu-Galvatron-3-")
NVLS_UNKNOWN = corpus_lines("nccl-tests-276-")

#: nccl-tests' failure with its quoted message back on the line (what nccl-tests prints): a cuda-error of no rank
NCCLTEST_JOINED = [NCCLTEST_WRAPPED[0] + " " + NCCLTEST_WRAPPED[1]]
#: the same CUDA error as PyTorch words it under rank 0's tag
NCCLTEST_TORCH_RANK0 = [
    "[rank0]: RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"
]
#: OpenACC's fatal error on one line (the wrap undone): still not read
ACC_ECC_JOINED = [ACC_ECC[0] + " " + ACC_ECC[1].strip(), ACC_ECC[2]]
#: the driver API's error name as TensorFlow prints a failed context creation: not read either
DRIVER_API_ECC = [
    "failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered"
]
#: the ECC error in PyTorch's words under rank 3's tag
TORCH_ECC_RANK3 = [
    "[rank3]: RuntimeError: CUDA error: uncorrectable ECC error encountered"
]
#: mpirun's report of the aborted process after alpaka's error and Open MPI's handler line
ALPAKA_MPIRUN_RANK3 = ALPAKA_ILLEGAL + [
    "mpirun noticed that process rank 3 with PID 25688 on node taurusi2061 exited on signal 6 (Aborted)."
]
#: the node's kernel log without its Xid 119 line: nothing
GSP_NO_XID = GSP_XID119[:-1]
#: an Xid 79 (the GPU fell off the bus) in place of the Xid 119
GSP_XID79 = GSP_NO_XID + [
    GSP_XID119[-1].split("NVRM:")[0]
    + "NVRM: Xid (PCI:0000:0b:00): 79, pid=11431, name=python3, GPU has fallen off the bus."
]
#: a vLLM tensor-parallel worker's own CUDA error after the node's Xid
GSP_WORKER_TP3 = GSP_XID119 + [
    "(VllmWorker TP3 pid=2345) ERROR 04-22 21:29:25 [multiproc_executor.py:527] "
    "RuntimeError: CUDA error: unspecified launch failure"
]
#: the launcher's tail followed by its failure table naming a root-cause rank
CHILD_FAILED_ROOT_CAUSE = CHILD_FAILED_TAIL + [
    "============================================================",
    "train_dist.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2024-07-09_10:00:00",
    "  host      : gpu01",
    "  rank      : 3 (local_rank: 3)",
    "  exitcode  : 1 (pid: 12345)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "============================================================",
]
#: NCCL's line with its closing quote: a cuda-error of no rank
NVLS_QUOTED = [NVLS_UNKNOWN[0] + "'"]
#: the same CUDA failure as PyTorch reports NCCL's last error under rank 1's tag
NVLS_TORCH_RANK1 = [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error (run "
    "with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
    "[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.",
    "[rank1]: Last error:",
    "[rank1]: Cuda failure 999 'unknown error'",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading)
    "nccltest-wrapped-as-pasted": (NCCLTEST_WRAPPED, None, None, None, None),
    "nccltest-wrapped-two-gpus": (NCCLTEST_WRAPPED, 2, 2, None, None),
    "acc-ecc-as-pasted": (ACC_ECC, None, None, None, None),
    "alpaka-illegal-as-pasted": (ALPAKA_ILLEGAL, None, None, None, None),
    "gsp-xid119-as-pasted": (GSP_XID119, None, None, None, None),
    "gsp-xid119-tp8": (GSP_XID119, 8, 8, None, None),
    "child-failed-tail-as-pasted": (CHILD_FAILED_TAIL, None, None, None, None),
    "nvls-unknown-as-pasted": (NVLS_UNKNOWN, None, None, None, None),
    # contrasts
    "nccltest-joined-names-none": (NCCLTEST_JOINED, 2, 2, None, None),
    "nccltest-torch-rank0-names-rank0": (NCCLTEST_TORCH_RANK0, 2, 2, 0, "cuda-error"),
    "acc-ecc-joined-names-none": (ACC_ECC_JOINED, None, None, None, None),
    "torch-ecc-rank3-names-rank3": (TORCH_ECC_RANK3, 4, 4, 3, "cuda-error"),
    # since session 54 the quoted runtime name in the abort's ``what():`` is rank 3's CUDA error (was: abort)
    "alpaka-mpirun-rank3-names-rank3": (ALPAKA_MPIRUN_RANK3, 4, 4, 3, "cuda-error"),
    "gsp-without-xid-names-none": (GSP_NO_XID, 8, 8, None, None),
    "gsp-xid79-names-none": (GSP_XID79, 8, 8, None, None),
    "gsp-worker-tp3-names-rank3": (GSP_WORKER_TP3, 8, 8, 3, "cuda-error"),
    "child-failed-root-cause-names-rank3": (
        CHILD_FAILED_ROOT_CAUSE,
        8,
        8,
        3,
        "python-exception",
    ),
    "nvls-quoted-names-none": (NVLS_QUOTED, None, None, None, None),
    "nvls-torch-rank1-names-rank1": (NVLS_TORCH_RANK1, 8, 16, 1, "cuda-error"),
}
BATCHED = Batched("b315", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_gpu_hardware_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(lines: list[str], folder: Path, nproc: int | None = None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_wrapped_cuda_failure_quote_is_not_read_an_unclosed_one_is(tmp_path):
    """nccl-tests' ``Test CUDA failure`` is read only with the quoted message on its line: wrapped onto the next line (as
    pasted) nothing is found; put back, a cuda-error of no rank (warning). NCCL's ``Cuda failure N 'message`` missing
    its closing quote (as pasted) reads as the closed one since session 54: a cuda-error of no rank."""
    assert _read(NCCLTEST_WRAPPED, tmp_path / "a", 2) == []
    assert _read(NCCLTEST_JOINED, tmp_path / "b", 2) == [
        ("rank-failure", "warning", "cuda-error", [])
    ]
    assert _read(NVLS_UNKNOWN, tmp_path / "c") == _read(NVLS_QUOTED, tmp_path / "d") == [
        ("rank-failure", "warning", "cuda-error", [])
    ]


def test_driver_api_error_names_are_cuda_errors(tmp_path):
    """The CUDA driver API's ``CUDA_ERROR_*`` names (OpenACC's ``Accelerator Fatal Error``, wrapped or joined,
    TensorFlow's failed call) and alpaka's quoted ``'cudaErrorIllegalAddress': '…'`` are CUDA errors since session 54
    (tests/test_cuda_driver_error_names.py), of no rank without a tag, as PyTorch's words for the same ECC error are."""
    no_rank = [("rank-failure", "warning", "cuda-error", [])]
    assert _read(ACC_ECC, tmp_path / "a") == no_rank
    assert _read(ACC_ECC_JOINED, tmp_path / "b") == no_rank
    assert _read(DRIVER_API_ECC, tmp_path / "c") == no_rank
    assert _read(ALPAKA_ILLEGAL, tmp_path / "d") == no_rank
    assert _read(TORCH_ECC_RANK3[:1], tmp_path / "e") == [
        ("rank-failure", "critical", "cuda-error", [3])
    ]
    assert _read(
        ["RuntimeError: CUDA error: uncorrectable ECC error encountered"],
        tmp_path / "f",
    ) == no_rank


def test_gsp_timeout_is_a_node_finding_of_no_rank(tmp_path):
    """The kernel's Xid 119 (a GSP RPC timeout) is a critical gpu-health finding on the node, naming no rank, as pasted
    and laid out as tensor-parallel 8; the Xid 79 in its place reads alike."""
    assert _read(GSP_XID119, tmp_path / "a") == [
        ("gpu-health", "critical", "xid-119", [])
    ]
    assert _read(GSP_XID119, tmp_path / "b", 8) == [
        ("gpu-health", "critical", "xid-119", [])
    ]
    assert _read(GSP_XID79, tmp_path / "c", 8) == [
        ("gpu-health", "critical", "xid-79", [])
    ]
