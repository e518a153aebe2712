"""Kubernetes' own time limit (queries/disruption.sql ``deadline``): a job past its activeDeadlineSeconds.

The Job controller fails a batch Job (a JobSet's child, so a TrainJob's) with the condition "Job was active longer than
specified deadline" (reason DeadlineExceeded) and a DeadlineExceeded event, and deletes its pods; a training operator says
the same of its job (runPolicy.activeDeadlineSeconds). The ranks' logs then show only their teardown. It is the job's stop
as Slurm's time limit is (tests/test_slurm_stop.py): warning, no rank, no pod, never the root over a failure before it.
"""

from __future__ import annotations

import pytest

from _analyze_kit import analyze_tables, at, gang, rule_findings

DEADLINE = "Job was active longer than specified deadline"


def _deadline_findings(tmp_path, g: dict) -> list[tuple]:
    return [(f["severity"], f["cause"], f["job"], f["ranks"], f["pods"]) for f in
            rule_findings(analyze_tables(tmp_path, g, only=["disruption"]), "disruption")]


@pytest.mark.parametrize("kind", ["PyTorchJob", "JobSet"], ids=["operator-job", "jobset-child"])
def test_a_job_past_its_deadline_is_the_jobs_stop_naming_no_rank(tmp_path, kind):
    g = gang(pods=4, per_pod=2, start=-3600, kind=kind)
    if kind == "JobSet":  # the child Job carries the condition; its parent is the JobSet the ranks belong to
        g["jobs"].append({"namespace": "team-a", "job": "llama-workers-0", "kind": "Job", "uid": "uid-child", "parent_kind": "JobSet",
                          "parent": "llama", "state": "Failed", "message": DEADLINE, "finished_at": at(60)})
    else:
        g["jobs"][0].update(state="Failed", message="PyTorchJob llama has failed because it was active longer than specified deadline",
                            finished_at=at(60))
    (f,) = rule_findings(analyze_tables(tmp_path, g, only=["disruption"]), "disruption")
    assert (f["severity"], f["cause"], f["job"], f["ranks"], f["pods"]) == ("warning", "deadline-exceeded", "team-a/llama", [], [])
    assert f["title"] == "Kubernetes ended team-a/llama: its active deadline (activeDeadlineSeconds)"
    assert f["started_at"] is not None and "deadline" in f["summary"]


def test_the_job_controllers_event_alone_says_it(tmp_path):
    g = gang(pods=2, per_pod=1, start=-3600)
    g["events"] = [{"ts": at(60), "first_ts": at(60), "namespace": "team-a", "object_namespace": "team-a", "object_kind": "PyTorchJob",
                    "object_name": "llama", "object_uid": "uid-llama", "reason": "DeadlineExceeded", "type": "Warning",
                    "message": DEADLINE, "count": 1, "source_component": "job-controller"}]
    assert _deadline_findings(tmp_path, g) == [("warning", "deadline-exceeded", "team-a/llama", [], [])]


@pytest.mark.parametrize(
    "change",
    [{"message": "Job has reached the specified backoff limit"}, {"job": "other-batch-job", "message": DEADLINE}],
    ids=["backoff-limit", "a-job-of-no-rank"],
)
def test_other_job_ends_are_no_deadline(tmp_path, change):
    g = gang(pods=2, per_pod=1, start=-3600)
    g["jobs"].append({"namespace": "team-a", "job": "llama", "kind": "Job", "uid": "uid-x", "state": "Failed", **change})
    assert _deadline_findings(tmp_path, g) == []
