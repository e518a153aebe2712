"""Hangs settled to one rank or to a common cause (real incidents batch 337), pinned as read.
Three incidents, collected blind: two controls read right as collected and one culprit not yet. A lone rank's
ProcessGroupNCCL watchdog timeout on its 7th ALLREDUCE, pasted with blank lines between the lines (NVIDIA/nccl#1509:
``NCCL_P2P_USE_CUDA_MEMCPY=1`` set for the whole two-GPU job) names no one; one gdb backtrace spinning in
``sched_yield`` inside TensorRT-LLM's ``AllgatherPlugin::enqueue`` (NVIDIA/nccl#1550: the custom all-reduce, gone with
``FORCE_NCCL_ALL_REDUCE_STRATEGY=1``) names no one. Eight user prints ``# Rank N tensor before allreduce:
torch.Size([...])`` with rank 0 alone at ``[409600]`` and only rank 0 printing ``after allreduce`` (NVIDIA/nccl#1417:
the author gave rank 0 the odd size and the other seven hang) read as nothing (NOT_YET, batch 337). Scored 2/3 both
ways as collected; no rule changed (measure only). Contrasts: rank 1's timeout with rank 0's beside it is a hang of no
single culprit (still no one); rank 1's watchdog ending on ``an illegal memory access`` names rank 1 (cuda-error); the
size prints followed by ranks 1-7's watchdog timeouts name rank 0 (never-joined), and with rank 0's own timeout at the
odd size beside them, rank 0 (collective-mismatch, critical); rank 0 out of GPU memory names rank 0 (cuda-oom); the
backtrace after ``[rank1]: Fatal Python error: Segmentation fault`` names rank 1 (segfault), while the backtrace
tagged ``[rank1]:`` line by line still names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

LONE_WATCHDOG = corpus_lines("nccl-1509-")
GDB_ALLGATHER = corpus_lines("nccl-1550-")
SIZE_PRINTS = corpus_lines("nccl-1417-")

_WATCHDOG = (
    "[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran for 600089 "
    "milliseconds before timing out."
)

#: rank 0's own timeout on the same collective beside rank 1's: both ranks waited, neither failed
BOTH_WATCHDOGS = LONE_WATCHDOG + [_WATCHDOG.format(r=0, n=42516042)]
#: rank 1's watchdog thread ends on a CUDA error instead of a timeout
LONE_ILLEGAL_ACCESS = LONE_WATCHDOG + [
    "[rank1]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 1] Process group watchdog thread terminated with exception: "
    "CUDA error: an illegal memory access was encountered"
]
#: the size prints, then ranks 1-7 time out on the all-reduce and rank 0 says nothing
SEVEN_WATCHDOGS = SIZE_PRINTS + [_WATCHDOG.format(r=r, n=32768000) for r in range(1, 8)]
#: all eight time out, rank 0 on its odd size
EIGHT_WATCHDOGS = SIZE_PRINTS + [
    _WATCHDOG.format(r=r, n=32768000 if r else 409600) for r in range(8)
]
#: rank 0 out of GPU memory after the first prints
RANK0_OOM = SIZE_PRINTS[:3] + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 0 has a total capacity of 79.11 GiB"
]
#: the backtrace tagged ``[rank1]:`` line by line: a stack, no failure
GDB_TAGGED = ["[rank1]: " + line for line in GDB_ALLGATHER]
#: the backtrace after rank 1's segfault banner
GDB_SEGFAULT = ["[rank1]: Fatal Python error: Segmentation fault"] + GDB_ALLGATHER

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "lone-watchdog-as-pasted": (LONE_WATCHDOG, None, None, None, None),
    "lone-watchdog-two-gpus": (LONE_WATCHDOG, 2, 2, None, None),
    "gdb-allgather-as-pasted": (GDB_ALLGATHER, None, None, None, None),
    "size-prints-as-pasted": (SIZE_PRINTS, None, None, None, None),
    "size-prints-eight-ranks": (SIZE_PRINTS, 8, 8, None, None),
    # contrasts
    "both-watchdogs-names-none": (BOTH_WATCHDOGS, 2, 2, None, None),
    "lone-illegal-access-names-rank1": (LONE_ILLEGAL_ACCESS, 2, 2, 1, "cuda-error"),
    "seven-watchdogs-names-rank0": (SEVEN_WATCHDOGS, 8, 8, 0, "never-joined"),
    "eight-watchdogs-odd-size-names-rank0": (
        EIGHT_WATCHDOGS,
        8,
        8,
        0,
        "collective-mismatch",
    ),
    "rank0-oom-names-rank0": (RANK0_OOM, 8, 8, 0, "cuda-oom"),
    "gdb-tagged-names-none": (GDB_TAGGED, 4, 4, None, None),
    "gdb-after-segfault-names-rank1": (GDB_SEGFAULT, 4, 4, 1, "segfault"),
}
BATCHED = Batched("b337", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hang_stack_dump_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_lone_watchdog_and_stack_dump_are_no_finding(tmp_path):
    """A single gdb backtrace is no finding at all; a single rank's watchdog timeout (no peer line) was none as
    collected and is, since session 57, an info hang of no rank: nothing says which rank the others waited on."""
    assert [g[:1] + g[-1:] for g in _gist(LONE_WATCHDOG, tmp_path / "a", 2)] == [("nccl-hang", [])]
    assert _gist(GDB_ALLGATHER, tmp_path / "b", None) == []
    assert _gist(SIZE_PRINTS, tmp_path / "c", 8) == []


def test_two_ranks_waiting_is_an_info_hang_of_no_one(tmp_path):
    """Both ranks' timeouts on the same all-reduce: an info nccl-hang, no single culprit."""
    assert _gist(BOTH_WATCHDOGS, tmp_path, 2) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]


def test_odd_size_timeout_is_a_critical_mismatch(tmp_path):
    """Rank 0's timeout at its odd element count beside the seven others': a critical collective-mismatch of rank 0."""
    assert _gist(EIGHT_WATCHDOGS, tmp_path, 8) == [
        ("nccl-hang", "critical", "collective-mismatch", [0])
    ]
