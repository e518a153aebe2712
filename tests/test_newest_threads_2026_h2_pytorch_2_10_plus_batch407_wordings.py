"""The newest threads, 2026-H2, PyTorch 2.10+ (real incidents batch 407), pinned as read. Collected blind (bdd9d4b8): two
incidents, one culprit and one control. Scored once as collected: 1/2 both ways (the control read right, no rank
named; the culprit missed, no finding at all); no control named:

- EleutherAI/bergson#444 (NOT_YET): multi-GPU EK-FAC runs abort with the PR's two quoted lines ``Watchdog caught
  collective operation timeout`` / ``checkTimeout at ProcessGroupNCCL.cpp:733``, no rank, no OpType, no world size.
  Truth (the author): after the symmetric gradient loop, rank 0 alone reduces, eigendecomposes and saves the Grams
  while every other rank waits in ``dist.all_reduce(total_processed)`` past the timeout: rank 0, lagging-rank. k10s
  finds nothing, as pasted or laid out as 2 or 8 processes: no line names any rank.
- yiqiao-yin/deepspeed-course#17 (control, read right as collected): a 2×RTX 3090 DeepSpeed lab's download barrier
  hangs, ``WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000)`` / ``ran for 721595
  milliseconds before timing out``; both ranks reached the barrier on cuda:0 (no rank had bound its device yet), a
  defect in the code both run. k10s names no one.

Contrasts: the control's timeout tagged by rank 1 alone, or by both ranks (synthetic tags), still names no one (one
rank's wait alone says nothing of who failed to join; two waits with no failure name no culprit); synthetic watchdog
timeouts tagged by ranks 1-3 of 4, rank 0 silent, name rank 0 (never-joined), alone or after bergson#444's two lines:
what the EK-FAC paste would need (its waiters' ranks) to be read. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 7, 5, 0, tzinfo=dt.timezone.utc)

EKFAC = corpus_lines("bergson-444-")
BARRIER = corpus_lines("deepspeed-course-17-")


def _waiter(rank: int) -> str:
    """Synthetic: rank ``rank``'s own tagged watchdog timeout (torch 2.x wording) of one ALLREDUCE."""
    return (f"[rank{rank}]:[E0826 10:00:0{rank}.000000000 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum=1024, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
            f"60000{rank} milliseconds before timing out.")


def _barrier_waiter(rank: int) -> str:
    """Synthetic: the control's barrier timeout as rank ``rank``'s own tagged watchdog line."""
    return (f"[rank{rank}]:[E0911 10:00:00.000000000 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
            f"721595 milliseconds before timing out.")


WAITERS_1_TO_3 = [_waiter(1), _waiter(2), _waiter(3)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (or could)
    "ekfac-as-pasted": (EKFAC, None, None, None, None),  # NOT_YET: rank 0, lagging-rank
    "ekfac-two-processes": (EKFAC, 2, 2, None, None),  # NOT_YET: rank 0, lagging-rank
    "ekfac-eight-processes": (EKFAC, 8, 8, None, None),  # NOT_YET: rank 0, lagging-rank
    "barrier-as-pasted": (BARRIER, None, None, None, None),
    "barrier-two-processes": (BARRIER, 2, 2, None, None),
    # variants that must not name anyone
    "barrier-tagged-rank1-alone-names-none": (BARRIER + [_barrier_waiter(1)], 2, 2, None, None),
    "barrier-tagged-both-ranks-names-none": (BARRIER + [_barrier_waiter(1), _barrier_waiter(0)], 2, 2, None, None),
    # contrasts that must name a rank
    "waiters-1-to-3-tagged-names-rank0": (WAITERS_1_TO_3, 4, 4, 0, "never-joined"),
    "ekfac-then-waiters-tagged-names-rank0": (EKFAC + WAITERS_1_TO_3, 4, 4, 0, "never-joined"),
}
BATCHED = Batched("b407", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_ekfac_as_collected_finds_nothing(tmp_path):
    """bergson#444 as collected (NOT_YET): the waiters' abridged timeout head and one stack frame, no rank, give no
    finding at all; the truth is rank 0 (lagging-rank), which the paste never names."""
    assert _gist(EKFAC, tmp_path / "a", None, None) == []
    assert _gist(EKFAC, tmp_path / "b", 2, 2) == []


def test_barrier_timeout_as_collected_finds_nothing(tmp_path):
    """deepspeed-course#17 (control) as collected: the untagged barrier timeout gives no finding, no rank named."""
    assert _gist(BARRIER, tmp_path / "a", None, None) == []
    assert _gist(BARRIER, tmp_path / "b", 2, 2) == []


def test_one_tagged_wait_says_no_culprit(tmp_path):
    """The control's timeout as rank 1's own line, its peer silent: an info finding of no rank, saying why."""
    findings = pasted_findings(BARRIER + [_barrier_waiter(1)], tmp_path, 2, 2, NOW)
    assert [(f["rule"], f["severity"], f["ranks"]) for f in findings] == [("nccl-hang", "info", [])]
    assert "which rank failed to join the collective is not said" in findings[0]["summary"]
