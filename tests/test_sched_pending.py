"""A scheduler's words that a job's pods cannot be placed, pasted (parsers/log_sched_pending.py, queries/pending.sql
``pasted``).

Before session 56 a pasted ``kubectl describe pod`` / ``kubectl get events`` of a GPU job that never started gave
"Nothing found" (batch 325's KAI-Scheduler#1217 gang message; kube-scheduler's ``0/18 nodes are available: …``): the
pending rule read Pending only from a capture's pods, events and Kueue workloads. Now the words themselves are the job's
pending (warning, no rank: nothing ran), the cause from them: too few GPUs, a taint, a selector, Kueue's quota.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import pasted
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
CORPUS = Path(__file__).parent / "data" / "real-incidents"
DESCRIBE = [
    "Events:",
    "  Type     Reason            Age                 From               Message",
    "  ----     ------            ----                ----               -------",
    "  Warning  FailedScheduling  2m1s (x3 over 5m)   default-scheduler  0/18 nodes are available: 2 Insufficient "
    "nvidia.com/gpu, 16 node(s) didn't match Pod's node affinity/selector. preemption: 0/18 nodes are available: 2 No "
    "preemption victims found for incoming pod, 16 Preemption is not helpful for scheduling.",
]
VOLCANO_GANG = ("  Warning  Unschedulable  2m  volcano  1/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 "
                "minAvailable; Pending: 1 Unschedulable, 1 Schedulable. Origin reason is llama-worker-0: 0/2 nodes are unavailable: "
                "2 Insufficient nvidia.com/gpu.")
KUEUE = ("    Message:               couldn't assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu "
         "in flavor default-flavor, 8 more needed")


@pytest.mark.parametrize(
    ("line", "cause", "who"),
    [(DESCRIBE[3], "insufficient-gpu", "kube-scheduler"),
     ("  Warning  FailedScheduling  10s  default-scheduler  0/5 nodes are available: 1 node(s) had taint "
      "{node-role.kubernetes.io/master: }, that the pod didn't tolerate, 4 Insufficient nvidia.com/gpu.", "insufficient-gpu", "kube-scheduler"),
     ("0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/3 nodes are "
      "available: 3 Preemption is not helpful for scheduling.", "untolerated-taint", "kube-scheduler"),
     ("0/6 nodes are available: 6 node(s) didn't match Pod's node affinity/selector.", "node-selector", "kube-scheduler"),
     ("0/2 nodes are available: 2 Insufficient memory.", "unschedulable", "kube-scheduler"),
     ("5m   Warning   FailedScheduling   pod/llama-worker-1   0/8 nodes are available: 8 Insufficient amd.com/gpu.",
      "insufficient-gpu", "kube-scheduler"),
     ("  Warning  FailedScheduling  1m  volcano  0/4 nodes are unavailable: 4 Insufficient nvidia.com/gpu.", "insufficient-gpu", "Volcano"),
     (VOLCANO_GANG, "insufficient-gpu", "Volcano"),
     (VOLCANO_GANG.split(". Origin")[0], "unschedulable", "Volcano"),
     ("  Resources were found for 12 pods while 16 are required for gang scheduling.", "unschedulable", "KAI Scheduler"),
     ("    - 12 node(s) didn't have enough resources: GPUs", "insufficient-gpu", "KAI Scheduler"),
     (KUEUE, "quota", "Kueue"),
     ("  Normal   NotTriggerScaleUp  3m (x5 over 8m)  cluster-autoscaler  pod didn't trigger scale-up: 1 Insufficient "
      "nvidia.com/gpu, 2 max node group size reached", "insufficient-gpu", "cluster-autoscaler")],
    ids=["describe", "taint-and-gpu", "taint", "selector", "memory", "get-events-amd", "volcano", "volcano-gang-origin",
         "volcano-gang", "kai-gang", "kai-reason", "kueue", "autoscaler"],
)
def test_a_schedulers_words_are_the_jobs_pending(line, cause, who):
    (ev,) = [e for e in classify(line) if e["kind"] == "scheduler_pending"]
    assert (ev["subkind"], ev["error_type"], ev.get("rank")) == (cause, who, None)


@pytest.mark.parametrize(
    "line",
    ["INFO: 2 nodes are available for training", "[rank0]: Resources were found for the job",
     "    - 12 node(s) ready", "Insufficient nvidia.com/gpu", "[rank1]: step 3/8 nodes are warm, loss 2.1"],
)
def test_other_lines_are_no_pending(line):
    assert [e for e in classify(line) if e["kind"] == "scheduler_pending"] == []


def _pending(result: dict) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"]) for f in result["findings"] if f["rule"] == "pending"]


def test_kai_schedulers_real_gang_message_is_pending_for_gpus(tmp_path):
    """KAI-Scheduler#1217 (batch 325): the gang message and its reasons beneath; the nodes' reason gives the cause."""
    log = (CORPUS / "kai-scheduler-1217-jobset-gang-dra-claims-pending-control" / "log.txt").read_text()
    result = analyze(pasted(log, tmp_path, None, NOW))
    assert _pending(result) == [("warning", "insufficient-gpu", [])]
    assert naming_findings(result["findings"]) == []
    (f,) = [f for f in result["findings"] if f["rule"] == "pending"]
    assert "12 pods while 16 are required" in f["summary"] and "the log gives no time" in f["summary"]


def test_a_pasted_describe_gives_the_schedulers_reasons(tmp_path):
    result = analyze(pasted(DESCRIBE, tmp_path, None, NOW))
    assert _pending(result) == [("warning", "insufficient-gpu", [])]
    (f,) = [f for f in result["findings"] if f["rule"] == "pending"]
    assert f["evidence"][0]["scheduler_reasons"] == [{"nodes": 2, "reason": "Insufficient nvidia.com/gpu"},
                                      {"nodes": 16, "reason": "node(s) didn't match Pod's node affinity/selector"}]
    assert result["incidents"][0]["root"]["rule"] == "pending"


def test_kueues_refusal_is_quota(tmp_path):
    result = analyze(pasted(["Status:", "  Conditions:", KUEUE, "    Reason:                Pending"], tmp_path, None, NOW))
    (f,) = [f for f in result["findings"] if f["rule"] == "pending"]
    assert (f["cause"], f["evidence"][0].get("scheduler_message")) == ("quota", None)
    assert f["evidence"][0]["kueue_message"].startswith("couldn't assign flavors to pod set worker: insufficient unused quota")


def test_repeated_words_are_said_once_in_the_logs_order(tmp_path):
    result = analyze(pasted([DESCRIBE[3], VOLCANO_GANG, DESCRIBE[3]], tmp_path, None, NOW))
    (f,) = [f for f in result["findings"] if f["rule"] == "pending"]
    said = f["evidence"][0]["scheduler_message"]
    assert said.count("0/18 nodes are available") == 2  # the line's own preemption part, once
    assert said.index("0/18") < said.index("tasks in gang")


def test_a_rank_that_failed_once_placed_stays_the_root(tmp_path):
    """The job waited for GPUs, then ran and rank 1 failed: the failure is what happened; the wait names no one."""
    lines = [DESCRIBE[3], "[rank1]: Traceback (most recent call last):", '[rank1]:   File "train.py", line 9, in <module>',
             "[rank1]: KeyError: 'labels'"]
    result = analyze(pasted(lines, tmp_path, 2, NOW))
    assert [(f["rule"], f["ranks"]) for f in naming_findings(result["findings"])] == [("rank-failure", [1])]
    assert result["incidents"][0]["root"]["rule"] == "rank-failure"
    assert _pending(result) == [("warning", "insufficient-gpu", [])]
