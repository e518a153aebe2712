"""Settled lone-rank culprits of 2025 (real incidents batch 351), pinned as read. Three controls, collected blind (no
free 2025 thread with a settled lone culprit and a text paste was found: the threads the searches surfaced were
already in the corpus). All three were read right both ways as collected: rank 2's whole traceback ending
``[rank2]: IndexError: tuple index out of range`` in mmgp's checkpoint-path split, then rank 5 starting the same one
(deepbeepmeep/Wan2GP#22) is a Python failure of ranks 2 and 5 alike, no culprit; SGLang's ``[... TP3] Scheduler hit an
exception`` head through CUDA-graph capture under torch.compile, the exception line cut (sgl-project/sglang#4964:
FlashInfer MLA with torch.compile) reads as nothing; a docker-compose-prefixed (``deepseek-v32-exp  | ``) tail ending
``Exception: Capture cuda graph failed:`` (sgl-project/sglang#11218: torch compile at start-up) reads as nothing.
Scored 3/3 both ways as collected; no rule changed (measure only). Contrasts: rank 2's traceback alone, or rank 5's copy
retagged rank 2, names rank 2 (python-exception); rank 5's alone names rank 5; rank 2's frames without the exception are
an info suspect; the TP3 head with an untagged CUDA error after it names rank 3 (cuda-error), every line tagged
``[rank3]:`` without it leaves rank 3 an info suspect; the compose tail without its prefix is a Python failure of no rank,
and with the cut ``DP7 TP7`` header completed names rank 7, while the same header under the prefix is still read as
nothing. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)

T5_PATH = corpus_lines("wan2gp-22-")
FLASHINFER_COMPILE = corpus_lines("sglang-4964-")
COMPOSE_CAPTURE = corpus_lines("sglang-11218-")

PREFIX = "deepseek-v32-exp  | "
#: the scheduler header the paste excerpt cut, completed as SGLang writes it
DP7_HEADER = "[2025-10-04 02:29:36 DP7 TP7] Scheduler hit an exception: Traceback (most recent call last):"

#: rank 2's traceback alone (rank 5's start dropped)
T5_RANK2 = [line for line in T5_PATH if line.startswith("[rank2]")]
#: rank 5's start retagged rank 2: one rank's copy only
T5_RANK5_AS_RANK2 = [line.replace("[rank5]", "[rank2]") for line in T5_PATH]
#: rank 2's whole traceback pasted from rank 5
T5_RANK5 = [line.replace("[rank2]", "[rank5]") for line in T5_RANK2]
#: rank 2's frames without the exception line
T5_RANK2_NO_EXCEPTION = [line for line in T5_RANK2 if "IndexError" not in line]
#: the TP3 head followed by an untagged CUDA error (a lone scheduler's own device fault, had the paste said so)
TP3_CUDA_ERROR = FLASHINFER_COMPILE + ["RuntimeError: CUDA error: an illegal memory access was encountered"]
#: every line of the TP3 head tagged ``[rank3]:``, no exception line
TP3_TAGGED = ["[rank3]: " + line for line in FLASHINFER_COMPILE]
#: the compose tail without its container prefix
CAPTURE_BARE = [line[len(PREFIX):] if line.startswith(PREFIX) else line for line in COMPOSE_CAPTURE]
#: the cut header completed, prefix stripped
CAPTURE_DP7 = [DP7_HEADER] + CAPTURE_BARE
#: the cut header completed under the container prefix
CAPTURE_DP7_PREFIXED = [PREFIX + DP7_HEADER] + COMPOSE_CAPTURE

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "t5-path-as-pasted": (T5_PATH, None, None, None, None),
    "t5-path-eight-gpus": (T5_PATH, 8, 8, None, None),
    "flashinfer-compile-as-pasted": (FLASHINFER_COMPILE, None, None, None, None),
    "flashinfer-compile-eight-gpus": (FLASHINFER_COMPILE, 8, 8, None, None),
    "compose-capture-as-pasted": (COMPOSE_CAPTURE, None, None, None, None),
    "compose-capture-eight-gpus": (COMPOSE_CAPTURE, 8, 8, None, None),
    # contrasts
    "t5-path-rank2-alone-names-rank2": (T5_RANK2, 8, 8, 2, "python-exception"),
    "t5-path-rank2-alone-as-pasted-names-rank2": (T5_RANK2, None, None, 2, "python-exception"),
    "t5-path-rank5-copy-as-rank2-names-rank2": (T5_RANK5_AS_RANK2, 8, 8, 2, "python-exception"),
    "t5-path-rank5-alone-names-rank5": (T5_RANK5, 8, 8, 5, "python-exception"),
    "flashinfer-compile-cuda-error-names-rank3": (TP3_CUDA_ERROR, 8, 8, 3, "cuda-error"),
    "compose-capture-bare-names-none": (CAPTURE_BARE, 8, 8, None, None),
    "compose-capture-dp7-header-names-rank7": (CAPTURE_DP7, 8, 8, 7, "python-exception"),
    "compose-capture-dp7-header-prefixed-names-none": (CAPTURE_DP7_PREFIXED, 8, 8, None, None),
}
BATCHED = Batched("b351", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_settled_lone_rank_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_two_ranks_alike_are_a_failure_of_no_rank(tmp_path):
    """Ranks 2 and 5 in the same traceback, as pasted or as the thread's 8 GPUs: one Python failure (warning) that
    holds no culprit rank, nothing else."""
    for folder, nproc in ((tmp_path / "a", None), (tmp_path / "b", 8)):
        assert _failures(T5_PATH, folder, nproc, nproc) == [("warning", "python-exception", [])]


def test_frames_without_the_exception_leave_an_info_suspect(tmp_path):
    """Rank 2's frames without ``IndexError``: an info suspect, not a culprit."""
    assert_info_suspect(pasted_findings(T5_RANK2_NO_EXCEPTION, tmp_path, 8, 8, NOW), 2)


def test_scheduler_head_without_exception_is_nothing(tmp_path):
    """The TP3 head cut before its exception line is no finding at all; every line tagged ``[rank3]:`` instead
    leaves rank 3 an info suspect."""
    assert pasted_findings(FLASHINFER_COMPILE, tmp_path / "a", 8, 8, NOW) == []
    assert_info_suspect(pasted_findings(TP3_TAGGED, tmp_path / "b", 8, 8, NOW), 3)


def test_compose_prefixed_tail_is_nothing_and_bare_is_a_failure_of_no_rank(tmp_path):
    """The docker-compose-prefixed tail is read as nothing; without the prefix the same lines are a Python failure
    (warning) of no rank."""
    assert pasted_findings(COMPOSE_CAPTURE, tmp_path / "a", 8, 8, NOW) == []
    assert _failures(CAPTURE_BARE, tmp_path / "b", 8, 8) == [("warning", "python-exception", [])]
