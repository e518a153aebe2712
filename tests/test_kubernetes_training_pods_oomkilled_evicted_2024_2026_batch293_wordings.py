"""Kubernetes training pods lost to the cluster (real incidents batch 293), pinned as read. Four incidents, collected
blind: three controls and one culprit. The controls name no one, as collected: the Ray autoscaler's ``Instance ... will
be terminated soon (reason: kubernetes-pod-termination)`` for three pods at once and the driver's placement-group
traceback (NovaSky-AI/SkyRL#1688: the job was preempted); an MPIJob's ``status:`` block with ``reason: MPIJobEvicted`` /
``message: 1/8 workers are evicted`` (kubeflow/mpi-operator#647: one unnamed worker evicted); a TFJob's ``TFJob myjob
has failed because 1 Worker replica(s) failed.`` with its replica counts (kubeflow/trainer#999: a preemptible GKE node
lost). The culprit, read as nothing as collected, is read right since session 52's reading of Ray Train v2's worker
context (tests/test_ray_train_v2_worker_context.py): the controller reporting the ``RayTrainWorker`` of
``DistributedContext(world_rank=1, world_size=2, ...)`` dead ``because its node has died`` / ``the actor's node was
preempted`` (ray-project/ray#63807: the author drained rank 1's node) names rank 1, rank-dead. Scored 3/4 both ways as
collected (measure only). Contrasts: a rank-tagged traceback, Ray Train's ``Worker 1 has failed.``, mpirun's ``exited on
signal 9`` and a rank's CUDA OOM name their rank; the tf-operator's ``Pod: ...-worker-3 exited with code 137`` event
for a TFJob names no one, while v1's group line with
Ray's ``Worker PID`` / ``SYSTEM_ERROR`` report names rank 1. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 5, 30, tzinfo=dt.timezone.utc)

POD_TERMINATION = corpus_lines("SkyRL-1688-")
MPIJOB_EVICTED = corpus_lines("mpi-operator-647-")
TFJOB_PREEMPTED = corpus_lines("kubeflow-trainer-999-")
NODE_DRAINED = corpus_lines("ray-63807-")

#: the pod terminations followed by Ray Train's trainer on a failed worker of its group
POD_TERMINATION_WORKER_FAILED = POD_TERMINATION + [
    "(TorchTrainer pid=89392) Worker 1 has failed."
]
#: the driver's traceback as rank 3's (``[rank3]:`` tags) with its exception line
POD_TERMINATION_RANK3 = [
    "[rank3]: " + line if line.startswith(("Traceback", "  ")) else line
    for line in POD_TERMINATION
] + ["[rank3]: RuntimeError: Failed to create placement group"]
#: the evicted MPIJob's status with the launcher's mpirun naming a killed process
MPIJOB_SIGNAL_9 = MPIJOB_EVICTED + [
    "mpirun noticed that process rank 5 with PID 0 on node xxx-worker-5 exited on signal 9 (Killed)."
]
#: the TFJob's status with one rank's CUDA out-of-memory error
TFJOB_RANK2_OOM = TFJOB_PREEMPTED + [
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
]
#: the TFJob's status with the tf-operator's event of a worker pod's exit (not read as a rank: a TFJob worker index)
TFJOB_OPERATOR_EVENT = TFJOB_PREEMPTED + [
    '1.7085078566441019e+09\tDEBUG\tevents\tPod: default.myjob-worker-3 exited with code 137\t{"type": "Normal", '
    '"object": {"kind":"TFJob","namespace":"default","name":"myjob"}, "reason": "ExitedWithCode"}'
]
#: the v2 controller's report with Ray Train v1's trainer line on worker 1
NODE_DRAINED_WORKER_FAILED = NODE_DRAINED + [
    "(TorchTrainer pid=79312) Worker 1 has failed."
]
#: Ray Train v1's worker-group line for the dead worker's pid above the v2 report (the report names rank 1 alike)
NODE_DRAINED_V1_GROUP = [
    "(TrainController pid=79312) - (ip=127.0.0.1, pid=79326) world_rank=1, local_rank=1, "
    "node_rank=0"
] + NODE_DRAINED
#: Ray Train v1's worker-group line and Ray's report of that pid's worker dying without raising
V1_GROUP_SYSTEM_ERROR = [
    "- (ip=127.0.0.1, pid=79326) world_rank=1, local_rank=1, node_rank=0",
    "A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, "
    "check the logs for the dead worker. RayTask ID: ffff Worker ID: 0e3a Node ID: b157 Worker IP address: 127.0.0.1 "
    "Worker port: 10004 Worker PID: 79326 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly "
    "exits with a connection error code 2.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "pod-termination-as-pasted": (POD_TERMINATION, None, None, None, None),
    "mpijob-evicted-as-pasted": (MPIJOB_EVICTED, None, None, None, None),
    "mpijob-evicted-eight-workers": (MPIJOB_EVICTED, 1, 8, None, None),
    "tfjob-preempted-as-pasted": (TFJOB_PREEMPTED, None, None, None, None),
    "node-drained-as-pasted": (NODE_DRAINED, None, None, 1, "rank-dead"),
    "node-drained-two-workers": (NODE_DRAINED, 2, 2, 1, "rank-dead"),
    # contrasts
    "pod-termination-worker1-failed-names-rank1": (
        POD_TERMINATION_WORKER_FAILED,
        None,
        None,
        1,
        "exit-unknown",
    ),
    "pod-termination-rank3-traceback-names-rank3": (
        POD_TERMINATION_RANK3,
        None,
        None,
        3,
        "python-exception",
    ),
    "mpijob-signal-9-names-rank5": (MPIJOB_SIGNAL_9, None, None, 5, "host-oom-kill"),
    "tfjob-rank2-cuda-oom-names-rank2": (TFJOB_RANK2_OOM, None, None, 2, "cuda-oom"),
    "tfjob-operator-event-names-none": (TFJOB_OPERATOR_EVENT, None, None, None, None),
    "node-drained-worker1-failed-names-rank1": (
        NODE_DRAINED_WORKER_FAILED,
        2,
        2,
        1,
        "rank-dead",
    ),
    "node-drained-v1-group-names-rank1": (NODE_DRAINED_V1_GROUP, 2, 2, 1, "rank-dead"),
    "v1-group-system-error-names-rank1": (
        V1_GROUP_SYSTEM_ERROR,
        2,
        2,
        1,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b293", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kubernetes_pod_loss_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_cluster_status_blocks_say_nothing(tmp_path):
    """The pod-termination notices, the MPIJob's and the TFJob's status blocks raise no finding at all, not even a
    rankless one: the cluster's words about lost pods are not read from a pasted log."""
    assert _findings(POD_TERMINATION, tmp_path / "a", None) == []
    assert _findings(MPIJOB_EVICTED, tmp_path / "b", None) == []
    assert _findings(TFJOB_PREEMPTED, tmp_path / "c", None) == []


def test_node_drained_report_names_the_worker_s_rank(tmp_path):
    """Ray Train v2's report of a worker whose node died (preempted) is that worker's world rank's death with its node
    (session 52: tests/test_ray_train_v2_worker_context.py)."""
    assert _findings(NODE_DRAINED, tmp_path, 2) == [
        ("rank-failure", "warning", "rank-dead", [1])
    ]
