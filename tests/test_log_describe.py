"""``kubectl describe pod`` pasted beside a log (k10s_forensics/parsers/log_describe.py): the
terminated container of a training pod names its rank — from the RANK the training operator set
in its environment, or from the job's layout the paste shows — and nothing when neither is there."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)


def describe(pod: str, reason: str, code: int, rank: int | None = None, labels: bool = True, restarted: bool = True) -> list[str]:
    """A ``kubectl describe pod`` of a PyTorchJob replica as kubectl 1.30 prints it."""
    role, index = pod.rsplit("-", 2)[1:]
    state = (["    State:          Waiting", "      Reason:       CrashLoopBackOff", "    Last State:     Terminated"]
             if restarted else ["    State:          Terminated"])
    return [
        f"Name:             {pod}", "Namespace:        team-a", "Priority:         0", "Service Account:  default",
        "Node:             gpu-node-7/10.0.3.17", "Start Time:       Sat, 28 Nov 2026 11:30:02 +0000",
        *(["Labels:           training.kubeflow.org/job-name=llama", "                  training.kubeflow.org/operator-name=pytorchjob-controller",
           f"                  training.kubeflow.org/replica-index={index}", f"                  training.kubeflow.org/replica-type={role}"]
          if labels else ["Labels:           app=trainer"]),
        "Status:           Running", "IP:               10.244.3.17", "Controlled By:  PyTorchJob/llama", "Containers:", "  pytorch:",
        "    Container ID:   containerd://4f2c9a", "    Image:          registry.example/llama:1.4", "    Port:           23456/TCP",
        *state, f"      Reason:       {reason}", f"      Exit Code:    {code}",
        "      Started:      Sat, 28 Nov 2026 11:30:10 +0000", "      Finished:     Sat, 28 Nov 2026 11:52:40 +0000",
        "    Ready:          False", "    Restart Count:  3", "    Limits:", "      memory:          64Gi", "      nvidia.com/gpu:  1",
        "    Environment:", "      MASTER_PORT:  23456", "      MASTER_ADDR:  llama-master-0", "      WORLD_SIZE:   4",
        *([f"      RANK:         {rank}"] if rank is not None else []), "      PYTHONUNBUFFERED:  1",
        "Events:", "  Type     Reason   Age                 From     Message", "  ----     ------   ----                ----     -------",
        "  Warning  BackOff  2m (x7 over 10m)    kubelet  Back-off restarting failed container pytorch in pod " + pod,
    ]


def _rank_failures(tmp_path, lines: list[str]) -> list[tuple]:
    text = "\n".join(["[rank0]: step 10 loss 2.31", *lines]) + "\n"
    bundle, _ = import_logs([LogSource("paste.txt", text)], tmp_path / "b", nproc_per_node=1, world_size=4, now=NOW)
    return [(f["severity"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure" and f["ranks"]]


@pytest.mark.parametrize("reason, code, cause", [("OOMKilled", 137, "host-oom-kill"), ("Error", 1, "python-exception"),
                                                 ("Error", 139, "segfault")])
def test_a_described_replica_with_its_rank_env(tmp_path, reason, code, cause):
    got = _rank_failures(tmp_path, describe("llama-worker-1", reason, code, rank=2))
    assert [(r, c) for _, r, c in got] == [([2], cause)], got


def test_without_rank_env_the_layout_in_the_paste_places_it(tmp_path):
    """No RANK in the environment: the master's description in the same paste says the job has a
    master, so worker-2 is rank 3 (the training operator's numbering)."""
    lines = describe("llama-master-0", "Error", 0, labels=True, restarted=False) + describe("llama-worker-2", "OOMKilled", 137)
    assert [(r, c) for _, r, c in _rank_failures(tmp_path, lines)] == [([3], "host-oom-kill")]


def test_a_lone_worker_without_rank_or_layout_names_no_one(tmp_path):
    assert _rank_failures(tmp_path, describe("llama-worker-2", "OOMKilled", 137)) == []


def test_a_clean_exit_and_a_running_pod_name_no_one(tmp_path):
    lines = describe("llama-worker-0", "Completed", 0, rank=1, restarted=False)
    assert _rank_failures(tmp_path, lines) == []
