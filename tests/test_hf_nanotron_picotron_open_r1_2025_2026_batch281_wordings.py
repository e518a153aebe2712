"""huggingface nanotron / open-r1 multi-GPU failures (real incidents batch 281), pinned as read.

Three controls, collected blind. nanotron's untagged config traceback (huggingface/nanotron#121: ``AssertionError: You
must have a training stage starting at 1 in the config's data_stages`` under ``torchrun --nproc_per_node=2``, a bug in
the example config) is read as a failure of no rank, as the thread settles. Two GRPO runs that pasted one rank's copy
of trl's divisibility check (``ValueError: The global train batch size (7 x 1) must be evenly divisible by the number of
generations per prompt (8)``; huggingface/open-r1#249 as ``[rank1]:``, huggingface/open-r1#217 as ``[rank0]:``), a
check every one of the 7 ranks runs alike, named the rank whose copy was pasted as collected (scored 1/3 both ways);
since session 51 the run's batch arithmetic refused is common mode (queries/_incident_common_mode.sql) and neither names
anyone (3/3). Contrasts: the nanotron traceback under one ``[rank1]:`` tag names rank 1, under both ranks' tags no one;
the ValueError renumbered ``[rank5]`` names no one either; another ValueError in its place (a sample's missing field)
names rank 1; the same ValueError pasted from two ranks names no one; without the exception line a rank's frames are an info suspect
only; a CUDA OOM in place of the ValueError names rank 0 with cuda-oom. Pasted logs through ``k10s import-logs``,
batched.
Since session 57 the nanotron traceback under one ``[rank1]:`` tag names no one too: its assertion is raised in the
config dataclass's ``__post_init__`` (``nanotron/config/config.py``), every rank's (common mode).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted_cases,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 30, tzinfo=dt.timezone.utc)

DATA_STAGES = corpus_lines("nanotron-121-")
GENERATIONS_RANK1 = corpus_lines("open-r1-249-")
GENERATIONS_RANK0 = corpus_lines("open-r1-217-")

#: the nanotron traceback as rank 1's alone (a ``[rank1]:`` tag on every line)
DATA_STAGES_RANK1 = ["[rank1]: " + line for line in DATA_STAGES]
#: the nanotron traceback as both ranks print it (every rank fails alike)
DATA_STAGES_BOTH = ["[rank0]: " + line for line in DATA_STAGES] + [
    "[rank1]: " + line for line in DATA_STAGES
]
#: rank 1's ValueError renumbered as rank 5's
GENERATIONS_RANK5 = [line.replace("[rank1]", "[rank5]") for line in GENERATIONS_RANK1]
#: rank 1's frames with a ValueError of its own data in place of the batch check (one rank's sample, not the settings)
SAMPLE_FIELD_RANK1 = GENERATIONS_RANK1[:-1] + [
    "[rank1]: ValueError: sample 1187 has no field 'prompt' in shard 3"
]
#: the same ValueError pasted from ranks 0 and 1 (what every rank prints)
GENERATIONS_TWO_RANKS = [
    line.replace("[rank1]", f"[rank{r}]") for r in (0, 1) for line in GENERATIONS_RANK1
]
#: rank 0's frames with a CUDA OOM in place of the ValueError
GENERATIONS_RANK0_OOM = GENERATIONS_RANK0[:-1] + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.11 GiB of which 1.02 GiB is free."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (session 51: the two open-r1 ones name no one)
    "data-stages-as-pasted": (DATA_STAGES, None, None, None, None),
    "data-stages-two-ranks": (DATA_STAGES, 2, 2, None, None),
    "generations-rank1-as-pasted": (GENERATIONS_RANK1, None, None, None, None),
    "generations-rank1-seven-ranks": (GENERATIONS_RANK1, 7, 7, None, None),
    "generations-rank0-as-pasted": (GENERATIONS_RANK0, None, None, None, None),
    "generations-rank0-seven-ranks": (GENERATIONS_RANK0, 7, 7, None, None),
    # contrasts
    # since session 57 the config check under nanotron's `config.py` `__post_init__` is every rank's (common mode)
    "data-stages-rank1-tag-names-none": (DATA_STAGES_RANK1, 2, 2, None, None),
    "data-stages-both-ranks-names-none": (DATA_STAGES_BOTH, 2, 2, None, None),
    "generations-rank5-names-none": (GENERATIONS_RANK5, 7, 7, None, None),
    "sample-field-valueerror-names-rank1": (
        SAMPLE_FIELD_RANK1,
        7,
        7,
        1,
        "python-exception",
    ),
    "generations-two-ranks-names-none": (GENERATIONS_TWO_RANKS, 7, 7, None, None),
    "generations-rank0-oom-names-rank0": (GENERATIONS_RANK0_OOM, 7, 7, 0, "cuda-oom"),
}
BATCHED = Batched("b281", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hf_nanotron_open_r1_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    "lines, rank",
    [(GENERATIONS_RANK1, 1), (GENERATIONS_RANK0, 0)],
    ids=["rank1", "rank0"],
)
def test_generations_frames_without_exception_are_a_suspect(lines, rank, tmp_path):
    """The pasted frames without the ``ValueError`` line: that rank is an info suspect, no culprit."""
    assert_info_suspect(pasted_findings(lines[:-1], tmp_path, 7, 7, NOW), rank)


def test_data_stages_is_a_failure_of_no_rank(tmp_path):
    """The untagged nanotron traceback still reads as a Python failure (warning), of no rank."""
    findings = pasted_findings(DATA_STAGES, tmp_path, 2, 2, NOW)
    failures = [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]
    assert failures == [("warning", "python-exception", [])]
