"""Batch 96's start-up shapes (tests/data/real-incidents, ``"batch": 96``, family ``never-joined-startup``), with the
wording variants of the one reading it taught (docs/rules.md, "Session 27: batch 96"):

* controls: PyTorch's store-based barrier at process-group creation reached by one rank alone — ``Waiting in store
  based barrier to initialize process group for rank: R, key: store_based_barrier_key:1 (world_size=N,
  worker_count=1, …)`` or its ``Timed out initializing process group in store based barrier on rank: R`` — with two or
  more ranks never arriving (NeMo-4418: rank 0 waits while every other rank still walks its data set, their
  progress bars glued to its lines): the lone arriver is the odd one out by being early, and the count names no one;
* the contrast: every rank but one waiting with ``worker_count`` one short still names the rank that never came, as does
  a two-rank world's lone waiter (one rank missing).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.timezone.utc)
NEMO = corpus_log("NeMo-4418-fastpitch-rank0-store-barrier-one-of-seven-tqdm-control")
WAIT = ("Waiting in store based barrier to initialize process group for rank: {r}, key: store_based_barrier_key:1 "
        "(world_size={world}, worker_count={count}, timeout=0:30:00)")
TIMED_OUT = ("RuntimeError: Timed out initializing process group in store based barrier on rank: {r}, for key: "
             "store_based_barrier_key:1 (world_size={world}, worker_count={count}, timeout=0:30:00)")


def _waits(ranks: tuple[int, ...], world: int, count: int, times: int = 3, glued: bool = False) -> str:
    """Each of ``ranks`` waiting ``times`` times (``glued``: behind another process's progress bar, as NeMo-4418)."""
    bar = "{n}it [59:{s:02d},  4.{s:02d}it/s]"
    glog = "I0510 07:{m:02d}:04.417845 139863945226048 distributed_c10d.py:337] "  # Open-Llama-47's prefix
    lines = [(bar.format(n=13000 + 97 * i, s=i % 60) if glued else glog.format(m=28 + i)) + WAIT.format(r=r, world=world, count=count)
             for i in range(times) for r in ranks]
    return "\n".join(lines) + "\n"


def _timed_out(rank: int, world: int, count: int) -> str:
    return _waits((rank,), world, count, times=2) + TIMED_OUT.format(r=rank, world=world, count=count) + "\n"


BUILD = {"nemo": lambda: NEMO, "lone": _waits, "lone_glued": lambda r, w: _waits(r, w, 1, glued=True),
         "lone_timed_out": _timed_out, "all_but": lambda missing, world: _waits(tuple(r for r in range(world) if r != missing), world, world - 1)}
# key: (shape, arguments…); the expected culprit (None: a control)
CONTROLS = [("nemo",), ("lone", (0,), 7, 1), ("lone", (3,), 4, 1), ("lone_glued", (0,), 16), ("lone_timed_out", 0, 8, 1),
            ("lone_timed_out", 2, 3, 1)]
CULPRITS = {("all_but", 4, 8): 4, ("all_but", 0, 3): 0, ("lone", (0,), 2, 1): 1, ("lone_timed_out", 1, 2, 1): 0}
BATCHED = Batched("never-joined-batch96", CONTROLS + list(CULPRITS))


def _make(key: tuple, folder: Path) -> object:
    return pasted(BUILD[key[0]](*key[1:]), folder, None, NOW)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_lone_arriver_at_the_store_barrier_names_no_one(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), None)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_one_rank_short_of_the_barrier_is_named(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CULPRITS[key], "never-joined")


def test_the_variants_keep_their_shape():
    """The builders change ranks, sizes and glue, not the wording the tests are about."""
    assert NEMO.count("(world_size=7, worker_count=1, timeout=0:30:00)") == 6
    assert _waits((0,), 16, 1, glued=True).count("it/s]Waiting in store based barrier") == 3
    assert "on rank: 2, for key: store_based_barrier_key:1 (world_size=3, worker_count=1" in _timed_out(2, 3, 1)
    text = BUILD["all_but"](4, 8)
    assert text.count("worker_count=7") == 21 and "rank: 4," not in text
