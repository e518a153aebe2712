"""One rank busy alone while the others wait for the watchdog, 2024-2026 (real incidents batch 357), pinned as read.
One culprit and two controls, collected blind. The two controls were read right as collected: rank 5's lone
process-group watchdog line on a one-element ALLREDUCE while a two-node Qwen2.5-72B run saves its model
(alibaba/Pai-Megatron-Patch#436: the save outlasts Megatron's 600 s timeout on slow I/O) and rank 0's lone
``_ALLGATHER_BASE`` timeout with its take-down lines (huggingface/transformers#35234: the Trainer called the PEFT
model's ``state_dict()``, an FSDP all-gather, on the main process only) name no one: the job's hang at info, as pasted
or laid out as the threads say. The culprit (NOT_YET, batch 357) is read the same way: rank 5's watchdog timeout and
Flight Recorder frames in Megatron's ``sync_all_async_calls`` (verl-project/verl#2238: rank 0 still saving, 36 minutes
against the others' 22) name no one, because only the maintainer's words say rank 0 was the busy rank. Scored 2/3 both
ways as collected at bc6ad56a; no rule changed (measure only).
Contrasts: the other waiters' copies (ranks 1-7 of 8, rank 0 absent) name rank 0 (never-joined, warning); rank 0's own
traceback before rank 5's wait names rank 0 (python-exception, critical); a second waiter's copy, rank 0's tag on the
lone wait, the frames dropped, leave the info hang of no rank; in the controls, rank 1's copy of rank 0's all-gather
timeout is still no one, and rank 1's CUDA error beside it names rank 1 (never-joined, critical). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 3, 0, tzinfo=dt.timezone.utc)

SLOW_SAVE_WAIT = corpus_lines("verl-2238-")
SLOW_IO_SAVE = corpus_lines("pai-megatron-patch-436-")
RANK0_ONLY_STATE_DICT = corpus_lines("transformers-35234-")


def _as_rank(lines: list[str], old: int, new: int) -> list[str]:
    """The same lines as another rank would print them (its tag and its ``Rank N]``)."""
    return [line.replace(f"[rank{old}]", f"[rank{new}]").replace(f"Rank {old}]", f"Rank {new}]") for line in lines]


#: the watchdog lines of every rank of eight but rank 0 (the busy rank absent from the all-reduce)
SLOW_SAVE_OTHERS_WAIT = [line for rank in range(1, 8) for line in _as_rank(SLOW_SAVE_WAIT[:2], 5, rank)]
#: a second waiter (rank 13) beside rank 5
SLOW_SAVE_TWO_WAITERS = SLOW_SAVE_WAIT + _as_rank(SLOW_SAVE_WAIT, 5, 13)
#: rank 0's own traceback before rank 5's wait (the busy rank, had it failed and said so)
SLOW_SAVE_RANK0_RAISES = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "train.py", line 10, in <module>',
    "[rank0]: OSError: [Errno 28] No space left on device",
] + SLOW_SAVE_WAIT
#: the lone wait tagged rank 0 (the waiter is the rank the thread blames)
SLOW_SAVE_TAGGED_RANK0 = _as_rank(SLOW_SAVE_WAIT, 5, 0)
#: the watchdog lines without the Flight Recorder frames
SLOW_SAVE_NO_FRAMES = SLOW_SAVE_WAIT[:2]
#: the lone watchdog line renumbered rank 1 of two GPUs
SLOW_IO_RANK1_OF_TWO = _as_rank(SLOW_IO_SAVE, 5, 1)
#: rank 1's copy of rank 0's all-gather timeout (both waiting alike)
STATE_DICT_TWO_COPIES = RANK0_ONLY_STATE_DICT + _as_rank(RANK0_ONLY_STATE_DICT, 0, 1)
#: rank 1's CUDA error beside rank 0's wait (the rank that left the collective, had it said why)
STATE_DICT_RANK1_RAISES = RANK0_ONLY_STATE_DICT + [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "train.py", line 10, in <module>',
    "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "slow-save-wait-as-pasted": (SLOW_SAVE_WAIT, None, None, None, None),
    "slow-save-wait-32-gpus": (SLOW_SAVE_WAIT, 8, 32, None, None),
    "slow-io-save-as-pasted": (SLOW_IO_SAVE, None, None, None, None),
    "slow-io-save-two-nodes": (SLOW_IO_SAVE, 8, 16, None, None),
    "rank0-only-state-dict-as-pasted": (RANK0_ONLY_STATE_DICT, None, None, None, None),
    "rank0-only-state-dict-two-gpus": (RANK0_ONLY_STATE_DICT, 2, 2, None, None),
    # contrasts that name the busy rank
    "slow-save-others-wait-names-rank0": (SLOW_SAVE_OTHERS_WAIT, 8, 8, 0, "never-joined"),
    "slow-save-rank0-raises-names-rank0": (SLOW_SAVE_RANK0_RAISES, 8, 32, 0, "python-exception"),
    "state-dict-rank1-raises-names-rank1": (STATE_DICT_RANK1_RAISES, 2, 2, 1, "never-joined"),
    # contrasts that stay no one
    "slow-save-two-waiters-names-none": (SLOW_SAVE_TWO_WAITERS, 8, 32, None, None),
    "slow-save-tagged-rank0-names-none": (SLOW_SAVE_TAGGED_RANK0, 8, 32, None, None),
    "slow-save-no-frames-names-none": (SLOW_SAVE_NO_FRAMES, 8, 32, None, None),
    "slow-io-rank1-of-two-names-none": (SLOW_IO_RANK1_OF_TWO, 2, 2, None, None),
    "state-dict-two-copies-names-none": (STATE_DICT_TWO_COPIES, 2, 2, None, None),
}
BATCHED = Batched("b357", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_rank_busy_alone_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


@pytest.mark.parametrize(
    "lines, nproc, world",
    [
        (SLOW_SAVE_WAIT, None, None),
        (SLOW_SAVE_WAIT, 8, 32),
        (SLOW_IO_SAVE, 8, 16),
        (RANK0_ONLY_STATE_DICT, None, None),
    ],
    ids=["verl-2238-as-pasted", "verl-2238-32-gpus", "pai-436-two-nodes", "transformers-35234-as-pasted"],
)
def test_lone_wait_is_an_info_hang_of_no_rank(lines, nproc, world, tmp_path):
    """Each incident's single waiting rank is the job's hang, said at info with no rank (one rank's wait alone): the
    waiter is not named, and neither is the busy rank the thread blames."""
    assert _gist(lines, tmp_path, nproc, world) == [("nccl-hang", "info", [])]


def test_others_waiting_name_the_absent_rank_at_warning(tmp_path):
    """When every rank but 0 of eight waits in the same all-reduce, rank 0 is the one that never joined: a warning
    naming rank 0, not a critical (its absence is inferred, not said)."""
    named = [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(SLOW_SAVE_OTHERS_WAIT, tmp_path, 8, 8, NOW)
        if f["rule"] == "nccl-hang"
    ]
    assert named == [("warning", "never-joined", [0])]
