"""What a paste cannot prove, a kernel's fault (session 44): a CUDA error whose message is a kernel's fault (an illegal
or misaligned address, a device-side assert), in a paste that holds that rank's lines only (no other rank's line, no
victim), is named at warning with confidence medium (``medium_why`` ``lone-paste-kernel-fault``): the kernel is every
rank's, and the paste cannot say whether the others hit it too (the corpus's controls torchtitan-810, flux-40,
gsplat-845, lmdeploy-3258 are such pastes). A GPU's own fault (an uncorrectable ECC error) stays critical, and so does
the kernel's fault beside another rank's line. Real pastes of tests/data/real-incidents and small variants, through
``k10s import-logs``, batched (docs/rules.md, "What a paste cannot prove").
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import corpus_lines

NOW = dt.datetime(2026, 12, 4, 7, 0, tzinfo=dt.timezone.utc)

# rank 1's watchdog: `CUDA error: an illegal memory access was encountered` (a culprit)
IMA = corpus_lines("TRELLIS.2-90-")
# rank 1's watchdog, the same error in a fused GEMM + reduce-scatter kernel every rank runs (a control)
IMA_CONTROL = corpus_lines("flux-40-")
#: the same paste with its GPU's own fault: `CUDA error: uncorrectable ECC error encountered`
ECC = [line.replace("an illegal memory access was encountered", "uncorrectable ECC error encountered") for line in IMA]
DEVICE_ASSERT = [
    "[rank2]: Traceback (most recent call last):",
    '[rank2]:   File "/opt/train.py", line 88, in <module>',
    "[rank2]:     loss = criterion(logits, labels)",
    "[rank2]: RuntimeError: CUDA error: device-side assert triggered",
]
#: another rank's watchdog timeout on the collective the faulting rank never joined
PEER_TIMEOUT = ("[rank0]:[E1204 06:50:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
                "milliseconds before timing out.")

#: key: (the pasted lines, the rank named, the severity, confidence and medium_why of its rank-failure finding)
CASES = {
    "lone-illegal-address": (IMA, 1, "warning", "medium", "lone-paste-kernel-fault"),
    "lone-illegal-address-control": (IMA_CONTROL, 1, "warning", "medium", "lone-paste-kernel-fault"),
    "lone-device-assert": (DEVICE_ASSERT, 2, "warning", "medium", "lone-paste-kernel-fault"),
    # contrasts: the GPU's own fault; the kernel's fault beside a peer's line
    "lone-ecc": (ECC, 1, "critical", "high", None),
    "device-assert-beside-a-peer-timeout": (DEVICE_ASSERT + [PEER_TIMEOUT], 2, "critical", "high", None),
}
BATCHED = Batched("paste-kernel-fault", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


def _cuda_errors(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["rule"] == "rank-failure" and f["cause"] == "cuda-error"]


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_kernel_fault_in_one_rank_s_paste_is_named_at_warning(key, tmp_path_factory):
    _, rank, severity, confidence, why = CASES[key]
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    got = [(f["ranks"], f["severity"], f["evidence"][0]["confidence"], f["evidence"][0].get("medium_why"))
           for f in _cuda_errors(findings)]
    assert got == [([rank], severity, confidence, why)], [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_the_finding_says_the_fault_is_a_kernel_s(tmp_path_factory):
    (finding,) = _cuda_errors(BATCHED.findings("lone-illegal-address", tmp_path_factory, _make))
    assert "the fault is a kernel's, not its GPU's" in finding["summary"]
    assert "(confidence medium)" in finding["summary"]


def test_the_ecc_contrast_differs_from_the_paste_in_its_message_only():
    assert ECC != IMA and len(ECC) == len(IMA)
