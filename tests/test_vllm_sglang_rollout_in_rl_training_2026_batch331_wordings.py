"""Failures of RL post-training with a vLLM / SGLang rollout engine (real incidents batch 331), pinned as read.
Four incidents, collected blind: three controls and one culprit. The controls are read right (no one named): the tail of
a miles (slime) GLM-5 weight sync into SGLang, progress bars and ``200 OK`` only, before the hang a Megatron-LM bump
causes (radixark/miles#687); a second ``swift rollout`` server on the node whose ``/init_communicator/`` ends in the
engine core's ``Invocation of collective_rpc method failed`` (modelscope/ms-swift#6866: both jobs' weight-sync groups on
one port); a verl vLLM worker's ``WorkerProc failed to start.`` and its traceback's head (verl-project/verl#6677: vLLM's
single-node init-port race, whichever engine starts second loses). The culprit is missed (NOT_YET, batch 331): vLLM V1's
engine-client notice ``Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.`` before ms-swift's
rollout worker's ``Method execution failed: infer`` traceback (modelscope/ms-swift#7933) reads as nothing at all, where
the executor's ``Worker proc VllmWorker-1 died unexpectedly`` names rank 1. Scored 3/4 both ways as collected; no rule
changed (measure only). Contrasts: a ``[rank7]:`` CUDA OOM after the weight sync names rank 7; a ranked vLLM worker's
illegal memory access in place of the engine core's RPC failure names rank 0; the trainer's ``[rank0]:`` EADDRINUSE,
and EADDRINUSE under the worker even when it carries ``VllmWorker rank=1``, name no one (a port collision is the
launch's); without EADDRINUSE the ranked worker's cut traceback is an info suspect only; without the engine-client
notice nothing is read. Pasted logs through ``k10s import-logs``, batched.
Since session 56 the engine-client notice names engine 1 (exit-unknown; the expectation's rank-dead stays NOT_YET).
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

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

WEIGHT_SYNC_DONE = corpus_lines("miles-687-")
SECOND_SERVER = corpus_lines("ms-swift-6866-")
DP1_DIED = corpus_lines("ms-swift-7933-")
PORT_RACE = corpus_lines("verl-6677-")

#: the words torch's TCPStore raises when the port it binds is taken (verl#6677's traceback ends in them)
EADDRINUSE = (
    "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address."
    " port: 32847, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"
)
#: verl#6677's prefix: the Ray actor's and the vLLM worker's pids, no rank
RACE_PREFIX = "(vLLMHttpServer pid=6840) (Worker pid=7181)"

#: the weight sync's tail, then a training rank's CUDA OOM (the hang's other face in the thread's title)
WEIGHT_SYNC_RANK7_OOM = WEIGHT_SYNC_DONE + [
    "(MegatronTrainRayActor pid=28746) [rank7]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    " GPU 7 has a total capacity of 178.35 GiB of which 1.02 GiB is free."
]
#: the second server's startup, then the trainer's own ``[rank0]:`` EADDRINUSE
SECOND_SERVER_TRAINER_EADDRINUSE = SECOND_SERVER + ["[rank0]: " + EADDRINUSE]
#: the engine core's RPC failure replaced by a ranked vLLM worker's illegal memory access
SECOND_SERVER_WORKER_FAULT = SECOND_SERVER[:-1] + [
    "(VllmWorker rank=0 pid=1558904) ERROR 12-03 10:29:14 [multiproc_executor.py:517] RuntimeError: CUDA error: an"
    " illegal memory access was encountered"
]
#: the engine-client notice in the executor's wording: ``Worker proc VllmWorker-1 died unexpectedly``
DP1_EXECUTOR_WORDING = [
    DP1_DIED[0].replace(
        "[core_client.py:564] Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.",
        "[multiproc_executor.py:140] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.",
    )
] + DP1_DIED[1:]
#: ms-swift's traceback without vLLM's notice
DP1_NO_NOTICE = DP1_DIED[1:]
#: the worker's traceback with its last line, EADDRINUSE, under the same pid-only prefix
PORT_RACE_EADDRINUSE = PORT_RACE + [
    f"{RACE_PREFIX} ERROR 06-09 17:58:55 [multiproc_executor.py:852] {EADDRINUSE}"
]
#: the worker re-tagged as vLLM's ranked worker (``(VllmWorker rank=1 pid=7181)``), with and without EADDRINUSE
PORT_RACE_RANKED = [
    line.replace(RACE_PREFIX, "(VllmWorker rank=1 pid=7181)") for line in PORT_RACE
]
PORT_RACE_RANKED_EADDRINUSE = [
    line.replace(RACE_PREFIX, "(VllmWorker rank=1 pid=7181)")
    for line in PORT_RACE_EADDRINUSE
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "weight-sync-done-as-pasted": (WEIGHT_SYNC_DONE, None, None, None, None),
    "weight-sync-done-eight-ranks": (WEIGHT_SYNC_DONE, 8, 8, None, None),
    "second-server-as-pasted": (SECOND_SERVER, None, None, None, None),
    "second-server-one-gpu": (SECOND_SERVER, 1, 1, None, None),
    # NOT_YET: the culprit, data-parallel engine 1, is not named (its expectation: rank 1, rank-dead)
    "dp1-died-as-pasted": (DP1_DIED, None, None, 1, "exit-unknown"),
    "dp1-died-two-engines": (DP1_DIED, 2, 2, 1, "exit-unknown"),
    "port-race-as-pasted": (PORT_RACE, None, None, None, None),
    "port-race-two-engines": (PORT_RACE, 2, 2, None, None),
    # contrasts
    "weight-sync-then-rank7-oom-names-rank7": (
        WEIGHT_SYNC_RANK7_OOM,
        8,
        8,
        7,
        "cuda-oom",
    ),
    "second-server-trainer-eaddrinuse-names-none": (
        SECOND_SERVER_TRAINER_EADDRINUSE,
        2,
        2,
        None,
        None,
    ),
    "second-server-worker-fault-names-rank0": (
        SECOND_SERVER_WORKER_FAULT,
        1,
        1,
        0,
        "cuda-error",
    ),
    "dp1-executor-wording-names-rank1": (DP1_EXECUTOR_WORDING, 2, 2, 1, "exit-unknown"),
    "dp1-without-notice-names-none": (DP1_NO_NOTICE, 2, 2, None, None),
    "port-race-eaddrinuse-names-none": (PORT_RACE_EADDRINUSE, 2, 2, None, None),
    "port-race-ranked-eaddrinuse-names-none": (
        PORT_RACE_RANKED_EADDRINUSE,
        2,
        2,
        None,
        None,
    ),
}
BATCHED = Batched("b331", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rl_rollout_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_engine_client_dp1_notice_names_engine_1(tmp_path):
    """vLLM's ``Engine core proc EngineCore_DP1 died unexpectedly`` names engine 1 since session 56 (exit-unknown: how it
    died no line says; NOT_YET for the expectation's rank-dead), as the executor's VllmWorker-N notice names its worker;
    it left no finding at all before."""
    named = naming_findings(pasted_findings(DP1_DIED, tmp_path, 2, 2, NOW))
    assert [(f["rule"], f["cause"], f["ranks"]) for f in named] == [("rank-failure", "exit-unknown", [1])]


def test_ranked_worker_cut_traceback_is_a_suspect_only(tmp_path):
    """Under ``(VllmWorker rank=1 pid=…)`` the worker's traceback, cut before EADDRINUSE, makes rank 1 an info suspect
    (its exception is not in the paste), not a culprit."""
    assert_info_suspect(pasted_findings(PORT_RACE_RANKED, tmp_path, 2, 2, NOW), 1)
