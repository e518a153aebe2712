"""Agentic / multi-turn RL with rollout engines (real incidents batch 230), pinned as read. One culprit: verl's SGLang
multi-turn example whose driver reports ``ActorDiedError`` for ``S9sqlPWorkerDict_0:4`` (verl-project/verl#1759: the
same process, pid 108920, raised in SGLang's decode) names rank 4 from the actor name, with its terminal wraps joined
or kept. Controls that name no one: all eight SGLang servers' ``CUresult error: 2 (out of memory)`` at verl's
``resume_memory_occupation`` (sgl-project/sglang#14092, seven of them folded into Ray's ``[repeated 7x across
cluster]``), OpenRLHF's vLLM engines failing to construct under vllm 0.2.2 (OpenRLHF/OpenRLHF#184, a version), one
``WorkerDict``'s SIGFPE in vLLM's logits on H20 (qiancheng0/ToolRL#26: cuBLAS, every worker alike), raylet's one-line
worker death after every first epoch (verl-project/verl#2189: a memory growth fixed in code). Miss, left NOT_YET:
verl-project/verl#1208's ``ActorDiedError`` for ``PfngwQWorkerDict_0:2`` names rank 2, the lone-worker shape line for
line; only the thread (a flashinfer regression running every GH200 worker out of memory, fixed by a version) makes it
a control. Contrasts: the same death reported for a ``TaskRunner`` actor (no worker-group rank) names no one; a
rank-tagged lone CUDA OOM in a ``WorkerDict`` names its rank. No rule changed for the batch (measure only). Pasted
logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.timezone.utc)

WORKER4_DIED = corpus_lines("verl-1759-")
WORKER2_DIED = corpus_lines("verl-1208-")
SERVERS_OOM = corpus_lines("sglang-14092-")
ENGINES_VERSION = corpus_lines("OpenRLHF-184-")
LONE_SIGFPE = corpus_lines("ToolRL-26-")
RAYLET_DIED = corpus_lines("verl-2189-")


def _joined(lines: list[str]) -> list[str]:
    """The paste with the author's terminal wraps undone (a continuation line starts lower-case)."""
    out: list[str] = []
    for line in lines:
        if out and line[:1].islower() and not line.startswith(" "):
            out[-1] += line
        else:
            out.append(line)
    return out


#: the driver behind Ray's log prefix (a job's console as ``ray job logs`` serves it)
PREFIXED = [f"(TaskRunner pid=3483799) {line}" for line in WORKER4_DIED]
#: the same death reported for the driver-side actor, which has no worker-group rank
TASKRUNNER_DIED = [line.replace("create_colocated_worker_cls.<locals>.WorkerDict", "TaskRunner")
                   for line in WORKER4_DIED if "name: " not in line]
#: a rank-tagged lone CUDA OOM inside one verl worker
RANK3_OOM = [
    "(WorkerDict pid=51234, ip=10.0.0.2) [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
    "2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.02 GiB is free.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the culprit, as pasted and re-laid
    "worker4-died-as-pasted": (WORKER4_DIED, None, None, 4, "exit-unknown"),
    "worker4-died-wraps-joined": (_joined(WORKER4_DIED), None, None, 4, "exit-unknown"),
    "worker4-died-pods-of-8": (WORKER4_DIED, 8, 8, 4, "exit-unknown"),
    "worker4-died-taskrunner-prefix": (PREFIXED, None, None, 4, "exit-unknown"),
    # the miss as read (NOT_YET in the corpus): the lone-worker shape
    "worker2-died-version-as-read": (WORKER2_DIED, None, None, 2, "exit-unknown"),
    # controls
    "servers-oom-as-pasted": (SERVERS_OOM, None, None, None, None),
    "servers-oom-pods-of-8": (SERVERS_OOM, 8, 8, None, None),
    "engines-version-as-pasted": (ENGINES_VERSION, None, None, None, None),
    "lone-sigfpe-as-pasted": (LONE_SIGFPE, None, None, None, None),
    "lone-sigfpe-pods-of-8": (LONE_SIGFPE, 8, 8, None, None),
    "raylet-died-as-pasted": (RAYLET_DIED, None, None, None, None),
    # contrasts
    "taskrunner-died-names-none": (TASKRUNNER_DIED, None, None, None, None),
    "rank3-oom-names-rank3": (RANK3_OOM, None, None, 3, "cuda-oom"),
}
BATCHED = Batched("b230", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_agentic_rl_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
