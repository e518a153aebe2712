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

#: (shape, scenario, seed, verdict): one analysis each, a healthy control on two shapes; the one ``nothing`` is a
#: loss the shape carries (a 30 s scrape misses the single Xid sample before the GPU fell off the bus)
CASES = [
    ("exporter-4x", "xid-79", 4, "right"), ("unattributed", "straggler-compute", 3, "right"),
    ("default-counters-30s", "straggler-compute", 3, "right"), ("default-counters-30s", "xid-79", 1, "nothing"),
    ("operator-dcp-60s", "straggler-compute", 3, "right"), ("operator-dcp-60s", "healthy", 3, "right"),
    ("kube-prometheus-30s", "straggler-compute", 3, "right"), ("gmp", "xid-79", 4, "right"),
    ("gmp-pods-gone", "straggler-compute", 3, "right"), ("victoriametrics", "straggler-compute", 3, "right"),
    ("thanos-replicas", "xid-79", 4, "right"), ("thanos-replicas", "healthy", 3, "right"),
    ("pods-gone-ksm-default", "straggler-compute", 3, "right"),
    ("pods-gone-unattributed", "straggler-compute", 3, "right"), ("pods-gone-unattributed", "xid-79", 4, "right"),
]


@pytest.fixture(scope="module")
def incidents(tmp_path_factory):
    root = tmp_path_factory.mktemp("monitor-shapes")
    sims = sorted({(scenario, seed) for _, scenario, seed, _ in CASES})
    return root, {k: simulate(k[0], root / f"{k[0]}-{k[1]}", seed=k[1], nodes=3, gpus_per_node=2, minutes=8, interval_s=10) for k in sims}


def test_every_shape_is_judged():
    assert {c[0] for c in CASES} == set(monitor_shapes.SHAPES)


@pytest.mark.parametrize("shape,scenario,seed,verdict", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_each_monitoring_shape_names_the_culprit_or_none(incidents, shape, scenario, seed, verdict):
    root, truths = incidents
    truth = truths[(scenario, seed)]
    bundle = monitor_shapes.make(root / f"{scenario}-{seed}", root / f"{scenario}-{seed}-{shape}", shape)
    result = analyze(Bundle.open(bundle))
    got = [(f["rule"], f["cause"], f["severity"], f["ranks"], f["nodes"]) for f in result["findings"]]
    assert monitor_shapes.judge(truth, result, shape) == verdict, (monitor_shapes.expected(truth, shape), got)
    if shape in monitor_shapes.NO_RANK:
        assert not any(f["ranks"] for f in result["findings"] if f["rule"] == "straggler")
    if verdict == "nothing":  # the GPU's node is still named: its allocatable dropped
        assert any(f["cause"] == "gpu-unallocatable" and f["nodes"] == truth["expected"][0]["nodes"] for f in result["findings"])


def test_the_generator_is_deterministic(incidents, tmp_path):
    root, _ = incidents
    for shape in ("thanos-replicas", "operator-dcp-60s"):
        a, b = (monitor_shapes.make(root / "healthy-3", tmp_path / f"{shape}-{i}", shape) for i in (1, 2))
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
