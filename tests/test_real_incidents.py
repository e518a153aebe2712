"""Every real incident (shared/real-samples/incidents) as a bundle, analyzed as a new user would.

One case per entry of incidents/expected.json plus tests/data/incident_expectations.json
(our own reading of the folders expected.json does not list). ``tests/incident_kit.py``
builds the bundle: one pod per node, the pasted lines as container logs, a PyTorchJob with
the world size and nproc per node, no GPU metrics.

* A culprit case: some critical or warning finding names exactly the culprit ranks with the
  expected cause, and no critical/warning finding names ranks that are all outside them.
* A control case (no culprit): no critical or warning finding names a culprit rank (a
  finding may say there is no single culprit, with no ranks).
"""

from __future__ import annotations

import pytest

from incident_kit import REAL_SAMPLES_DIR, analyze_incident, load_cases, naming_findings

#: Cases not handled yet (strict: an XPASS fails, so a fixed case must leave this set).
NOT_YET: set[str] = {
    "colossalai-3677-torchrun-sigkill-local-rank1",
    "colossalai-3556-torchrun-sigbus-local-rank1",
    "pytorch-113128-multinode-ecc-rank12",
    "kohya-1434-2gpu-ecc-rank1",
    "longchat-9-torchrun-sigkill-local-rank4",
    "colossalai-3172-gemini-sigkill-rank0",
    "uniter-31-horovodrun-mpirun-rank0-first",
    "vad-r1-11-torchrun-oom-rank2-first-failure-rank1",
    "pytorch-88251-torchrun-rank5-exit1-wrapped-lines",
    "funasr-2006-multinode-allreduce-timeout",
    "ms-swift-9112-two-gpu-sft",
    "ms-swift-6301-4node-zero3-timeout",
    "ms-swift-4353-torchrun-agent",
    "nccl-1235-multinode-p2p-setup",
}

#: Incident folders whose expectation is still to be written in tests/data/incident_expectations.json
#: (hang evidence: t9-hang; Flight Recorder / RAS: t9-frras). Strict: a folder that gets one must leave.
AWAITING_EXPECTATIONS: set[str] = set()

CASES = load_cases(REAL_SAMPLES_DIR) if REAL_SAMPLES_DIR.is_dir() else []


def _params():
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason="not handled yet")] if case.incident in NOT_YET else []
        yield pytest.param(case, id=case.incident, marks=marks)


def test_every_incident_folder_has_an_expectation(real_samples):
    folders = sorted(p.name for p in (real_samples / "incidents").iterdir() if p.is_dir())
    covered = {c.incident for c in CASES}
    assert len(covered) == len(CASES), "an incident has two expectations"
    assert covered <= set(folders), "an expectation names no incident folder"
    assert set(folders) - covered == AWAITING_EXPECTATIONS
    assert NOT_YET <= {c.incident for c in CASES}


@pytest.mark.parametrize("case", _params())
def test_real_incident(tmp_path, real_samples, case):
    findings = analyze_incident(tmp_path, real_samples, case)
    named = naming_findings(findings)
    shown = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    if case.control:
        assert named == [], f"control case: no finding may name a culprit; got {shown}"
        return
    want = sorted(case.culprit_ranks)
    hits = [f for f in named if f["ranks"] == want and f["cause"] == case.cause]
    assert hits, f"want ranks {want} cause {case.cause}; got {shown}"
    wrong = [f for f in named if not set(f["ranks"]) & set(want)]
    assert wrong == [], f"findings naming other ranks only: {shown}"
