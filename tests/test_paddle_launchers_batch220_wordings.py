"""Launchers with their own multi-process wordings (real incidents batch 220: Paddle, PLSC, Jittor under mpirun),
pinned as read. Right: the legacy ``paddle.distributed.launch``'s ``ABORT!!! Out of all 2 trainers, the trainer process
with rank=[1] was aborted.`` after trainer 0's ``not ready endpoints`` waits (PaddlePaddle/Paddle#39136) names rank 1;
the same launcher's ``rank=[0, 1, 2, 3, 4, 5, 6, 7]`` after every trainer's argparse error (PaddlePaddle/PaddleOCR#3327)
and rank 0's NCCL ``posix_fallocate failed : No space left on device`` in a container (PaddlePaddle/Paddle#55987) name
no one. Misses, left NOT_YET: node 0's bare ``not ready endpoints:['10.10.11.51:6070', ...]`` waits
(PaddlePaddle/PLSC#115; trainers 4-7 never joined per the maintainer) name no one; the new launcher's ``Container rank
1 status failed ... code 1`` (PaddlePaddle/PaddleSeg#3494, a set-up error every trainer runs) names rank 1 in a layout
of 6; Open MPI's ``mpirun noticed that process rank 7 ... exited on signal 6 (Aborted).`` (Jittor/jittor#288, every
process aborting in the NCCL initialiser) names rank 7. No rule changed for the batch (measure only). Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)

LEGACY_ABORT_RANK1 = corpus_lines("Paddle-39136-")
ENDPOINTS_WAIT = corpus_lines("PLSC-115-")
ALL_EIGHT_ABORTED = corpus_lines("PaddleOCR-3327-")
CONTAINER_RANK1 = corpus_lines("PaddleSeg-3494-")
NCCL_SHM_FULL = corpus_lines("Paddle-55987-")
MPIRUN_RANK7_ABRT = corpus_lines("jittor-288-")

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # right as collected
    "legacy-abort-rank1-of-2-as-pasted": (LEGACY_ABORT_RANK1, None, None, 1, None),
    "legacy-abort-rank1-of-2-layout-2": (LEGACY_ABORT_RANK1, 2, 2, 1, None),
    "legacy-abort-all-eight-as-pasted": (ALL_EIGHT_ABORTED, None, None, None, None),
    "legacy-abort-all-eight-layout-8": (ALL_EIGHT_ABORTED, 8, 8, None, None),
    "nccl-shm-no-space-as-pasted": (NCCL_SHM_FULL, None, None, None, None),
    "nccl-shm-no-space-layout-4": (NCCL_SHM_FULL, 4, 4, None, None),
    # misses as read (NOT_YET)
    "endpoints-never-ready-as-pasted-miss": (ENDPOINTS_WAIT, None, None, None, None),
    "endpoints-never-ready-layout-4x2-miss": (ENDPOINTS_WAIT, 4, 8, None, None),
    "container-rank1-code1-layout-6-miss": (
        CONTAINER_RANK1,
        6,
        6,
        1,
        "python-exception",
    ),
    "mpirun-rank7-sigabrt-as-pasted-miss": (MPIRUN_RANK7_ABRT, None, None, 7, "abort"),
    "mpirun-rank7-sigabrt-layout-8-miss": (MPIRUN_RANK7_ABRT, 8, 8, 7, "abort"),
}
BATCHED = Batched("b220", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_paddle_launchers_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
