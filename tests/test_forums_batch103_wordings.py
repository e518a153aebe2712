"""Batch 103's shape (tests/data/real-incidents, ``"batch": 103``, family ``qa-forums-crossposts``), with its wording
variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 28: batch 103").

Torch's report of NCCL's communicator failing on a CUDA call NCCL made that the driver refused as an invalid argument
(``torch.distributed.DistBackendError: NCCL error in: …, unhandled cuda error`` / ``ncclUnhandledCudaError: Call to CUDA
function failed.`` / ``Last error:`` / ``Cuda failure 1 'invalid argument'``; NCCL 2.18 and older without the number) is
common mode: NCCL's transport setup (NVLS, P2P, cuMem) on the platform, which every member of the communicator builds
alike. A lone rank's copy of it (nccl-1410's rank 7) or the launcher's first failed worker under an unranked one
(LlamaFactory-1169's local rank 0) names no one. Contrasts: the same report with another CUDA failure (an illegal memory
access) still names its rank, and NCCL's own ``NCCL WARN Cuda failure 'invalid argument'`` line keeps its reading with
the peers' error returns (tests/test_accelerator_stack_wordings.py).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 10, 0, tzinfo=dt.timezone.utc)

NVLS = corpus_log("nccl-1410-lone-rank7-nvls-invalid-argument-all-ranks-control")
BARRIER = corpus_log("LlamaFactory-1169-two-3090ti-nccl-2185-invalid-argument-launcher-rank0-control")
FAILURE = "Cuda failure 1 'invalid argument'"


def _renumbered(rank: int) -> str:
    return NVLS.replace("[rank7]:", f"[rank{rank}]:")


def _unnumbered() -> str:
    """NCCL 2.18 and older: no error number before the message."""
    return NVLS.replace(FAILURE, "Cuda failure 'invalid argument'")


def _every_rank() -> str:
    return "".join(NVLS.replace("[rank7]:", f"[rank{r}]:") for r in range(8))


def _other_failure(message: str) -> str:
    return NVLS.replace(FAILURE, f"Cuda failure 1 '{message}'")


#: key: (the log, processes per node, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "nvls-rank7": (NVLS, 8, None),
    "nvls-rank0": (_renumbered(0), 8, None),
    "nvls-rank3": (_renumbered(3), 8, None),
    "unnumbered": (_unnumbered(), 8, None),
    "every-rank": (_every_rank(), 8, None),
    "barrier-launcher-rank0": (BARRIER, 2, None),
    # contrast: another CUDA failure in the same report is still the rank's own
    "illegal-memory-access-rank7": (_other_failure("an illegal memory access was encountered"), 8, 7),
}
BATCHED = Batched("b103", list(CASES))


def _make(key: str, folder: Path):
    log, nproc, _ = CASES[key]
    return pasted(log, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_nccl_s_cuda_call_refused_as_an_invalid_argument_is_every_ranks(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])
