"""NCCL's NVLS failures read as the node's NVSwitch fabric state, with what to do (docs/rules.md, "Session 62: NCCL's
placement and fabric-state errors say what to do"): NCCL's ``transport/nvls.cc:N NCCL WARN Cuda failure …`` (any CUDA
code: 1 'invalid argument', 401 'the operation cannot be performed in the present state', 999 'unknown error') and its
``Failed to bind NVLink SHARP (NVLS) Multicast memory … Fabric Manager or NVSwitches`` name no rank; the summary says
the node's NVSwitch fabric refused NCCL's NVLS multicast set-up and what to check (``nvidia-smi -q`` Fabric State,
restart nvidia-fabricmanager, reset the GPUs or reboot, NCCL_NVLS_ENABLE=0 to go on), where it said "every process runs
the same command line and code" (batch 390: nccl#1488, #1338, #976) or named the lone device as rank 1 (nccl#1788's 401,
nccl-tests#276's 999 laid out as eight GPUs). Contrasts: the same WARN from NCCL's shm or p2p transport stays the
lone rank's (a warning naming it); torch's report of NCCL's refused CUDA call (``Last error: Cuda failure 1 'invalid
argument'``, no transport) keeps the same-code reading; a rank's own uncorrectable ECC error names it critical.
Pasted logs through ``k10s import-logs``.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

FABRIC_SLUGS = ["nccl-1488-", "nccl-1338-", "nccl-976-", "nccl-1788-", "nccl-tests-276-", "pytorch-177472-"]
#: NCCL's WARN of a CUDA call its shared-memory / P2P transport made: the rank's own set-up, not the fabric
SHM_WARN = ["node1:4100:4120 [3] transport/shm.cc:120 NCCL WARN Cuda failure 1 'invalid argument'"]
P2P_WARN = ["node1:4100:4120 [3] transport/p2p.cc:220 NCCL WARN Cuda failure 401 'the operation cannot be performed in "
            "the present state'"]
#: torch's report of NCCL's refused CUDA call, no transport named
TORCH_REPORT = [
    "[rank5]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, "
    "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
    "[rank5]: ncclUnhandledCudaError: Call to CUDA function failed.",
    "[rank5]: Last error:",
    "[rank5]: Cuda failure 1 'invalid argument'",
]
RANK5_ECC = ["[rank5]: RuntimeError: CUDA error: uncorrectable ECC error encountered"]


def _rank_failures(lines: list[str], tmp_path, nproc: int | None) -> list[dict]:
    return [f for f in pasted_findings(lines, tmp_path, nproc, nproc, NOW) if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("slug", FABRIC_SLUGS)
@pytest.mark.parametrize("nproc", [None, 8])
def test_nvls_failures_are_the_node_fabric_naming_no_one(tmp_path, slug, nproc):
    found = _rank_failures(corpus_lines(slug), tmp_path, nproc)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in found] == [("warning", "cuda-error", [])]
    summary = found[0]["summary"]
    assert "the node's NVSwitch fabric refused NCCL's NVLS multicast set-up" in summary
    for advice in ("`nvidia-smi -q` Fabric State", "restart nvidia-fabricmanager", "reset the GPUs or reboot the node",
                   "NCCL_NVLS_ENABLE=0"):
        assert advice in summary
    assert "same command line" not in summary and "no single culprit" in summary


def test_nvls_on_two_nodes_names_no_one(tmp_path):
    lines = corpus_lines("nccl-1488-")
    lines = lines + [line.replace("node23", "node24") for line in lines]
    assert naming_findings(pasted_findings(lines, tmp_path, 8, 16, NOW)) == []


@pytest.mark.parametrize("lines", [SHM_WARN, P2P_WARN], ids=["shm", "p2p"])
def test_another_transport_s_cuda_failure_stays_the_lone_rank_s(tmp_path, lines):
    found = _rank_failures(lines, tmp_path, 8)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in found] == [("warning", "cuda-error", [3])]
    assert "NVSwitch" not in found[0]["summary"]


def test_torch_s_report_of_the_refused_call_keeps_the_same_code_reading(tmp_path):
    found = _rank_failures(TORCH_REPORT, tmp_path, 8)
    assert [(f["severity"], f["ranks"]) for f in found] == [("warning", [])]
    assert "NCCL's CUDA call refused: invalid argument" in found[0]["summary"]
    assert "NVSwitch" not in found[0]["summary"]


def test_a_rank_s_own_ecc_error_names_it_critical(tmp_path):
    found = _rank_failures(RANK5_ECC, tmp_path, 8)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in found] == [("critical", "cuda-error", [5])]
