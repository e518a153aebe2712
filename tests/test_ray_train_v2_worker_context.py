"""Session 52 (batch 293): Ray Train V2's controller names the worker a dead-actor report is about. Its report of a
failed health check prints the worker (``Worker info: Worker(…, distributed_context=DistributedContext(world_rank=N, …),
…)``) right above Ray's ``The actor died unexpectedly before finishing this task.``; the report is rank N's, and its cause
line says how it ended: ``The actor died because its node has died`` (rank-dead: the node drained, preempted or lost) or
``The actor is dead because its worker process has died … Worker exit type: SYSTEM_ERROR`` (killed from outside). The
world rank alone, or the report alone, names no one.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.timezone.utc)
P = "(TrainController pid=79312) "
#: the real paste's shape (ray-project/ray#63807): the worker's repr, one field a line, then the report
WORKER = [
    P
    + "  distributed_context=DistributedContext(world_rank={r}, world_size=4, local_rank={r}, local_world_size=4, node_rank=0),",
    P
    + "  log_file_path='/tmp/ray/session_2026-06-01_22-48-34_224594_13456/logs/train/ray-train-app-worker-e6b3.log',",
    P + ")",
]
REPORT = [
    P + "The actor died unexpectedly before finishing this task.",
    P + "\tclass_name: RayTrainWorker",
    P + "\tactor_id: c221047dc0a4e2b3ea0bbcc501000000",
    P + "\tpid: 79326",
    P + "\tip: 10.0.3.17",
]
NODE_DIED = [
    P
    + "The actor died because its node has died. Node Id: b157c93de9603b1458ae4bd22668b46a4f0ae249bf9467072ba6fd45",
    P + "\tthe actor's node was preempted: spot instance reclaimed",
]
PROCESS_DIED = [
    P
    + "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
    "unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process "
    "is killed by SIGKILL by OOM killer due to high memory usage.",
]
#: a released Ray's one-line repr under the grouped header of ``Training failed due to worker errors:``
RELEASED = [
    "ray.train.WorkerGroupError: Training failed due to worker errors:",
    "[Rank {r}]:",
    "A worker health check failed.",
    "Worker info: Worker(actor=Actor(RayTrainWorker, 3a1f0e), metadata=WorkerMetadata(node_id='9c2e', node_ip='10.0.3.17', "
    "hostname='gpu-node-7', pid=4711), distributed_context=DistributedContext(world_rank={r}, world_size=8, local_rank=1, "
    "local_world_size=4, node_rank=1), log_file_path='/tmp/ray/session_latest/logs/train/worker.log')",
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
    "\tclass_name: RayTrainWorker",
    "\tpid: 4711",
    "The actor died because its node has died. Node Id: 9c2e5f",
    "\tthe actor's node was terminated unexpectedly: health check failed due to missing too many heartbeats",
]


def _named(tmp_path, lines: list[str], rank: int = 1):
    text = "\n".join(line.format(r=rank) for line in lines) + "\n"
    bundle, _ = import_logs(
        [LogSource("paste.txt", text)],
        tmp_path / "b",
        job="train",
        namespace="team-a",
        now=NOW,
    )
    return [
        (f["rule"], f["cause"], f["ranks"])
        for f in naming_findings(analyze(bundle)["findings"])
    ]


@pytest.mark.parametrize("rank", [1, 3])
def test_a_worker_lost_with_its_node_is_its_world_rank_s_death(tmp_path, rank):
    assert _named(tmp_path, WORKER + REPORT + NODE_DIED, rank) == [
        ("rank-failure", "rank-dead", [rank])
    ]


def test_a_worker_process_killed_from_outside_is_its_rank_s_kill(tmp_path):
    assert _named(tmp_path, WORKER + REPORT + PROCESS_DIED, 2) == [
        ("rank-failure", "host-oom-kill", [2])
    ]


def test_a_report_cut_before_its_cause_is_the_rank_s_end_of_unknown_kind(tmp_path):
    assert _named(tmp_path, WORKER + REPORT, 2) == [
        ("rank-failure", "exit-unknown", [2])
    ]


def test_the_released_one_line_repr_under_its_rank_header(tmp_path):
    assert _named(tmp_path, RELEASED, 5) == [("rank-failure", "rank-dead", [5])]


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(REPORT + NODE_DIED, id="report-without-the-worker"),
        pytest.param(WORKER[:1], id="the-worker-without-a-report"),
        # the worker printed well above another report: not that report's
        pytest.param(
            WORKER + [P + f"step {i} loss 2.1" for i in range(8)] + REPORT + NODE_DIED,
            id="worker-far-above",
        ),
    ],
)
def test_the_world_rank_or_the_report_alone_names_no_one(tmp_path, lines):
    assert _named(tmp_path, lines) == []
