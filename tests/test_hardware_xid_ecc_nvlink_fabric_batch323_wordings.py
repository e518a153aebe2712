"""Hardware faults seen from training logs (real incidents batch 323: Xid, ECC, NVLink, fabric manager, InfiniBand), pinned
as read. One culprit and four controls, collected blind; all five read right both ways as collected (5/5, no control
named; measure only, no rule changed). The culprit: rank 12's own ProcessGroupNCCL watchdog line ``CUDA error:
uncorrectable ECC error encountered`` under torchrun's ``[default0]:`` prefix (pytorch/pytorch#113128) names rank 12,
cuda-error, critical. The controls: a 2018 Horovod run's NCCL 2.1 lines of device [1] (``include/socket.h:194 WARN Call
to recv failed : Connection reset by peer`` and its ``net_ib.cu … -> 2`` chain; horovod/horovod#147: the host's IB stack,
fixed by removing the IB driver) name no one and raise nothing; rank 1's NCCL INFO lines setting up RoCE before the
title's ``NET/IB : Got completion … error 12`` (pytorch/pytorch#81628: NICs that cannot talk, a GID/fabric setting) name
no one; torch's ``UserWarning … Error 802: system not yet initialized`` (dstackai/dstack#2348: Fabric Manager down on a
driver mismatch) names no one and raises nothing; TensorFlow's start-up lines of a run whose NVLink bridge was not seated
(NVIDIA/nccl#340) name no one. Contrasts: the ECC line renumbered names the new rank, without it no one, in the NVLink
wording still rank 12 (a warning, not critical); an MPI-tagged NCCL error or a ``[rank1]:`` DistBackendError names rank 1;
the IB completion error alone names no one; ``Error 802`` raised under ``[rank3]:`` names no one either (session 55: the
node not ready for CUDA is every process's there, common mode; rank 3 before), nor under two ranks; a rank's NVLink error after the bridge log names that rank. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 17, 30, tzinfo=dt.timezone.utc)

IB_RECV_RESET = corpus_lines("horovod-147-")
ROCE_INIT = corpus_lines("pytorch-81628-")
FM_802 = corpus_lines("dstack-2348-")
ECC_RANK12 = corpus_lines("pytorch-113128-")
NVLINK_BRIDGE = corpus_lines("nccl-340-")

_NCCL_SYSTEM_ERROR = "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhandled system error"
_ERROR_802 = (
    "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling"
    " NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"
)
_NVLINK = "uncorrectable NVLink error detected during the execution"

#: device [1]'s lines under Open MPI's ``[1,1]<stdout>:`` tag, then the process's own NCCL error on its stderr
IB_MPI_RANK1_ERROR = ["[1,1]<stdout>:" + line for line in IB_RECV_RESET] + [
    "[1,1]<stderr>:" + _NCCL_SYSTEM_ERROR
]
#: the same failure worded by a later NCCL (``NCCL WARN Net : Call to recv from <peer> failed``): still no reading
IB_MODERN_RECV = [
    "node1:54573:54696 [1] misc/socket.cc:538 NCCL WARN Net : Call to recv from 10.0.0.2<53412> failed :"
    " Connection reset by peer"
] + IB_RECV_RESET[1:]
#: rank 1's RoCE set-up followed by the title's IB completion error (status 12, vendor err 129)
ROCE_COMPLETION_ERROR = ROCE_INIT + [
    "tf144:143468:143535 [1] transport/net_ib.cc:1238 NCCL WARN NET/IB : Got completion from peer"
    " 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129"
]
#: rank 1's RoCE set-up followed by its own DistBackendError
ROCE_RANK1_BACKEND_ERROR = ROCE_INIT + [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691,"
    " unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"
]
#: Error 802 raised (not warned) by one rank, then by two
FM_802_RANK3 = ["[rank3]: " + _ERROR_802]
FM_802_RANKS_3_5 = ["[rank3]: " + _ERROR_802, "[rank5]: " + _ERROR_802]
#: Error 802 raised by a process whose lines carry no rank
FM_802_UNRANKED = [
    "Traceback (most recent call last):",
    '  File "train.py", line 3, in <module>',
    _ERROR_802,
]
#: rank 12's watchdog line renumbered to rank 5; left out; worded as an NVLink error
ECC_RANK5 = [
    line.replace("rank12", "rank5").replace("Rank 12", "Rank 5") for line in ECC_RANK12
]
ECC_NO_WATCHDOG = ECC_RANK12[1:]
ECC_AS_NVLINK = [
    line.replace("uncorrectable ECC error encountered", _NVLINK) for line in ECC_RANK12
]
#: the bridge run's start-up lines, then rank 1's watchdog on an NVLink error; then an unranked NCCL CUDA failure
NVLINK_BRIDGE_RANK1 = NVLINK_BRIDGE + [
    "[rank1]:[E611 20:40:00.000000000 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 1] Process group watchdog"
    " thread terminated with exception: CUDA error: " + _NVLINK
]
NVLINK_BRIDGE_CUDA_FAILURE = NVLINK_BRIDGE + [
    "2020-06-11 20:34:39.000000: E tensorflow/core/common_runtime/gpu/gpu_util.cc:1] NCCL WARN Cuda failure 'unknown error'"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ib-recv-reset-as-pasted": (IB_RECV_RESET, None, None, None, None),
    "ib-recv-reset-four-local": (IB_RECV_RESET, 4, 4, None, None),
    "roce-init-as-pasted": (ROCE_INIT, None, None, None, None),
    "roce-init-two-nodes": (ROCE_INIT, 1, 2, None, None),
    "fm-802-as-pasted": (FM_802, None, None, None, None),
    "fm-802-eight-gpus": (FM_802, 8, 8, None, None),
    "ecc-rank12-as-pasted": (ECC_RANK12, None, None, 12, "cuda-error"),
    "ecc-rank12-four-per-node": (ECC_RANK12, 4, 16, 12, "cuda-error"),
    "nvlink-bridge-as-pasted": (NVLINK_BRIDGE, None, None, None, None),
    # contrasts
    "ib-mpi-rank1-nccl-error-names-rank1": (IB_MPI_RANK1_ERROR, 4, 4, 1, "nccl-error"),
    "ib-modern-recv-wording-names-none": (IB_MODERN_RECV, 4, 4, None, None),
    "roce-completion-error-names-none": (ROCE_COMPLETION_ERROR, 1, 2, None, None),
    "roce-rank1-backend-error-names-rank1": (
        ROCE_RANK1_BACKEND_ERROR,
        1,
        2,
        1,
        "nccl-error",
    ),
    "fm-802-raised-by-rank3-names-none": (FM_802_RANK3, 8, 8, None, None),
    "fm-802-raised-by-ranks-3-5-names-none": (FM_802_RANKS_3_5, 8, 8, None, None),
    "ecc-renumbered-names-rank5": (ECC_RANK5, 4, 16, 5, "cuda-error"),
    "ecc-without-watchdog-line-names-none": (ECC_NO_WATCHDOG, 4, 16, None, None),
    "ecc-as-nvlink-error-names-rank12": (ECC_AS_NVLINK, 4, 16, 12, "cuda-error"),
    "nvlink-bridge-rank1-nvlink-error-names-rank1": (
        NVLINK_BRIDGE_RANK1,
        2,
        2,
        1,
        "cuda-error",
    ),
}
BATCHED = Batched("b323", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hardware_fault_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, world, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_collected_controls_raise_nothing(tmp_path):
    """The IB recv reset (NCCL 2.1's ``WARN`` without the word NCCL) and the RoCE set-up are not failures at all: no
    rank-failure finding of any severity. torch's Error 802 warning (``UserWarning: CUDA initialization: Unexpected error
    from cudaGetDeviceCount() … Error 802``) is read since session 63 as the node's CUDA not ready: a warning of no rank."""
    assert _failures(IB_RECV_RESET, tmp_path / "a", 4, 4) == []
    assert _failures(ROCE_INIT, tmp_path / "b", 1, 2) == []
    assert _failures(FM_802, tmp_path / "c", 8, 8) == [("warning", "cuda-error", [])]
    assert _failures(NVLINK_BRIDGE, tmp_path / "d", None, None) == []


def test_ecc_is_critical_nvlink_a_warning(tmp_path):
    """A rank's own uncorrectable ECC error is critical; the same line worded as an uncorrectable NVLink error is a
    warning (the paste holds this rank's lines only)."""
    assert _failures(ECC_RANK12, tmp_path / "a", 4, 16) == [
        ("critical", "cuda-error", [12])
    ]
    assert _failures(ECC_AS_NVLINK, tmp_path / "b", 4, 16) == [
        ("warning", "cuda-error", [12])
    ]


def test_unranked_failures_name_no_rank(tmp_path):
    """The same failures on lines without a rank are read, as warnings of no rank: the NCCL system error after the IB
    chain, Error 802 raised in a traceback, NCCL's ``Cuda failure 'unknown error'`` after the bridge run's start-up."""
    assert _failures(IB_RECV_RESET + [_NCCL_SYSTEM_ERROR], tmp_path / "a", 4, 4) == [
        ("warning", "nccl-error", [])
    ]
    assert _failures(FM_802_UNRANKED, tmp_path / "b", 8, 8) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(NVLINK_BRIDGE_CUDA_FAILURE, tmp_path / "c", None, None) == [
        ("warning", "cuda-error", [])
    ]
