"""A pod's end pasted beside a training log (k10s_forensics/parsers/log_pods.py; docs/parsers-logs.md,
"Pod status in a paste"): ``kubectl get pods`` rows and the Kubeflow training operator's pod
events, one case per wording; a rank only where the paste shows the job's layout."""

from __future__ import annotations

from pathlib import Path

from incident_kit import Case, analyze_incident, misses
from log_helpers import derive, log_row
from k10s_forensics.parsers import logs

HEAD = "NAME                     READY   STATUS    RESTARTS   AGE"


def exits(tmp_path, *lines: str) -> list[tuple]:
    ctx, _ = derive(tmp_path, logs, logs=[log_row("\n".join(lines))])
    evs = sorted(ctx.table("log_events").to_pylist(), key=lambda e: e["line_no"])
    return [(e["subkind"], e["rank"], e["exit_code"]) for e in evs if e["kind"] == "process_exit"]


def test_pytorchjob_table_worker_error_is_rank_index_plus_one(tmp_path):
    assert exits(tmp_path, HEAD,
                 "llama-master-0           1/1     Running   0          40m",
                 "llama-worker-0           1/1     Running   0          40m",
                 "llama-worker-1           0/1     Error     0          40m") == [("pod_status", 2, None)]


def test_all_namespaces_wide_output_and_restarts_ago(tmp_path):
    """``kubectl get pods -A -o wide``: a NAMESPACE column first, IP and NODE after, RESTARTS with its age."""
    assert exits(tmp_path,
                 "NAMESPACE   NAME            READY   STATUS             RESTARTS      AGE   IP           NODE",
                 "team-a      bert-master-0   1/1     Running            0             2h    10.1.2.3     gpu-7",
                 "team-a      bert-worker-2   0/1     CrashLoopBackOff   4 (32s ago)   2h    10.1.2.9     gpu-9") == [("pod_status", 3, None)]


def test_oomkilled_is_the_kernels_kill(tmp_path):
    assert exits(tmp_path, "t5-master-0   0/1   OOMKilled   0   5m", "t5-worker-0   1/1   Running   0   5m") == [("pod_status", 0, -9)]


def test_mpijob_launcher_then_worker_n_is_node_n(tmp_path):
    assert exits(tmp_path, "hvd-launcher     1/1   Running   0   3m", "hvd-worker-2     0/1   Error     0   3m") == [("pod_status", 2, None)]


def test_worker_row_alone_names_no_rank(tmp_path):
    """``kubectl get pods | grep Error``: without the master (or launcher) row worker-N could be rank N or N+1."""
    assert exits(tmp_path, "llama-worker-3   0/1   Error   0   12m") == []


def test_completed_and_foreign_pods_name_nothing(tmp_path):
    assert exits(tmp_path, HEAD,
                 "llama-master-0                   0/1     Completed   0     1h",
                 "llama-worker-0                   0/1     Completed   0     1h",
                 "raycluster-worker-group-x7k2p    0/1     Error       0     1h") == []


def test_operator_pod_events_with_the_master_replica_line(tmp_path):
    lines = ('time="2024-02-21T09:30:56Z" level=info msg="PyTorchJob=mnist, ReplicaType=Master expected=1, running=1, succeeded=0, failed=0, Replicas=1"',
             '1.708507856644096e+09\tDEBUG\tevents\tError pod mnist-worker-1 container pytorch exitCode: 137 terminated message: \t{"type": "Warning"}',
             "1.7085078566441019e+09\tDEBUG\tevents\tPod: kubeflow.mnist-worker-1 exited with code 137\t{\"type\": \"Normal\"}")
    assert exits(tmp_path, *lines) == [("pod_status", 2, 137), ("pod_status", 2, 137)]  # 128 + SIGKILL, as the container reports it


def test_operator_event_without_the_layout_names_no_rank(tmp_path):
    assert exits(tmp_path, "Pod: kubeflow.mnist-worker-1 exited with code 1") == []


def _case(nproc: int, folder: Path) -> Case:
    return Case(incident="pods", cause="none", culprit_ranks=[1], victim_ranks=[], nproc_per_node=nproc, world_size=2 * nproc, folder=folder)


def test_rank_failure_names_the_failed_pods_rank_with_one_process_per_pod(tmp_path):
    (tmp_path / "pods").mkdir()
    (tmp_path / "pods" / "log.txt").write_text("\n".join([HEAD, "job-master-0   1/1   Running   0   9m", "job-worker-0   0/1   Error   0   9m"]) + "\n")
    found = analyze_incident(tmp_path / "out1", _case(1, tmp_path))
    assert misses(_case(1, tmp_path), found, check_cause=False) is None
    assert [(f["rule"], f["cause"], f["ranks"]) for f in found if f["ranks"]] == [("rank-failure", "exit-unknown", [1])]


def test_a_pod_of_several_processes_names_no_rank(tmp_path):
    """A pod running torchrun with 4 processes is a node: which of its ranks failed is not in a pod row."""
    (tmp_path / "pods").mkdir()
    (tmp_path / "pods" / "log.txt").write_text("\n".join([HEAD, "job-master-0   1/1   Running   0   9m", "job-worker-0   0/1   Error   0   9m"]) + "\n")
    found = analyze_incident(tmp_path / "out4", _case(4, tmp_path))
    assert [f for f in found if f["ranks"] and f["severity"] in ("critical", "warning")] == []
