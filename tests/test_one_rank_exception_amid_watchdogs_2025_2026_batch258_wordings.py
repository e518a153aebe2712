"""One rank's exception or CUDA error among watchdog noise, 2025-2026 (real incidents batch 258), pinned as read. Three
culprits: ms-swift's ``_extend_tokens`` warning, two ``masked_scatter_size_check`` assertions and rank 8's watchdog
``CUDA error: device-side assert triggered`` (modelscope/ms-swift#8371: read as rank 8; the thread's same paste shows
rank 11 too, so it stays in NOT_YET); rank 4's GRPO eval traceback ending in its own device-side assert
(modelscope/ms-swift#5743: rank 4); rank 6's ``what():`` watchdog abort with the CUDA error (PKU-Alignment/
align-anything#113: rank 6). Three controls: ranks 3 and 0 of a GKD/VLM batch-size-1 run raising alike
(modelscope/ms-swift#7034: no one named); TRL's CI ``test_rloo[fsdp2]``, one process's watchdog frames and the agent's
``failed (exitcode: -6) local_rank: 0`` (huggingface/trl#5386: both processes asserted, yet read as rank 0's abort, so
it stays in NOT_YET); AnySplat's untagged watchdog timeout lines (InternRobotics/AnySplat#61: no one named). Scored 4/6
both ways as collected; no rule changed (measure only).
Contrasts: rank 11's line added to ms-swift#8371 makes two ranks alike (no one named); the rank tags taken off rank 8's
or rank 4's lines leave a CUDA error without a rank; rank 6's abort carrying a watchdog timeout instead of the CUDA
error is a victim's; rank 3's tail alone names rank 3; rank 0's traceback head alone is an info suspect; the TRL log
without the agent's report names no one; a ``[rank2]:`` CUDA error before AnySplat's timeouts names rank 2.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 13, 0, tzinfo=dt.timezone.utc)

MASKED_SCATTER = corpus_lines("ms-swift-8371-")
EVAL_ASSERT = corpus_lines("ms-swift-5743-")
PPO_ABORT = corpus_lines("align-anything-113-")
GKD_TWO_RANKS = corpus_lines("ms-swift-7034-")
CI_RLOO = corpus_lines("trl-5386-")
ANYSPLAT = corpus_lines("AnySplat-61-")

#: rank 11's line from the rest of ms-swift#8371's paste, 5 ms after rank 8's
RANK11 = ("[rank11]:[E318 09:26:18.141499142 ProcessGroupNCCL.cpp:2068] [PG ID 0 PG GUID 0(default_pg) Rank 11] Process "
          "group watchdog thread terminated with exception: CUDA error: device-side assert triggered")
WITH_RANK11 = MASKED_SCATTER[:4] + [RANK11] + MASKED_SCATTER[4:]
#: rank 8's watchdog line with its rank tag and rank field masked
RANK8_UNTAGGED = MASKED_SCATTER[:3] + [MASKED_SCATTER[3].replace("[rank8]:", "").replace("Rank 8]", "Rank ?]")] \
    + MASKED_SCATTER[4:]
#: rank 4's traceback without torch's ``[rank4]:`` prefixes
EVAL_UNTAGGED = [line.replace("[rank4]: ", "").replace("[rank4]:", "") for line in EVAL_ASSERT]
#: rank 6's abort carrying a victim's watchdog timeout instead of the CUDA error
PPO_TIMEOUT = [PPO_ABORT[0], "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 6] Process group watchdog thread terminated "
               "with exception: [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
               "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 milliseconds before timing "
               "out."] + PPO_ABORT[5:]
#: rank 3's tail alone (up to its CUDA error), rank 0's traceback left out
RANK3_ALONE = GKD_TWO_RANKS[:GKD_TWO_RANKS.index("")]
#: rank 0's traceback head alone (no exception line)
RANK0_HEAD = GKD_TWO_RANKS[GKD_TWO_RANKS.index("") + 1:]
#: the TRL log without the elastic agent's ``failed (exitcode: -6) local_rank: 0`` report
CI_NO_REPORT = [line for line in CI_RLOO if "failed (exitcode" not in line]
#: one rank's own CUDA error before AnySplat's timeout lines
ANYSPLAT_RANK2 = ["[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered"] + ANYSPLAT

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted (ms-swift#8371 as read: rank 8 only)
    "masked-scatter-as-pasted": (MASKED_SCATTER, None, None, 8, "cuda-error"),
    "eval-assert-as-pasted": (EVAL_ASSERT, None, None, 4, "cuda-error"),
    "eval-assert-one-node-of-8": (EVAL_ASSERT, 8, 8, 4, "cuda-error"),
    "ppo-abort-as-pasted": (PPO_ABORT, None, None, 6, "cuda-error"),
    "ppo-abort-one-node-of-8": (PPO_ABORT, 8, 8, 6, "cuda-error"),
    # controls (trl#5386 as read: rank 0's abort)
    "gkd-two-ranks-as-pasted": (GKD_TWO_RANKS, None, None, None, None),
    "ci-rloo-as-pasted": (CI_RLOO, None, None, 0, "abort"),
    "ci-rloo-two-processes": (CI_RLOO, 2, 2, 0, "abort"),
    "anysplat-as-pasted": (ANYSPLAT, None, None, None, None),
    "anysplat-one-node-of-8": (ANYSPLAT, 8, 8, None, None),
    # contrasts
    "with-rank11-names-none": (WITH_RANK11, None, None, None, None),
    "rank8-untagged-names-none": (RANK8_UNTAGGED, None, None, None, None),
    "eval-untagged-names-none": (EVAL_UNTAGGED, None, None, None, None),
    "ppo-timeout-names-none": (PPO_TIMEOUT, None, None, None, None),
    "rank3-alone-names-rank3": (RANK3_ALONE, None, None, 3, "cuda-error"),
    "ci-no-report-names-none": (CI_NO_REPORT, None, None, None, None),
    "anysplat-rank2-error-names-rank2": (ANYSPLAT_RANK2, None, None, 2, "cuda-error"),
}
BATCHED = Batched("b258", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_batch258_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]


def test_two_ranks_asserting_alike_name_no_one(tmp_path):
    """Ranks 8 and 11 with the same CUDA error: one cuda-error rank-failure that holds no rank (no single culprit)."""
    assert _failures(pasted_findings(WITH_RANK11, tmp_path, None, None, NOW)) == [("warning", "cuda-error", [])]


def test_gkd_ranks_alike_and_rank0_head_a_suspect(tmp_path):
    """ms-swift#7034 as pasted: the CUDA error is read without a rank; rank 0's traceback head alone is an info suspect."""
    assert _failures(pasted_findings(GKD_TWO_RANKS, tmp_path / "both", None, None, NOW)) == [
        ("warning", "cuda-error", [])]
    assert_info_suspect(pasted_findings(RANK0_HEAD, tmp_path / "head", None, None, NOW), 0)


def test_victims_timeout_abort_is_no_rank_failure(tmp_path):
    """Rank 6's ``what():`` abort carrying a watchdog timeout is a victim's report: no rank-failure at all."""
    assert _failures(pasted_findings(PPO_TIMEOUT, tmp_path, None, None, NOW)) == []
