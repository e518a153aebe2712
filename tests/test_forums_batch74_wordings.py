"""Batch 74's shapes (tests/data/real-incidents, ``"batch": 74``: a forum thread and Q&A threads), each with its
wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 26: batch 74"):

* culprit: the pre-SeqNum watchdog lines (``[E ProcessGroupNCCL.cpp:567] [Rank R] Watchdog caught collective operation
  timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=60000) …``) of every rank but one, the first glued to the end of the
  main process's tqdm bar, which goes on after them (yolov5-4400: rank 0 scanning labels) — the silent rank never
  joined the barrier;
* controls: vLLM's ``WorkerProc failed to start.`` traceback under its ``ERROR <date> [multiproc_executor.py:772]``
  prefix, no worker named (a machine whose every multi-GPU run fails: forums-nvidia-360195); one rank's
  ``_ALLGATHER_BASE`` timeout pasted as inline code, hard-wrapped (SurroundDepth-11); two ranks of a four-process job
  timing out on the same BROADCAST, the other two not in the paste (nccl-1630); two ranks timing out one SeqNum
  apart in different collectives (F5-TTS-346) — none names a rank.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.timezone.utc)

SCAN = corpus_log("yolov5-4400-label-scan-rank0-ranks1-3-allreduce-60s-timeout")
VLLM = corpus_log("forums-nvidia-360195-b200-vllm-tp2-workerproc-illegal-memory-access-control")
LONE = corpus_log("SurroundDepth-11-lone-rank2-allgather-base-timeout-control")
TWO_OF_FOUR = corpus_log("nccl-1630-dino-test-two-of-four-ranks-broadcast-timeout-control")
APART = corpus_log("F5-TTS-346-two-ranks-adjacent-seqnum-desync-control")


def _scan(silent: int, nproc: int) -> str:
    """The head, then the bar with the first waiter's line glued to it, the other waiters, the bar going on."""
    lines = SCAN.splitlines()
    bar, _, first = lines[3].partition("[E ProcessGroupNCCL.cpp:567]")
    waiters = [r for r in range(1, nproc) if r != silent] + ([0] if silent else [])
    timeouts = ["[E ProcessGroupNCCL.cpp:567]" + first.replace("[Rank 1]", f"[Rank {r}]").replace("67438", str(67438 + 3 * i))
                for i, r in enumerate(waiters)]
    return "\n".join(lines[:3] + [bar + timeouts[0]] + timeouts[1:] + lines[6:]) + "\n"


def _vllm(keep_carets: bool) -> str:
    lines = VLLM.splitlines()
    return "\n".join(line for line in lines if keep_carets or not line.rstrip().endswith("^")) + "\n"


def _lone(rank: int, ticks: bool) -> str:
    text = LONE.replace("[Rank 2]", f"[Rank {rank}]")
    return text if ticks else text.replace("`", "")


def _two_of_four(first: int, second: int) -> str:
    return (TWO_OF_FOUR.replace("[rank2]", "[rankA]").replace("Rank 2]", "Rank A]")
            .replace("[rank1]", f"[rank{second}]").replace("Rank 1]", f"Rank {second}]")
            .replace("[rankA]", f"[rank{first}]").replace("Rank A]", f"Rank {first}]"))


def _apart(behind: int, ahead: int) -> str:
    return (APART.replace("[rank1]", "[rankB]").replace("Rank 1]", "Rank B]")
            .replace("[rank0]", f"[rank{ahead}]").replace("Rank 0]", f"Rank {ahead}]")
            .replace("[rankB]", f"[rank{behind}]").replace("Rank B]", f"Rank {behind}]"))


# key: (shape, parameter, …); the expected culprit (None: a control)
CULPRITS = {("scan", 0, 4): 0, ("scan", 0, 8): 0, ("scan", 3, 4): 3}
CONTROLS = [("vllm", True), ("vllm", False), ("lone", 2, True), ("lone", 5, False), ("lone", 0, True),
            ("two_of_four", 2, 1), ("two_of_four", 3, 2), ("apart", 1, 0), ("apart", 0, 1)]
BUILD = {"scan": _scan, "vllm": _vllm, "lone": _lone, "two_of_four": _two_of_four, "apart": _apart}
#: the processes of the job, as the threads state them
NPROC = {"scan": lambda key: key[2], "vllm": lambda key: 2, "lone": lambda key: 8, "two_of_four": lambda key: 4}
BATCHED = Batched("forums-batch74", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc = NPROC[key[0]](key) if key[0] in NPROC else None
    return pasted(BUILD[key[0]](*key[1:]), folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_the_rank_still_scanning_is_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CULPRITS[key], "never-joined")


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_the_forum_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders change ranks, sizes and order, not the wording the tests are about."""
    text = _scan(0, 8)
    assert text.count("Watchdog caught collective operation timeout") == 7 and "[Rank 0]" not in text
    assert "it/s][E ProcessGroupNCCL.cpp:567] [Rank 1] Watchdog" in text and text.rstrip().endswith("'std::runtime_error'")
    assert "[Rank 0]" in _scan(3, 4) and "[Rank 3]" not in _scan(3, 4)
    assert _vllm(False).count("multiproc_executor.py:772]") == 8 and "^^^" not in _vllm(False)
    assert _lone(5, False).count("[Rank 5]") == 1 and "`" not in _lone(5, False) and "T\no avoid" in _lone(5, False)
    pair = _two_of_four(3, 2)
    assert pair.count("[rank3]:") == 2 and pair.count("[rank2]:") == 1 and "[rank1]" not in pair
    apart = _apart(0, 1)
    assert "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=215121, OpType=ALLREDUCE" in apart
    assert "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=215122, OpType=BROADCAST" in apart
