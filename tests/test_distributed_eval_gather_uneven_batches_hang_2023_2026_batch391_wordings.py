"""Distributed evaluation: gathers, uneven last batches and hangs, 2023-2026 (real incidents batch 391), pinned as read.
Four controls, collected blind, all four read right as collected (2 ways each, 4/4), none named:

- lifeiteng/vall-e#86: four of eight VALL-E processes log the icefall-style ``(5/8) Reaches end of dataloader.`` then
  ``(5/8) Computing validation loss`` and nothing follows (the fix written for it, vall-e#93: the sampler gives the
  ranks different batch counts; the first ranks out block in the validation loss's reduce while the rest still train):
  no finding, as pasted or as its 8 GPUs;
- huggingface/evaluate#481: ``[node1:4]:ValueError: Couldn't acquire lock on .../exp-16-rdv.lock from process 4.`` and
  ``[node2:7]:ValueError: Expected to find locked file .../exp-16-0.arrow.lock from process 15 ...`` (two nodes x 8; the
  metric rendezvous' file locks are not visible across nodes on the shared file system): no finding, the
  ``[nodeN:local]:`` prefix was not read (since session 62 it is: a rankless warning, one shared directory);
- huggingface/lighteval#204: rank 3's quoted accelerate shape check, ``> [rank3]:   - Process 0: [1024]`` beside
  ``[2048]`` for processes 1-7 (lighteval's pad-and-gather on data-dependent lengths, every process alike): no finding;
- huggingface/trl#3047: rank 0's traceback frames into ``sft_trainer.py ... in compute_loss``, the exception line past
  the excerpt (``gather_for_metrics`` on a Python int, trl#3048): rank 0 an info suspect only.

Contrasts, built from the collected lines: the lock errors re-tagged as torch's ``[rank4]:`` / ``[rank15]:`` named rank 4
at critical until session 62 (two ranks' errors under one shared directory: now no one, as the thread says), each alone
names its rank, untagged they are a rankless python-exception; lighteval's shape check with its exception line tagged
``[rank3]:`` names rank 3, every rank's copy or untagged no one; trl's frames with the ``TypeError`` line name rank 0,
rank 1's copy beside it no one; vall-e's lines re-tagged ``[rankN]:`` still nothing (no error). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

UNEVEN_VALIDATION = corpus_lines("vall-e-86-")
METRIC_LOCKS = corpus_lines("evaluate-481-")
SHAPE_CHECK = corpus_lines("lighteval-204-")
GATHER_INT_FRAMES = corpus_lines("trl-3047-")

#: vall-e's lines with torch's rank tag instead of icefall's ``(r/8)``
UNEVEN_VALIDATION_RANK_TAGGED = [
    f"[rank{r}]:" + line.replace(f" ({r}/8)", "") for line in UNEVEN_VALIDATION for r in [line.split("(")[1][0]]
]
#: the two lock errors as torch's rank-tagged lines (process 4 on node 1, process 15 on node 2)
METRIC_LOCKS_RANK_TAGGED = [METRIC_LOCKS[0].replace("[node1:4]:", "[rank4]: "),
                            METRIC_LOCKS[1].replace("[node2:7]:", "[rank15]: ")]
#: the same errors without any prefix
METRIC_LOCKS_UNTAGGED = [line.split("]:", 1)[1] for line in METRIC_LOCKS]
#: the exception line of accelerate's shape check (its class, as accelerate raises it)
SHAPE_EXCEPTION = ("accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due to "
                   "shape mismatches. All shapes across devices must be valid.")
#: the check's body without the markdown quote markers
SHAPE_BODY = [line[2:] for line in SHAPE_CHECK[1:]]
#: rank 3's exception line before its shape list
SHAPE_CHECK_RANK3_EXCEPTION = ["[rank3]: " + SHAPE_EXCEPTION] + SHAPE_BODY
#: every rank's copy of the exception line
SHAPE_CHECK_EVERY_RANK = [f"[rank{r}]: " + SHAPE_EXCEPTION for r in range(8)]
#: the exception and the shape list untagged
SHAPE_CHECK_UNTAGGED = [SHAPE_EXCEPTION] + [line.replace("[rank3]: ", "") for line in SHAPE_BODY]
#: rank 0's frames with the exception line trl#3012 shows for the same call
GATHER_INT_TYPE_ERROR = "258 [rank0]: TypeError: 'int' object is not iterable"
GATHER_INT_RANK0 = GATHER_INT_FRAMES + [GATHER_INT_TYPE_ERROR]
#: rank 1's copy beside rank 0's
GATHER_INT_TWO_RANKS = GATHER_INT_RANK0 + [line.replace("[rank0]", "[rank1]") for line in GATHER_INT_RANK0]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "uneven-validation-as-pasted": (UNEVEN_VALIDATION, None, None, None, None),
    "uneven-validation-eight-gpus": (UNEVEN_VALIDATION, 8, 8, None, None),
    "metric-locks-as-pasted": (METRIC_LOCKS, None, None, None, None),
    "metric-locks-two-nodes": (METRIC_LOCKS, 8, 16, None, None),
    "shape-check-as-pasted": (SHAPE_CHECK, None, None, None, None),
    "shape-check-eight-processes": (SHAPE_CHECK, 8, 8, None, None),
    "gather-int-frames-as-pasted": (GATHER_INT_FRAMES, None, None, None, None),
    "gather-int-frames-two-ranks": (GATHER_INT_FRAMES, 2, 2, None, None),
    # variants that must not name anyone
    "uneven-validation-rank-tagged-names-none": (UNEVEN_VALIDATION_RANK_TAGGED, 8, 8, None, None),
    "metric-locks-untagged-names-none": (METRIC_LOCKS_UNTAGGED, None, None, None, None),
    # named rank 4 at critical until session 62 (one shared directory failing for several ranks: no one)
    "metric-locks-rank-tagged-names-none": (METRIC_LOCKS_RANK_TAGGED, 8, 16, None, None),
    "shape-check-every-rank-names-none": (SHAPE_CHECK_EVERY_RANK, 8, 8, None, None),
    "shape-check-untagged-names-none": (SHAPE_CHECK_UNTAGGED, None, None, None, None),
    "gather-int-two-ranks-names-none": (GATHER_INT_TWO_RANKS, 2, 2, None, None),
    # contrasts that name a rank (as read now)
    "metric-locks-rank15-alone-names-rank15": (METRIC_LOCKS_RANK_TAGGED[1:], 8, 16, 15, "python-exception"),
    "metric-locks-rank4-alone-names-rank4": (METRIC_LOCKS_RANK_TAGGED[:1], 8, 16, 4, "python-exception"),
    "shape-check-rank3-exception-names-rank3": (SHAPE_CHECK_RANK3_EXCEPTION, 8, 8, 3, "python-exception"),
    "gather-int-type-error-names-rank0": (GATHER_INT_RANK0, 2, 2, 0, "python-exception"),
}
BATCHED = Batched("b391", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_distributed_eval_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_uneven_validation_progress_lines_find_nothing(tmp_path):
    """vall-e#86 as collected: four ranks' INFO lines, no error and no watchdog, are no finding at all (the hang is
    what is missing from the log: the other four ranks' lines)."""
    assert _gist(UNEVEN_VALIDATION, tmp_path / "a", None, None) == []
    assert _gist(UNEVEN_VALIDATION, tmp_path / "b", 8, 8) == []


def test_node_local_tagged_lock_errors_name_no_one(tmp_path):
    """evaluate#481 as collected: since session 62 the ``[node1:4]:`` / ``[node2:7]:`` prefix (torchrun's ``--tee``
    with a host-named role) is read as node + local rank (processes 4 and 15), and two processes' lock errors under one
    shared directory name no one: a rankless python-exception warning (until session 62 the prefix was unread and the
    paste found nothing); without the prefix they are the same rankless warning; re-tagged as torch's ``[rank4]:`` /
    ``[rank15]:`` too (they named rank 4 at critical until session 62)."""
    assert _gist(METRIC_LOCKS, tmp_path / "a", 8, 16) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(METRIC_LOCKS_UNTAGGED, tmp_path / "b", None, None) == [
        ("rank-failure", "warning", "python-exception", [])
    ]
    assert _gist(METRIC_LOCKS_RANK_TAGGED, tmp_path / "c", 8, 16) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_quoted_shape_check_finds_nothing(tmp_path):
    """lighteval#204 as collected: the quoted shape list (``> [rank3]:   - Process 0: [1024]``) holds no exception
    line and is no finding, with or without the quote markers."""
    assert _gist(SHAPE_CHECK, tmp_path / "a", 8, 8) == []
    assert _gist([line[2:] for line in SHAPE_CHECK], tmp_path / "b", 8, 8) == []


def test_gather_int_frames_are_a_rank0_suspect_only(tmp_path):
    """trl#3047 as collected: rank 0's frames without their exception line hold rank 0 as an info suspect, low; with
    the ``TypeError`` line rank 0 is named at warning (a lone paste; the thread's truth is a code bug every rank hits)."""
    findings = pasted_findings(GATHER_INT_FRAMES, tmp_path / "a", None, None, NOW)
    assert_info_suspect(findings, 0)
    assert findings[0]["confidence"] == "low"
    assert _gist(GATHER_INT_RANK0, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "python-exception", [0])]
