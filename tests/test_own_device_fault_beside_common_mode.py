"""A rank's own GPU hardware fault beside a node-wide failure every rank shares (docs/rules.md, "Session 62: a rank's own
device fault beside a node-wide failure"): rank 2's ``CUDA error: uncorrectable ECC error encountered`` or ``GPU has
fallen off the bus`` pasted with NCCL's NVLS ``transport/nvls.cc`` ``Cuda failure 1 'invalid argument'`` (the node's
NVSwitch / Fabric Manager state, read as every process's alike: queries/_incident_common_mode.sql) named no one until
session 62 (batch 390's pinned "arguably wrong" case); now the device fault keeps naming its rank, critical, before or
after the NVLS lines, beside devices [5], [1], [3], [0]'s NVLS failures (nccl#1338), beside torch's report of the same
refusal on another rank, beside CUDA 802 or an NVLS bind failure. Contrasts that stay unnamed: the NVLS lines alone (the
three batch 390 controls), NVLS beside rank 2's illegal memory access (a kernel's fault, not the GPU's), beside rank
2's ``unknown error`` (no device fault said), and two ranks' ECC errors in a paste with no clock (no single culprit).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

NODE23_NVLS = corpus_lines("nccl-1488-")
FOUR_DEVICES_NVLS = corpus_lines("nccl-1338-")
UNTAGGED_NVLS = corpus_lines("nccl-976-")
RANK5_TORCH_NVLS = ["[rank5]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                    "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
                    "[rank5]: ncclUnhandledCudaError: Call to CUDA function failed.", "[rank5]: Last error:",
                    "[rank5]: Cuda failure 1 'invalid argument'"]
RANK0_NOT_READY = ["[rank0]: RuntimeError: CUDA error: system not yet initialized"]
RANK1_NVLS_BIND = ["[rank1]: torch.distributed.DistBackendError: NCCL error in: x.cpp:77, unhandled cuda error (run with "
                   "NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
                   "[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.", "[rank1]: Last error:",
                   "[rank1]: Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the "
                   "operation cannot be performed in the present state'."]


def _cuda(rank: int, message: str) -> list[str]:
    return [f"[rank{rank}]: RuntimeError: CUDA error: {message}"]


ECC2 = _cuda(2, "uncorrectable ECC error encountered")

#: key: (lines, the rank named alone, critical)
OWN_FAULT = {
    "nvls-then-ecc": (NODE23_NVLS + ECC2, 2),
    "ecc-then-nvls": (ECC2 + NODE23_NVLS, 2),
    "nvls-then-fallen-off-the-bus": (NODE23_NVLS + _cuda(2, "GPU has fallen off the bus."), 2),
    "untagged-call-stack-then-ecc": (UNTAGGED_NVLS + ECC2, 2),
    "four-devices-nvls-then-ecc": (FOUR_DEVICES_NVLS + ECC2, 2),
    "torch-report-of-nvls-then-ecc": (NODE23_NVLS + RANK5_TORCH_NVLS + ECC2, 2),
    "cuda-802-then-ecc": (RANK0_NOT_READY + _cuda(3, "uncorrectable ECC error encountered"), 3),
    "nvls-bind-then-fallen-off-the-bus": (RANK1_NVLS_BIND + _cuda(4, "GPU has fallen off the bus."), 4),
}

#: lines that must name no one
NO_ONE = {
    "nvls-alone": NODE23_NVLS,
    "four-devices-nvls-alone": FOUR_DEVICES_NVLS,
    "untagged-call-stack-alone": UNTAGGED_NVLS,
    "nvls-then-illegal-address": NODE23_NVLS + _cuda(2, "an illegal memory access was encountered"),
    "nvls-then-unknown-error": NODE23_NVLS + _cuda(2, "unknown error"),
    "nvls-then-two-ranks-ecc": NODE23_NVLS + ECC2 + _cuda(5, "uncorrectable ECC error encountered"),
}


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize("nproc", [None, 8])
@pytest.mark.parametrize("key", list(OWN_FAULT))
def test_own_device_fault_names_its_rank_beside_a_node_wide_failure(tmp_path, key, nproc):
    lines, rank = OWN_FAULT[key]
    findings = pasted_findings(lines, tmp_path, nproc, nproc, NOW)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in naming_findings(findings)] == [("critical", "cuda-error", [rank])], \
        _gist(findings)


@pytest.mark.parametrize("key", list(NO_ONE))
def test_no_device_fault_of_one_rank_names_no_one(tmp_path, key):
    findings = pasted_findings(NO_ONE[key], tmp_path, 8, 8, NOW)
    assert naming_findings(findings) == [], _gist(findings)


def test_the_summary_says_the_device_fault_not_the_node_s_refusal(tmp_path):
    """Rank 2's own NVLS line ([2] of node23) is printed before its ECC error: its failure is said by the ECC error."""
    [named] = naming_findings(pasted_findings(NODE23_NVLS + ECC2, tmp_path, 8, 8, NOW))
    assert "uncorrectable ECC error" in named["summary"], named["summary"]
