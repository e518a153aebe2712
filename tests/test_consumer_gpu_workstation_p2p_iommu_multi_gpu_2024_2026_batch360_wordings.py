"""Consumer-GPU workstations, WSL2, P2P/IOMMU and PCIe multi-GPU runs, 2024-2026 (real incidents batch 360), pinned as
read. One culprit and two controls, collected blind. Two were read right as collected: two vLLM worker processes under
WSL2 printing the same ``unhandled cuda error`` in the same second, one of them ``Error while creating shared memory
segment /dev/shm/nccl-…`` (microsoft/WSL#12467), are a warning of no rank (nccl-error), as pasted or as three GPUs;
torchrun's ``failed (exitcode: -9) local_rank: 0`` beside rank 1's ``[1] is setting up NCCL communicator … Connection
reset by peer`` (zai-org/CogVLM#104, ``--nproc-per-node=2``) names rank 0 (host-oom-kill, warning). The third (NOT_YET,
batch 360) is read with a culprit: rank 1's ``include/alloc.h:65 NCCL WARN Cuda failure 2 'out of memory'`` under
``transport/shm.cc`` (hiyouga/LlamaFactory#8036: NCCL's shared-memory host buffer on a dual-GPU WSL2 workstation whose
GPU memory is ample) names rank 1 (oom-cascade, cuda-oom, warning). Scored 2/3 both ways as collected; no rule changed
(measure only). Contrasts: one worker's lines alone tagged ``(VllmWorker rank=1 …)`` or ``[rank1]:`` name rank 1, both
workers tagged (ranks 1 and 2) name no one; rank 0's copy of the allocation warning beside rank 1's is every rank's (a
critical cuda-oom of no rank), the warning removed leaves rank 1 an info suspect; the SIGKILL on local_rank 1 names rank
1, an exit code 1 in its place leaves nothing, rank 1's RuntimeError removed still names rank 0. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 3, 0, tzinfo=dt.timezone.utc)

WSL_WORKERS = corpus_lines("wsl-12467-")
SHM_HOST_ALLOC = corpus_lines("llamafactory-8036-")
RANK0_SIGKILL = corpus_lines("cogvlm-104-")

_PREFIX = "ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] "

#: pid 3985's lines alone, its worker named by rank as vLLM's V1 engine prints it
WSL_ONE_WORKER_RANK1 = [
    line.replace("(VllmWorkerProcess pid=3985)", "(VllmWorker rank=1 pid=3985)")
    for line in WSL_WORKERS
    if "pid=3985" in line
]
#: both workers named by rank (1 and 2)
WSL_BOTH_WORKERS_RANKED = [
    line.replace("(VllmWorkerProcess pid=3985)", "(VllmWorker rank=1 pid=3985)").replace(
        "(VllmWorkerProcess pid=3984)", "(VllmWorker rank=2 pid=3984)"
    )
    for line in WSL_WORKERS
]
#: pid 3985's lines alone, re-tagged as torchrun's ``[rank1]:``
WSL_ONE_WORKER_TAGGED = [
    line.replace(f"(VllmWorkerProcess pid=3985) {_PREFIX}", "[rank1]: ")
    for line in WSL_WORKERS
    if "pid=3985" in line
]
#: rank 0's copy of the allocation warning beside rank 1's (both sides failing to allocate)
SHM_BOTH_RANKS_WARN = SHM_HOST_ALLOC + [
    SHM_HOST_ALLOC[0].replace(":2375:2649 [1]", ":2374:2653 [0]")
]
#: the allocation warning removed: rank 1's NCCL return codes and traceback frames only
SHM_NO_WARNING = SHM_HOST_ALLOC[1:]
#: the SIGKILL on local_rank 1 instead
RANK1_SIGKILL = [line.replace("local_rank: 0", "local_rank: 1") for line in RANK0_SIGKILL]
#: an ordinary exit code in place of the SIGKILL
RANK0_EXIT1 = [line.replace("exitcode: -9", "exitcode: 1") for line in RANK0_SIGKILL]
#: the launcher's lines without rank 1's RuntimeError
RANK0_SIGKILL_NO_PEER = RANK0_SIGKILL[1:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "wsl-workers-as-pasted": (WSL_WORKERS, None, None, None, None),
    "wsl-workers-three-gpus": (WSL_WORKERS, 3, 3, None, None),
    "rank0-sigkill-as-pasted": (RANK0_SIGKILL, None, None, 0, "host-oom-kill"),
    "rank0-sigkill-two-gpus": (RANK0_SIGKILL, 2, 2, 0, "host-oom-kill"),
    # today's reading of the NOT_YET control
    "shm-host-alloc-as-pasted": (SHM_HOST_ALLOC, None, None, 1, "cuda-oom"),
    "shm-host-alloc-two-gpus": (SHM_HOST_ALLOC, 2, 2, 1, "cuda-oom"),
    # contrasts
    "wsl-one-worker-rank1-names-rank1": (WSL_ONE_WORKER_RANK1, 3, 3, 1, "nccl-error"),
    "wsl-one-worker-tagged-names-rank1": (WSL_ONE_WORKER_TAGGED, 3, 3, 1, "nccl-error"),
    "wsl-both-workers-ranked-names-none": (WSL_BOTH_WORKERS_RANKED, 3, 3, None, None),
    "shm-both-ranks-warn-names-none": (SHM_BOTH_RANKS_WARN, 2, 2, None, None),
    "rank1-sigkill-names-rank1": (RANK1_SIGKILL, 2, 2, 1, "host-oom-kill"),
    "rank0-sigkill-no-peer-names-rank0": (RANK0_SIGKILL_NO_PEER, 2, 2, 0, "host-oom-kill"),
    "rank0-exit1-names-none": (RANK0_EXIT1, 2, 2, None, None),
}
BATCHED = Batched("b360", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_consumer_gpu_workstation_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_wsl_workers_alike_are_a_warning_of_no_rank(tmp_path):
    """The two workers' identical NCCL errors (pids only, no rank printed) are one nccl-error warning of no rank, as
    pasted and as the driver plus two workers; pid 3985's lines alone, still untagged, are the same (a pid is no rank)."""
    want = [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(WSL_WORKERS, tmp_path / "a", None, None) == want
    assert _gist(WSL_WORKERS, tmp_path / "b", 3, 3) == want
    alone = [line for line in WSL_WORKERS if "pid=3985" in line]
    assert _gist(alone, tmp_path / "c", 3, 3) == want


def test_shm_host_alloc_reads_as_rank1_gpu_oom(tmp_path):
    """As collected (NOT_YET): rank 1's ``Cuda failure 2 'out of memory'`` from ``alloc.h`` under ``transport/shm.cc``
    is read as its GPU running out of memory, a warning (a lone paste's OOM), whatever the layout."""
    want = [("oom-cascade", "warning", "cuda-oom", [1])]
    assert _gist(SHM_HOST_ALLOC, tmp_path / "a", None, None) == want
    assert _gist(SHM_HOST_ALLOC, tmp_path / "b", 2, 2) == want


def test_shm_warning_on_both_ranks_is_a_critical_oom_of_no_rank(tmp_path):
    """Rank 0's copy of the allocation warning beside rank 1's: every rank's out-of-memory, critical, no rank named."""
    assert _gist(SHM_BOTH_RANKS_WARN, tmp_path, 2, 2) == [("oom-cascade", "critical", "cuda-oom", [])]


def test_shm_frames_without_the_warning_leave_an_info_suspect(tmp_path):
    """Rank 1's NCCL return codes and traceback head without the ``out of memory`` line: an info suspect, not a
    culprit."""
    assert_info_suspect(pasted_findings(SHM_NO_WARNING, tmp_path, 2, 2, NOW), 1)


def test_rank0_exit1_beside_the_store_reset_is_nothing(tmp_path):
    """The launcher's ``exitcode: 1`` for local_rank 0 beside rank 1's store ``Connection reset by peer`` says nothing:
    only the -9 (a SIGKILL the launcher did not send) makes rank 0 the culprit. Since session 72 the failed job whose
    only failure lines are victims' says so, naming no rank (docs/rules.md, victims-only)."""
    assert _gist(RANK0_EXIT1, tmp_path / "a", 2, 2) == [("rank-failure", "warning", "victims-only", [])]
    assert _gist(RANK0_SIGKILL, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "host-oom-kill", [0])]
