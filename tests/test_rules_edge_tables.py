"""Edge cases on hand-built derived tables: MIG devices, pods recreated under the same name, clock-offset guards."""

from __future__ import annotations

import pytest

from _analyze_kit import at, gang, prepare_views, samples, table_bundle
from k10s_forensics.analyze.runner import analyze


def by_rule(result, rule):
    return [f for f in result["findings"] if f["rule"] == rule]


# ---- MIG ------------------------------------------------------------------------------------

PARENT = "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77"


def _mig_tables(idle_pod: int) -> dict[str, list[dict]]:
    """One H100 in MIG mode split into 7 x 1g.10gb, one single-GPU training pod per MIG device.

    Keys follow the parsers: a MIG device is ``MIG-<parent uuid>/<GPU instance id>``; the
    parent GPU has its own whole-GPU samples (power, temperature) without pod labels.
    """
    g = gang(job="embed", pods=7, per_pod=1)
    for n in g["nodes"][1:]:
        g["nodes"].remove(n)
    g["nodes"][0].update(gpu_capacity=7, gpu_allocatable=7)
    g["gpus"] = [{"node": "gpu-node-0", "gpu_uuid": PARENT, "gpu_index": 0, "pci_bus_id": "0000:1a:00.0", "product": "NVIDIA H100 80GB HBM3",
                  "memory_total_mib": 81559, "is_mig": False, "mig_mode": "Enabled"}]
    for i, (p, r) in enumerate(zip(g["pods"], g["ranks"])):
        mig = f"MIG-{PARENT}/{7 + i}"
        p.update(node="gpu-node-0")
        r.update(node="gpu-node-0", gpu_uuid=mig)
        g["gpus"].append({"node": "gpu-node-0", "gpu_uuid": mig, "gpu_index": 0, "pci_bus_id": "0000:1a:00.0", "product": "NVIDIA H100 80GB HBM3",
                          "memory_total_mib": 9856, "is_mig": True, "parent_gpu_uuid": PARENT, "mig_profile": "1g.10gb", "gpu_instance_id": 7 + i})

    def edit(rank, t, row):
        row.update(mig_profile="1g.10gb", fb_total_mib=9856.0, fb_used_mib=7000.0, power_w=None, temp_c=None, sm_clock_mhz=None, util_pct=None, power_limit_w=None)
        if rank == idle_pod:
            row.update(tensor_active=0.0, sm_active=0.0, fb_used_mib=12.0)

    rows = samples(g, override=edit)
    parent = [{"ts": at(i * 10), "node": "gpu-node-0", "gpu_uuid": PARENT, "source": "dcgm-exporter", "power_w": 150.0, "power_limit_w": 700.0,
               "temp_c": 55.0, "sm_clock_mhz": 1980.0, "util_pct": None, "xid": 0, "model_name": "NVIDIA H100 80GB HBM3"} for i in range(60)]
    g["gpu_samples"] = rows + parent
    return g


@pytest.mark.parametrize("idle_pod", [2, 5])
def test_mig_idle_device_is_named_not_its_parent(tmp_path, idle_pod):
    result = analyze(table_bundle(tmp_path / "mig", _mig_tables(idle_pod), minutes=10), only={"idle-gpu", "straggler"})
    idle = by_rule(result, "idle-gpu")
    assert [(f["cause"], f["pods"], f["gpus"], f["ranks"]) for f in idle] == [
        ("allocated-idle", [f"team-a/embed-worker-{idle_pod}"], [f"MIG-{PARENT}/{7 + idle_pod}"], [idle_pod])]
    # an idle (stalled) MIG device is not a straggler of its gang
    assert by_rule(result, "straggler") == []


def test_mig_xid_names_every_rank_on_the_gpu(tmp_path):
    g = _mig_tables(idle_pod=-1)
    g["log_events"] = [{"ts": at(200), "node": "gpu-node-0", "kind": "xid", "xid": 79, "bus_id": "0000:1a:00.0",
                        "line": "NVRM: Xid (PCI:0000:1a:00): 79, pid=1234, GPU has fallen off the bus."}]
    (f,) = [x for x in by_rule(analyze(table_bundle(tmp_path / "x", g), only={"gpu-health"}), "gpu-health") if x["cause"] == "xid-79"]
    assert f["gpus"] == [PARENT] and f["ranks"] == list(range(7)) and f["severity"] == "critical"
    assert f["pods"] == sorted(f"team-a/embed-worker-{i}" for i in range(7))


# ---- a pod recreated under the same name -------------------------------------------------------

def _recreated(with_uid: bool) -> dict[str, list[dict]]:
    """worker-1 runs rank 1, OOMs, is deleted and recreated (new uid, other node, other GPU), OOMs again."""
    g = gang(pods=4, per_pod=1)
    old_pod = next(p for p in g["pods"] if p["pod"] == "llama-worker-1")
    old_rank = next(r for r in g["ranks"] if r["rank"] == 1)
    old_pod.update(finished_at=at(130), phase="Failed")
    old_rank["finished_at"] = at(130)
    g["nodes"].append({"node": "gpu-node-9", "ready": True, "gpu_capacity": 8, "gpu_allocatable": 8, "internal_ip": "10.0.0.9", "addresses": ["10.0.0.9"], "taints": []})
    g["pods"].append({**old_pod, "pod_uid": "uid-llama-worker-1-b", "node": "gpu-node-9", "pod_ip": "10.1.9.5", "pod_ips": ["10.1.9.5"],
                      "created_at": at(150), "started_at": at(155), "finished_at": None, "phase": "Running"})
    g["ranks"].append({**old_rank, "pod_uid": "uid-llama-worker-1-b", "node": "gpu-node-9", "gpu_uuid": "GPU-0900-0000", "started_at": at(155), "finished_at": None})
    g["gpus"].append({"node": "gpu-node-9", "gpu_uuid": "GPU-0900-0000", "gpu_index": 0, "pci_bus_id": "0000:10:00.0", "product": "NVIDIA H100 80GB HBM3"})
    g["containers"] = [
        {"namespace": "team-a", "pod": "llama-worker-1", "pod_uid": "uid-llama-worker-1", "container": "pytorch", "restart_count": 0,
         "state": "terminated", "exit_code": 1, "reason": "Error", "finished_at": at(128)},
        {"namespace": "team-a", "pod": "llama-worker-1", "pod_uid": "uid-llama-worker-1-b", "container": "pytorch", "restart_count": 0, "state": "running"},
    ]
    logs = []
    for t, uid in ((120, "uid-llama-worker-1"), (460, "uid-llama-worker-1-b")):
        base = {"namespace": "team-a", "pod": "llama-worker-1", "pod_uid": uid if with_uid else None, "container": "pytorch", "previous": False, "rank": None}
        logs.append({**base, "ts": at(t), "kind": "cuda_oom", "line": "torch.OutOfMemoryError: CUDA out of memory.", "oom_total_mib": 81559.0, "oom_in_use_mib": 80900.0})
        logs.append({**base, "ts": at(t + 1), "kind": "torchrun_failure", "exit_code": 1, "local_rank": 0, "line": "failed (exitcode: 1) local_rank: 0"})
        for r in (0, 2, 3):
            logs.append({"ts": at(t + 2), "namespace": "team-a", "pod": f"llama-worker-{r}", "pod_uid": f"uid-llama-worker-{r}", "container": "pytorch",
                         "previous": False, "rank": r, "kind": "nccl_remote_error", "peer_ip": "10.1.1.5" if t < 300 else "10.1.9.5", "line": "remote"})
    g["log_events"] = logs
    return g


@pytest.mark.parametrize("with_uid", [True, False], ids=["log-pod-uid", "no-log-pod-uid"])
def test_pod_recreated_under_same_name(tmp_path, with_uid):
    result = analyze(table_bundle(tmp_path / "b", _recreated(with_uid), minutes=12), only={"crashloop", "oom-cascade"})
    (loop,) = by_rule(result, "crashloop")
    assert (loop["cause"], loop["severity"], loop["ranks"], loop["pods"]) == ("cuda-oom", "critical", [1], ["team-a/llama-worker-1"])
    assert loop["nodes"] == ["gpu-node-1", "gpu-node-9"] and loop["gpus"] == ["GPU-0100-0000", "GPU-0900-0000"]
    ev = loop["evidence"][0]
    assert (ev["loops"], ev["pod_incarnations"], ev["container_restarts"], ev["restarts"]) == (2, 2, 0, 1)
    (oom,) = by_rule(result, "oom-cascade")
    assert oom["evidence"][0]["incidents"] == 2 and oom["nodes"] == ["gpu-node-1", "gpu-node-9"]


# ---- clock offsets: what the estimate must not do --------------------------------------------

def _steps(g, skew: dict[str, float], replays: int = 1) -> list[dict]:
    rows = []
    for attempt in range(replays):
        for step in range(100, 130):
            for p in g["pods"]:
                t = attempt * 400 + (step - 100) * 2 + skew.get(p["node"], 0)
                rows.append({"ts": at(t), "namespace": p["namespace"], "pod": p["pod"], "pod_uid": p["pod_uid"], "node": p["node"],
                             "container": "pytorch", "kind": "training_step", "step": step, "rank": None, "line": f"step {step}"})
    return rows


@pytest.mark.parametrize(("pods", "replays", "skewed", "expect"), [
    (4, 1, {"gpu-node-2": 420.0}, {"gpu-node-2": 420.0}),       # the odd one out is found
    (4, 3, {"gpu-node-0": -300.0}, {"gpu-node-0": -300.0}),     # steps replayed after restarts: last attempt aligns
    (2, 1, {"gpu-node-1": 420.0}, {}),                          # two pods: no majority, nothing corrected
    (4, 1, {"gpu-node-1": 0.8}, {}),                            # sub-2 s jitter is not skew
])
def test_node_clock_offset(tmp_path, pods, replays, skewed, expect):
    g = gang(pods=pods)
    g["log_events"] = _steps(g, skewed, replays)
    con = prepare_views(table_bundle(tmp_path / "c", g), "k10s_node_clock")
    offsets = {n: v for n, v in con.sql("SELECT node, offset_s FROM k10s_node_clock").fetchall() if v != 0}
    con.close()
    assert offsets == pytest.approx(expect, abs=0.01)
