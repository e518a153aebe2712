"""Batch 82's shape (tests/data/real-incidents, ``"batch": 82``, family ``finetune-frameworks``), with its wording
variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 27: batch 82").

DTensor's dispatch finding no device mesh among a c10d collective's arguments (``AssertionError: found no DeviceMesh
from dtensor args for c10d.broadcast_.default!``: the program hands DTensor parameters to a plain collective, a
module-state sync under DeepSpeed or FSDP2) is common mode, like a torch build's refusal: every rank runs the same code
on the same model, so the rank whose assertion shows (pytorch-150401's rank 0, TRL's SFTTrainer under DeepSpeed) names
no one, whichever rank and whichever collective. As with the torch build's refusal, a rank whose peers show they waited
on it (gloo's ``Connection closed by peer``) is that rank's own; another assertion on one rank alone still names it.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

TRL = corpus_log("pytorch-150401-trl-sft-deepspeed-devicemesh-rank0-unprefixed-traceback-control")
MESH = "AssertionError: found no DeviceMesh from dtensor args for c10d.broadcast_.default!"
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [127.0.0.1]:24967. This is typically caused by a remote worker crashing.")


def _renumbered(rank: int) -> str:
    return TRL.replace("[rank0]:", f"[rank{rank}]:")


def _op(op: str) -> str:
    return TRL.replace("c10d.broadcast_.default", op)


def _every_rank() -> str:
    return "".join(f"[rank{r}]: {MESH}\n" for r in range(4))


def _peers_closed(rank: int) -> str:
    """``rank`` raises the assertion; every other rank of the four saw its peer's connection close (it waited on it)."""
    return "".join((f"[rank{r}]: {MESH}" if r == rank else CLOSED.format(r=r)) + "\n" for r in range(4))


def _other_assertion() -> str:
    return TRL.replace(MESH, "AssertionError: expected a batch of 8 sequences, got 0")


#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "trl-sft-rank0": (TRL, None),
    "trl-sft-rank2": (_renumbered(2), None),
    "trl-sft-rank3": (_renumbered(3), None),
    "allreduce": (_op("c10d.allreduce_.default"), None),
    "allgather-base": (_op("c10d._allgather_base_.default"), None),
    "every-rank": (_every_rank(), None),
    # contrasts: peers that waited on the rank; another assertion on one rank alone
    "peers-closed-rank2": (_peers_closed(2), 2),
    "other-assertion-rank0": (_other_assertion(), 0),
}
BATCHED = Batched("b82", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 4, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_collective_on_dtensor_parameters_is_every_ranks(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
