"""Batch 102's shape (tests/data/real-incidents, ``"batch": 102``, family ``domain-science-speech-recsys``), with its
wording variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 28: batch 102").

A c10d backend refusing a collective it does not implement (``RuntimeError: Backend gloo does not support alltoall``,
torch 2.x; ``ProcessGroup gloo does not support alltoall`` and ``ProcessGroupNCCL does not support scatter``, older
wordings) is common mode, like a torch build's refusal: the backend is the one the launch chose for every process, so
every rank that calls that collective meets it alike, and the rank whose traceback shows (bris-inference-140's rank 0,
anemoi's head sharding on CPU) names no one. As with the torch build's refusal, a rank whose peers show they waited on
it (gloo's ``Connection closed by peer``) is that rank's own path; another RuntimeError on one rank alone still names it.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

ANEMOI = corpus_log("bris-inference-140-anemoi-cpu-gloo-alltoall-rank0-unsupported-control")
REFUSAL = "RuntimeError: Backend gloo does not support alltoall"
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [127.0.0.1]:24967. This is typically caused by a remote worker crashing.")


def _renumbered(rank: int) -> str:
    return ANEMOI.replace("[rank0]:", f"[rank{rank}]:")


def _worded(message: str) -> str:
    return ANEMOI.replace(REFUSAL, message)


def _untagged(message: str) -> str:
    """The old wording in a plain, untagged traceback under the legacy launcher (no rank prefix at all)."""
    return ("Traceback (most recent call last):\n"
            '  File "dlrm_s_pytorch.py", line 401, in distributed_forward\n'
            "    a2a_req = ext_dist.alltoall(ly, self.n_emb_per_rank)\n"
            '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 1380, in scatter\n'
            "    work = _default_pg.scatter(output_tensors, input_tensors, opts)\n"
            f"{message}\n")


def _every_rank() -> str:
    return "".join(f"[rank{r}]: {REFUSAL}\n" for r in range(4))


def _peers_closed(rank: int) -> str:
    """``rank`` raises the refusal; every other rank of the four saw its peer's connection close (it waited on it)."""
    return "".join((f"[rank{r}]: {REFUSAL}" if r == rank else CLOSED.format(r=r)) + "\n" for r in range(4))


#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "anemoi-rank0": (ANEMOI, None),
    "anemoi-rank1": (_renumbered(1), None),
    "anemoi-rank3": (_renumbered(3), None),
    "process-group-gloo": (_worded("RuntimeError: ProcessGroup gloo does not support alltoall"), None),
    "process-group-nccl-scatter": (_worded("RuntimeError: ProcessGroupNCCL does not support scatter"), None),
    "backend-nccl-gather": (_worded("RuntimeError: Backend nccl does not support gather"), None),
    "untagged-old-wording": (_untagged("RuntimeError: ProcessGroupNCCL does not support scatter"), None),
    "every-rank": (_every_rank(), None),
    # contrasts: peers that waited on the rank; another RuntimeError on one rank alone
    "peers-closed-rank2": (_peers_closed(2), 2),
    "other-runtime-error-rank0": (_worded("RuntimeError: expected a batch of 8 sequences, got 0"), 0),
}
BATCHED = Batched("b102", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 4, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_collective_the_backend_does_not_implement_is_every_ranks(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
