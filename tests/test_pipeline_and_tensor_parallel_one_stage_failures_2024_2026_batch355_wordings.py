"""Pipeline and tensor parallel runs where one stage or one TP group fails, 2024-2026 (real incidents batch 355), pinned
as read. Four controls, collected blind, all read right both ways as collected (4/4, at ec87acba): Fast-LLM's rank-tagged
``[Rank N] MISMATCH layer 0 fw ... nans detected locally`` lines of a sequence-tensor-parallel debug check on ranks 1, 0
and 2 (ServiceNow/Fast-LLM#59: a code path every TP rank hits, fixed in PR #85) are nothing, as pasted or as eight ranks;
one pipeline stage's untagged backward ``RuntimeError: Mismatch in shape: grad_output[0] ... 128 ... output[0] ... 129``
(hpcaitech/ColossalAI#5940: the p2p metadata cache keeps the first batch's shapes), two interleaved untagged copies of
the last stage's ``ValueError: Expected input batch_size (8) to match target batch_size (4).``
(deepspeedai/DeepSpeedExamples#790) and PiPPy's untagged ``RuntimeError:`` / ``Failed to run stage backward`` block
(pytorch/PiPPy#1054: stage 0 drops a dimension) are each a Python failure said at warning with no rank. No rule changed
(measure only). Contrasts: another rank's CUDA error after the NaN lines names that rank; the same stage's traceback
tagged ``[rankN]:`` names rank N (a lone rank's exception: what k10s would say had the author pasted one tagged copy);
two ranks' tagged copies name no one; the exception line removed leaves nothing. Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)

STP_NANS = corpus_lines("fast-llm-59-")
METADATA_CACHE = corpus_lines("colossalai-5940-")
LOSS_BATCH = corpus_lines("deepspeedexamples-790-")
STAGE_BACKWARD = corpus_lines("pippy-1054-")


def _tagged(lines: list[str], rank: int) -> list[str]:
    """``lines`` as torchrun's ``--tee``/``[rankN]:`` prefix would carry them for ``rank``."""
    return [f"[rank{rank}]: {line}" for line in lines]


#: rank 3's own CUDA failure after the NaN lines (a rank that fails for itself)
STP_NANS_RANK3_CUDA = STP_NANS + [
    "2024-11-21 00:10:01,000 [Rank 3] Traceback (most recent call last):",
    '2024-11-21 00:10:01,001 [Rank 3]   File "train.py", line 10, in <module>',
    "2024-11-21 00:10:01,002 [Rank 3] RuntimeError: CUDA error: an illegal memory access was encountered",
]
#: the same in torchrun's tag
STP_NANS_TORCHRUN_RANK3_CUDA = STP_NANS + [
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"
]
#: the stage's shape error pasted from rank 1 (a lone tagged copy)
METADATA_CACHE_RANK1 = _tagged(METADATA_CACHE, 1)
#: rank 0's and rank 1's copies: every stage's
METADATA_CACHE_TWO_COPIES = _tagged(METADATA_CACHE, 0) + _tagged(METADATA_CACHE, 1)
#: the last stage's loss error pasted from rank 3
LOSS_BATCH_RANK3 = _tagged(LOSS_BATCH, 3)
#: the two interleaved copies told apart: ranks 0 and 1
LOSS_BATCH_TWO_RANKS = _tagged(LOSS_BATCH[:5], 0) + _tagged(LOSS_BATCH[5:], 1)
#: PiPPy's block pasted from rank 0
STAGE_BACKWARD_RANK0 = _tagged(STAGE_BACKWARD, 0)
#: rank 0's and rank 1's copies of it
STAGE_BACKWARD_TWO_COPIES = _tagged(STAGE_BACKWARD, 0) + _tagged(STAGE_BACKWARD, 1)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (or as their ranks suggest)
    "stp-nans-as-pasted": (STP_NANS, None, None, None, None),
    "stp-nans-eight-ranks": (STP_NANS, 8, 8, None, None),
    "metadata-cache-as-pasted": (METADATA_CACHE, None, None, None, None),
    "metadata-cache-two-stages": (METADATA_CACHE, 2, 2, None, None),
    "loss-batch-as-pasted": (LOSS_BATCH, None, None, None, None),
    "loss-batch-two-gpus": (LOSS_BATCH, 2, 2, None, None),
    "stage-backward-as-pasted": (STAGE_BACKWARD, None, None, None, None),
    "stage-backward-four-gpus": (STAGE_BACKWARD, 4, 4, None, None),
    # contrasts
    "stp-nans-rank3-cuda-names-rank3": (STP_NANS_RANK3_CUDA, 8, 8, 3, "cuda-error"),
    "stp-nans-torchrun-rank3-cuda-names-rank3": (STP_NANS_TORCHRUN_RANK3_CUDA, 8, 8, 3, "cuda-error"),
    "metadata-cache-rank1-names-rank1": (METADATA_CACHE_RANK1, 2, 2, 1, "python-exception"),
    "metadata-cache-two-copies-names-none": (METADATA_CACHE_TWO_COPIES, 2, 2, None, None),
    "loss-batch-rank3-names-rank3": (LOSS_BATCH_RANK3, 4, 4, 3, "python-exception"),
    "loss-batch-two-ranks-names-none": (LOSS_BATCH_TWO_RANKS, 2, 2, None, None),
    "stage-backward-rank0-names-rank0": (STAGE_BACKWARD_RANK0, 4, 4, 0, "python-exception"),
    "stage-backward-two-copies-names-none": (STAGE_BACKWARD_TWO_COPIES, 4, 4, None, None),
}
BATCHED = Batched("b355", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_stage_failures_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_debug_check_nan_lines_on_every_rank_are_nothing(tmp_path):
    """Fast-LLM's ``[Rank N] MISMATCH ... nans detected locally`` lines, rank 1's first: no finding at all, as pasted or
    as eight ranks (a numerical debug report is not a failure, and it is every rank's)."""
    assert _gist(STP_NANS, tmp_path / "a", None, None) == []
    assert _gist(STP_NANS, tmp_path / "b", 8, 8) == []


@pytest.mark.parametrize(
    "lines",
    [METADATA_CACHE, LOSS_BATCH, STAGE_BACKWARD],
    ids=["metadata-cache", "loss-batch", "stage-backward"],
)
def test_untagged_stage_shape_error_is_a_warning_of_no_rank(lines, tmp_path):
    """One stage's untagged shape error (ColossalAI's backward, DeepSpeed's loss, PiPPy's stage backward): a Python
    failure said at warning, naming no rank, as pasted."""
    assert _gist(lines, tmp_path, None, None) == [("rank-failure", "warning", "python-exception", [])]


@pytest.mark.parametrize(
    "lines",
    [
        METADATA_CACHE[:-1],
        [line for line in LOSS_BATCH if not line.startswith("ValueError:")],
        STAGE_BACKWARD[1:],
    ],
    ids=["metadata-cache", "loss-batch", "stage-backward"],
)
def test_shape_error_without_its_exception_line_is_nothing(lines, tmp_path):
    """The proving line removed (the ``RuntimeError``/``ValueError`` line): the frames or PiPPy's indented details
    alone are no finding."""
    assert _gist(lines, tmp_path, 2, 2) == []
