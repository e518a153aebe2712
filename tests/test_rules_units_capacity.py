"""idle-gpu and pending on small hand-built derived tables: the idle GPUs found and priced, a pending pod's cause
(an untolerated taint, fragmentation, a partial gang, Kueue quota)."""

from __future__ import annotations

import pytest

from _analyze_kit import analyze_tables as run
from _analyze_kit import at, gang, samples, table_bundle
from _analyze_kit import rule_findings as by_rule
from k10s_forensics.analyze.runner import analyze


# ---- idle-gpu ----------------------------------------------------------------------------

def test_idle_gpu_allocated_and_priced(tmp_path):
    g = gang(pods=2, per_pod=2, start=-3600)

    def idle(r, t, row):
        if r in (2, 3):
            row.update(util_pct=0.0, tensor_active=0.0, sm_active=0.0, power_w=68.0, fb_used_mib=2.0)

    g["gpu_samples"] = samples(g, override=idle)
    f = by_rule(run(tmp_path, g, ["idle-gpu"]), "idle-gpu")
    assert len(f) == 1
    f = f[0]
    assert f["pods"] == ["team-a/llama-worker-1"] and f["gpus"] == ["GPU-0100-0000", "GPU-0101-0000"] and f["ranks"] == [2, 3]
    # idle throughout: counted from pod start (1 h before the window) to the last sample
    hours = (3600 + 590) / 3600
    assert f["gpu_hours_lost"] == pytest.approx(2 * hours, rel=0.01)
    assert f["evidence"][0]["cost_usd"] == pytest.approx(2 * hours * 4.0, rel=0.01)


def test_idle_gpu_price_override(tmp_path):
    from k10s_forensics.analyze.prices import PriceTable

    g = gang(pods=1, per_pod=1)
    g["gpu_samples"] = samples(g, override=lambda r, t, row: row.update(util_pct=0.0, tensor_active=0.0, sm_active=0.0, power_w=60.0))
    bundle = table_bundle(tmp_path / "p", g)
    f = by_rule(analyze(bundle, only={"idle-gpu"}, prices=PriceTable.flat(10.0)), "idle-gpu")[0]
    assert f["evidence"][0]["usd_per_gpu_hour"] == 10.0


# ---- pending -----------------------------------------------------------------------------

def _pending_pod(name, request, tolerations=(), job="big", ns="team-b"):
    return {"namespace": ns, "pod": name, "pod_uid": f"uid-{name}", "phase": "Pending", "created_at": at(-300),
            "gpu_request": request, "job": job, "job_kind": "PyTorchJob", "scheduled": False, "tolerations": list(tolerations)}


def test_pending_taint(tmp_path):
    g = gang(pods=2, per_pod=8)
    for n in g["nodes"]:
        n["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    for p in g["pods"]:
        p["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "value": None, "effect": "NoSchedule"}]
    g["nodes"].append({"node": "gpu-node-9", "ready": True, "unschedulable": False, "gpu_capacity": 8, "gpu_allocatable": 8,
                       "taints": [{"key": "dedicated", "value": "infer", "effect": "NoSchedule"}]})
    g["pods"].append(_pending_pod("big-worker-0", 8, tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "value": None, "effect": "NoSchedule"}]))
    g["events"] = [{"ts": at(-10), "namespace": "team-b", "object_kind": "Pod", "object_name": "big-worker-0", "reason": "FailedScheduling", "type": "Warning",
                    "message": "0/3 nodes are available: 2 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {dedicated: infer}. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.."}]
    f = by_rule(run(tmp_path, g, ["pending"]), "pending")[0]
    assert f["cause"] == "untolerated-taint" and f["pods"] == ["team-b/big-worker-0"] and f["nodes"] == ["gpu-node-9"]
    reasons = {e["reason"]: e["nodes"] for e in f["evidence"][0]["scheduler_reasons"]}
    assert reasons == {"Insufficient nvidia.com/gpu": 2, "node(s) had untolerated taint {dedicated: infer}": 1}
    assert f["evidence"][0]["untolerated_taints"] == ["dedicated=infer:NoSchedule"]


def test_pending_fragmentation_and_partial_gang(tmp_path):
    g = gang(pods=2, per_pod=4)  # 2 nodes of 8 GPUs, 4 used on each -> 8 free in total, 4 per node
    g["pods"].append(_pending_pod("llama-worker-2", 8, job="llama", ns="team-a"))
    f = by_rule(run(tmp_path, g, ["pending"]), "pending")[0]
    assert f["cause"] == "fragmentation" and f["job"] == "team-a/llama"
    assert f["severity"] == "critical" and f["evidence"][0]["held_gpus"] == 8 and f["evidence"][0]["running_pods"] == 2


def test_pending_quota_without_pods(tmp_path):
    tables = {
        "kueue_workloads": [{"namespace": "team-c", "workload": "pytorchjob-big-1a2b3", "queue_name": "lq", "owner_kind": "PyTorchJob", "owner_name": "big",
                             "quota_reserved": False, "admitted": False, "gpu_request": 64,
                             "message": "couldn't assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in flavor h100, 32 more needed"}],
        "kueue_local_queues": [{"namespace": "team-c", "local_queue": "lq", "cluster_queue": "cq"}],
        "kueue_cluster_queues": [{"cluster_queue": "cq", "flavor": "h100", "resource": "nvidia.com/gpu", "nominal_quota": 32.0, "used": 32.0}],
    }
    f = by_rule(run(tmp_path, tables, ["pending"]), "pending")[0]
    assert f["cause"] == "quota" and f["job"] == "team-c/big"
    assert f["evidence"][0]["quota_nominal_gpus"] == 32.0 and "32 more needed" in f["summary"]
