"""NVIDIA/nccl and NVIDIA/nccl-tests threads of 2025-2026 (real incidents batch 247), pinned as read. Six controls that
name no one, as pasted and laid out by their own nproc/world: one host's proxy thread repeating ``NET/IB : Got
completion from peer ... error 5 ... vendor err 249`` under GPU Direct RDMA (NVIDIA/nccl#1737: ACS / IOMMU settings);
device ``[1]`` of a vLLM node warning ``transport/nvls.cc:254 ... Cuda failure 401`` (NVIDIA/nccl#1788: the node's NVLS
multicast / fabric state, every GPU alike); host ``h100-28``'s ``communicator encountered a fatal error (detected in
ncclIbTest)`` with a local-access-violation QP event (NVIDIA/nccl#1905: an occasional IB fault, no rank printed);
``node-0``'s first ``async fatal event on QP ... invalid request`` of a 16-rank alltoall_perf (NVIDIA/nccl#1919: the
two-node setup, failing over TCP too); two RTX 5090 whose devices both log ``ncclMaxSharedMem 82240 exceeds device/fn
maxSharedMem 79856`` (NVIDIA/nccl-tests#287: NCCL 2.25.1 on SM120, fixed in 2.26.2); one nccl-tests process driving
two RTX 5090 that fails ``Test CUDA failure hypercube.cu:57 'invalid argument'`` (NVIDIA/nccl-tests#289).
Scored 5/6 both ways as collected; no rule changed (measure only). The miss, read right since session 62 (NCCL's NVLS
WARN of any CUDA code is the node's NVSwitch fabric): laid out as one node of 8, #1788's lone device-[1] warning named
rank 1. Contrasts: an ``mpirun noticed that process rank N ... exited on signal 6`` line names that rank (abort); #1788's
warning moved to device ``[0]`` names no one (rank 0 before session 62) and without its WARN line names no one; a device-[1]-only ``NCCL WARN Cuda
failure 'unspecified launch failure'`` on the 5090s names rank 1, and as ``'invalid argument'`` (the call refused, every
rank's alike: a suspect only since session 50) names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 10, 0, tzinfo=dt.timezone.utc)

GDRDMA_ACS = corpus_lines("nccl-1737-")
NVLS_401 = corpus_lines("nccl-1788-")
IB_QP_FATAL = corpus_lines("nccl-1905-")
QP_INVALID = corpus_lines("nccl-1919-")
MAX_SHMEM = corpus_lines("nccl-tests-287-")
HYPERCUBE = corpus_lines("nccl-tests-289-")


def _mpirun(rank: int, pid: int, node: str) -> str:
    """Open MPI's line for a rank its launcher saw die first."""
    return f"mpirun noticed that process rank {rank} with PID {pid} on node {node} exited on signal 6 (Aborted)."


#: the same proxy-thread errors, then the launcher naming rank 5 on that host
GDRDMA_RANK5 = GDRDMA_ACS + [_mpirun(5, 7038, "gh-3714u15")]
#: #1788's two lines on device [0] instead of [1]
NVLS_401_DEV0 = [line.replace("[1]", "[0]") for line in NVLS_401]
#: #1788 without its WARN line: only NCCL's ``nvls.cc:409 -> 1`` return trace is left
NVLS_401_NO_WARN = NVLS_401[1:]
IB_QP_RANK9 = IB_QP_FATAL + [_mpirun(9, 238, "h100-28")]
QP_INVALID_RANK3 = QP_INVALID + [_mpirun(3, 139577, "node-0")]
#: the 5090 start-up, then device [1] alone warning a CUDA failure: a launch that failed, and a call refused
MAX_SHMEM_DEV1 = MAX_SHMEM + ["GENOA-06:4766:4781 [1] enqueue.cc:1556 NCCL WARN Cuda failure 'unspecified launch failure'"]
MAX_SHMEM_DEV1_INVALID = MAX_SHMEM + ["GENOA-06:4766:4781 [1] enqueue.cc:1556 NCCL WARN Cuda failure 'invalid argument'"]
HYPERCUBE_RANK1 = HYPERCUBE + [_mpirun(1, 180044, "localhost")]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "gdrdma-acs-as-pasted": (GDRDMA_ACS, None, None, None, None),
    "nvls-401-as-pasted": (NVLS_401, None, None, None, None),
    "ib-qp-fatal-as-pasted": (IB_QP_FATAL, None, None, None, None),
    "ib-qp-fatal-2x8": (IB_QP_FATAL, 8, 16, None, None),
    "qp-invalid-as-pasted": (QP_INVALID, None, None, None, None),
    "qp-invalid-2x8": (QP_INVALID, 8, 16, None, None),
    "max-shmem-as-pasted": (MAX_SHMEM, None, None, None, None),
    "max-shmem-two-gpus": (MAX_SHMEM, 2, 2, None, None),
    "hypercube-as-pasted": (HYPERCUBE, None, None, None, None),
    "hypercube-two-gpus": (HYPERCUBE, 2, 2, None, None),
    # read right since session 62 (NCCL's NVLS WARN of any CUDA code is the node's NVSwitch fabric): was the miss,
    # device [1] of one node of 8 taken as rank 1
    "nvls-401-one-node-of-8-names-none": (NVLS_401, 8, 8, None, None),
    # contrasts
    "gdrdma-mpirun-names-rank5": (GDRDMA_RANK5, None, None, 5, "abort"),
    "nvls-401-device0-names-none": (NVLS_401_DEV0, 8, 8, None, None),  # named rank 0 before session 62
    "nvls-401-without-warn-names-none": (NVLS_401_NO_WARN, 8, 8, None, None),
    "ib-qp-fatal-mpirun-names-rank9": (IB_QP_RANK9, 8, 16, 9, "abort"),
    "qp-invalid-mpirun-names-rank3": (QP_INVALID_RANK3, 8, 16, 3, "abort"),
    "max-shmem-device1-warn-names-rank1": (MAX_SHMEM_DEV1, 2, 2, 1, "cuda-error"),
    "max-shmem-device1-invalid-argument-names-none": (MAX_SHMEM_DEV1_INVALID, 2, 2, None, None),
    "hypercube-mpirun-names-rank1": (HYPERCUBE_RANK1, 2, 2, 1, "cuda-error"),
}
BATCHED = Batched("b247", list(CASES))
_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_nccl_repo_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("lines", [NVLS_401, HYPERCUBE], ids=["nvls-401", "hypercube"])
def test_lone_cuda_failure_without_a_rank_is_said_unranked(lines, tmp_path):
    """A CUDA failure with no rank to hang it on is still reported, as a warning that names no one."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, tmp_path, None, NOW, world=None))["findings"]
    said = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    assert ("rank-failure", "warning", "cuda-error", []) in said, said


def test_ib_proxy_and_qp_errors_alone_report_nothing(tmp_path):
    """The IB completion / QP-event warnings of one host, with no rank and no exit, make no finding at all."""
    from k10s_forensics.analyze.runner import analyze

    for i, lines in enumerate((GDRDMA_ACS, IB_QP_FATAL, QP_INVALID)):
        findings = analyze(pasted(lines, tmp_path / str(i), None, NOW, world=None))["findings"]
        assert [f for f in findings if f["severity"] in ("critical", "warning")] == [], \
            [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
