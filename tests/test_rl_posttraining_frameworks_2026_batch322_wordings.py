"""RL post-training frameworks' multi-GPU failures (real incidents batch 322), pinned as read.
One culprit and three controls, collected blind. The culprit, Ray's memory-monitor notice from a verl DAPO run
(verl-project/verl#2950: ``Task was killed due to the node running low on memory.`` naming the task
``name=8szhVkWorkerDict_0:3:WorkerDict.__init__`` that ``Ray killed``), was read as a host-oom-kill (warning) of no rank
as collected (NOT_YET); since session 55 the kill notice's ``name=<actor>:<Class>.<method>`` gives the ``WorkerDict_0:N``
rank as Ray's ``ActorDiedError`` does: rank 3, host-oom-kill (warning: the paste holds its lines only). The controls name no one laid out as the threads say: the head of
a ``[rank0]:`` Python 3.13 traceback without its exception line (huggingface/trl#5301: a wrong attribute chain in GRPO's
colocate mode, fixed by trl#5302) is an info suspect of rank 0; the same memory notice killing the driver ``main_task``
(verl-project/verl#529) is a host-oom-kill of no rank on four GPUs (with no layout given too since session 66: it was
rank 0's, the pod's only process); vLLM's ``(EngineCore_DP2 pid=…) ERROR … Invocation of collective_rpc method failed`` (NovaSky-AI/SkyRL#1398: a
DP rank-offset bug in weight sync, fixed by SkyRL#1399) is no finding at all. Scored 3/4 both ways as collected, no
control named; no rule changed (measure only). Contrasts: Ray's ``ActorDiedError`` for the same worker names rank 3
(exit-unknown), and with the memory notice rank 3 host-oom-kill; the worker's name put in the driver's place names that
worker's rank (2); an ``AttributeError`` line under ``[rank0]:`` names rank 0 (python-exception), renumbered ``[rank1]:`` rank 1;
an engine-core ``RuntimeError: NCCL error`` line is an nccl-error of no rank; ``[rank2]:`` tags make rank 2 an info
suspect. Pasted logs through ``k10s import-logs``, batched.
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

NOW = dt.datetime(2026, 12, 5, 17, 30, tzinfo=dt.timezone.utc)

RAY_OOM_WORKER = corpus_lines("verl-2950-")
GRPO_COLOCATE = corpus_lines("trl-5301-")
RAY_OOM_DRIVER = corpus_lines("verl-529-")
DP_WEIGHT_SYNC = corpus_lines("skyrl-1398-")

#: Ray's ``ActorDiedError`` for the worker the memory monitor killed (the corpus' lone-worker shape, verl#4921's words)
ACTOR_DIED = [
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
    "\tclass_name: create_colocated_worker_cls.<locals>.WorkerDict",
    "\tactor_id: 9e43ace6a1234e13df7b456b01000000",
    "\tpid: 4100606",
    "\tname: 8szhVkWorkerDict_0:3",
    "\tnamespace: 19d4e19d-1f2a-47b7-937f-a77f0358c358",
    "\tip: 10.20.49.141",
    "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
    "unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The "
    "process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker "
    "is crashed unexpectedly due to SIGSEGV or other unexpected errors.",
]
#: the memory notice followed by Ray's report of the same worker dead
RAY_OOM_THEN_DIED = RAY_OOM_WORKER + ACTOR_DIED
#: the driver's memory notice with a worker's actor name in ``main_task``'s place
RAY_OOM_DRIVER_AS_WORKER = [
    line.replace("name=main_task", "name=8szhVkWorkerDict_0:2:WorkerDict.__init__")
    for line in RAY_OOM_DRIVER
]
#: the traceback head with the exception line the excerpt cut off
GRPO_EXCEPTION = GRPO_COLOCATE + [
    "[rank0]: AttributeError: 'GRPOTrainer' object has no attribute 'llm'"
]
#: the same, rank 1's
GRPO_EXCEPTION_RANK1 = [line.replace("[rank0]", "[rank1]") for line in GRPO_EXCEPTION]
#: the engine core's traceback ending in an NCCL error
DP_NCCL_ERROR = DP_WEIGHT_SYNC + [
    "(AsyncVLLMInferenceEngine pid=597306) (EngineCore_DP2 pid=598582) ERROR 03-26 20:21:53 [core.py:1299] "
    "RuntimeError: NCCL error: invalid usage"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ray-oom-worker-as-pasted": (RAY_OOM_WORKER, None, None, 3, "host-oom-kill"),
    "ray-oom-worker-four-workers": (RAY_OOM_WORKER, 4, 4, 3, "host-oom-kill"),
    "grpo-colocate-as-pasted": (GRPO_COLOCATE, None, None, None, None),
    # session 66: no rank (it named rank 0, the pod holding the driver's notice; the truth is the driver's main_task killed)
    "ray-oom-driver-as-pasted": (RAY_OOM_DRIVER, None, None, None, None),
    "ray-oom-driver-four-gpus": (RAY_OOM_DRIVER, 4, 4, None, None),
    "dp-weight-sync-as-pasted": (DP_WEIGHT_SYNC, None, None, None, None),
    # contrasts
    "actor-died-names-rank3": (ACTOR_DIED, 4, 4, 3, "exit-unknown"),
    "ray-oom-then-died-names-rank3": (RAY_OOM_THEN_DIED, 4, 4, 3, "host-oom-kill"),
    "ray-oom-driver-as-worker-names-rank2": (RAY_OOM_DRIVER_AS_WORKER, 4, 4, 2, "host-oom-kill"),
    "grpo-exception-names-rank0": (GRPO_EXCEPTION, 2, 2, 0, "python-exception"),
    "grpo-exception-rank1-names-rank1": (
        GRPO_EXCEPTION_RANK1,
        2,
        2,
        1,
        "python-exception",
    ),
    "dp-nccl-error-names-none": (DP_NCCL_ERROR, None, None, None, None),
}
BATCHED = Batched("b322", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rl_posttraining_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_ray_memory_notice_is_a_host_oom_kill_of_the_workers_rank(tmp_path):
    """Ray's memory-monitor notice is read (host-oom-kill, warning) of the rank its ``WorkerDict_0:3`` task names (session
    55; no rank as collected, NOT_YET then), renumbered ``WorkerDict_0:5`` on eight workers rank 5."""
    assert _failures(RAY_OOM_WORKER, tmp_path / "a", 4) == [
        ("warning", "host-oom-kill", [3])
    ]
    renumbered = [
        line.replace("WorkerDict_0:3", "WorkerDict_0:5") for line in RAY_OOM_WORKER
    ]
    assert _failures(renumbered, tmp_path / "b", 8) == [
        ("warning", "host-oom-kill", [5])
    ]


def test_traceback_head_without_exception_is_a_rank0_suspect(tmp_path):
    """``[rank0]:`` frames with no exception line: rank 0 only an info suspect, not a culprit."""
    assert_info_suspect(pasted_findings(GRPO_COLOCATE, tmp_path, None, None, NOW), 0)


def test_engine_core_traceback_head_is_no_finding(tmp_path):
    """vLLM's engine-core ``Invocation of collective_rpc method failed`` and its traceback head under Ray's and the
    engine's prefixes: no finding; ``[rank2]:`` tags on the same lines make rank 2 an info suspect."""
    assert pasted_findings(DP_WEIGHT_SYNC, tmp_path / "a", None, None, NOW) == []
    tagged = ["[rank2]: " + line for line in DP_WEIGHT_SYNC]
    assert_info_suspect(pasted_findings(tagged, tmp_path / "b", None, None, NOW), 2)
