"""Batch 73's hang shapes (tests/data/real-incidents, ``"batch": 73``, family ``hangs``), each with its wording
variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 25: batch 73"):

* culprit: the legacy watchdog lines (``[E ProcessGroupNCCL.cpp:821] [Rank R] Watchdog caught collective operation
  timeout: WorkNCCL(SeqNum=S, OpType=ALLREDUCE, …)``, no ``[rankN]:`` prefix) of every rank of the job but one, each
  followed by the teardown pair, under an untagged main-process line — the silent rank never joined the collective
  (Ultra-Fast-Lane-Detection-v2-119: rank 0 in its evaluation); every rank but one ``Waiting in store based
  barrier`` with ``worker_count`` one short — the rank that is not waiting never arrived;
* controls: PyTorch's store-based barrier at process-group creation, ``Waiting in store based barrier … for rank: R``
  or ``RuntimeError: Timed out initializing process group in store based barrier on rank: R`` with
  ``worker_count`` short of ``world_size``, from a few of the ranks (the store counts arrivals, it does not say who is
  missing: Open-Llama-47, Megatron-DeepSpeed-338); every rank of a pair timing out on the same collective (mace-567);
  one rank's ``NCCL communicator was aborted on rank R … Watchdog caught collective operation timeout`` alone in a
  two-process job, quoted in backticks (BLIP-24) — none names a rank.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.timezone.utc)


EVAL = corpus_log("Ultra-Fast-Lane-Detection-v2-119-eval-rank0-absent-ranks1-3-allreduce-timeout")
STORE_WAIT = corpus_log("Open-Llama-47-store-barrier-seven-of-eight-control")
STORE_TIMEOUT = corpus_log("Megatron-DeepSpeed-338-store-barrier-four-of-eight-30s-control")
PAIR = corpus_log("mace-567-two-ranks-same-allreduce-rank-prints-control")
ABORTED = corpus_log("BLIP-24-inline-backticks-rank0-communicator-aborted-two-gpus-control")
WATCHDOG = EVAL.splitlines()[1]  # rank 3's legacy watchdog line
TEARDOWN = EVAL.splitlines()[4:6]  # the teardown pair every waiter prints


def _eval(silent: int, nproc: int) -> str:
    """The main process's line, then every rank but ``silent`` timing out (in the pasted order: the highest first)
    and a teardown pair per waiter."""
    waiters = [r for r in range(nproc - 1, -1, -1) if r != silent]
    lines = [EVAL.splitlines()[0]]
    lines += [WATCHDOG.replace("[Rank 3]", f"[Rank {r}]").replace("1803391", str(1803391 + 9 * i)) for i, r in enumerate(waiters)]
    return "\n".join(lines + TEARDOWN * len(waiters)) + "\n"


def _store_wait(ranks: tuple[int, ...], world: int) -> str:
    first = STORE_WAIT.splitlines()[0]
    return "\n".join(first.replace("rank: 2,", f"rank: {r},").replace("world_size=8, worker_count=7",
                                                                     f"world_size={world}, worker_count={world - 1}")
                     for r in ranks) + "\n"


def _store_all_but(missing: int, world: int) -> str:
    return _store_wait(tuple(r for r in range(world) if r != missing), world)


def _store_timeout(ranks: tuple[int, int], world: int) -> str:
    text = STORE_TIMEOUT.replace("rank: 7,", f"rank: {ranks[0]},").replace("rank: 5,", f"rank: {ranks[1]},")
    return text.replace("world_size=8, worker_count=4", f"world_size={world}, worker_count={world // 2}")


def _pair(seq: int, first: int) -> str:
    """Both ranks' timeouts on one collective, rank ``first``'s line first."""
    head, _, tail = PAIR.partition("[rank0]:")
    lines = ("[rank0]:" + tail).splitlines()
    lines = lines if first == 0 else lines[::-1]
    return head + "\n".join(line.replace("SeqNum=10260", f"SeqNum={seq}") for line in lines) + "\n"


def _aborted(rank: int, ticks: bool) -> str:
    line = ABORTED.strip().replace("on rank 0.", f"on rank {rank}.").replace("[Rank 0]", f"[Rank {rank}]")
    return (line if ticks else line.strip("`")) + "\n"


# key: (shape, parameter, …); the expected culprit (None: a control)
CULPRITS = {("eval", 0, 4): 0, ("eval", 0, 8): 0, ("eval", 2, 4): 2, ("eval", 5, 8): 5,
            ("store_all_but", 0, 8): 0, ("store_all_but", 3, 8): 3}
CONTROLS = [("store_wait", (2, 7), 8), ("store_wait", (1, 3), 4), ("store_wait", (0, 5, 9), 16),
            ("store_timeout", (7, 5), 8), ("store_timeout", (3, 1), 4),
            ("pair", 10260, 0), ("pair", 77, 1),
            ("aborted", 0, True), ("aborted", 1, True), ("aborted", 0, False)]
BUILD = {"eval": _eval, "store_wait": _store_wait, "store_all_but": _store_all_but, "store_timeout": _store_timeout, "pair": _pair, "aborted": _aborted}
#: the processes of the job, as the thread states them (the lone report's pair, the waiters' job)
NPROC = {"eval": lambda key: key[2], "aborted": lambda key: 2, "pair": lambda key: 2}
BATCHED = Batched("hangs-batch73", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc = NPROC[key[0]](key) if key[0] in NPROC else None
    return pasted(BUILD[key[0]](*key[1:]), folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_the_rank_that_never_reported_is_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CULPRITS[key], "never-joined")


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_the_hang_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders change ranks, sizes and order, not the wording the tests are about."""
    text = _eval(5, 8)
    assert text.count("Watchdog caught collective operation timeout") == 7 and "[Rank 5]" not in text
    assert text.count("To avoid data inconsistency") == 7 and text.startswith("Evaluating the results...")
    assert _store_wait((0, 5, 9), 16).count("world_size=16, worker_count=15") == 3
    assert _store_all_but(3, 8).count("Waiting in store based barrier") == 7 and "rank: 3," not in _store_all_but(3, 8)
    assert "on rank: 3, for key: store_based_barrier_key:32 (world_size=4, worker_count=2" in _store_timeout((3, 1), 4)
    pair = _pair(77, 1)
    assert pair.index("[rank1]:") < pair.index("[rank0]:") and pair.count("SeqNum=77,") == 2 and "My rank is:" in pair
    assert _aborted(1, True).startswith("`RuntimeError: NCCL communicator was aborted on rank 1.")
    assert not _aborted(0, False).startswith("`")
