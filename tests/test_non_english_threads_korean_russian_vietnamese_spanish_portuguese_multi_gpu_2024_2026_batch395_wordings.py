"""Threads in languages other than English, Chinese and Japanese on multi-GPU training, 2024-2026 (real incidents
batch 395), pinned as read. Two controls, collected blind, both from Korean Tistory posts (the only usable threads
the search corpora gave: Russian, Vietnamese, Spanish, Portuguese, German, French and Turkish queries returned
explainer pages or English threads). Both were read right as collected, scored 2/2 both ways:

- 9566.tistory.com/568 (2025-11-13): a Kubernetes pod with 2 GPUs, PyTorch DDP; the author's abbreviated paste
  ``Watchdog caught collective operation timeout:`` / ``WorkNCCL(SeqNum=1, OpType=ALLREDUCE)`` /
  ``c10::DistBackendError: watchdog thread terminated with exception`` / ``process 1 terminated with signal SIGABRT``,
  fixed completely by ``NCCL_P2P_DISABLE=1`` and ``NCCL_IB_DISABLE=1`` (NCCL's P2P/IB attempts stall the first
  ALLREDUCE in a pod without NVLink or InfiniBand). k10s finds nothing, as pasted or laid out as 2 processes: the
  untagged watchdog line and the spawn report name no one, right (a pod-wide transport setting).
- oreo1226.tistory.com/120: AWS g5.12xlarge (4 GPUs), DeepSpeed ZeRO-3; one untagged
  ``RuntimeError: !block->expandable_segment_ INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":2586``,
  fixed by dropping the expandable-segments allocator setting and non-reentrant ViT checkpointing. k10s: a
  python-exception warning of no rank ('the failing line names no rank'), right.

Contrasts: the assert tagged ``[rank2]:`` alone names rank 2 (python-exception, a lone paste, medium); tagged by two
ranks it names no one; the watchdog timeout tagged by one rank or by both is an info nccl-hang of no one; rank 0's own
CUDA OOM added to the paste names rank 0 (cuda-oom), and rank 1's tagged timeout beside rank 0's OOM names rank 0
too. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

P2P_WATCHDOG = corpus_lines("tistory-9566-568-")
ALLOC_ASSERT = corpus_lines("tistory-oreo1226-120-")

#: a PyTorch 2.x watchdog line of the same first ALLREDUCE, tagged by one rank
WATCHDOG = (
    "[rank{r}]:[E1113 19:38:00.000000000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 "
    "milliseconds before timing out."
)
RANK0_OOM = (
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
    "of 95.00 GiB of which 3.06 MiB is free."
)
#: the assert tagged by rank 2 alone, then by ranks 2 and 0
ALLOC_ASSERT_RANK2 = ["[rank2]: " + ALLOC_ASSERT[0]]
ALLOC_ASSERT_TWO_RANKS = ["[rank2]: " + ALLOC_ASSERT[0], "[rank0]: " + ALLOC_ASSERT[0]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "p2p-watchdog-as-pasted": (P2P_WATCHDOG, None, None, None, None),
    "p2p-watchdog-two-processes": (P2P_WATCHDOG, 2, 2, None, None),
    "alloc-assert-as-pasted": (ALLOC_ASSERT, None, None, None, None),
    "alloc-assert-four-gpus": (ALLOC_ASSERT, 4, 4, None, None),
    # variants that must not name anyone
    "p2p-watchdog-without-spawn-report-names-none": (P2P_WATCHDOG[:-1], 2, 2, None, None),
    "watchdog-rank1-tagged-names-none": ([WATCHDOG.format(r=1)], 2, 2, None, None),
    "watchdog-both-ranks-tagged-names-none": ([WATCHDOG.format(r=0), WATCHDOG.format(r=1)], 2, 2, None, None),
    "alloc-assert-two-ranks-names-none": (ALLOC_ASSERT_TWO_RANKS, 4, 4, None, None),
    "alloc-assert-untagged-twice-names-none": (ALLOC_ASSERT * 2, 4, 4, None, None),
    # contrasts that must name a rank
    "alloc-assert-rank2-names-rank2": (ALLOC_ASSERT_RANK2, 4, 4, 2, "python-exception"),
    "p2p-watchdog-plus-rank0-oom-names-rank0": (P2P_WATCHDOG + [RANK0_OOM], 2, 2, 0, "cuda-oom"),
    "rank1-watchdog-rank0-oom-names-rank0": ([WATCHDOG.format(r=1), RANK0_OOM], 2, 2, 0, "cuda-oom"),
}
BATCHED = Batched("b395", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_non_english_thread_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_abbreviated_untagged_watchdog_paste_finds_nothing(tmp_path):
    """9566.tistory.com/568 as collected: the author's shortened ``WorkNCCL(SeqNum=1, OpType=ALLREDUCE)`` (no rank,
    no timeout fields) and the spawn parent's ``process 1 terminated with signal SIGABRT`` give no finding at all —
    right for a pod-wide NCCL transport setting (NCCL_P2P_DISABLE/NCCL_IB_DISABLE fixed it), though silent rather than
    a rankless nccl-hang. Since session 72 the failed job whose only failure lines are victims' says so, naming no rank
    (docs/rules.md, victims-only)."""
    assert _gist(P2P_WATCHDOG, tmp_path / "a", None, None) == [("rank-failure", "warning", "victims-only", [])]
    assert _gist(P2P_WATCHDOG, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "victims-only", [])]


def test_one_tagged_first_allreduce_timeout_is_an_info_hang_of_no_one(tmp_path):
    """The same first-collective timeout written as PyTorch 2.x prints it for rank 1 alone: one rank's wait, no rank
    known to have failed or lagged, an info nccl-hang with no culprit."""
    assert _gist([WATCHDOG.format(r=1)], tmp_path, 2, 2) == [("nccl-hang", "info", "no-single-culprit", [])]


def test_untagged_allocator_assert_is_a_rankless_python_exception(tmp_path):
    """oreo1226.tistory.com/120 as collected: the untagged ``!block->expandable_segment_ INTERNAL ASSERT FAILED`` is a
    python-exception warning naming no rank, as pasted or as 4 GPUs."""
    assert _gist(ALLOC_ASSERT, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(ALLOC_ASSERT, tmp_path / "b", 4, 4) == [("rank-failure", "warning", "python-exception", [])]


def test_allocator_assert_tagged_by_one_rank_is_that_ranks_medium_warning(tmp_path):
    """Tagged ``[rank2]:`` alone the assert names rank 2 at warning, confidence medium (a lone paste: this rank's
    lines only); the allocator configuration would still be every rank's, which a lone paste cannot show."""
    findings = pasted_findings(ALLOC_ASSERT_RANK2, tmp_path, 4, 4, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [2])
    ]
    assert findings[0]["confidence"] == "medium"
