"""Session 33 (issue 18): a Ray actor's ``[rank=N]`` prefix is a rank tag wherever it appears. NeMo-RL's Megatron
policy workers print behind ``(MegatronPolicyWorker[rank=107] pid=3340050, ip=10.1.107.221)`` (the actor's class repr
with its rank), and a Ray worker's own logging may put a bare ``[rank=3] `` before its message; both were read as no
rank (the watchdog's group-local ``[Rank 6]`` of NeMo-RL-2140 then stood for the process). Reading the rank made
NeMo-RL-2937's control name its rank 8 for a lone faulthandler abort (``Fatal Python error: Aborted`` and a thread
dump with no Python frame, nothing else in the log): a log whose only failure lines are faulthandler's abort names no
rank (the dump says where Python was when native code aborted, not why: NCCL's watchdog aborts a process stuck in a
collective so), while a launcher's SIGABRT report, or a faulthandler abort beside other failures, reads as before
(parsers/log_normalize.py, queries/_failure_line.sql ``lone_dump``; docs/rules.md "Session 33: leftovers").
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
WD = ("[PG ID 6 PG GUID 266(PIPELINE_MODEL_PARALLEL_GROUP) Rank 6] Process group watchdog thread terminated with exception: "
      "[Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn=0, NumelOut=0, "
      "Timeout(ms)=600000) ran for 651125 milliseconds before timing out.")


@pytest.mark.parametrize(("prefix", "rank"), [
    ("(MegatronPolicyWorker[rank=107] pid=3340050, ip=10.1.107.221) ", 107),  # NeMo-RL's policy worker
    ("(MegatronPolicyWorker[rank=8] pid=3294808, ip=10.109.19.209) ", 8),
    ("(DTensorPolicyWorker[rank=3] pid=12) ", 3),  # no ip
    ("(VllmGenerationWorker[rank=0] pid=xxxxxx, ip=x.x.x.x) ", 0),  # masked pid and ip
    ("\x1b[36m(MegatronPolicyWorker[rank=12] pid=7, ip=10.0.0.1)\x1b[0m ", 12),  # Ray's colours
    ("[rank=3] ", 3),  # a worker's logging format's bare rank field
    ("2026-03-23 05:15:22,428 [rank=5] ", 5),
    ("[f35a2cc1] [rank=1] || ", 1),  # Determined's, as before
    # contrasts: an actor without a rank, Ray's own processes, a rank inside the message
    ("(MegatronPolicyWorker pid=3340050, ip=10.1.107.221) ", None),
    ("(raylet, ip=10.0.0.4) ", None),
    ("(TaskRunner pid=6) world_size=8 [rank=3]x ", None),
])
def test_a_ray_actors_rank_prefix_is_its_rank(prefix, rank):
    assert normalize(prefix + "RuntimeError: boom").rank == rank


def test_the_watchdogs_group_rank_is_not_the_process():
    norm = normalize("(MegatronPolicyWorker[rank=107] pid=3340050, ip=10.1.107.221) [2026-03-23 05:15:22,428 E 3340050 "
                     "3341761] logging.cc:118: Unhandled exception: N3c1016DistBackendErrorE. what(): " + WD)
    assert norm.rank == 107 and norm.relayed


def _actor(rank: int, lines: list[str]) -> list[str]:
    return [f"(MegatronPolicyWorker[rank={rank}] pid={3294800 + rank}, ip=10.109.19.{rank}) {ln}" for ln in lines]


DUMP = ["Fatal Python error: Aborted", "", "Thread 0x0000ff67b3f7f180 (most recent call first):", "  <no Python frame>", "",
        "Thread 0x0000ff6e40f2f180 (most recent call first):", "  <no Python frame>"]
#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # NeMo-RL-2937's shape: one actor's faulthandler abort and its dump, nothing else
    "lone-actor-dump": (_actor(8, DUMP), None),
    "lone-actor-dump-two-actors": (_actor(8, DUMP) + _actor(9, DUMP), None),
    "lone-bare-rank-dump": ([f"[rank=4] {ln}" for ln in DUMP], None),
    # NeMo-RL-2140's shape: one actor's first p2p timeout in its pipeline group: a waiter, named by no one
    "lone-actor-pp-timeout": (_actor(107, ["[2026-03-23 05:15:22,428 E 3340050 3341761] logging.cc:118: Unhandled exception: "
                                           "N3c1016DistBackendErrorE. what(): " + WD]), None),
    # contrasts: an actor's own CUDA error before its abort is its own failure ...
    "actor-cuda-error-then-dump": (_actor(5, ["RuntimeError: CUDA error: an illegal memory access was encountered"] + DUMP), 5),
    # ... and a launcher's SIGABRT report of one rank still names it (a lone rank's own abort, as before)
    "launcher-abort-report": ([
        "E0401 00:26:08.212000 3016633 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) "
        "local_rank: 1 (pid: 3016739) of binary: /usr/bin/python3"], 1),
}
BATCHED = Batched("s33-ray-rank", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_lone_faulthandler_abort_names_no_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
