"""Ranks without labels: the training operators' pod naming conventions (parsers/pod_names.py).

Units: each convention names the replica and index it encodes; Ray and random names name
nothing. End to end: a straggler whose pods were deleted before capture, read back from a real
Prometheus holding kube-state-metrics WITHOUT a label allow-list (kube-prometheus-stack's
default: ``kube_pod_labels`` carries no ``label_*``) and DCGM history: analyze still names the
straggler's rank, pod and GPU, its ranks read from the pod names (rank_source pod-name,
rank_confidence low).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.bundle import RAW_SCHEMAS, Bundle
from k10s_forensics.capture import CaptureOptions, capture
from k10s_forensics.engine import connect
from k10s_forensics.parsers.pod_names import name_identity, parse_pod_name
from k10s_forensics.serve import start_server
from k10s_forensics.simulate import simulate
from k10s_forensics.simulate.prom_history import write_history

from prom_helpers import need_prometheus, prometheus_with, strip_bundle
from test_rules_scenarios import compare

NAMED = [
    ("llama-ft-master-0", "PyTorchJob", "llama-ft", {"replica_type": "master", "replica_index": 0}),
    ("llama-ft-worker-3", "PyTorchJob", "llama-ft", {"replica_type": "worker", "replica_index": 3}),
    ("tf-chief-0", "TFJob", "tf", {"replica_type": "chief", "replica_index": 0}),
    ("xgb-worker-12", "XGBoostJob", "xgb", {"replica_type": "worker", "replica_index": 12}),
    ("bert-launcher", "MPIJob", "bert", {"replica_type": "launcher", "replica_index": None}),
    ("bert-worker-7", "MPIJob", "bert", {"replica_type": "worker", "replica_index": 7}),
    ("ft-node-0-1", "JobSet", "ft", {"replicated_job": "node", "jobset_job_index": 0, "completion_index": 1}),
    ("ft-node-0-1-x7k2p", "TrainJob", "ft", {"replicated_job": "node", "jobset_job_index": 0, "completion_index": 1}),
    ("ft-node-0-3-x7k2p", "Job", "ft-node-0", {"completion_index": 3}),
    ("big-run-trainer-node-2-5-ab12c", "JobSet", "big-run", {"replicated_job": "trainer-node", "jobset_job_index": 2, "completion_index": 5}),
]
NOT_NAMED = [
    ("raycluster-a-worker-small-group-x8k2p", "RayCluster", "raycluster-a"),
    ("rayjob-b-raycluster-worker-gpu-group-abcde", "RayJob", "rayjob-b"),
    ("llama-ft-7f9c6d-x2k4q", "PyTorchJob", "llama-ft"),  # a Deployment-style random name
    ("llama-ft-worker", "PyTorchJob", "llama-ft"),  # no index
    ("other-job-worker-0", "PyTorchJob", "llama-ft"),  # another job's pod
    ("ft-node-x-1-abcde", "JobSet", "ft"),
    ("trainer-0", "Job", "trainer"),  # a Job's pod has a random suffix
    ("trainer-x7k2p", "Job", "trainer"),  # not Indexed
]


@pytest.mark.parametrize("name,kind,job,want", NAMED, ids=[n[0] for n in NAMED])
def test_each_naming_convention(name, kind, job, want):
    assert parse_pod_name(name, kind, job) == want


@pytest.mark.parametrize("name,kind,job", NOT_NAMED, ids=[n[0] for n in NOT_NAMED])
def test_names_that_state_no_rank(name, kind, job):
    assert parse_pod_name(name, kind, job) is None


def test_labels_win_over_the_name():
    pod = {"pod": "llama-ft-worker-3", "job_kind": "PyTorchJob", "job": "llama-ft", "replica_type": "worker", "replica_index": 1,
           "completion_index": None, "replicated_job": None}
    assert name_identity(pod) is None
    bare = dict(pod, replica_type=None, replica_index=None)
    assert name_identity(bare) | {} == {**bare, "replica_type": "worker", "replica_index": 3, "_from_name": True}


def _rows(bundle: Path, sql: str) -> list[dict]:
    cur = connect(Bundle.open(bundle)).execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def _drop_objects(bundle: Path, kinds: set[str]) -> None:
    path = bundle / "raw" / "objects.parquet"
    rows = [r for r in pq.read_table(path).to_pylist() if r["kind"] not in kinds]
    pq.write_table(pa.Table.from_pylist(rows, schema=RAW_SCHEMAS["objects"]), path, compression="zstd")


@pytest.fixture(scope="module")
def gone(tmp_path_factory):
    """A straggler (2 GPUs and 2 ranks per pod), its pods gone, default kube-state-metrics: no labels."""
    need_prometheus()
    root = tmp_path_factory.mktemp("pods-gone-no-labels")
    truth = simulate("straggler-compute", root / "orig", seed=2, nodes=3, gpus_per_node=2, minutes=8, interval_s=10, nproc_per_node=2)
    write_history(root / "orig", root / "history.om", "kube-prometheus", ksm_pod_labels=False)
    return root, truth


def _capture(root: Path, truth: dict, drop_job: bool) -> Path:
    served = strip_bundle(root / "orig", root / f"served-{drop_job}", drop_job_pods=True)
    if drop_job:
        _drop_objects(served, {"PyTorchJob", "TrainJob", "JobSet", "MPIJob"})
    out = root / f"captured-{drop_job}"
    with prometheus_with(root / "history.om", root / f"prom-{drop_job}") as url:
        srv = start_server(served)
        try:
            kubeconfig = srv.write_kubeconfig(root / f"kubeconfig-{drop_job}")
            window = truth["window"]
            options = CaptureOptions(timeout_s=10, prometheus=url, history_from=window["start"], history_to=window["end"])
            capture(out, kubeconfig=str(kubeconfig), jobs=(truth["job"],), options=options)
        finally:
            srv.stop()
    return out


@pytest.mark.parametrize("drop_job", [False, True], ids=["job-listed", "job-gone-too"])
def test_pods_gone_default_ksm_names_the_straggler(gone, drop_job):
    root, truth = gone
    out = _capture(root, truth, drop_job)
    ns = truth["job"].split("/")[0]
    pods = _rows(out, f"SELECT pod, labels_json, evidence FROM pods WHERE namespace = '{ns}' AND job IS NOT NULL")
    assert pods and all(p["evidence"] == "prometheus" and p["labels_json"] is None for p in pods)
    ranks = _rows(out, "SELECT rank, pod, gpu_uuid, rank_source, rank_confidence FROM ranks ORDER BY rank")
    assert [r["rank"] for r in ranks] == list(range(6))
    assert {(r["rank_source"], r["rank_confidence"]) for r in ranks} == {("pod-name", "low")}
    truth_ranks = _rows(root / "orig", "SELECT rank, pod, gpu_uuid FROM ranks ORDER BY rank")
    assert [(r["rank"], r["pod"], r["gpu_uuid"]) for r in ranks] == [(r["rank"], r["pod"], r["gpu_uuid"]) for r in truth_ranks]
    result = analyze(Bundle.open(out))
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    straggler = next(f for f in result["findings"] if f["rule"] == "straggler")
    assert straggler["ranks"] and straggler["gpus"], json.dumps(straggler)[:400]
