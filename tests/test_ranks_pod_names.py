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
from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle
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


@pytest.mark.slow
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


# ---- through the ranks parser: live pods without their replica labels, owner reference only ----
def _ranks(tmp_path: Path, pods: list[dict], jobs: list[dict] = ()) -> tuple[list[dict], dict]:
    from k8s_builders import context, make_bundle, obj_row
    from k10s_forensics.parsers import k8s_jobs, k8s_pods, ranks

    ctx = context(make_bundle(tmp_path / "b", [obj_row(o) for o in [*jobs, *pods]]), tmp_path / "out")
    k8s_pods.derive(ctx)
    k8s_jobs.derive(ctx)
    ranks.derive(ctx)
    rows = sorted(ctx.table("ranks").to_pylist(), key=lambda r: r["rank"])
    return rows, {(r["source"], r["reason"]): r["count"] for r in ctx.issues.rows()}


def _bare(name: str, kind: str, owner: str, gpus: int = 2, node: str = "n1") -> dict:
    from k8s_builders import container, pod

    return pod(name, labels={}, owner=(kind, owner), containers=[container(gpus=gpus)], node=node)


CONVENTIONS = {
    # kind, owner, pod names (shuffled order), expected (pod, node_rank) with 2 GPUs = 2 ranks per pod
    "pytorchjob-master-workers": ("PyTorchJob", "llama", ["llama-worker-1", "llama-master-0", "llama-worker-0"],
                                  [("llama-master-0", 0), ("llama-worker-0", 1), ("llama-worker-1", 2)]),
    "mpijob-launcher-workers": ("MPIJob", "bert", ["bert-launcher", "bert-worker-1", "bert-worker-0"],
                                [("bert-worker-0", 0), ("bert-worker-1", 1)]),
    "indexed-job-of-a-jobset": ("Job", "ft-node-0", ["ft-node-0-1-x7k2p", "ft-node-0-0-a1b2c"],
                                [("ft-node-0-0-a1b2c", 0), ("ft-node-0-1-x7k2p", 1)]),
}


@pytest.mark.parametrize("case", sorted(CONVENTIONS))
def test_ranks_from_pod_names(tmp_path, case):
    kind, owner, names, want = CONVENTIONS[case]
    rows, _ = _ranks(tmp_path, [_bare(n, kind, owner) for n in names])
    got = sorted({(r["pod"], r["node_rank"]) for r in rows}, key=lambda x: x[1])
    assert got == want
    assert [r["rank"] for r in rows] == list(range(2 * len(want)))  # node_rank x nproc (GPUs per pod) + local
    assert {(r["rank_source"], r["rank_confidence"], r["nproc_per_node"]) for r in rows} == {("pod-name", "low", 2)}


def test_jobset_pods_named_under_a_listed_jobset(tmp_path):
    """Child Jobs gone, the JobSet listed: its name places the Jobs, parallelism from the pods seen."""
    from k8s_builders import meta

    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta("ft"),
              "spec": {"replicatedJobs": [{"name": "node", "replicas": 2}]}}
    names = ["ft-node-0-0-aaaaa", "ft-node-0-1-bbbbb", "ft-node-1-0-ccccc", "ft-node-1-1-ddddd"]
    pods = [_bare(n, "Job", n.rsplit("-", 2)[0], gpus=1) for n in names]
    rows, _ = _ranks(tmp_path, pods, [jobset])
    assert [(r["rank"], r["pod"], r["job"], r["job_kind"]) for r in rows] == [
        (i, n, "ft", "JobSet") for i, n in enumerate(names)]
    assert {r["rank_source"] for r in rows} == {"pod-name"}


def test_labels_still_win(tmp_path):
    from k8s_builders import container, pod, pytorch_labels

    pods = [pod("llama-master-0", labels=pytorch_labels("llama", "master", 0), containers=[container(gpus=1)]),
            pod("llama-worker-0", labels=pytorch_labels("llama", "worker", 0), containers=[container(gpus=1)])]
    rows, _ = _ranks(tmp_path, pods)
    assert {(r["rank_source"], r["rank_confidence"]) for r in rows} == {("label:replica-index", "high")}


@pytest.mark.parametrize("kind,owner,name", [
    ("RayCluster", "rc", "rc-worker-small-group-x8k2p"),
    ("PyTorchJob", "llama", "llama-7f9c6d-x2k4q"),
    ("PyTorchJob", "llama", "someone-else-worker-0"),
    ("Job", "trainer", "trainer-x7k2p"),
    ("PyTorchJob", "w", "w-worker-0"),  # no master seen, no job object: the worker offset is unknown
], ids=["ray-worker", "random-suffix", "other-prefix", "non-indexed-job", "worker-without-master-or-job"])
def test_names_without_a_convention_get_no_rank(tmp_path, kind, owner, name):
    rows, _ = _ranks(tmp_path, [_bare(name, kind, owner)])
    assert rows == []
