"""What a paste cannot prove, a rank's absence (session 46): when the others' watchdog timeouts are pasted and one rank
of the job is in no line of the paste, nccl-hang names that rank never-joined (the watchdog compare) at warning with
``medium_why`` ``absent-from-paste``, not critical: whether it hung or its lines were left out of the paste, the paste
cannot say (the corpus's controls STEERER-20, art-10 and profam-286 are such pastes, beside 17 culprits). A rank that
has a line of its own in the paste and never timed out is absent from the wait by the paste's own words: critical, as
before; so is a rank absent from the pods' logs of a captured job (tests/test_torch_runs.py's podlog readings). Real
pastes of tests/data/real-incidents and small variants, through ``k10s import-logs``, batched (docs/rules.md, "What a
paste cannot prove").
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import corpus_lines

NOW = dt.datetime(2026, 12, 4, 12, 0, tzinfo=dt.timezone.utc)

# ranks 1-3 time out in a BROADCAST of SeqNum 10792; rank 0 (validating) is in no line (a culprit)
BROADCAST_RANK0_ABSENT = corpus_lines("ultralytics-2023-")
# PyTorch 1.x's watchdog (no SeqNum) between validation progress bars, ranks 1-3; rank 0 in no line (a culprit)
OLD_WATCHDOG_RANK0_ABSENT = corpus_lines("yolov5-4409-")
#: a line of rank 0's own (its NCCL communicator's init): rank 0 is in the paste, and did not time out
RANK0_OWN_LINE = ("gpu-vm:4711:4711 [0] NCCL INFO comm 0x55d1c0e0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1000 commId "
                  "0x8c2f1e7d6a5b4c3d - Init COMPLETE")

#: key: (the pasted lines, nproc, the rank named, severity, medium_why)
CASES = {
    "broadcast-rank0-absent": (BROADCAST_RANK0_ABSENT, 4, 0, "warning", "absent-from-paste"),
    "old-watchdog-rank0-absent": (OLD_WATCHDOG_RANK0_ABSENT, 4, 0, "warning", "absent-from-paste"),
    # contrast: rank 0 says something of its own in the paste and never timed out
    "broadcast-rank0-present": ([RANK0_OWN_LINE] + BROADCAST_RANK0_ABSENT, 4, 0, "critical", None),
}
BATCHED = Batched("paste-absent-rank", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc = CASES[key][:2]
    return pasted(lines, folder, nproc, NOW, world=None)


def _hang(key: str, tmp_path_factory) -> dict:
    (finding,) = [f for f in BATCHED.findings(key, tmp_path_factory, _make) if f["rule"] == "nccl-hang"]
    return finding


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_rank_absent_from_a_paste_of_the_others_waits_is_named_at_warning(key, tmp_path_factory):
    _, _, rank, severity, why = CASES[key]
    finding = _hang(key, tmp_path_factory)
    assert (finding["ranks"], finding["cause"], finding["severity"]) == ([rank], "never-joined", severity)
    assert finding["evidence"][0].get("medium_why") == why


def test_the_finding_says_the_paste_holds_no_line_of_that_rank(tmp_path_factory):
    summary = _hang("broadcast-rank0-absent", tmp_path_factory)["summary"]
    assert "The paste holds no line of rank 0's own" in summary
    assert "paste holds no line" not in _hang("broadcast-rank0-present", tmp_path_factory)["summary"]


def test_the_contrast_adds_one_line_of_the_absent_rank():
    present = CASES["broadcast-rank0-present"][0]
    assert present[1:] == BROADCAST_RANK0_ABSENT and " rank 0 nranks 4 " in present[0]
    assert not any("rank 0 " in line.lower() or "[rank0]" in line for line in BROADCAST_RANK0_ABSENT)
