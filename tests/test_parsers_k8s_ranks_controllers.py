"""Rank identity for TrainJob/JobSet, Indexed Job, MPIJob, Ray and pods of no job; end to end."""

from __future__ import annotations

import json
from pathlib import Path

from k8s_builders import at, container, context, iso, make_bundle, meta, obj_row, pod, pytorch_labels, pytorchjob
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.parsers import k8s_jobs, k8s_pods, ranks
from k10s_forensics.rebuild.run import rebuild


def derive(tmp_path: Path, objects: list[dict], exec_rows=None):
    ctx = context(make_bundle(tmp_path / "b", objects, exec_rows), tmp_path / "out")
    for module in (k8s_pods, k8s_jobs, ranks):
        module.derive(ctx)
    return ctx


def issues(ctx) -> dict[tuple[str, str], int]:
    return {(r["source"], r["reason"]): r["count"] for r in ctx.issues.rows()}


def owned(kind: str, name: str, api: str, owner: tuple[str, str] | None = None, **body) -> dict:
    refs = [{"kind": owner[0], "name": owner[1], "controller": True}] if owner else []
    return {"apiVersion": api, "kind": kind, "metadata": meta(name, ownerReferences=refs), **body}


def jobset_pod(jobset: str, rj: str, job_index: int, global_index: int, ci: int, rj_replicas: int, *, trainer: bool = False,
               env: dict | None = None, gpus: int = 1) -> dict:
    job = f"{jobset}-{rj}-{job_index}"
    labels = {
        "jobset.sigs.k8s.io/jobset-name": jobset, "jobset.sigs.k8s.io/replicatedjob-name": rj,
        "jobset.sigs.k8s.io/replicatedjob-replicas": str(rj_replicas), "jobset.sigs.k8s.io/job-index": str(job_index),
        "jobset.sigs.k8s.io/job-global-index": str(global_index), "batch.kubernetes.io/job-name": job,
        "batch.kubernetes.io/job-completion-index": str(ci), "job-name": job,
    }
    if trainer:
        labels["trainer.kubeflow.org/trainjob-ancestor-step"] = "trainer" if rj == "node" else rj
    return pod(f"{job}-{ci}", labels=labels, annotations={"batch.kubernetes.io/job-completion-index": str(ci)},
               containers=[container("node", gpus=gpus, env=env)], owner=("Job", job))


def test_trainjob_jobset_job_pods_with_completion_index_env(tmp_path):
    env = {"PET_NODE_RANK": {"fieldRef": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}, "PET_NPROC_PER_NODE": "auto",
           "PET_NNODES": "3"}
    trainjob = owned("TrainJob", "ft", "trainer.kubeflow.org/v1alpha1", spec={"trainer": {"numNodes": 3, "numProcPerNode": "auto",
                                                                                           "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}}})
    jobset = owned("JobSet", "ft", "jobset.x-k8s.io/v1alpha2", ("TrainJob", "ft"))
    child = owned("Job", "ft-node-0", "batch/v1", ("JobSet", "ft"), spec={"parallelism": 3, "completionMode": "Indexed"})
    pods = [jobset_pod("ft", "node", 0, 1, ci, 1, trainer=True, env=env, gpus=4) for ci in (2, 0, 1)]
    pods.append(jobset_pod("ft", "model-initializer", 0, 0, 0, 1, trainer=True, gpus=0))
    ctx = derive(tmp_path, [obj_row(o) for o in (trainjob, jobset, child, *pods)])
    rows = ctx.table("ranks").to_pylist()
    assert sorted(r["rank"] for r in rows) == list(range(12))
    r6 = next(r for r in rows if r["rank"] == 6)
    assert (r6["pod"], r6["node_rank"], r6["local_rank"], r6["job"], r6["job_kind"]) == ("ft-node-0-1", 1, 2, "ft", "TrainJob")
    assert (r6["rank_source"], r6["nproc_per_node"], r6["world_size"], r6["replica_type"], r6["replica_index"]) == (
        "env:PET_NODE_RANK", 4, 12, "node", 1)
    assert not any(r["pod"].startswith("ft-model-initializer") for r in rows) and not issues(ctx)


def test_jobset_labels_only_job_index_times_parallelism(tmp_path):
    """One replicated job of 3 Jobs x 2 pods: node_rank = job-index x parallelism + completion index."""
    spec = {"replicatedJobs": [{"name": "workers", "replicas": 3, "template": {"spec": {"parallelism": 2, "template": {"spec": {"containers": [container(gpus=1)]}}}}}]}
    jobset = owned("JobSet", "js", "jobset.x-k8s.io/v1alpha2", spec=spec)
    pods = [jobset_pod("js", "workers", j, j, ci, 3) for j in range(3) for ci in range(2)]
    ctx = derive(tmp_path, [obj_row(jobset)] + [obj_row(p) for p in pods])
    got = {r["pod"]: (r["rank"], r["rank_source"]) for r in ctx.table("ranks").to_pylist()}
    assert got == {f"js-workers-{j}-{ci}": (j * 2 + ci, "label:job-index+job-completion-index" if j else "label:job-completion-index")
                   for j in range(3) for ci in range(2)}
    assert {r["world_size"] for r in ctx.table("ranks").to_pylist()} == {6}


def test_jobset_several_replicated_jobs(tmp_path):
    """Equal parallelism: job-global-index x parallelism + completion index; unequal: not guessed."""
    def rj(name, replicas, par):
        return {"name": name, "replicas": replicas, "template": {"spec": {"parallelism": par, "template": {"spec": {"containers": [container(gpus=1)]}}}}}

    equal = owned("JobSet", "eq", "jobset.x-k8s.io/v1alpha2", spec={"replicatedJobs": [rj("a", 1, 2), rj("b", 2, 2)]})
    pods = [jobset_pod("eq", "a", 0, 0, ci, 1) for ci in range(2)] + [jobset_pod("eq", "b", j, j + 1, ci, 2) for j in range(2) for ci in range(2)]
    unequal = owned("JobSet", "ne", "jobset.x-k8s.io/v1alpha2", spec={"replicatedJobs": [rj("driver", 1, 1), rj("w", 1, 4)]})
    pods += [jobset_pod("ne", "driver", 0, 0, 0, 1)] + [jobset_pod("ne", "w", 0, 1, ci, 1) for ci in range(4)]
    ctx = derive(tmp_path, [obj_row(equal), obj_row(unequal)] + [obj_row(p) for p in pods])
    got = {r["pod"]: r["rank"] for r in ctx.table("ranks").to_pylist()}
    assert got == {"eq-a-0-0": 0, "eq-a-0-1": 1, "eq-b-0-0": 2, "eq-b-0-1": 3, "eq-b-1-0": 4, "eq-b-1-1": 5}
    assert issues(ctx) == {("ranks", "no rank identity (several replicated jobs of unknown or different parallelism)"): 5}


def test_indexed_job_and_non_indexed_job(tmp_path):
    indexed = owned("Job", "bench", "batch/v1", spec={"parallelism": 3, "completionMode": "Indexed",
                                                      "template": {"spec": {"containers": [container(gpus=8, env={"PET_NPROC_PER_NODE": "8"})]}}})
    pods = [pod(f"bench-{i}-x", labels={"batch.kubernetes.io/job-name": "bench", "batch.kubernetes.io/job-completion-index": str(i)},
                containers=[container(gpus=8, env={"PET_NPROC_PER_NODE": "8"})], owner=("Job", "bench")) for i in range(3)]
    plain = owned("Job", "sweep", "batch/v1", spec={"parallelism": 2})
    pods += [pod(f"sweep-{s}", labels={"batch.kubernetes.io/job-name": "sweep"}, owner=("Job", "sweep")) for s in ("abc", "def")]
    single = owned("Job", "one", "batch/v1", spec={"parallelism": 1})
    pods.append(pod("one-zzz", labels={"job-name": "one"}, containers=[container(gpus=2, env={"PET_NPROC_PER_NODE": "gpu"})], owner=("Job", "one")))
    ctx = derive(tmp_path, [obj_row(o) for o in (indexed, plain, single, *pods)])
    rows = ctx.table("ranks").to_pylist()
    bench = sorted((r["pod"], r["rank"]) for r in rows if r["job"] == "bench" and r["local_rank"] == 0)
    assert bench == [("bench-0-x", 0), ("bench-1-x", 8), ("bench-2-x", 16)]
    assert {r["world_size"] for r in rows if r["job"] == "bench"} == {24}
    one = sorted((r["rank"], r["rank_source"], r["nproc_per_node"]) for r in rows if r["job"] == "one")
    assert one == [(0, "single-pod", 2), (1, "single-pod", 2)]
    assert issues(ctx) == {("ranks", "no rank identity (Job is not Indexed and runs several pods)"): 2}


def test_mpijob_ray_and_pods_of_no_job(tmp_path):
    mpi = owned("MPIJob", "hvd", "kubeflow.org/v2beta1", spec={"slotsPerWorker": 2, "mpiReplicaSpecs": {
        "Launcher": {"replicas": 1}, "Worker": {"replicas": 2, "template": {"spec": {"containers": [container(gpus=2)]}}}}})
    mpi_labels = {"training.kubeflow.org/job-name": "hvd", "training.kubeflow.org/operator-name": "mpi-operator"}
    pods = [pod("hvd-launcher", labels={**mpi_labels, "training.kubeflow.org/job-role": "launcher"})]
    pods += [pod(f"hvd-worker-{i}", labels={**mpi_labels, "training.kubeflow.org/job-role": "worker", "training.kubeflow.org/replica-index": str(i)},
                 containers=[container(gpus=2)]) for i in range(2)]
    pods.append(pod("rc-head", labels={"ray.io/cluster": "rc", "ray.io/node-type": "head"}))
    pods.append(pod("web-7f9", labels={"app": "web"}, owner=("ReplicaSet", "web-7")))
    ctx = derive(tmp_path, [obj_row(mpi)] + [obj_row(p) for p in pods])
    rows = ctx.table("ranks").to_pylist()
    assert sorted((r["pod"], r["rank"]) for r in rows) == [("hvd-worker-0", 0), ("hvd-worker-0", 1), ("hvd-worker-1", 2), ("hvd-worker-1", 3)]
    assert {r["world_size"] for r in rows} == {4} and not issues(ctx)


def test_end_to_end_rebuild_and_sql(tmp_path):
    """Raw Parquet -> k10s rebuild -> DuckDB views: pods, jobs, ranks, events, parse_errors."""
    job = pytorchjob("gpt", workers=2, gpus=1, nproc=1)
    pods = [pod("gpt-master-0", labels=pytorch_labels("gpt", "master", 0), containers=[container(gpus=1)], node="n0")]
    pods += [pod(f"gpt-worker-{i}", labels=pytorch_labels("gpt", "worker", i), containers=[container(gpus=1)], node=f"n{i + 1}") for i in range(2)]
    event = {"apiVersion": "v1", "kind": "Event", "metadata": meta("gpt-worker-1.1", uid="ev1"), "reason": "BackOff", "type": "Warning",
             "involvedObject": {"kind": "Pod", "name": "gpt-worker-1", "uid": "uid-gpt-worker-1"}, "message": "Back-off restarting failed container",
             "count": 4, "lastTimestamp": iso(at(9))}
    exec_rows = [{"captured_at": at(2), "duration_ms": 5, "source": "visible-devices", "node": f"n{i}", "namespace": "team-a",
                  "pod": name, "container": "pytorch", "command": "printenv NVIDIA_VISIBLE_DEVICES", "exit_code": 0,
                  "stdout": f"GPU-{i}\n", "stderr": "", "error": None}
                 for i, name in enumerate(["gpt-master-0", "gpt-worker-0", "gpt-worker-1"])]
    objs = [obj_row(job), obj_row(event), obj_row("not json", kind="Pod", name="junk")] + [obj_row(p) for p in pods]
    make_bundle(tmp_path / "b", objs, exec_rows)
    bundle = Bundle.open(tmp_path / "b")
    rebuild(bundle)
    con = connect(Bundle.open(tmp_path / "b"), rebuild_if_needed=False)
    ranks_sql = run_sql(con, "SELECT r.rank, r.pod, r.node, r.gpu_uuid, j.world_size FROM ranks r JOIN jobs j USING (namespace, job) ORDER BY r.rank").to_pylist()
    assert ranks_sql == [{"rank": i, "pod": p, "node": f"n{i}", "gpu_uuid": f"GPU-{i}", "world_size": 3}
                         for i, p in enumerate(["gpt-master-0", "gpt-worker-0", "gpt-worker-1"])]
    ev = run_sql(con, "SELECT object_name, reason, count FROM events").to_pylist()
    assert ev == [{"object_name": "gpt-worker-1", "reason": "BackOff", "count": 4}]
    errors = run_sql(con, "SELECT count, first_raw_row FROM parse_errors WHERE source = 'objects:Pod'").to_pylist()
    assert errors == [{"count": 1, "first_raw_row": 2}]
    pods_n = run_sql(con, "SELECT count(*) AS n, sum(gpu_request) AS g FROM pods WHERE job_kind = 'PyTorchJob'").to_pylist()
    assert pods_n == [{"n": 3, "g": 3}]
    record = json.loads((tmp_path / "b" / "tables" / "derived.json").read_text())
    assert record["parse_errors"]["objects:Pod"]["count"] == 1
