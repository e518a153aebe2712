"""Slurm's word that it ended a job (parsers/log_slurm.py, queries/disruption.sql ``slurm``).

The step daemon's ``*** JOB|STEP <id> [ON <node>] CANCELLED AT <time> DUE TO TIME LIMIT|PREEMPTION|NODE FAILURE|JOB
REQUEUE ***`` and srun's ``srun: error: Node failure on <node>`` read as nothing before session 55: a job Slurm ended
gave "Nothing found" (real incidents zetta-utils#671, submitit#1613, DynamicHead on Vega, Lightning#20542, HF m4-logs'
Jean Zay runs). Now they are the job's stop (disruption, warning, no rank), never the root over a failure before them;
a failed node that held some of the job's ranks (placed by NCCL's `host:pid:tid` prefix, srun's `<host>: task N`, the
pod's node) names those ranks while the others ran on.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import pasted
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
CORPUS = Path(__file__).parent / "data" / "real-incidents"
NCCL_HOSTS = [f"gpu-a0{1 + r // 2}:{1201 + r}:{1201 + r} [{r % 2}] NCCL INFO comm 0x55d{r} rank {r} nranks 4 cudaDev {r % 2} "
              f"busId 1b000 - Init COMPLETE" for r in range(4)]
NODE_FAILURE = ["srun: error: Node failure on gpu-a02",
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                "slurmstepd: error: *** STEP 4242.0 ON gpu-a01 CANCELLED AT 2026-11-02T10:00:00 DUE TO NODE FAILURE, SEE "
                "SLURMCTLD LOG FOR DETAILS ***"]


@pytest.mark.parametrize(
    ("line", "kind", "subkind", "peer"),
    [
        ("slurmstepd: error: *** JOB 494583 ON gn55 CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***", "scheduler_stop", "time-limit", None),
        ("slurmstepd: error: *** STEP 494583.0 ON ... CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***", "scheduler_stop", "time-limit", None),
        ("srun: error: *** STEP 12.0 CANCELLED AT 2016-01-01T00:00:00 DUE TO TIME LIMIT ***", "scheduler_stop", "time-limit", None),
        ("slurmstepd: error: *** JOB 37361369 ON learnfair5146 CANCELLED AT 2021-03-15T18:00:46 DUE TO PREEMPTION ***", "scheduler_stop", "preempted", None),
        (NODE_FAILURE[2], "scheduler_stop", "node-failure", None),
        ("slurmstepd: error: *** JOB 77 CANCELLED AT 2015-05-05T05:05:05 DUE TO NODE FAILURE ***", "scheduler_stop", "node-failure", None),
        ("slurmstepd: error: *** JOB 78 ON n1 CANCELLED AT 2025-01-01T00:00:00 DUE TO JOB REQUEUE ***", "scheduler_stop", "requeued", None),
        (NODE_FAILURE[0], "scheduler_stop", "node-failure", "gpu-a02"),
        ("slurmstepd: error: *** STEP 8867242.2 ON gra1177 CANCELLED AT 2023-07-09T19:18:33 ***", "step_end", "slurmstepd", None),
        (NODE_FAILURE[1], "step_end", "srun", None),
    ],
    ids=["job-time-limit", "step-masked-node", "old-srun-own", "preemption", "node-failure-cancel", "old-node-failure",
         "requeue", "srun-node-failure", "plain-cancel", "step-aborted"],
)
def test_slurms_lines_read_as_the_jobs_stop_naming_no_rank(line, kind, subkind, peer):
    (ev,) = [e for e in classify(line) if e["kind"] in ("scheduler_stop", "step_end")]
    assert (ev["kind"], ev["subkind"], ev.get("peer_ip"), ev.get("rank")) == (kind, subkind, peer, None)


@pytest.mark.parametrize(
    ("line", "cause", "who"),
    [("submitit WARNING (2022-07-12 04:18:45,881) - Caught signal SIGUSR2 on learnfair0293: this job is preempted.", "preempted", "submitit"),
     ("(bert-qa pid=920210) I 05-04 00:52:46 controller.py:100] The cluster is preempted.", "spot-reclaimed", "SkyPilot"),
     ("Message:        The node was low on resource: memory.", "evicted", "Kubernetes"),
     ("  Warning  Evicted  3m  kubelet  The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi", "evicted", "Kubernetes"),
     ("Message: Pod was terminated in response to imminent node shutdown.", "node-shutdown", "Kubernetes")],
    ids=["submitit", "skypilot-spot", "describe-evicted", "events-evicted", "describe-shutdown"],
)
def test_other_schedulers_words_are_the_jobs_stop(line, cause, who):
    (ev,) = [e for e in classify(line) if e["kind"] == "scheduler_stop"]
    assert (ev["subkind"], ev["error_type"], ev.get("rank")) == (cause, who, None)


@pytest.mark.parametrize("line", ["*** JOB 1 ON n1 CANCELLED AT 2025-01-01T00:00:00 DUE TO SOMETHING NEW ***",
                                  "print('srun: error: Node failure on ' + host, flush=True)", "Node failure on gpu-a02"],
                         ids=["unknown-reason", "code-quoting-it", "no-srun"])
def test_other_lines_are_no_scheduler_stop(line):
    assert [e for e in classify(line) if e["kind"] == "scheduler_stop"] == []


def _run(lines: list[str], folder: Path) -> dict:
    return analyze(pasted(lines, folder, None, NOW))


def _stops(result: dict) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"], f["nodes"]) for f in result["findings"] if f["rule"] == "disruption"]


@pytest.mark.parametrize(
    ("slug", "cause", "nodes"),
    [("zetta-utils-671-slurm-job-and-step-time-limit-control", "time-limit", []),
     ("submitit-1613-slurm-preemption-requeue-control", "preempted", []),
     ("dynamichead-vega-two-nodes-detectron2-time-limit-control", "time-limit", []),
     ("m4-logs-tr141-nw06-node-failure-after-validation-control", "node-failure", ["jean-zay-iam37"])],
    ids=["zetta-671", "submitit-1613", "dynamichead-vega", "m4-nw06"],
)
def test_real_pastes_say_slurm_ended_the_job_and_name_no_rank(tmp_path, slug, cause, nodes):
    result = _run((CORPUS / slug / "log.txt").read_text().splitlines(), tmp_path)
    assert _stops(result) == [("warning", cause, [], nodes)]
    assert not any(f["ranks"] for f in result["findings"] if f["severity"] == "critical")


@pytest.mark.parametrize(
    ("placing", "want"),
    [(NCCL_HOSTS, [2, 3]), (["srun: error: gpu-a02: tasks 2-3: Killed"], [2, 3]), (["srun: error: gpu-a01: task 1: Killed"], None),
     ([], None)],
    ids=["nccl-prefix", "srun-task-host", "only-other-node-placed", "unplaced"],
)
def test_a_failed_node_names_the_ranks_the_log_places_there(tmp_path, placing, want):
    lines = [line for line in placing if "NCCL" in line] + ["[rank0]: step 100 loss 2.31"] + NODE_FAILURE[:1] + \
        [line for line in placing if "NCCL" not in line] + NODE_FAILURE[1:]
    result = _run(lines, tmp_path)
    if want is None:
        assert _stops(result) == [("warning", "node-failure", [], ["gpu-a02"])]
    else:
        assert _stops(result) == [("critical", "node-failure", want, ["gpu-a02"])]
        first = result["incidents"][0]
        assert (first["root"]["rule"], first["cause"], first["ranks"]) == ("disruption", "node-failure", want)


def test_a_sub_communicators_rank_places_no_global_rank(tmp_path):
    """A tensor-parallel group's communicator (2 of 4 ranks) numbers its members 0 and 1: on the failed node those are not
    global ranks 0 and 1 (node gpu-a01 holds them, by the world's communicator)."""
    sub = [f"gpu-a02:{2201 + r}:{2201 + r} [{r}] NCCL INFO comm 0x77d{r} rank {r} nranks 2 cudaDev {r} busId 1b000 - Init COMPLETE"
           for r in range(2)]
    assert _stops(_run(NCCL_HOSTS[:2] + sub + NODE_FAILURE, tmp_path)) == [("warning", "node-failure", [], ["gpu-a02"])]


def test_a_node_holding_every_rank_is_the_jobs_stop(tmp_path):
    lines = [line.replace("gpu-a01", "gpu-a02") for line in NCCL_HOSTS] + NODE_FAILURE
    assert _stops(_run(lines, tmp_path)) == [("warning", "node-failure", [], ["gpu-a02"])]


def test_a_rank_that_failed_before_the_time_limit_stays_the_root(tmp_path):
    lines = ["2026-11-02 08:00:00 [rank1]: Traceback (most recent call last):",
             '2026-11-02 08:00:00 [rank1]:   File "train.py", line 10, in <module>',
             "2026-11-02 08:00:00 [rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 "
             "has a total capacity of 79.11 GiB of which 1.06 GiB is free.",
             "slurmstepd: error: *** JOB 9 ON gpu-a01 CANCELLED AT 2026-11-02T10:00:00 DUE TO TIME LIMIT ***"]
    result = _run(lines, tmp_path)
    first = result["incidents"][0]
    assert (first["root"]["rule"], first["cause"], first["ranks"]) == ("oom-cascade", "cuda-oom", [1])
    assert _stops(result) == [("warning", "time-limit", [], [])]
