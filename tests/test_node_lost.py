"""gpu-health node-not-ready names the ranks a dead node took with it (queries/gpu_health.sql ``lost``).

A node that dies whole (power, a kernel panic, a spot VM reclaimed without notice) leaves its ranks silent and their
containers reading running as last reported; the API server's word is the node's Ready condition, Unknown with
``NodeStatusUnknown`` once the kubelet stopped posting status (False with the kubelet's own reason otherwise). The
simulator's ``node-lost`` scenario checks the reading end to end over seeds and shapes (tests/test_rules_scenarios.py);
these pin its edges on hand-built tables: the ranks that kept logging after it, a node that turned after the job, and
the conditions that are no NotReady.
"""

from __future__ import annotations

import pytest

from _analyze_kit import analyze_tables, at, gang, log_row, rule_findings


def _job_with_node_down(
    ready,
    reason,
    changed_s: float | None = 120.0,
    pod: int = 2,
    captured_s: float = 540.0,
) -> dict:
    """A 4-pod job (one rank per pod, on gpu-node-0..3) whose pod ``pod``'s node reads ``ready``/``reason``, turned at
    ``changed_s``; every rank logs a training step each minute until 100 s, the others time out at 420 s."""
    g = gang(pods=4, per_pod=1, start=-600)
    for n in g["nodes"]:
        n["captured_at"] = at(captured_s)
    node = g["nodes"][pod]
    node.update(
        ready=ready,
        ready_reason=reason,
        ready_changed_at=at(changed_s) if changed_s is not None else None,
    )
    g["log_events"] = [
        log_row(g, r, "training_step", t, step=int(t))
        for r in range(4)
        for t in (0.0, 60.0, 100.0)
    ]
    g["log_events"] += [
        log_row(
            g,
            r,
            "nccl_watchdog_timeout",
            420.0 + r,
            seq_num=88,
            op_type="ALLREDUCE",
            timeout_ms=300000,
        )
        for r in range(4)
        if r != pod
    ]
    return g


def _node_findings(tmp_path, g) -> list[dict]:
    return [
        f
        for f in rule_findings(
            analyze_tables(tmp_path, g, only=["gpu-health"]), "gpu-health"
        )
        if f["cause"] == "node-not-ready"
    ]


@pytest.mark.parametrize(
    ("ready", "reason"),
    [(None, "NodeStatusUnknown"), (False, "KubeletNotReady")],
    ids=["unknown", "false"],
)
@pytest.mark.parametrize("pod", [1, 3])
def test_a_node_that_died_under_a_rank_names_that_rank(tmp_path, ready, reason, pod):
    (f,) = _node_findings(tmp_path, _job_with_node_down(ready, reason, pod=pod))
    assert (f["ranks"], f["pods"], f["nodes"], f["severity"], f["job"]) == (
        [pod],
        [f"team-a/llama-worker-{pod}"],
        [f"gpu-node-{pod}"],
        "critical",
        "team-a/llama",
    )
    assert f["confidence"] == "high" and f["gpus"] == [f"GPU-{pod:02d}00-0000"]
    assert "went NotReady under 1 rank(s) of team-a/llama" in f["title"]
    assert reason in f["summary"] and "print nothing after it" in f["summary"]
    assert "did not fail on their own" in f["recommendation"]
    # its rank's GPU from the loss to the capture (420 s), the other three to their end (the capture: still listed)
    assert f["gpu_hours_lost"] == pytest.approx(4 * 420 / 3600, abs=1e-3)


def test_a_rank_that_kept_logging_after_the_node_turned_is_not_named(tmp_path):
    """A NotReady node whose pod still printed after it (the kubelet cut off from the API server, the data plane alive)
    took no rank with it: the node is said, no rank, no job."""
    g = _job_with_node_down(None, "NodeStatusUnknown", pod=2)
    g["log_events"].append(log_row(g, 2, "training_step", 200.0, step=200))
    (f,) = _node_findings(tmp_path, g)
    assert (f["ranks"], f["pods"], f["job"], f["confidence"], f["gpu_hours_lost"]) == (
        [],
        [],
        None,
        None,
        None,
    )
    assert f["title"] == "GPU node gpu-node-2 is NotReady"


def test_a_node_that_turned_after_the_job_left_it_names_no_rank(tmp_path):
    g = _job_with_node_down(None, "NodeStatusUnknown", pod=2)
    for r in g["ranks"] + g["pods"]:
        if r["node"] == "gpu-node-2":
            r["finished_at"] = at(
                -300
            )  # the pod ended five minutes before the node went
    (f,) = _node_findings(tmp_path, g)
    assert (f["ranks"], f["job"]) == ([], None)


@pytest.mark.parametrize(
    ("ready", "reason"),
    [(True, "KubeletReady"), (None, None), (None, "SomethingElse")],
    ids=["ready", "no-condition", "unknown-other-reason"],
)
def test_no_notready_no_finding(tmp_path, ready, reason):
    assert _node_findings(tmp_path, _job_with_node_down(ready, reason)) == []


def test_the_sample_bundle_names_the_lost_node_s_ranks_as_the_incident_root(tmp_path):
    import json
    import shutil
    from pathlib import Path

    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle

    root = Path(__file__).resolve().parents[1] / "sample-bundles"
    truth = json.loads((root / "node-lost.truth.json").read_text())
    (want,) = truth["expected"]
    result = analyze(Bundle.open(shutil.copytree(root / "node-lost", tmp_path / "b")))
    inc = result["incidents"][0]
    assert (inc["cause"], inc["ranks"], inc["nodes"], inc["severity"]) == (
        "node-not-ready",
        want["ranks"],
        want["nodes"],
        "critical",
    )
    assert inc["gpu_hours_lost"] > 0


def _remote_errors(g, peer_pod: int, reporters=(0, 1, 3)) -> list[dict]:
    """NCCL's remote error on each reporter, naming pod ``peer_pod``'s address (its node gone, or its container killed)."""
    ip = g["pods"][peer_pod]["pod_ip"]
    return [
        log_row(
            g,
            r,
            "nccl_remote_error",
            130.0 + r,
            peer_ip=ip,
            line=f"[rank{r}]: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5 ncclRemoteError: ... {ip}<45123>",
        )
        for r in reporters
    ]


@pytest.mark.parametrize("peer", [2, 0])
def test_remote_errors_naming_a_pod_of_the_job_name_its_ranks_with_no_timeout(
    tmp_path, peer
):
    """Every rank's remote error names one address and nothing else fails: that pod died without a word (nccl-hang's
    closed-peer tier), whether or not its node is known NotReady."""
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _remote_errors(
        g, peer, reporters=[r for r in range(4) if r != peer]
    )
    (f,) = rule_findings(analyze_tables(tmp_path, g, only=["nccl-hang"]), "nccl-hang")
    assert (f["cause"], f["ranks"], f["pods"], f["severity"]) == (
        "peer-closed",
        [peer],
        [f"team-a/llama-worker-{peer}"],
        "critical",
    )


def test_remote_errors_beside_a_rank_s_own_failure_leave_it_to_the_first_failure(
    tmp_path,
):
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _remote_errors(g, 2) + [
        log_row(g, 2, "torchrun_failure", 129.0, exit_code=-11, pid=1002)
    ]
    assert (
        rule_findings(analyze_tables(tmp_path, g, only=["nccl-hang"]), "nccl-hang")
        == []
    )


def test_an_address_of_no_pod_of_the_job_starts_no_hang(tmp_path):
    g = gang(pods=4, per_pod=1)
    rows = _remote_errors(g, 2)
    for row in rows:
        row["peer_ip"] = (
            "192.0.2.77"  # outside the job (a storage node, a stale address)
        )
    g["log_events"] = rows
    assert (
        rule_findings(analyze_tables(tmp_path, g, only=["nccl-hang"]), "nccl-hang")
        == []
    )
