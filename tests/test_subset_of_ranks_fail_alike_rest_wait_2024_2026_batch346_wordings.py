"""Several ranks failing alike while the rest wait, 2024-2026 (real incidents batch 346), pinned as read. Three
controls, collected blind. Two were read right as collected: untagged tqdm bars at different steps (499, 496, 497 of
7151) and rank 0's watchdog timeout of an ALLREDUCE (huggingface/accelerate#3212: a per-GPU ``continue`` around padded
validation batches put the two GPUs out of step) name no one, as pasted, laid out as the thread's 2 GPUs or with the
waiting rank renumbered 1; a multi-node run's epoch summary and ``Saved an end-of-epoch checkpoint`` printed twice,
untagged, by two processes (speechbrain/speechbrain#2506: ``if_main_process`` keyed on ``LOCAL_RANK`` made every node's
local rank 0 a main process) name no one. The third (NOT_YET, batch 346) is read with a culprit: rank 1's traceback tail
ending ``[rank1]: NotImplementedError: The current rlhf_type 'gkd' does not support sequence_parallel`` (modelscope/
ms-swift#7141: a configuration check every rank raises alike, the author pasting one copy) names rank 1. Scored 2/3 both
ways as collected; no rule changed (measure only). Contrasts: rank 1's own exception beside rank 0's timeout names rank 1
(never-joined, critical); an untagged ``FileNotFoundError`` after the duplicated saves is a Python failure of no rank;
the same refusal tagged ``[rank3]:`` names rank 3; rank 0's copy beside rank 1's is every rank's (no one); the frames
without the exception line leave rank 1 an info suspect. Pasted logs through ``k10s import-logs``, batched.
Since session 57 (the batch's suggestions): the refusal, raised under the arguments dataclass's ``__post_init__``, is
every rank's (common mode: ms-swift#7141 names no one, under any tag); rank 0's lone watchdog timeout is an info hang of
no rank.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 23, 0, tzinfo=dt.timezone.utc)

PADDING_SKIP = corpus_lines("accelerate-3212-")
LOCAL_RANK_MAIN = corpus_lines("speechbrain-2506-")
GKD_SP_REFUSAL = corpus_lines("ms-swift-7141-")

#: the waiting side renumbered: rank 1's watchdog in place of rank 0's
PADDING_SKIP_RANK1 = [
    line.replace("[rank0]", "[rank1]").replace("Rank 0]", "Rank 1]")
    for line in PADDING_SKIP
]
#: rank 1's own exception after rank 0's timeout (the rank that left the collective, had it said why)
PADDING_SKIP_RANK1_RAISES = PADDING_SKIP + [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "train.py", line 10, in <module>',
    "[rank1]: ValueError: bad batch",
]
#: the duplicated saves followed by an untagged checkpoint error (the run's failure, of no rank)
LOCAL_RANK_MAIN_ERROR = LOCAL_RANK_MAIN + [
    "Traceback (most recent call last):",
    '  File "train.py", line 10, in <module>',
    "FileNotFoundError: [Errno 2] No such file or directory: 'CKPT+2024-04-14+07-30-22+00/model.ckpt'",
]
#: the same refusal pasted from rank 3
GKD_SP_RANK3 = [line.replace("[rank1]", "[rank3]") for line in GKD_SP_REFUSAL]
#: rank 0's copy of the refusal beside rank 1's: every rank's
GKD_SP_TWO_COPIES = GKD_SP_REFUSAL + [
    line.replace("[rank1]", "[rank0]") for line in GKD_SP_REFUSAL
]
#: rank 1's frames without the exception line
GKD_SP_NO_EXCEPTION = GKD_SP_REFUSAL[:-1]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "padding-skip-as-pasted": (PADDING_SKIP, None, None, None, None),
    "padding-skip-two-gpus": (PADDING_SKIP, 2, 2, None, None),
    "local-rank-main-as-pasted": (LOCAL_RANK_MAIN, None, None, None, None),
    "local-rank-main-two-nodes": (LOCAL_RANK_MAIN, 8, 16, None, None),
    # today's reading of the NOT_YET control
    "gkd-sp-refusal-as-pasted": (GKD_SP_REFUSAL, None, None, None, None),
    "gkd-sp-refusal-two-ranks": (GKD_SP_REFUSAL, 2, 2, None, None),
    "gkd-sp-refusal-eight-ranks": (GKD_SP_REFUSAL, 8, 8, None, None),
    # contrasts
    "padding-skip-rank1-waiting-names-none": (PADDING_SKIP_RANK1, 2, 2, None, None),
    "padding-skip-rank1-raises-names-rank1": (
        PADDING_SKIP_RANK1_RAISES,
        2,
        2,
        1,
        "never-joined",
    ),
    "gkd-sp-refusal-rank3-names-none": (GKD_SP_RANK3, 8, 8, None, None),
    "gkd-sp-refusal-two-copies-names-none": (GKD_SP_TWO_COPIES, 2, 2, None, None),
}
BATCHED = Batched("b346", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_subset_of_ranks_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_rank0_watchdog_timeout_alone_is_an_info_hang(tmp_path):
    """Rank 0's watchdog timeout of an ALLREDUCE with nothing from its peer was no finding at all as collected; since
    session 57 it is the job's hang, said at info with no rank (one rank's wait alone), as pasted or as two GPUs: the
    waiting side is not named."""
    for folder, nproc in ((tmp_path / "a", None), (tmp_path / "b", 2)):
        gist = [(f["rule"], f["severity"], f["ranks"]) for f in pasted_findings(PADDING_SKIP, folder, nproc, nproc, NOW)]
        assert gist == [("nccl-hang", "info", [])]


def test_duplicated_saves_then_error_is_a_failure_of_no_rank(tmp_path):
    """Two processes' identical ``Saved an end-of-epoch checkpoint`` lines are nothing; an untagged traceback after
    them is a Python failure (warning) of no rank."""
    assert pasted_findings(LOCAL_RANK_MAIN, tmp_path / "a", None, None, NOW) == []
    assert _failures(LOCAL_RANK_MAIN_ERROR, tmp_path / "b", None, None) == [
        ("warning", "python-exception", [])
    ]


def test_refusal_frames_without_exception_leave_an_info_suspect(tmp_path):
    """Rank 1's frames without the ``NotImplementedError`` line: an info suspect, not a culprit."""
    assert_info_suspect(pasted_findings(GKD_SP_NO_EXCEPTION, tmp_path, 8, 8, NOW), 1)
