"""Each rule on small hand-built derived tables: right culprit and cause, nothing on healthy data (idle GPUs and
pending pods: tests/test_rules_units_capacity.py)."""

from __future__ import annotations

import pytest

from _analyze_kit import analyze_tables as run
from _analyze_kit import at, gang, log_row, samples
from _analyze_kit import rule_findings as by_rule


# ---- straggler -------------------------------------------------------------------------

def _throttled(rank):
    def edit(r, t, row):
        if r == rank:
            row.update(sm_clock_mhz=1350 + t % 7, temp_c=89.0, throttle_reasons=0x40, tensor_active=0.78, power_w=610.0)
    return edit


def _input_bound(rank):
    def edit(r, t, row):
        if r == rank:
            row.update(util_pct=38.0, tensor_active=0.2, sm_active=0.25, power_w=240.0)
    return edit


def _degraded(rank):
    def edit(r, t, row):
        if r == rank:
            row.update(tensor_active=0.8, sm_active=0.9, power_w=690.0)
    return edit


@pytest.mark.parametrize(("seed", "pods", "per_pod", "culprit"), [(0, 4, 2, 5), (1, 6, 1, 2), (2, 2, 8, 11)])
@pytest.mark.parametrize(("edit", "cause"), [(_throttled, "gpu-throttle"), (_input_bound, "host-input"), (_degraded, "gpu-degraded")])
def test_straggler_names_rank_and_cause(tmp_path, seed, pods, per_pod, culprit, edit, cause):
    g = gang(pods=pods, per_pod=per_pod)
    g["gpu_samples"] = samples(g, seed=seed, override=edit(culprit))
    result = run(tmp_path, g, ["straggler"])
    found = by_rule(result, "straggler")
    assert len(found) == 1, found
    f = found[0]
    assert f["ranks"] == [culprit]
    assert f["cause"] == cause
    gpu = next(r["gpu_uuid"] for r in g["ranks"] if r["rank"] == culprit)
    node = next(r["node"] for r in g["ranks"] if r["rank"] == culprit)
    assert f["gpus"] == [gpu] and f["nodes"] == [node]
    assert f["severity"] in ("warning", "critical")
    assert f["gpu_hours_lost"] is not None and f["gpu_hours_lost"] > 0
    assert f["summary"] and f["recommendation"]


@pytest.mark.parametrize(("seed", "pods", "per_pod"), [(0, 3, 1), (1, 4, 8), (2, 16, 1), (3, 3, 1), (4, 4, 8), (5, 16, 1)])
def test_straggler_silent_on_healthy_gang(tmp_path, seed, pods, per_pod):
    g = gang(pods=pods, per_pod=per_pod)
    g["gpu_samples"] = samples(g, seed=seed)
    assert by_rule(run(tmp_path, g, ["straggler"]), "straggler") == []


def test_straggler_needs_a_gang(tmp_path):
    g = gang(pods=1, per_pod=1)
    g["gpu_samples"] = samples(g, override=_throttled(0))
    assert by_rule(run(tmp_path, g, ["straggler"]), "straggler") == []


def test_straggler_nvidia_smi_only(tmp_path):
    """No DCGM profiling metrics: power and clocks still find a throttled rank."""
    g = gang(pods=4, per_pod=2)

    def edit(r, t, row):
        row.update(tensor_active=None, sm_active=None, source="nvidia-smi-xml", namespace=None, pod=None)
        _throttled(6)(r, t, row)
        if r == 6:
            row["tensor_active"] = None

    g["gpu_samples"] = samples(g, override=edit)
    f = by_rule(run(tmp_path, g, ["straggler"]), "straggler")
    assert [x["ranks"] for x in f] == [[6]] and f[0]["cause"] == "gpu-throttle"


# ---- nccl-hang -------------------------------------------------------------------------

def test_nccl_hang_missing_rank_and_ip_resolution(tmp_path):
    g = gang(pods=4, per_pod=1)
    logs = [log_row(g, r, "nccl_comm_init", 5) for r in range(4)]
    logs += [log_row(g, r, "nccl_watchdog_timeout", 700 + r, seq_num=1580, op_type="ALLREDUCE", timeout_ms=600000, ran_for_ms=600050) for r in (0, 1, 3)]
    logs.append(log_row(g, 0, "nccl_remote_error", 650, peer_ip="10.1.2.5", peer_port=43211, rank=None, local_rank=0))
    g["log_events"] = logs
    f = by_rule(run(tmp_path, g, ["nccl-hang"]), "nccl-hang")
    assert len(f) == 1
    f = f[0]
    assert f["ranks"] == [2] and f["pods"] == ["team-a/llama-worker-2"] and f["nodes"] == ["gpu-node-2"]
    assert f["gpus"] == ["GPU-0200-0000"]
    assert f["severity"] == "critical"
    addresses = [e for e in f["evidence"] if e.get("what") == "peer-address"]
    assert addresses and addresses[0]["peer_ip"] == "10.1.2.5" and addresses[0]["resolved_pod"] == "team-a/llama-worker-2"
    assert addresses[0]["resolved_ranks"] == [2]
    assert "3 ranks" in f["summary"] and "10m" in f["summary"]


def test_nccl_hang_desync_and_earlier_failure(tmp_path):
    g = gang(pods=4, per_pod=2)
    logs = [log_row(g, r, "nccl_watchdog_timeout", 700, seq_num=90, op_type="ALLREDUCE", timeout_ms=600000) for r in range(8) if r != 6]
    logs.append(log_row(g, 6, "nccl_watchdog_timeout", 700, seq_num=88, op_type="BROADCAST", timeout_ms=600000))
    g["log_events"] = logs
    f = by_rule(run(tmp_path, g, ["nccl-hang"], name="desync"), "nccl-hang")[0]
    assert f["ranks"] == [6] and f["cause"] == "collective-mismatch"  # an earlier SeqNum of another op (session 30)
    logs.append(log_row(g, 3, "xid", 90, xid=79, line="NVRM: Xid (PCI:0000:11:00): 79, GPU has fallen off the bus."))
    g["log_events"] = logs
    f = by_rule(run(tmp_path, g, ["nccl-hang"], name="failed"), "nccl-hang")[0]
    assert f["ranks"] == [3] and f["cause"] == "rank-failed"


# ---- oom-cascade and crashloop ---------------------------------------------------------

def _oom_logs(g, culprit, t0, victims):
    logs = [log_row(g, culprit, "cuda_oom", t0, oom_total_mib=15.4 * 1024, oom_in_use_mib=15.2 * 1024, oom_requested_mib=512.0, step=247)]
    logs += [log_row(g, r, "nccl_watchdog_timeout", t0 + 600 + r, seq_num=1000, op_type="ALLREDUCE", timeout_ms=600000, ran_for_ms=600100) for r in victims]
    return logs


def test_oom_cascade_names_first_oom(tmp_path):
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _oom_logs(g, 1, 60, [0, 2, 3])
    f = by_rule(run(tmp_path, g, ["oom-cascade"], minutes=20), "oom-cascade")
    assert len(f) == 1
    f = f[0]
    assert (f["ranks"], f["cause"], f["nodes"], f["gpus"]) == ([1], "cuda-oom", ["gpu-node-1"], ["GPU-0100-0000"])
    assert f["summary"].startswith("Rank 1 OOM at step 247 (15.2GB / 15.4GB). 3 ranks hit NCCL watchdog timeout (10m).")
    assert f["gpu_hours_lost"] == pytest.approx(4 * 603 / 3600, rel=0.01)


def test_oom_from_container_status_without_logs(tmp_path):
    g = gang(pods=3, per_pod=1)
    g["containers"] = [{"namespace": "team-a", "pod": "llama-worker-2", "pod_uid": "uid-llama-worker-2", "container": "pytorch",
                        "restart_count": 1, "state": "running", "last_reason": "OOMKilled", "last_exit_code": 137, "last_finished_at": at(120)}]
    f = by_rule(run(tmp_path, g, ["oom-cascade"]), "oom-cascade")[0]
    assert f["cause"] == "host-oom" and f["ranks"] == [2] and f["pods"] == ["team-a/llama-worker-2"]


def test_crashloop_counts_loops_of_the_same_rank(tmp_path):
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _oom_logs(g, 1, 60, [0, 2, 3]) + _oom_logs(g, 1, 1500, [0, 2, 3])
    g["log_events"].append(log_row(g, 1, "worker_group_restart", 700, attempts_left=2, attempts_max=3))
    g["containers"] = [{"namespace": "team-a", "pod": f"llama-worker-{p}", "pod_uid": f"uid-llama-worker-{p}", "container": "pytorch",
                        "restart_count": 2, "state": "running", "last_exit_code": 1, "last_finished_at": at(1520)} for p in range(4)]
    result = run(tmp_path, g, ["crashloop", "oom-cascade"], minutes=40)
    f = by_rule(result, "crashloop")[0]
    assert (f["ranks"], f["cause"], f["severity"]) == ([1], "cuda-oom", "critical")
    assert "2 times" in f["summary"] or "twice" in f["summary"]
    oom = by_rule(result, "oom-cascade")[0]
    assert oom["ranks"] == [1] and any(e.get("incident") == 2 for e in oom["evidence"])
    # one incident, one cost: both rules sum the same two incidents (4 GPUs x ~603 s each)
    assert f["gpu_hours_lost"] == oom["gpu_hours_lost"] == pytest.approx(2 * 4 * 603 / 3600, rel=0.01)


def test_no_crashloop_without_restarts(tmp_path):
    g = gang(pods=4, per_pod=1)
    g["containers"] = [{"namespace": "team-a", "pod": f"llama-worker-{p}", "pod_uid": f"uid-llama-worker-{p}", "container": "pytorch",
                        "restart_count": 0, "state": "running"} for p in range(4)]
    assert by_rule(run(tmp_path, g, ["crashloop"]), "crashloop") == []


# ---- gpu-health / network ----------------------------------------------------------------

def test_gpu_health_xid_resolved_to_gpu_and_rank(tmp_path):
    g = gang(pods=2, per_pod=2)
    g["log_events"] = [{"ts": at(200), "node": "gpu-node-1", "kind": "xid", "xid": 79, "bus_id": "0000:11:00.0",
                        "line": "NVRM: Xid (PCI:0000:11:00): 79, pid=1234, GPU has fallen off the bus."}]
    g["nodes"][1]["gpu_allocatable"] = 7
    f = by_rule(run(tmp_path, g, ["gpu-health"]), "gpu-health")
    xid = [x for x in f if x["cause"] == "xid-79"][0]
    assert xid["severity"] == "critical" and xid["gpus"] == ["GPU-0101-0000"] and xid["ranks"] == [3] and xid["nodes"] == ["gpu-node-1"]
    assert "fallen off the bus" in xid["summary"]
    assert any(x["cause"] == "gpu-unallocatable" and x["nodes"] == ["gpu-node-1"] for x in f)


def _tcp(g, bad_pod=None, seed=0):
    import random

    rnd = random.Random(seed)
    rows = []
    pods = g["pods"]
    for a in pods:
        for b in pods:
            if a is b:
                continue
            bad = bad_pod in (a["pod"], b["pod"])
            for i in range(5):
                rows.append({"ts": at(i * 120), "namespace": a["namespace"], "pod": a["pod"], "node": a["node"], "state": "ESTAB",
                             "local_addr": a["pod_ip"], "local_port": 40000 + i, "peer_addr": b["pod_ip"], "peer_port": 50000,
                             "rtt_ms": (4.0 if bad else 0.3) + rnd.random() * 0.05, "minrtt_ms": 0.2,
                             "retrans_total": i * (400 if bad else 1), "bytes_sent": i * 10_000_000,
                             "bytes_retrans": i * (300_000 if bad else 20)})
    return rows


@pytest.mark.parametrize("seed", range(2))
def test_network_names_bad_pod_and_straggler_cause(tmp_path, seed):
    g = gang(pods=5, per_pod=1)
    g["tcp_samples"] = _tcp(g, "llama-worker-3", seed)
    g["gpu_samples"] = samples(g, seed=seed)
    result = run(tmp_path, g, ["network", "straggler"])
    net = by_rule(result, "network")
    assert [(f["pods"], f["cause"]) for f in net] == [(["team-a/llama-worker-3"], "pod-path")]
    assert net[0]["nodes"] == ["gpu-node-3"] and net[0]["ranks"] == [3]
    s = by_rule(result, "straggler")
    assert [(f["ranks"], f["cause"]) for f in s] == [([3], "network")]


@pytest.mark.parametrize("seed", range(2))
def test_network_silent_on_healthy(tmp_path, seed):
    g = gang(pods=5, per_pod=1)
    g["tcp_samples"] = _tcp(g, None, seed)
    assert by_rule(run(tmp_path, g, ["network"]), "network") == []


def _attempt(g, t0, raisers):
    """One attempt of a 4-rank torchrun job: ``raisers`` raise the same KeyError, the rest see a peer's connection close;
    torchrun then reports each rank's exit status 1."""
    logs = []
    for r in range(4):
        if r in raisers:
            logs.append(log_row(g, r, "python_exception", t0 + 0.1 * r, subkind="raised", error_type="KeyError", error_message="'labels'"))
        else:
            logs.append(log_row(g, r, "python_exception", t0 + 1, subkind="teardown", error_type="RuntimeError",
                             error_message="Connection closed by peer [127.0.0.1]:48348"))
        logs.append(log_row(g, r, "torchrun_failure", t0 + 2 + 0.1 * r, exit_code=1))
    return logs


def test_crashloop_of_ranks_failing_alike_names_no_rank(tmp_path):
    """Every attempt's every rank raising the same exception (the incident: no single culprit) is a crash loop of the
    pods, not of the rank torchrun reported first (one rank raising in each attempt stays that rank's loop: the
    twenty-first set's restart runs in tests/test_torch_runs.py)."""
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _attempt(g, 60, range(4)) + _attempt(g, 80, range(4))
    g["log_events"].append(log_row(g, 0, "worker_group_restart", 70, attempts_left=0, attempts_max=1))
    (f,) = by_rule(run(tmp_path, g, ["crashloop"], minutes=10), "crashloop")
    assert (f["ranks"], f["pods"], f["cause"], f["severity"]) == ([], ["team-a/llama-worker-0"], "exit-1", "critical")
