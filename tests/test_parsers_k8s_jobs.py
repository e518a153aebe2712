"""``jobs`` and the Kueue tables, on the real samples (YAML) and hand-built objects."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from k8s_builders import at, container, context, iso, jsonable, make_bundle, meta, obj_row, pytorchjob
from k10s_forensics.parsers import k8s_jobs, kueue

yaml = pytest.importorskip("yaml", reason="PyYAML is a test dependency (pip install -e .[test])")
UTC = dt.timezone.utc


def run(tmp_path: Path, objects: list[dict], *modules):
    ctx = context(make_bundle(tmp_path / "b", objects), tmp_path / "out")
    for module in modules:
        module.derive(ctx)
    return ctx


def load(real_samples: Path, rel: str) -> dict:
    return jsonable(yaml.safe_load((real_samples / rel).read_text()))


def d(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


# ---- training jobs: real samples -------------------------------------------------------
REAL_JOBS = {
    "training-jobs/pytorchjob_v1_succeeded_kubeflow-website.yaml": dict(
        kind="PyTorchJob", job="pytorch-tcp-dist-mnist", namespace="default", state="Succeeded", replicas=4, master_replicas=1,
        nproc_per_node=1, world_size=4, gpus_per_pod=0, created_at=d(2018, 12, 16, 21, 39, 9), started_at=d(2018, 12, 16, 21, 40, 45),
        finished_at=d(2018, 12, 16, 21, 43, 27), message="PyTorchJob pytorch-tcp-dist-mnist is successfully completed."),
    "training-jobs/jaxjob_v1_succeeded_selector-replicastatus_kubeflow-website.yaml": dict(
        kind="JAXJob", job="jaxjob-simple", namespace="kubeflow", state="Succeeded", replicas=2, master_replicas=0, world_size=2,
        uid="eb20c874-44fc-459b-b9a8-09f5c3ff46d3", finished_at=d(2024, 9, 22, 20, 11, 34)),
    "training-jobs/paddlejob_v1_status_kubeflow-website.yaml": dict(
        kind="PaddleJob", job="paddle-simple-cpu", state="Succeeded", replicas=2, world_size=2, started_at=d(2022, 10, 24, 3, 47, 45),
        message="PaddleJob kubeflow/paddle-simple-cpu successfully completed."),
    "training-jobs/xgboostjob_v1_succeeded_replicastatus-counts_kubeflow-website.yaml": dict(
        kind="XGBoostJob", job="xgboost-dist-iris-test-train", state="Succeeded", replicas=3, master_replicas=1, world_size=3,
        suspended=False, finished_at=d(2021, 9, 6, 18, 34, 23)),
}


@pytest.mark.parametrize("rel", sorted(REAL_JOBS))
def test_real_training_job_samples(tmp_path, real_samples, rel):
    ctx = run(tmp_path, [obj_row(load(real_samples, rel))], k8s_jobs)
    rows = ctx.table("jobs").to_pylist()
    assert len(rows) == 1 and not ctx.issues.rows()
    row = rows[0]
    for key, value in REAL_JOBS[rel].items():
        assert row[key] == value, key
    assert row["api_version"] == "kubeflow.org/v1" and row["parent"] is None


def test_every_real_training_job_sample_is_covered(real_samples):
    assert {f"training-jobs/{p.name}" for p in (real_samples / "training-jobs").iterdir()} == set(REAL_JOBS)


# ---- training jobs: hand-built ---------------------------------------------------------
def test_pytorchjob_nproc_forms(tmp_path):
    objs = [
        obj_row(pytorchjob("fixed", workers=3, gpus=8, nproc=8)),
        obj_row(pytorchjob("auto", workers=3, gpus=8, nproc="auto")),
        obj_row(pytorchjob("env", workers=1, gpus=4, env_nproc=4, master=False)),
        obj_row(pytorchjob("cpu", workers=1, gpus=0, nproc="cpu")),
        obj_row(pytorchjob("single", workers=1, gpus=1)),
    ]
    rows = {r["job"]: r for r in run(tmp_path, objs, k8s_jobs).table("jobs").to_pylist()}
    assert (rows["fixed"]["world_size"], rows["fixed"]["replicas"], rows["fixed"]["nproc_per_node"]) == (32, 4, 8)
    assert (rows["auto"]["world_size"], rows["auto"]["nproc_per_node"]) == (32, 8)
    assert (rows["env"]["world_size"], rows["env"]["master_replicas"]) == (4, 0)
    assert (rows["cpu"]["world_size"], rows["cpu"]["nproc_per_node"]) == (None, None)
    assert (rows["single"]["world_size"], rows["single"]["state"], rows["single"]["queue_name"]) == (2, "Running", "lq")


def test_mpijob_trainjob_jobset_job_ray_lws(tmp_path):
    worker_tpl = {"spec": {"containers": [container("w", gpus=8)]}}
    mpi = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": meta("mpi"),
           "spec": {"slotsPerWorker": 8, "mpiReplicaSpecs": {"Launcher": {"replicas": 1, "template": {"spec": {"containers": [container("l")]}}},
                                                              "Worker": {"replicas": 2, "template": worker_tpl}}},
           "status": {"conditions": [{"type": "Created", "status": "True"}, {"type": "Failed", "status": "True", "message": "worker-1 OOM"}]}}
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta("ft"),
                "spec": {"trainer": {"numNodes": 4, "numProcPerNode": "auto", "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}}}}}
    node_rj = {"name": "node", "replicas": 1, "template": {"spec": {"parallelism": 4, "completions": 4, "template": {
        "spec": {"containers": [container("node", gpus=8, env={"PET_NPROC_PER_NODE": "8"})]}}}}}
    init_rj = {"name": "model-initializer", "replicas": 1, "template": {"spec": {"template": {"spec": {"containers": [container("init")]}}}}}
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
              "metadata": meta("ft", ownerReferences=[{"kind": "TrainJob", "name": "ft", "controller": True}]),
              "spec": {"replicatedJobs": [init_rj, node_rj], "failurePolicy": {"maxRestarts": 3}},
              "status": {"restarts": 2, "restartsCountTowardsMax": 1, "terminalState": "Failed",
                         "conditions": [{"type": "Failed", "status": "True", "message": "jobset failed"}]}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("ft-node-0", ownerReferences=[{"kind": "JobSet", "name": "ft", "controller": True}]),
           "spec": {"parallelism": 4, "completions": 4, "completionMode": "Indexed", "backoffLimit": 0, "template": node_rj["template"]["spec"]["template"]},
           "status": {"active": 4, "startTime": iso(at(1))}}
    rayjob = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta("rj"),
              "spec": {"rayClusterSpec": {"workerGroupSpecs": [{"groupName": "gpu", "replicas": 3, "template": worker_tpl}]}},
              "status": {"jobStatus": "RUNNING", "startTime": iso(at(2))}}
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": meta("serve"),
           "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 4, "workerTemplate": worker_tpl}}}
    objs = [obj_row(o) for o in (mpi, trainjob, jobset, job, rayjob, lws)]
    rows = {r["kind"]: r for r in run(tmp_path, objs, k8s_jobs).table("jobs").to_pylist()}
    assert (rows["MPIJob"]["world_size"], rows["MPIJob"]["replicas"], rows["MPIJob"]["state"], rows["MPIJob"]["message"]) == (16, 2, "Failed", "worker-1 OOM")
    assert (rows["TrainJob"]["world_size"], rows["TrainJob"]["nproc_per_node"], rows["TrainJob"]["gpus_per_pod"]) == (32, 8, 8)
    js = rows["JobSet"]
    assert (js["parent_kind"], js["parent"], js["replicas"], js["world_size"], js["nproc_per_node"]) == ("TrainJob", "ft", 4, 32, 8)
    assert (js["restart_attempts"], js["restarts_count_towards_max"], js["max_restarts"], js["state"]) == (2, 1, 3, "Failed")
    assert json.loads(js["replica_specs_json"])["node"] == {"replicas": 1, "parallelism": 4, "gpus_per_pod": 8}
    bj = rows["Job"]
    assert (bj["parent_kind"], bj["state"], bj["replicas"], bj["completion_mode"], bj["max_restarts"], bj["started_at"]) == (
        "JobSet", "Running", 4, "Indexed", 0, at(1))
    assert (rows["RayJob"]["state"], rows["RayJob"]["replicas"], rows["RayJob"]["world_size"]) == ("Running", 3, None)
    assert (rows["LeaderWorkerSet"]["replicas"], rows["LeaderWorkerSet"]["world_size"]) == (8, None)


def test_bad_job_bodies_are_counted(tmp_path):
    objs = [obj_row(pytorchjob("ok", 1, 1)), obj_row("{", kind="PyTorchJob", name="broken"), obj_row("null", kind="JobSet", name="n")]
    ctx = run(tmp_path, objs, k8s_jobs)
    assert [r["job"] for r in ctx.table("jobs").to_pylist()] == ["ok"]
    issues = {(r["source"], r["reason"]): r["count"] for r in ctx.issues.rows()}
    assert issues == {("objects:PyTorchJob", "unparseable JSON body"): 1, ("objects:JobSet", "body is not a JSON object"): 1}


# ---- Kueue: real status fragments --------------------------------------------------------
def wrap(kind: str, name: str, fragment: dict, namespace: str | None = "team-a", api: str = "kueue.x-k8s.io/v1beta1", **extra) -> dict:
    return {"apiVersion": api, "kind": kind, "metadata": meta(name, namespace, **extra), **fragment}


def test_kueue_workload_real_fragments(tmp_path, real_samples):
    names = {
        "inadmissible": "kueue/workload-status_inadmissible-localqueue-missing_kueue-docs.yaml",
        "pending": "kueue/workload-status_pending-insufficient-quota_kueue-docs.yaml",
        "preempted": "kueue/workload-status_preempted-evicted-requeued_kueue-docs.yaml",
    }
    objs = [obj_row(wrap("Workload", n, load(real_samples, rel))) for n, rel in names.items()]
    ctx = run(tmp_path, objs, kueue)
    rows = {r["workload"]: r for r in ctx.table("kueue_workloads").to_pylist()}
    i = rows["inadmissible"]
    assert (i["quota_reserved"], i["quota_reserved_reason"], i["admitted"], i["evicted"], i["message"]) == (
        False, "Inadmissible", None, None, "LocalQueue user-queue doesn't exist")
    p = rows["pending"]
    assert (p["quota_reserved"], p["quota_reserved_reason"], p["gpu_request"]) == (False, "Pending", 0)
    assert p["message"] == "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default-flavor in ClusterQueue"
    e = rows["preempted"]
    assert (e["evicted"], e["evicted_reason"], e["admitted"], e["quota_reserved"]) == (True, "Preempted", False, False)
    assert e["message"] == "Preempted to accommodate a higher priority Workload"
    assert len(json.loads(e["conditions_json"])) == 3


def test_kueue_cluster_queue_real_fragments(tmp_path, real_samples):
    names = {
        "ready": "kueue/clusterqueue-status_active-ready_kueue-docs.yaml",
        "hami": "kueue/clusterqueue-status_hami-flavorsreservation_kueue-docs.yaml",
        "noflavor": "kueue/clusterqueue-status_inactive-flavornotfound_kueue-docs.yaml",
        "stopped": "kueue/clusterqueue-status_inactive-stopped_kueue-docs.yaml",
    }
    objs = [obj_row(wrap("ClusterQueue", n, load(real_samples, rel), namespace=None)) for n, rel in names.items()]
    rows = run(tmp_path, objs, kueue).table("kueue_cluster_queues").to_pylist()
    by = {(r["cluster_queue"], r["resource"]): r for r in rows}
    assert len(rows) == 5
    ready = by[("ready", None)]
    assert (ready["active"], ready["active_reason"], ready["admitted_workloads"], ready["flavor"]) == (True, "Ready", 1, None)
    assert (by[("noflavor", None)]["active"], by[("noflavor", None)]["active_message"]) == (False, "Can't admit new workloads: FlavorNotFound")
    assert (by[("stopped", None)]["active_reason"], by[("stopped", None)]["admitted_workloads"]) == ("ClusterQueueIsInactive", 0)
    cores = by[("hami", "nvidia.com/total-gpucores")]
    assert (cores["flavor"], cores["used"], cores["reserved"], cores["nominal_quota"]) == ("hami-flavor", 60.0, 60.0, None)
    assert by[("hami", "nvidia.com/total-gpumem")]["reserved"] == 2048.0


def test_every_real_kueue_sample_is_covered(real_samples):
    assert len(list((real_samples / "kueue").iterdir())) == 7  # 3 workload + 4 cluster-queue fragments above


# ---- Kueue: hand-built v1beta1/v1beta2 objects ----------------------------------------------
def test_kueue_full_objects_both_versions(tmp_path):
    cq = wrap("ClusterQueue", "gpu-cq", {
        "spec": {"cohortName": "research", "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [
            {"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16, "borrowingLimit": "8"}, {"name": "cpu", "nominalQuota": "500m"}]}]}]},
        "status": {"pendingWorkloads": 3, "admittedWorkloads": 2, "reservingWorkloads": 2,
                   "flavorsUsage": [{"name": "h100", "resources": [{"name": "nvidia.com/gpu", "total": "16", "borrowed": "0"}]}],
                   "flavorsReservation": [{"name": "h100", "resources": [{"name": "nvidia.com/gpu", "total": "16"}]}],
                   "conditions": [{"type": "Active", "status": "True", "reason": "Ready"}]}}, namespace=None, api="kueue.x-k8s.io/v1beta2")
    lq = wrap("LocalQueue", "lq", {"spec": {"clusterQueue": "gpu-cq"}, "status": {"pendingWorkloads": 1, "admittedWorkloads": 2,
                                                                                  "conditions": [{"type": "Active", "status": "True"}]}})
    wl = wrap("Workload", "pytorchjob-llama-3f2a1", {
        "spec": {"queueName": "lq", "priority": 100, "podSets": [
            {"name": "master", "count": 1, "template": {"spec": {"containers": [container(gpus=8)]}}},
            {"name": "worker", "count": 3, "template": {"spec": {"containers": [container(gpus=8)]}}}]},
        "status": {"admission": {"clusterQueue": "gpu-cq"}, "requeueState": {"count": 2},
                   "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"},
                                  {"type": "Admitted", "status": "True", "reason": "Admitted", "lastTransitionTime": iso(at(4))},
                                  {"type": "PodsReady", "status": "False", "reason": "WaitForStart", "message": "Not all pods are ready or succeeded"}]}},
        ownerReferences=[{"kind": "PyTorchJob", "name": "llama", "controller": True}])
    ctx = run(tmp_path, [obj_row(cq), obj_row(lq), obj_row(wl)], kueue)
    rows = {r["resource"]: r for r in ctx.table("kueue_cluster_queues").to_pylist()}
    gpu = rows["nvidia.com/gpu"]
    assert (gpu["nominal_quota"], gpu["borrowing_limit"], gpu["used"], gpu["borrowed"], gpu["pending_workloads"], gpu["cohort"]) == (
        16.0, 8.0, 16.0, 0.0, 3, "research")
    assert (rows["cpu"]["nominal_quota"], rows["cpu"]["used"]) == (0.5, None)
    assert ctx.table("kueue_local_queues").to_pylist()[0] | {} == {
        "namespace": "team-a", "local_queue": "lq", "cluster_queue": "gpu-cq", "pending_workloads": 1,
        "admitted_workloads": 2, "reserving_workloads": None, "active": True}
    w = ctx.table("kueue_workloads").to_pylist()[0]
    assert (w["owner_kind"], w["owner_name"], w["cluster_queue"], w["queue_name"], w["gpu_request"]) == ("PyTorchJob", "llama", "gpu-cq", "lq", 32)
    assert (w["admitted"], w["admitted_at"], w["pods_ready"], w["requeue_count"], w["priority"]) == (True, at(4), False, 2, 100)
    assert w["message"] == "Not all pods are ready or succeeded"
