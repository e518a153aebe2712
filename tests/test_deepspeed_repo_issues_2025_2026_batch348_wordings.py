"""deepspeedai/DeepSpeed threads of 2025-2026 (real incidents batch 348), pinned as read.
Five controls, collected blind, all read right both ways as collected (5/5, no control named): a ``[rank3]:`` traceback
into ZeRO-3's ``step`` → ``_get_norm_groups()`` with no exception line (deepspeedai/DeepSpeed#7598: DeepCompile + ZeRO-3
broken by #7548, every rank) is an info suspect, rank 3; an unprefixed stack into ``bwc_tensor_model_parallel_rank``
(#7833: Ulysses + ZeRO stage 0, every rank) reads nothing; a Python 3.13 ``[rank2]:`` traceback with ``~~~^^^`` markers
into ZeRO-2's ``overlapping_partition_gradients_reduce_epilogue()`` (#7629: v0.17.5 works, v0.17.6 fails) is an info
suspect, rank 2; two processes' unprefixed tracebacks spliced around ZeRO-2's ``AssertionError:
count_used_parameters_in_backward requires internal PyTorch APIs`` (#7756: PyTorch 2.1.2) are a Python failure of no
rank (warning); rank 3's lone ``Watchdog caught collective operation timeout`` of a one-element ALLREDUCE (#7533: a
gpt-oss-120B save outlasting the 600 s timeout) reads nothing at all. Pinned as pasted and as laid out by the threads'
(least) world sizes. Contrasts: the traceback's own exception line tagged ``[rank3]:`` names rank 3 (warning); the
Ulysses stack tagged ``[rank1]:`` with its ``AttributeError`` names rank 1, untagged it is no one's; the ZeRO-2 suspect
renumbered ``[rank0]:`` is rank 0's; the assertion tagged ``[rank1]:`` names rank 1, without it nothing is read; a
second rank's watchdog at the same ALLREDUCE reads as a hang of no single culprit; a rank's watchdog ended by a CUDA error
names that rank (cuda-error). Pasted logs through ``k10s import-logs``, batched.
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

NORM_GROUPS = corpus_lines("DeepSpeed-7598-")
ULYSSES_STAGE0 = corpus_lines("DeepSpeed-7833-")
REDUCE_EPILOGUE = corpus_lines("DeepSpeed-7629-")
COUNT_USED = corpus_lines("DeepSpeed-7756-")
SAVE_WATCHDOG = corpus_lines("DeepSpeed-7533-")

#: the ZeRO-3 traceback ended by its own exception line, tagged like its frames
NORM_GROUPS_WITH_ERROR = NORM_GROUPS + [
    "[rank3]: RuntimeError: The size of tensor a (0) must match the size of tensor b (384) at non-singleton dimension 1"
]
#: the stack's ``AttributeError`` (as the thread's reproduction words it), untagged and then every line tagged rank 1
ULYSSES_ERROR = (
    "AttributeError: module 'deepspeed.runtime.sequence_parallel.parallel_state_sp' has no attribute "
    "'get_model_parallel_rank'"
)
ULYSSES_WITH_ERROR = ULYSSES_STAGE0 + [ULYSSES_ERROR]
ULYSSES_RANK1 = [f"[rank1]: {line}" for line in ULYSSES_WITH_ERROR]
#: the ZeRO-2 traceback as rank 0's
EPILOGUE_RANK0 = [line.replace("[rank2]", "[rank0]") for line in REDUCE_EPILOGUE]
#: the splice's first process (its frames and its AssertionError) tagged rank 1, the other left as pasted
COUNT_USED_RANK1 = [
    f"[rank1]: {line}" if i < 5 else line for i, line in enumerate(COUNT_USED)
]
#: both tracebacks without the AssertionError line
COUNT_USED_NO_ASSERT = [
    line for line in COUNT_USED if not line.startswith("AssertionError")
]
#: rank 5's watchdog at the same ALLREDUCE beside rank 3's
SAVE_WATCHDOG_RANKS_3_5 = SAVE_WATCHDOG[:3] + [
    line.replace("[rank3]", "[rank5]").replace("Rank 3", "Rank 5")
    for line in SAVE_WATCHDOG[:3]
]
#: a rank's watchdog ended by a CUDA error instead of the timeout
WATCHDOG_CUDA_ERROR = [
    "[rank6]:[E901 05:20:03.000000000 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 6] Process group "
    "watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (at least that many ranks)
    "norm-groups-rank3-as-pasted": (NORM_GROUPS, None, None, None, None),
    "norm-groups-rank3-four-ranks": (NORM_GROUPS, 4, 4, None, None),
    "ulysses-stage0-as-pasted": (ULYSSES_STAGE0, None, None, None, None),
    "ulysses-stage0-two-ranks": (ULYSSES_STAGE0, 2, 2, None, None),
    "reduce-epilogue-rank2-as-pasted": (REDUCE_EPILOGUE, None, None, None, None),
    "reduce-epilogue-rank2-four-ranks": (REDUCE_EPILOGUE, 4, 4, None, None),
    "count-used-interleaved-as-pasted": (COUNT_USED, None, None, None, None),
    "count-used-interleaved-two-ranks": (COUNT_USED, 2, 2, None, None),
    "save-watchdog-rank3-as-pasted": (SAVE_WATCHDOG, None, None, None, None),
    "save-watchdog-rank3-eight-ranks": (SAVE_WATCHDOG, 8, 8, None, None),
    # contrasts
    "norm-groups-with-exception-names-rank3": (
        NORM_GROUPS_WITH_ERROR,
        4,
        4,
        3,
        "python-exception",
    ),
    "ulysses-with-error-untagged-names-none": (ULYSSES_WITH_ERROR, 2, 2, None, None),
    "ulysses-with-error-rank1-names-rank1": (
        ULYSSES_RANK1,
        2,
        2,
        1,
        "python-exception",
    ),
    "reduce-epilogue-rank0-names-none": (EPILOGUE_RANK0, 4, 4, None, None),
    # since session 62 a lone paste's library assertion (DeepSpeed's `count_used_parameters_in_backward requires internal
    # PyTorch APIs`, raised in site-packages) is a suspect at info only: the build every rank runs
    "count-used-rank1-library-check-names-none": (COUNT_USED_RANK1, 2, 2, None, None),
    "count-used-without-assertion-names-none": (COUNT_USED_NO_ASSERT, 2, 2, None, None),
    "save-watchdog-ranks3-5-names-none": (SAVE_WATCHDOG_RANKS_3_5, 8, 8, None, None),
    "watchdog-cuda-error-names-rank6": (WATCHDOG_CUDA_ERROR, 8, 8, 6, "cuda-error"),
}
BATCHED = Batched("b348", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_deepspeed_repo_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, nproc, NOW)
    ]


@pytest.mark.parametrize(
    ("lines", "rank"),
    [(NORM_GROUPS, 3), (REDUCE_EPILOGUE, 2), (EPILOGUE_RANK0, 0)],
    ids=["zero3-norm-groups-rank3", "zero2-epilogue-rank2", "zero2-epilogue-rank0"],
)
def test_tagged_frames_without_exception_are_an_info_suspect(lines, rank, tmp_path):
    """A tagged traceback cut before its exception line (the Python 3.13 ``~~~^^^`` marker lines between frames
    included) is that rank's info suspect, nothing louder."""
    assert_info_suspect(pasted_findings(lines, tmp_path, 4, 4, NOW), rank)


def test_untagged_stack_without_exception_reads_nothing(tmp_path):
    """The Ulysses stack has neither a rank tag nor an exception line: nothing at all; with its ``AttributeError`` it
    is a Python failure of no rank."""
    assert _gist(ULYSSES_STAGE0, tmp_path / "a", 2) == []
    assert _gist(ULYSSES_WITH_ERROR, tmp_path / "b", 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_spliced_tracebacks_assertion_is_no_rank_s(tmp_path):
    """Two processes' untagged tracebacks spliced around the ZeRO-2 AssertionError: a Python failure of no rank."""
    assert _gist(COUNT_USED, tmp_path, 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_lone_watchdog_timeout_reads_nothing_two_read_as_a_hang(tmp_path):
    """One rank's watchdog timeout of a one-element ALLREDUCE was read as nothing as collected; since session 57 (the
    batch's suggestion) it is a hang of no single culprit (info), as a second rank's at the same collective makes it."""
    assert _gist(SAVE_WATCHDOG, tmp_path / "a", 8) == [("nccl-hang", "info", "no-single-culprit", [])]
    assert _gist(SAVE_WATCHDOG_RANKS_3_5, tmp_path / "b", 8) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]
