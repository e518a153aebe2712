"""Newest threads, 2026, any repo (real incidents batch 392), pinned as read. Three controls, collected blind, all three
read right as collected (3/3 both ways, routed by rank and as one pod's log with API timestamps):

- vllm-project/vllm#42354 (a comment of 2026-07-23): rank 1's watchdog alone, ``[Rank 1] Watchdog caught collective
  operation timeout:`` / ``WorkNCCL(SeqNum=12590, OpType=_ALLGATHER_BASE, ...) ran for 600060 milliseconds``, on a
  2-node GB10 TP=2 vLLM serve; settled by the commenter: replacing the pip-bundled NCCL 2.28.9 with the DGX-OS system
  build fixed it (both ranks were stuck inside NCCL). k10s says an nccl-hang at info, ``no-single-culprit``, no rank,
  as pasted or laid out as 2 nodes of 1 GPU.
- vllm-project/vllm#45150 (PR of 2026-06-10): INFO lines only — the DP engine actor's ``No available shared memory
  broadcast block found in 60 seconds`` and workers DP0/DP2 starting up; settled by the PR's root cause (the mp DP
  backend with the Ray executor gives every worker a 127.0.0.1 rendezvous, the store ends ``2/8 clients joined``).
  k10s finds nothing.
- NVIDIA/nccl#2013 (a comment of 2026-03-13): one ``host-01 ... [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp
  failed with 110 Connection timed out`` line from nccl-tests on 7+ HGX nodes; settled by an NVIDIA maintainer (a
  rail-connected fabric, ``NCCL_CROSS_NIC=0``) and the commenter (it worked). k10s finds nothing at all — right for a
  control (no one named), though the NCCL WARN itself goes unreported.

Contrasts: rank 1's copy beside a ``[Rank 0]`` copy, or the line untagged, still names no one; a ``[rank0]:`` CUDA OOM
before rank 1's watchdog names rank 0 (cuda-oom), a ``[rank1]:`` one names rank 1; a ``[rank4]:`` OOM after the
INFO lines names rank 4, a ``[rank0]:`` ``DistStoreError ... 2/8 clients joined`` (the store host, a waiter) no one;
a ``[rank5]:`` ``DistBackendError`` after the NCCL WARN names rank 5 (nccl-error), the same line untagged no one.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

WATCHDOG = corpus_lines("vllm-42354-")
INFO_ONLY = corpus_lines("vllm-45150-")
IBV_WARN = corpus_lines("nccl-2013-rail-")

OOM_GIB = "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free."
#: rank 0's copy of the watchdog lines beside rank 1's
WATCHDOG_BOTH = [line.replace("[Rank 1]", "[Rank 0]") for line in WATCHDOG] + WATCHDOG
#: the watchdog lines without the rank tag
WATCHDOG_UNTAGGED = [line.replace("[Rank 1] ", "") for line in WATCHDOG]
#: rank 0's own CUDA OOM before rank 1's watchdog
WATCHDOG_RANK0_OOM = [f"[rank0]: torch.OutOfMemoryError: {OOM_GIB}"] + WATCHDOG
#: rank 1's own CUDA OOM after its watchdog
WATCHDOG_RANK1_OOM = WATCHDOG + [f"[rank1]: torch.OutOfMemoryError: {OOM_GIB}"]
#: rank 4's own CUDA OOM after the INFO lines
INFO_RANK4_OOM = INFO_ONLY + [f"[rank4]: torch.OutOfMemoryError: {OOM_GIB}"]
#: the store host's timeout (a waiter) after the INFO lines
INFO_RANK0_DISTSTORE = INFO_ONLY + [
    "[rank0]: torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 2/8 clients joined."
]
DIST_BACKEND = (
    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3690, "
    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.3"
)
#: rank 5's own DistBackendError after the NCCL WARN
IBV_WARN_RANK5 = IBV_WARN + [f"[rank5]: {DIST_BACKEND}"]
#: the same DistBackendError untagged
IBV_WARN_UNTAGGED_ERROR = IBV_WARN + [DIST_BACKEND]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "watchdog-as-pasted": (WATCHDOG, None, None, None, None),
    "watchdog-two-nodes": (WATCHDOG, 1, 2, None, None),
    "info-only-as-pasted": (INFO_ONLY, None, None, None, None),
    "info-only-world-eight": (INFO_ONLY, None, 8, None, None),
    "ibv-warn-as-pasted": (IBV_WARN, None, None, None, None),
    "ibv-warn-hgx-nodes": (IBV_WARN, 8, None, None, None),
    # variants that must not name anyone
    "watchdog-both-ranks-names-none": (WATCHDOG_BOTH, 1, 2, None, None),
    "watchdog-untagged-names-none": (WATCHDOG_UNTAGGED, 1, 2, None, None),
    "info-rank0-diststore-names-none": (INFO_RANK0_DISTSTORE, None, 8, None, None),
    "ibv-warn-untagged-error-names-none": (IBV_WARN_UNTAGGED_ERROR, 8, 16, None, None),
    # contrasts that must name a rank
    "watchdog-rank0-oom-names-rank0": (WATCHDOG_RANK0_OOM, 1, 2, 0, "cuda-oom"),
    "watchdog-rank1-oom-names-rank1": (WATCHDOG_RANK1_OOM, 1, 2, 1, "cuda-oom"),
    "info-rank4-oom-names-rank4": (INFO_RANK4_OOM, None, 8, 4, "cuda-oom"),
    "ibv-warn-rank5-error-names-rank5": (IBV_WARN_RANK5, 8, 16, 5, "nccl-error"),
}
BATCHED = Batched("b392", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_dec_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_lone_rank1_watchdog_is_a_rankless_hang_at_info(tmp_path):
    """vllm#42354 as collected: rank 1's watchdog is a waiter's line; the hang has no single culprit (the NCCL build both
    nodes loaded), said at info, with no rank."""
    want = [("nccl-hang", "info", "no-single-culprit", [])]
    assert _gist(WATCHDOG, tmp_path / "a", None, None) == want
    assert _gist(WATCHDOG, tmp_path / "b", 1, 2) == want


def test_info_lines_of_a_start_up_hang_say_nothing(tmp_path):
    """vllm#45150 as collected: the shm_broadcast notice and start-up INFO lines carry no failure; nothing is named.
    (Read since session 63: the shm_broadcast wait is an info hang symptom with no rank, nccl-hang's serving-wait:
    tests/test_lock_timeout_and_waiter_wordings.py.)"""
    assert _gist(INFO_ONLY, tmp_path / "a", None, None) == [("nccl-hang", "info", "serving-wait", [])]
    assert _gist(INFO_ONLY, tmp_path / "b", None, 8) == [("nccl-hang", "info", "serving-wait", [])]


def test_lone_ibv_modify_qp_warn_says_nothing(tmp_path):
    """NVIDIA/nccl#2013 as collected: one device-tagged ``NCCL WARN Call to ibv_modify_qp failed with 110`` line from
    one host names no one — right for a control. Since session 63 it is said as a rankless nccl-error warning (NCCL's
    queue pair that would not come up, what to check: tests/test_lock_timeout_and_waiter_wordings.py)."""
    assert _gist(IBV_WARN, tmp_path / "a", None, None) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(IBV_WARN, tmp_path / "b", 8, None) == [("rank-failure", "warning", "nccl-error", [])]
