"""Batch 92's shape (tests/data/real-incidents, ``"batch": 92``, family ``notebooks``), with its wording variants, as
pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 27: batch 92").

A worker forked from a parent that had already initialised CUDA (torch's ``RuntimeError: Cannot re-initialize CUDA in
forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method``; accelerate's ``CUDA has
been initialized before the `notebook_launcher` could create a forked subprocess``) fails from the parent's state: a
notebook launcher, Lightning's ``ddp_notebook``/``ddp_fork`` or ``torch.multiprocessing`` with the fork start method
hands that state to every worker alike. So the rank that shows it (accelerate-3524's Root Cause rank 0 on Kaggle's
2 x T4, whichever rank, whichever prefix) names no one, like a torch build's refusal — and with its guard: a rank whose
peers saw its connection close waited for it past the fork, and names it. Another error on one rank alone still names it.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

KAGGLE = corpus_log("accelerate-3524-kaggle-t4-notebook-launcher-fork-root-cause-rank0-control")
FORK = ("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
        "the 'spawn' start method")
ACCELERATE = ("RuntimeError: CUDA has been initialized before the `notebook_launcher` could create a forked subprocess. "
              "This likely stems from an outside import causing issues once the `notebook_launcher()` is called. Please "
              "review your imports and test them when running the `notebook_launcher()` to identify which one is "
              "problematic and causing CUDA to be initialized.")
ACCELERATE_OLD = "RuntimeError: CUDA has been initialized before notebook_launcher() could create a forked subprocess."
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [127.0.0.1]:24967. This is typically caused by a remote worker crashing.")
TRACEBACK = """[rank{r}]: Traceback (most recent call last):
[rank{r}]:   File "/kaggle/working/train.py", line 12, in <module>
[rank{r}]:     torch.cuda.set_device(local_rank)
[rank{r}]:   File "/usr/local/lib/python3.11/dist-packages/torch/cuda/__init__.py", line 476, in set_device
[rank{r}]:     torch._C._cuda_setDevice(device)
[rank{r}]: {error}
"""


def _root_cause(rank: int) -> str:
    """The Kaggle paste with the agent's Root Cause entry on ``rank``."""
    return KAGGLE.replace("rank      : 0 (local_rank: 0)", f"rank      : {rank} (local_rank: {rank})")


def _lone(rank: int, error: str) -> str:
    return TRACEBACK.format(r=rank, error=error)


def _every_rank() -> str:
    return "".join(_lone(r, FORK) for r in range(4))


def _peers_closed(rank: int) -> str:
    """``rank`` raises the fork error; every other rank of the four saw its peer's connection close (it waited on it)."""
    return "".join(_lone(r, FORK) if r == rank else CLOSED.format(r=r) + "\n" for r in range(4))


#: key: (the log, processes per node, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "kaggle-root-cause-rank0": (KAGGLE, 2, None),
    "kaggle-root-cause-rank1": (_root_cause(1), 2, None),
    "lone-rank2-torch": (_lone(2, FORK), 4, None),
    "lone-rank1-accelerate": (_lone(1, ACCELERATE), 4, None),
    "lone-rank3-accelerate-old": (_lone(3, ACCELERATE_OLD), 4, None),
    "every-rank": (_every_rank(), 4, None),
    # contrasts: peers that waited on the rank; another error on one rank alone
    "peers-closed-rank2": (_peers_closed(2), 4, 2),
    "other-error-rank1": (_lone(1, "RuntimeError: CUDA error: an illegal memory access was encountered"), 4, 1),
}
BATCHED = Batched("b92", list(CASES))


def _make(key: str, folder: Path):
    text, nproc, _ = CASES[key]
    return pasted(text, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_worker_forked_after_cuda_init_is_every_workers(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])
