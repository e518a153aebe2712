"""Training jobs stopped from outside (real incidents batch 320, spot-preemption-sigterm-node-shutdown), pinned as read.
Four controls, collected blind, all read right both ways as collected (no one named): submitit's ``Caught signal SIGHUP
on learnfair0293: this job is preempted.`` and ``Requeued job 60601445`` for global rank 0 of 2
(facebookincubator/submitit#1701, the author's own preemption test); TensorFlow's ``ShutdownHook: lame workers found:
HeartbeatManager(/job:worker/replica:0/task:0/device:CPU:0)`` after a preemptible Cloud TPU was reclaimed
(megagonlabs/t5-japanese#1); SkyPilot's spot controller ``The cluster is preempted.`` then E-level ``Failed to cancel
jobs on cluster bert-qa-39.`` (skypilot-org/skypilot#804); ``kubectl describe pod``'s ``Reason: Evicted`` / ``Message:
The node was low on resource: memory.`` for a TFJob master pod (kubeflow/trainer#301). Scored once as collected: 4/4
both ways, 0 of 4 controls named; no rule changed (measure only). None of the four outside stops was read as a stop
either (no finding at all); since session 55 three of them are the job's stop (disruption, warning, no rank). Contrasts: the launcher's
``exitcode: -15`` and the agent's ``Received 15 death signal`` name no one, its ``exitcode: -9`` names that rank
(host-oom-kill); a rank's own traceback names it; JAX's lost ``task:1`` names rank 1; Slurm's ``DUE TO PREEMPTION`` /
``DUE TO NODE FAILURE`` in the same pastes are read as the job's stop (disruption, warning, no rank).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 17, 30, tzinfo=dt.timezone.utc)

SUBMITIT_PREEMPTED = corpus_lines("submitit-1701-")
TPU_LAME_WORKER = corpus_lines("t5-japanese-1-")
SPOT_CLUSTER_PREEMPTED = corpus_lines("skypilot-804-")
POD_EVICTED = corpus_lines("trainer-301-")

AGENT = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {code}) local_rank: {rank} (pid: 4242) of binary: /usr/bin/python"
#: the preempted job's log followed by torchrun's report of local rank 1 ended by SIGTERM (the stop's own signal)
SUBMITIT_AGENT_SIGTERM = SUBMITIT_PREEMPTED + [AGENT.format(code=-15, rank=1)]
#: … of local rank 1 ended by SIGKILL with no SIGTERM first (the host's OOM killer)
SUBMITIT_AGENT_SIGKILL = SUBMITIT_PREEMPTED + [AGENT.format(code=-9, rank=1)]
#: the job's start, then rank 1's own exception in place of the preemption
SUBMITIT_RANK1_EXCEPTION = SUBMITIT_PREEMPTED[:3] + [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "train.py", line 10, in <module>',
    "[rank1]: RuntimeError: boom",
]
#: the lame-worker shutdown followed by torchrun's agent taking SIGTERM
TPU_DEATH_SIGNAL = TPU_LAME_WORKER + [
    "W0902 03:34:22.000000 140070334211904 torch/distributed/elastic/agent/server/api.py:723] Received 15 death signal, shutting down workers"
]
#: the lame-worker shutdown worded by JAX's coordination service, which names the lost task
TPU_JAX_TASK1_LOST = TPU_LAME_WORKER + [
    "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
    "/job:jax_worker/replica:0/task:1",
]
#: the controller's preemption block followed by rank 3's own exception
SPOT_RANK3_EXCEPTION = SPOT_CLUSTER_PREEMPTED + [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "train.py", line 88, in <module>',
    "[rank3]: ValueError: bad batch",
]
#: the eviction block followed by torchrun's report of local rank 0 SIGKILLed
EVICTED_AGENT_SIGKILL = POD_EVICTED + [AGENT.format(code=-9, rank=0)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say: four controls, no one named
    "submitit-preempted-as-pasted": (SUBMITIT_PREEMPTED, None, None, None, None),
    "submitit-preempted-two-ranks": (SUBMITIT_PREEMPTED, 2, 2, None, None),
    "tpu-lame-worker-as-pasted": (TPU_LAME_WORKER, None, None, None, None),
    "spot-cluster-preempted-as-pasted": (
        SPOT_CLUSTER_PREEMPTED,
        None,
        None,
        None,
        None,
    ),
    "pod-evicted-as-pasted": (POD_EVICTED, None, None, None, None),
    # contrasts
    "submitit-agent-sigterm-names-none": (SUBMITIT_AGENT_SIGTERM, 2, 2, None, None),
    "submitit-agent-sigkill-names-rank1": (
        SUBMITIT_AGENT_SIGKILL,
        2,
        2,
        1,
        "host-oom-kill",
    ),
    "submitit-rank1-exception-names-rank1": (
        SUBMITIT_RANK1_EXCEPTION,
        2,
        2,
        1,
        "python-exception",
    ),
    "tpu-death-signal-names-none": (TPU_DEATH_SIGNAL, None, None, None, None),
    "tpu-jax-task1-lost-names-rank1": (
        TPU_JAX_TASK1_LOST,
        None,
        None,
        1,
        "python-exception",
    ),
    "spot-rank3-exception-names-rank3": (
        SPOT_RANK3_EXCEPTION,
        4,
        4,
        3,
        "python-exception",
    ),
    "pod-evicted-agent-sigkill-names-rank0": (
        EVICTED_AGENT_SIGKILL,
        2,
        2,
        0,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b320", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_outside_stop_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    ("lines", "want"),
    [(SUBMITIT_PREEMPTED, [("disruption", "warning", "preempted", [])]), (TPU_LAME_WORKER, []),
     (SPOT_CLUSTER_PREEMPTED, [("disruption", "warning", "spot-reclaimed", [])]),
     (POD_EVICTED, [("disruption", "warning", "evicted", [])])],
    ids=["submitit-preempted", "tpu-lame-worker", "spot-cluster-preempted", "pod-evicted"],
)
def test_outside_stops_as_pasted(lines, want, tmp_path):
    """None of the four outside stops was read as a stop as collected (no finding at all: right by rank, silent on the
    stop). Since session 55 (this batch's suggestion) submitit's ``this job is preempted``, SkyPilot's ``The cluster is
    preempted.`` and the kubelet's ``The node was low on resource: memory.`` are the job's stop (disruption, warning, no
    rank); TensorFlow's ``lame workers found`` still reads as nothing."""
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, tmp_path, 2, 2, NOW)]
    assert got == want


def _stops(lines: list[str], folder: Path) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, None, None, NOW)
        if f["rule"] == "disruption"
    ]


def test_slurm_wording_of_the_same_stops_is_the_job_s_stop(tmp_path):
    """Slurm's own words for a preemption or a lost node, in the same pastes, are read as the job's stop: a warning
    disruption of no rank."""
    preempted = "slurmstepd: error: *** JOB 60601445 ON learnfair0293 CANCELLED AT 2022-07-12T04:18:46 DUE TO PREEMPTION ***"
    assert _stops(SUBMITIT_PREEMPTED + [preempted], tmp_path / "a") == [
        ("warning", "preempted", [])
    ]
    assert _stops(
        SPOT_CLUSTER_PREEMPTED + [preempted.replace("JOB 60601445", "STEP 77.0")],
        tmp_path / "b",
    ) == [("warning", "preempted", [])]
    node_failure = (
        "slurmstepd: error: *** JOB 42 ON gpu7 CANCELLED AT 2024-01-01T00:00:00 DUE TO NODE FAILURE, SEE "
        "SLURMCTLD LOG FOR DETAILS ***"
    )
    assert _stops(POD_EVICTED + [node_failure], tmp_path / "c") == [
        ("warning", "node-failure", [])
    ]
