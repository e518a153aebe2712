"""Threads where the maintainer or the author points at the one error that is the real one, 2023-2026 (real incidents
batch 398), pinned as read. One culprit and two controls, collected blind; scored 2/3 both ways as collected (65280b6d).
Read right: rank 6's four-line tail ending ``[rank6]: IndexError: index 17 is out of bounds for dimension 0 with size
17`` out of the Qwen2.5-VL processor (haon-chen/MoCa#6: the maintainer, 'caused by some training samples in MMEB-train
had mismatched image counts', filtered them out) names rank 6 (warning, python-exception, medium), as pasted or as 8
ranks; rank 0's ``[olmo.checkpoint:1927, rank=0] Saving model and optim state ...`` INFO line and four untagged
``OLMoConfigurationError: Checkpoint for step 0 already exists, use --save_overwrite to overwrite it`` lines
(allenai/OLMo#827: ``save_overwrite`` not passed on to the save, every process fails the same check, merged fix PR #828)
are a python-exception warning of no rank, as pasted or as 4 ranks. NOT_YET as collected (batch 398), pinned as read:
one untagged ``FileNotFoundError: [Errno 2] No such file or directory: 'rng_state_1.pth'`` and the agent's ``failed
(exitcode: 1) local_rank: 0 (pid: 7796)`` (huggingface/transformers#20988: on a multi-node job with a shared filesystem
and ``save_total_limit=1`` every node's main process rotated the same checkpoint and the loser of the race crashed,
fixed by the merged PR #20989) name rank 0 (warning, medium), where the truth is no one. Contrasts: rank 0's copy of the
IndexError beside rank 6's, or the tail untagged, name no one; the FileNotFoundError without the agent's report names
no one, and tagged ``[rank9]:`` beside the agent's ``local_rank: 0`` names no one either; one of the four
OLMoConfigurationError lines tagged ``[rank2]:`` names rank 2, and one untagged copy after rank 0's INFO line names rank
0 (the INFO line's ``rank=0`` is read as the rank that raised). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

BAD_SAMPLE = corpus_lines("MoCa-6-")
ROTATION_RACE = corpus_lines("transformers-20988-")
SAVE_OVERWRITE = corpus_lines("OLMo-827-")

#: rank 0's copy of the same IndexError tail beside rank 6's: two ranks, no one culprit
BAD_SAMPLE_TWO_COPIES = [line.replace("[rank6]", "[rank0]") for line in BAD_SAMPLE] + BAD_SAMPLE
#: the same tail without the rank tags (a paste of the untagged console)
BAD_SAMPLE_UNTAGGED = [line.replace("[rank6]: ", "") for line in BAD_SAMPLE]
#: the FileNotFoundError alone, without the elastic agent's report
ROTATION_RACE_EXCEPTION_ONLY = ROTATION_RACE[:1]
#: the FileNotFoundError tagged by global rank 9, the agent's report of local rank 0 after it
ROTATION_RACE_TAGGED_RANK9 = ["[rank9]: " + ROTATION_RACE[0]] + ROTATION_RACE[1:]
#: rank 0's INFO line and one OLMoConfigurationError, tagged by rank 2
SAVE_OVERWRITE_RANK2 = SAVE_OVERWRITE[:1] + ["[rank2]: " + SAVE_OVERWRITE[1]]
#: rank 0's INFO line and one untagged OLMoConfigurationError
SAVE_OVERWRITE_ONE_COPY = SAVE_OVERWRITE[:2]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "bad-sample-as-pasted": (BAD_SAMPLE, None, None, 6, "python-exception"),
    "bad-sample-eight-ranks": (BAD_SAMPLE, 8, 8, 6, "python-exception"),
    "save-overwrite-as-pasted": (SAVE_OVERWRITE, None, None, None, None),
    "save-overwrite-four-ranks": (SAVE_OVERWRITE, 4, 4, None, None),
    # NOT_YET as collected (batch 398), pinned as read: rank 0 named where the truth is no one
    "rotation-race-as-pasted-names-rank0": (ROTATION_RACE, None, None, 0, "python-exception"),
    "rotation-race-two-nodes-names-rank0": (ROTATION_RACE, 8, 16, 0, "python-exception"),
    # variants that must not name anyone
    "bad-sample-two-copies-names-none": (BAD_SAMPLE_TWO_COPIES, 8, 8, None, None),
    "bad-sample-untagged-names-none": (BAD_SAMPLE_UNTAGGED, None, None, None, None),
    "rotation-race-exception-only-names-none": (ROTATION_RACE_EXCEPTION_ONLY, None, None, None, None),
    "rotation-race-tagged-rank9-names-none": (ROTATION_RACE_TAGGED_RANK9, 8, 16, None, None),
    # contrasts that must name a rank
    "save-overwrite-rank2-tagged-names-rank2": (SAVE_OVERWRITE_RANK2, 4, 4, 2, "python-exception"),
    "save-overwrite-one-copy-names-rank0": (SAVE_OVERWRITE_ONE_COPY, None, None, 0, "python-exception"),
}
BATCHED = Batched("b398", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_maintainer_points_at_the_real_error_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence"))
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_bad_sample_tail_names_rank6(tmp_path):
    """MoCa#6 as collected: rank 6's lone processor IndexError is one warning naming rank 6, confidence medium ('the
    paste holds this rank's lines only'), right: a malformed sample is in one rank's batch, not in every rank's."""
    assert _read(BAD_SAMPLE, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "python-exception", [6], "medium")
    ]
    assert _read(BAD_SAMPLE, tmp_path / "b", 8, 8) == [("rank-failure", "warning", "python-exception", [6], "medium")]


def test_four_untagged_save_overwrite_errors_are_a_rankless_python_exception(tmp_path):
    """OLMo#827 as collected: rank 0's INFO line does not make rank 0 the culprit when four processes print the same
    ``OLMoConfigurationError`` untagged."""
    assert _read(SAVE_OVERWRITE, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "python-exception", [], None)
    ]
    assert _read(SAVE_OVERWRITE, tmp_path / "b", 4, 4) == [("rank-failure", "warning", "python-exception", [], None)]


def test_checkpoint_rotation_race_names_local_rank0_as_read(tmp_path):
    """transformers#20988 (NOT_YET as collected, batch 398): one untagged FileNotFoundError and the agent's ``failed
    (exitcode: 1) local_rank: 0`` name rank 0 (warning, medium), wrong: the race between every node's main process
    on a shared checkpoint directory is no one's fault, and the agent's local rank 0 on an unnamed node of a
    multi-node job is not global rank 0 (docs/rules.md, "Session 63: batch 398")."""
    assert _read(ROTATION_RACE, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "python-exception", [0], "medium")
    ]
    assert _read(ROTATION_RACE_EXCEPTION_ONLY, tmp_path / "b", None, None) == [
        ("rank-failure", "warning", "python-exception", [], None)
    ]
