"""Multi-GPU errors asked on forums and Q&A pages, 2025-2026 (real incidents batch 359), pinned as read. One control,
collected blind (the forum and Q&A pages searched held no new thread with a verbatim multi-process paste and a settled
answer, so the one incident is a GitHub thread of the same kind): rank 1's two lines ``[rank1]:
torch.distributed.DistBackendError: NCCL error in: ... unhandled cuda error ..., NCCL version 2.25.1`` /
``[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.`` from a dual RTX 5090 box (tdrussell/diffusion-pipe#154:
NCCL 2.25.1 cannot run on RTX 5090, fixed in 2.26.2; every rank meets it, the author pasted one copy). Scored 0/1 both
ways as collected (NOT_YET, batch 359): rank 1 is named (rank-failure, nccl-error, warning), as a lone rank's NCCL error
is; no rule changed (measure only). Contrasts: the same lines tagged ``[rank0]:`` name rank 0; rank 0's copy beside rank
1's is every rank's (a warning of no rank); the lines without their rank tag are a failure of no rank; either line alone
still names rank 1. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 3, 0, tzinfo=dt.timezone.utc)

NCCL_2251_ON_5090 = corpus_lines("diffusion-pipe-154-")

#: the same two lines pasted from rank 0
NCCL_RANK0 = [line.replace("[rank1]", "[rank0]") for line in NCCL_2251_ON_5090]
#: rank 0's copy beside rank 1's: every rank's
NCCL_TWO_COPIES = NCCL_RANK0 + NCCL_2251_ON_5090
#: the lines without their rank tag
NCCL_UNTAGGED = [line.replace("[rank1]: ", "") for line in NCCL_2251_ON_5090]
#: the DistBackendError line alone, and the ncclUnhandledCudaError line alone
NCCL_DIST_LINE_ONLY = NCCL_2251_ON_5090[:1]
NCCL_CUDA_LINE_ONLY = NCCL_2251_ON_5090[1:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected (the NOT_YET reading), pasted and laid out as the thread says (one box, both 5090s)
    "nccl-2251-as-pasted-names-rank1": (NCCL_2251_ON_5090, None, None, 1, "nccl-error"),
    "nccl-2251-two-gpus-names-rank1": (NCCL_2251_ON_5090, 2, 2, 1, "nccl-error"),
    "nccl-2251-eight-gpus-names-rank1": (NCCL_2251_ON_5090, 8, 8, 1, "nccl-error"),
    "nccl-2251-dist-line-only-names-rank1": (NCCL_DIST_LINE_ONLY, 2, 2, 1, "nccl-error"),
    "nccl-2251-cuda-line-only-names-rank1": (NCCL_CUDA_LINE_ONLY, 2, 2, 1, "nccl-error"),
    # contrasts
    "nccl-2251-rank0-names-rank0": (NCCL_RANK0, 2, 2, 0, "nccl-error"),
    "nccl-2251-two-copies-names-none": (NCCL_TWO_COPIES, 2, 2, None, None),
    "nccl-2251-untagged-names-none": (NCCL_UNTAGGED, 2, 2, None, None),
}
BATCHED = Batched("b359", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_and_qa_pages_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_lone_rank_nccl_error_is_a_warning_of_that_rank(tmp_path):
    """As collected: rank 1's lone NCCL error is a warning (only its lines are pasted: confidence medium) naming rank 1,
    the reading the batch marks NOT_YET (the NCCL build every rank runs is the cause, not rank 1)."""
    assert _failures(NCCL_2251_ON_5090, tmp_path / "a", None, None) == [("warning", "nccl-error", [1])]
    assert _failures(NCCL_2251_ON_5090, tmp_path / "b", 2, 2) == [("warning", "nccl-error", [1])]


def test_alike_copies_and_untagged_lines_are_a_failure_of_no_rank(tmp_path):
    """Two ranks' identical NCCL errors, or the lines with no rank tag: still the job's NCCL failure (warning), of no
    rank."""
    assert _failures(NCCL_TWO_COPIES, tmp_path / "a", 2, 2) == [("warning", "nccl-error", [])]
    assert _failures(NCCL_UNTAGGED, tmp_path / "b", 2, 2) == [("warning", "nccl-error", [])]
