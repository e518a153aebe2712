"""Monitoring setups nobody here has seen: one simulated incident per shape (tests/monitor_shapes.py:
dcgm-exporter versions and counter files, scrape intervals, Prometheus / Google Managed Prometheus /
VictoriaMetrics / Thanos answers, pods gone with kube-state-metrics' defaults) through rebuild and
analyze: the planted culprit, or no culprit where the shape cannot carry the rank; never a wrong one.
The 50-run sweep per shape: tests/tools/score_monitor_shapes.py (benchmarks/results/real-incidents.md).
Then each label and answer wording on its own."""

from __future__ import annotations

import json

import pytest

import monitor_shapes
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.prom_labels import Attribution
from k10s_forensics.parsers.prometheus import parse_prometheus_query
from k10s_forensics.simulate import simulate
from k10s_forensics.store.bundle import Bundle

#: shape -> the incidents it is judged on (one analysis each; a healthy control on two of them)
CASES = {
    "exporter-4x": ("xid-79",), "unattributed": ("straggler-compute",), "default-counters-30s": ("straggler-compute",),
    "operator-dcp-60s": ("straggler-compute", "healthy"), "kube-prometheus-30s": ("straggler-compute",), "gmp": ("xid-79",),
    "victoriametrics": ("straggler-compute",), "thanos-replicas": ("straggler-compute", "healthy"),
    "pods-gone-ksm-default": ("straggler-compute",), "pods-gone-unattributed": ("straggler-compute", "xid-79"),
}
SEED = {"straggler-compute": 2, "xid-79": 2, "healthy": 3}


@pytest.fixture(scope="module")
def incidents(tmp_path_factory):
    root = tmp_path_factory.mktemp("monitor-shapes")
    return root, {s: simulate(s, root / s, seed=seed, nodes=3, gpus_per_node=2, minutes=8, interval_s=10) for s, seed in SEED.items()}


@pytest.mark.parametrize("shape,scenario", [(shape, s) for shape, scenarios in CASES.items() for s in scenarios])
def test_each_monitoring_shape_names_the_culprit_or_none(incidents, shape, scenario):
    root, truths = incidents
    truth = truths[scenario]
    bundle = monitor_shapes.make(root / scenario, root / f"{scenario}-{shape}", shape)
    result = analyze(Bundle.open(bundle))
    verdict = monitor_shapes.judge(truth, result, shape)
    got = [(f["rule"], f["cause"], f["severity"], f["ranks"], f["nodes"]) for f in result["findings"]]
    assert verdict == "right", (verdict, monitor_shapes.expected(truth, shape), got)
    if shape in monitor_shapes.NO_RANK:
        assert not any(f["ranks"] for f in result["findings"] if f["rule"] == "straggler")


def test_the_generator_is_deterministic(incidents, tmp_path):
    root, _ = incidents
    for shape in ("thanos-replicas", "operator-dcp-60s"):
        a, b = (monitor_shapes.make(root / "healthy", tmp_path / f"{shape}-{i}", shape) for i in (1, 2))
        assert (a / "raw" / "scrapes.parquet").read_bytes() == (b / "raw" / "scrapes.parquet").read_bytes()


ATT = Attribution.build(
    [{"pod": "nvidia-dcgm-exporter-x7k2p", "node": "n1", "pod_ip": "10.1.0.2", "labels_json": '{"app": "nvidia-dcgm-exporter"}'},
     {"pod": "dcgm-exporter-q9z", "node": "n2", "pod_ip": "fd00::7", "labels_json": '{"app.kubernetes.io/name": "dcgm-exporter"}'}],
    [{"node": "n1"}, {"node": "n2"}])


@pytest.mark.parametrize("labels, workload, node", [
    # Google Managed Prometheus: only namespace collides; instance = <exporter pod>:<port name>
    ({"UUID": "GPU-1", "pod": "train-0", "container": "pytorch", "exported_namespace": "ml", "namespace": "gke-managed-system",
      "instance": "dcgm-exporter-q9z:metrics", "job": "dcgm-exporter", "cluster": "c", "location": "l", "project_id": "p"},
     ("ml", "train-0", "pytorch"), "n2"),
    # the same, GPU unallocated: the exporter's empty labels are dropped, nothing collides
    ({"UUID": "GPU-1", "namespace": "gke-managed-system", "instance": "dcgm-exporter-q9z:metrics"}, (None, None, None), "n2"),
    # kube-prometheus: all three renamed
    ({"UUID": "GPU-1", "exported_pod": "train-0", "exported_namespace": "ml", "exported_container": "pytorch",
      "pod": "nvidia-dcgm-exporter-x7k2p", "namespace": "gpu-operator", "container": "nvidia-dcgm-exporter", "instance": "10.1.0.2:9400"},
     ("ml", "train-0", "pytorch"), "n1"),
    # kube-prometheus, GPU unallocated: the exporter pod is never a workload
    ({"UUID": "GPU-1", "pod": "nvidia-dcgm-exporter-x7k2p", "namespace": "gpu-operator", "container": "nvidia-dcgm-exporter",
      "instance": "10.1.0.2:9400"}, (None, None, None), "n1"),
    # IPv6 pod IP in instance; Thanos external labels and replica labels change nothing
    ({"UUID": "GPU-1", "pod": "train-1", "namespace": "ml", "instance": "[fd00::7]:9400", "prometheus": "monitoring/k8s",
      "prometheus_replica": "prometheus-k8s-1"}, ("ml", "train-1", None), "n2"),
    # an instance that is a node name with a named port
    ({"UUID": "GPU-1", "instance": "n1:metrics"}, (None, None, None), "n1"),
])
def test_scrape_conventions_name_the_workload_and_node(labels, workload, node):
    assert ATT.workload(labels) == workload
    assert ATT.node(labels) == node


def _answer(**extra) -> str:
    return json.dumps({"status": "success", **extra, "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "DCGM_FI_DEV_XID_ERRORS", "UUID": "GPU-1", "pod": "w-0", "namespace": "ml", "node": "n1",
                    "err_code": "79", "err_msg": "GPU has fallen off the bus"}, "values": [[1700000000, "79"]]}]}})


@pytest.mark.parametrize("extra, issues", [
    ({}, []),
    ({"isPartial": False, "stats": {"seriesFetched": "1", "executionTimeMsec": 2}}, []),          # VictoriaMetrics, whole
    ({"isPartial": True}, [("partial answer (isPartial)", None)]),                                # VictoriaMetrics, a vmstorage missing
    ({"warnings": ["store down"]}, [("partial answer (server warning)", "store down")]),            # Thanos partial response
])
def test_server_answer_wordings(extra, issues):
    rows, found = parse_prometheus_query(_answer(**extra))
    assert [(r["pod"], r["node"], r["xid"]) for r in rows] == [("w-0", "n1", 79)]
    assert found == issues


@pytest.mark.parametrize("container, nproc", [
    ({"command": ["torchrun"], "args": ["--nproc-per-node=2", "train.py"]}, "2"),
    ({"command": ["torchrun", "--nproc_per_node", "8", "train.py"]}, "8"),
    ({"command": ["torchrun"], "args": ["--nproc-per-node", "auto"], "env": [{"name": "PET_NPROC_PER_NODE", "value": "4"}]}, "4"),
    ({"command": ["python", "train.py"]}, None),
])
def test_a_job_template_says_its_processes_per_pod(container, nproc):
    """With the pods gone the job's template is what says how many ranks a pod ran (its env, else torchrun's flag)."""
    from k10s_forensics.parsers.k8s_jobs import template_nproc

    assert template_nproc([{"spec": {"containers": [container]}}]) == nproc
