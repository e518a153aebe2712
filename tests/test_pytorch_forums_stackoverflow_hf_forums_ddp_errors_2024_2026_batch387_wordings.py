"""DDP errors asked on the forums' themes, 2024-2026 (real incidents batch 387), pinned as read. The search's "pages"
corpus held no settled discuss.pytorch.org / Hugging Face forum / Stack Overflow thread that the corpus did not
already have, so the three are GitHub threads; all three NOT_YET as collected (0/3 both ways), each with a culprit:

- NVIDIA/nccl#2428 (2026): 2 nodes x 8 H20 over eRDMA, NCCL 2.30.7, ``NCCL_IGNORE_NET_MISMATCH=1``. Rank 0's channel
  lines spread over ``NET/IB/0/GDRDMA`` and ``NET/IB/1``; rank 1 (node B, whose container admits one uverbs device)
  logs ``NCCL WARN NET/IB : Unable to open device erdma_1`` and builds every channel on NET/IB/0; rank 0's NET/IB/1
  channels wait forever. Truth: rank 1, nccl-error (the author's diagnosis). k10s: nothing.
- hiyouga/LlamaFactory#954 (2023, label solved): a waiter's C++ frames from ``ProcessGroupNCCL::barrier`` while rank 0
  tokenises 5M instructions under main_process_first (47 % at the 30-minute timeout). Truth: rank 0, never-joined.
  k10s: nothing.
- InternLM/xtuner#390 (2024): one untagged ``Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3,
  OpType=BROADCAST, ...) ran for 1808442 millis econds`` while rank 0 tokenises the data it broadcasts (the author's
  diagnosis). Truth: rank 0, never-joined. k10s: nothing.

Contrasts: the erdma WARN tagged by rank 1, with NCCL's host:pid:tid prefix, or on both ranks, still names no one;
rank 1's ``DistBackendError ... unhandled system error`` with the WARN as its ``Last error`` names rank 1
(nccl-error); the broadcast timeout tagged ``[Rank 1]``..``[Rank 3]`` on 4 ranks names rank 0 (never-joined), tagged by
all four or by rank 1 alone of 2 no one; the barrier frames tagged ``[rank1]: `` and two ranks' ``ncclUniqueId from
[0] ... Socket Timeout`` name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

ERDMA = corpus_lines("nccl-2428-")
BARRIER_FRAMES = corpus_lines("LlamaFactory-954-zh")
BROADCAST_TIMEOUT = corpus_lines("xtuner-390-")

#: the erdma WARN tagged by the rank that printed it
ERDMA_RANK1_TAGGED = ["[rank1]: " + ERDMA[-1]]
#: the channel lines, then the WARN with NCCL's own host:pid:tid [dev] prefix
ERDMA_NCCL_PREFIX = ERDMA[:-1] + ["nodeb:2001:2101 [0] NCCL WARN NET/IB : Unable to open device erdma_1"]
#: the same WARN on both ranks: no one's alone
ERDMA_BOTH_RANKS = ["[rank0]: " + ERDMA[-1], "[rank1]: " + ERDMA[-1]]
#: rank 1's NCCL error with the WARN as its last error
ERDMA_RANK1_DISTBACKEND = [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:3396, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.30.7",
    "[rank1]: Last error:",
    "[rank1]: " + ERDMA[-1],
]

_TIMEOUT = BROADCAST_TIMEOUT[0].replace("millis econds", "milliseconds")
#: the broadcast timeout as ranks 1-3 of 4 print it: rank 0 is absent
BROADCAST_RANKS_1_3 = [f"[rank{r}]:[E ProcessGroupNCCL.cpp:475] [Rank {r}] {_TIMEOUT}" for r in (1, 2, 3)]
#: every rank of 4 timed out: no one absent
BROADCAST_ALL_FOUR = [f"[E ProcessGroupNCCL.cpp:475] [Rank {r}] {_TIMEOUT}" for r in (0, 1, 2, 3)]
#: rank 1 of 2 alone
BROADCAST_RANK1_OF_TWO = [f"[E ProcessGroupNCCL.cpp:475] [Rank 1] {_TIMEOUT}"]

#: the barrier frames tagged by the waiter
BARRIER_FRAMES_RANK1 = [f"[rank1]: {line}" for line in BARRIER_FRAMES]
#: ranks 1 and 2 of 3 time out fetching the NCCL id from rank 0 (rank 0 busy in the map)
UNIQUEID_RANKS_1_2 = [
    f"[rank{r}]: RuntimeError: [{r}] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
    "key-value store by key '0', but store->get('0') got error: Socket Timeout"
    for r in (1, 2)
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected (NOT_YET: each has a culprit the paste does not show k10s)
    "erdma-as-pasted": (ERDMA, None, None, None, None),
    "erdma-one-rank-per-node": (ERDMA, 1, 2, None, None),
    "barrier-frames-as-pasted": (BARRIER_FRAMES, None, None, None, None),
    "barrier-frames-eight-ranks": (BARRIER_FRAMES, 8, 8, None, None),
    "broadcast-timeout-as-pasted": (BROADCAST_TIMEOUT, None, None, None, None),
    "broadcast-timeout-eight-ranks": (BROADCAST_TIMEOUT, 8, 8, None, None),
    # variants read as naming no one
    "erdma-rank1-tagged-names-none": (ERDMA_RANK1_TAGGED, 1, 2, None, None),
    "erdma-nccl-prefix-names-none": (ERDMA_NCCL_PREFIX, 1, 2, None, None),
    "erdma-both-ranks-names-none": (ERDMA_BOTH_RANKS, 1, 2, None, None),
    "broadcast-all-four-names-none": (BROADCAST_ALL_FOUR, 4, 4, None, None),
    "broadcast-rank1-of-two-names-none": (BROADCAST_RANK1_OF_TWO, 2, 2, None, None),
    "barrier-frames-rank1-names-none": (BARRIER_FRAMES_RANK1, 2, 2, None, None),
    "uniqueid-ranks-1-2-names-none": (UNIQUEID_RANKS_1_2, 3, 3, None, None),
    # contrasts that name a rank
    "erdma-rank1-distbackend-names-rank1": (ERDMA_RANK1_DISTBACKEND, 1, 2, 1, "nccl-error"),
    "broadcast-ranks-1-3-names-rank0": (BROADCAST_RANKS_1_3, 4, 4, 0, "never-joined"),
}
BATCHED = Batched("b387", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_theme_ddp_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_the_three_as_collected_find_nothing(tmp_path):
    """NOT_YET as collected: no finding at all, not even an info suspect (tests/corpus_not_yet_s61.py says why)."""
    assert _gist(ERDMA, tmp_path / "a", None, None) == []
    assert _gist(BARRIER_FRAMES, tmp_path / "b", None, None) == []
    assert _gist(BROADCAST_TIMEOUT, tmp_path / "c", None, None) == []


def test_broadcast_timeout_of_three_waiters_names_the_absent_rank(tmp_path):
    """The same watchdog line tagged by ranks 1-3 of 4 is a never-joined nccl-hang on rank 0 (warning); every rank
    timing out, or rank 1 alone of 2, an info nccl-hang of no single culprit."""
    assert _gist(BROADCAST_RANKS_1_3, tmp_path / "a", 4, 4) == [("nccl-hang", "warning", "never-joined", [0])]
    assert _gist(BROADCAST_ALL_FOUR, tmp_path / "b", 4, 4) == [("nccl-hang", "info", "no-single-culprit", [])]
    assert _gist(BROADCAST_RANK1_OF_TWO, tmp_path / "c", 2, 2) == [("nccl-hang", "info", "no-single-culprit", [])]
