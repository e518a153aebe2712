"""RL post-training (verl / OpenRLHF / TRL) multi-node failures (real incidents batch 304), pinned as read.
Three controls, collected blind, all OpenRLHF Ray runs out of host memory: the driver's ``ray.get(refs)`` traceback
ending in Ray's ``OutOfMemoryError: Task was killed due to the node running low on memory.`` (OpenRLHF/OpenRLHF#332:
70B PPO with ZeRO-3 optimizer offload on two 8-GPU nodes); Ray's ``The actor is dead because its worker process has
died ... (1) The process is killed by SIGKILL by OOM killer`` line (OpenRLHF/OpenRLHF#187: 537GB used over a 500G docker
limit); the raylet's ``[33m(raylet) A worker died or was killed while executing a task`` line for a custom reward
function's Ray task (OpenRLHF/OpenRLHF#1139). Each reads as a host-oom-kill warning of no rank. Scored 3/3 both ways
as collected, none named; no rule changed (measure only). Contrasts: a ``[rank3]:`` CUDA OOM in place of Ray's line
names rank 3 (cuda-oom); the actor line under a ``[rank1]:`` tag names rank 1; the agent's ``failed (exitcode: -9)
local_rank: 2`` after the raylet line names rank 2 (host-oom-kill, critical). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.timezone.utc)

RAY_NODE_OOM = corpus_lines("OpenRLHF-332-")
ACTOR_DEAD = corpus_lines("OpenRLHF-187-")
RAYLET_WORKER_DIED = corpus_lines("OpenRLHF-1139-")

#: the driver traceback ending in a rank's CUDA OOM instead of Ray's node-memory kill
RAY_NODE_RANK3_CUDA_OOM = RAY_NODE_OOM[:-1] + [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of"
    " 79.33 GiB of which 1.02 GiB is free."
]
#: Ray's dead-actor line under a ``[rank1]:`` tag
ACTOR_DEAD_RANK1 = ["[rank1]: " + ACTOR_DEAD[0]]
#: the raylet line followed by the agent's report of local rank 2 killed by signal 9
RAYLET_THEN_AGENT_SIG9 = RAYLET_WORKER_DIED + [
    "torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 11 closing signal SIGTERM",
    "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 1633485) of binary:"
    " /usr/bin/python",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ray-node-oom-as-pasted": (RAY_NODE_OOM, None, None, None, None),
    "ray-node-oom-two-nodes": (RAY_NODE_OOM, 8, 16, None, None),
    "actor-dead-as-pasted": (ACTOR_DEAD, None, None, None, None),
    "actor-dead-eight-gpus": (ACTOR_DEAD, 8, 8, None, None),
    "raylet-worker-died-as-pasted": (RAYLET_WORKER_DIED, None, None, None, None),
    "raylet-worker-died-four-gpus": (RAYLET_WORKER_DIED, 4, 4, None, None),
    # contrasts
    "ray-node-rank3-cuda-oom-names-rank3": (
        RAY_NODE_RANK3_CUDA_OOM,
        8,
        16,
        3,
        "cuda-oom",
    ),
    "actor-dead-rank1-names-rank1": (ACTOR_DEAD_RANK1, 8, 8, 1, "host-oom-kill"),
    "raylet-then-agent-sig9-names-rank2": (
        RAYLET_THEN_AGENT_SIG9,
        4,
        4,
        2,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b304", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rl_post_training_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


@pytest.mark.parametrize(
    ("lines", "nproc", "world"),
    [(RAY_NODE_OOM, 8, 16), (ACTOR_DEAD, 8, 8), (RAYLET_WORKER_DIED, 4, 4)],
    ids=["ray-node-oom", "actor-dead", "raylet-worker-died"],
)
def test_ray_host_memory_kills_are_a_failure_of_no_rank(lines, nproc, world, tmp_path):
    """Ray's node-memory kill and its dead-worker boilerplate (SIGKILL by OOM killer among possible causes) read as a
    host-oom-kill warning of no rank: the Ray worker is not mapped to a training rank."""
    assert _failures(lines, tmp_path, nproc, world) == [
        ("warning", "host-oom-kill", [])
    ]
