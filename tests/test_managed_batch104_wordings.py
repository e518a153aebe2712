"""Batch 104's shape (tests/data/real-incidents, ``"batch": 104``, family ``managed-cloud-platforms``), with its
wording variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 28: batch 104").

DeepSpeed checks, in a process launched by Open MPI, that the launcher's rank variables agree with Open MPI's
(``AssertionError: LOCAL_RANK (0) != OMPI_COMM_WORLD_LOCAL_RANK (1), not sure how to proceed as we're seeing
conflicting local rank info.``; the same check of ``RANK``/``OMPI_COMM_WORLD_RANK`` and of the sizes). The launch set
the environment of every process, so each process whose two values differ fails alike: common mode, as a torch build's
refusal (Azure ML's MPI distribution under Lightning, lightning-13907). As with the torch build's refusal, a rank whose
peers show they waited on it (gloo's ``Connection closed by peer``) is its own; another AssertionError on one rank alone
still names it.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 11, 0, tzinfo=dt.timezone.utc)

AZUREML = corpus_log("lightning-13907-azureml-deepspeed-local-rank-ompi-mismatch-control")
CHECK = ("AssertionError: LOCAL_RANK (0) != OMPI_COMM_WORLD_LOCAL_RANK (1), not sure how to proceed as we're seeing "
         "conflicting local rank info.")
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [127.0.0.1]:24967. This is typically caused by a remote worker crashing.")


def _prefixed(prefix: str, log: str = AZUREML) -> str:
    """A paste with every line under one rank's prefix (torch 2.x's ``[rankN]:``, mpirun's ``[1,N]<stderr>:``)."""
    return "".join(f"{prefix}{line}\n" for line in log.splitlines())


def _worded(message: str) -> str:
    return AZUREML.replace(CHECK, message)


def _every_rank() -> str:
    return "".join(f"[rank{r}]: AssertionError: LOCAL_RANK (0) != OMPI_COMM_WORLD_LOCAL_RANK ({r}), not sure how to proceed "
                   "as we're seeing conflicting local rank info.\n" for r in range(1, 4))


def _peers_closed(rank: int) -> str:
    """``rank`` fails the check; every other rank of the four saw its peer's connection close (it waited on it)."""
    return "".join((f"[rank{r}]: {CHECK}" if r == rank else CLOSED.format(r=r)) + "\n" for r in range(4))


#: key: (the log, the rank a warning/critical finding must name alone: None for none, processes per node: None to infer)
CASES = {
    "azureml-as-pasted": (AZUREML, None, None),
    "torch2-tag-rank1": (_prefixed("[rank1]: "), None, 4),
    "mpirun-tag-rank3": (_prefixed("[1,3]<stderr>:"), None, 4),
    "local-rank-3-vs-2": (_prefixed("[rank3]: ", _worded(
        "AssertionError: LOCAL_RANK (3) != OMPI_COMM_WORLD_LOCAL_RANK (2), not sure how to proceed as we're seeing "
        "conflicting local rank info.")), None, 4),
    "global-rank": (_prefixed("[1,2]<stderr>:", _worded(
        "AssertionError: RANK (4) != OMPI_COMM_WORLD_RANK (12), not sure how to proceed as we're seeing conflicting rank "
        "info.")), None, 4),
    "world-size": (_prefixed("[rank0]: ", _worded(
        "AssertionError: WORLD_SIZE (8) != OMPI_COMM_WORLD_SIZE (16), not sure how to proceed as we're seeing conflicting "
        "world size info.")), None, 4),
    "every-rank": (_every_rank(), None, 4),
    # contrasts: peers that waited on the rank; another AssertionError on one rank alone
    "peers-closed-rank2": (_peers_closed(2), 2, 4),
    "other-assertion-rank0": (_prefixed("[rank0]: ", _worded("AssertionError: expected 8 experts on this rank, got 7")), 0, 4),
}
BATCHED = Batched("b104", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, CASES[key][2], NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_launchers_rank_variables_contradicting_open_mpis_are_every_process(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
