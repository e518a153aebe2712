"""Newest public threads, any repository (real incidents batch 377), pinned as read. The stored corpus held no thread
posted or settled in 2026-11-15..2026-12-06, so the batch took the newest unused settled threads found: two
controls, collected blind, both read right as collected (no NOT_YET). Rank 7's tail of an ms-swift GRPO traceback
through ``_prefetch`` into the ``infer_rank`` property, cut after its source line ``assert local_world_size +
self.args.num_infer_workers == get_device_count()`` (modelscope/modelscope#1239: without vLLM ``num_infer_workers``
defaults to 1, so the check fails on every rank at train begin; fixed in ms-swift#3246) is an info python-exception
suspect naming rank 7 at confidence low ("its traceback, cut before its exception"), as pasted or as 8 processes.
Rank 0's traceback through ms-swift's argument parsing into ``_check_grpo``, cut before its ``ValueError('GRPO with
vLLM is not compatible with device_map ...')`` (modelscope/ms-swift#5592: the launch's CUDA_VISIBLE_DEVICES not
applied, settled by the author setting it by hand; a check every rank runs alike) reads the same for rank 0. Scored
2/2 both ways as collected. Contrasts: the same lines untagged give no finding; two ranks' copies of the traceback
name no one; rank 0's traceback completed with its ValueError names no one (the same command line fails every process
alike); rank 7's lone traceback completed with a bare ``AssertionError`` names rank 7 at warning, medium (as read
now: "the paste holds this rank's lines only"); a rank's own CUDA OOM after its traceback names that rank (cuda-oom).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 9, 0, tzinfo=dt.timezone.utc)

INFER_RANK_ASSERT = corpus_lines("modelscope-1239-")
CHECK_GRPO = corpus_lines("ms-swift-5592-")

#: the same tails without the rank tags (a paste of the untagged console)
INFER_RANK_ASSERT_UNTAGGED = [line.replace("[rank7]: ", "").replace("[rank7]:", "") for line in INFER_RANK_ASSERT]
CHECK_GRPO_UNTAGGED = [line.replace("[rank0]: ", "").replace("[rank0]:", "") for line in CHECK_GRPO]
#: rank 3's copy of the same assert traceback beside rank 7's: the check is every rank's
INFER_RANK_ASSERT_TWO_COPIES = [line.replace("[rank7]", "[rank3]") for line in INFER_RANK_ASSERT] + INFER_RANK_ASSERT
#: rank 0's traceback completed with the exception the thread's title quotes
CHECK_GRPO_WITH_VALUEERROR = CHECK_GRPO + [
    "[rank0]:     raise ValueError('GRPO with vLLM is not compatible with device_map. '",
    "[rank0]: ValueError: GRPO with vLLM is not compatible with device_map. Please set NPROC_PER_NODE equal to "
    "num_processes.",
]
#: rank 7's traceback completed with a bare AssertionError (the line the paste stops before)
INFER_RANK_ASSERT_WITH_ERROR = INFER_RANK_ASSERT + ["[rank7]: AssertionError"]
#: a rank's own CUDA OOM after its traceback
CHECK_GRPO_RANK0_OOM = CHECK_GRPO + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
    "79.19 GiB of which 3.06 MiB is free.",
]
INFER_RANK_ASSERT_RANK7_OOM = INFER_RANK_ASSERT + [
    "[rank7]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 7 has a total capacity of "
    "79.19 GiB of which 3.06 MiB is free.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as 8 processes: an info suspect, no one named
    "infer-rank-assert-as-pasted": (INFER_RANK_ASSERT, None, None, None, None),
    "infer-rank-assert-eight-ranks": (INFER_RANK_ASSERT, 8, 8, None, None),
    "check-grpo-as-pasted": (CHECK_GRPO, None, None, None, None),
    "check-grpo-eight-ranks": (CHECK_GRPO, 8, 8, None, None),
    # variants that must not name anyone
    "infer-rank-assert-untagged-names-none": (INFER_RANK_ASSERT_UNTAGGED, None, None, None, None),
    "check-grpo-untagged-names-none": (CHECK_GRPO_UNTAGGED, None, None, None, None),
    "infer-rank-assert-two-copies-names-none": (INFER_RANK_ASSERT_TWO_COPIES, 8, 8, None, None),
    "check-grpo-with-valueerror-names-none": (CHECK_GRPO_WITH_VALUEERROR, 8, 8, None, None),
    # contrasts that name a rank
    # since session 62: a lone paste's bare AssertionError raised in site-packages is a library check (info suspect)
    "infer-rank-assert-with-error-names-none": (INFER_RANK_ASSERT_WITH_ERROR, 8, 8, None, None),
    "check-grpo-rank0-oom-names-rank0": (CHECK_GRPO_RANK0_OOM, 8, 8, 0, "cuda-oom"),
    "infer-rank-assert-rank7-oom-names-rank7": (INFER_RANK_ASSERT_RANK7_OOM, 8, 8, 7, "cuda-oom"),
}
BATCHED = Batched("b377", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence"))
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_lone_traceback_cut_before_its_exception_is_an_info_suspect(tmp_path):
    """modelscope#1239 and ms-swift#5592 as collected: one rank's traceback with no exception line is a suspect at
    info, confidence low, never a warning that names the rank (both faults are checks every rank runs alike)."""
    assert _gist(INFER_RANK_ASSERT, tmp_path / "a", None, None) == [
        ("rank-failure", "info", "python-exception", [7], "low")
    ]
    assert _gist(CHECK_GRPO, tmp_path / "b", 8, 8) == [("rank-failure", "info", "python-exception", [0], "low")]


def test_completed_check_grpo_valueerror_is_rankless(tmp_path):
    """ms-swift#5592 with the exception its title quotes: the same command line fails every process alike, so a
    rankless warning, whichever rank's copy was pasted."""
    assert _gist(CHECK_GRPO_WITH_VALUEERROR, tmp_path, 8, 8) == [
        ("rank-failure", "warning", "python-exception", [], None)
    ]


def test_bare_assertion_error_in_a_lone_paste_is_a_suspect_only(tmp_path):
    """Rank 7's traceback completed with a bare ``AssertionError`` raised in an installed library (modelscope#1239's
    truth: every rank fails the same assert): since session 64 the assert is read as every process's check of the
    launch's size (``assert local_world_size + … == get_device_count()``; docs/rules.md, "Session 64: checks every
    process runs alike"): a rankless warning; session 62 named rank 7 a suspect at info, low; before, warning, medium."""
    assert _gist(INFER_RANK_ASSERT_WITH_ERROR, tmp_path, 8, 8) == [
        ("rank-failure", "warning", "python-exception", [], None)
    ]
