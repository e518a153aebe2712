"""Kubernetes-object parsers on the real samples and on hand-built objects (nodes, pods, events)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from k8s_builders import T0, at, container, context, iso, jsonable, make_bundle, meta, obj_row, pod, pytorch_labels
from k10s_forensics.parsers import k8s_events, k8s_nodes, k8s_pods

yaml = pytest.importorskip("yaml", reason="PyYAML is a test dependency (pip install -e .[test])")
UTC = dt.timezone.utc


def run(tmp_path: Path, objects: list[dict], *modules):
    bundle = make_bundle(tmp_path / "b", objects)
    ctx = context(bundle, tmp_path / "out")
    for module in modules:
        module.derive(ctx)
    return ctx


def node_body(name: str, labels: dict | None = None, status: dict | None = None, spec: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta(name, None, labels=labels or {}), "spec": spec or {}, "status": status or {}}


# ---- nodes -----------------------------------------------------------------------------
def test_node_labels_mig_mixed_real_sample(tmp_path, real_samples):
    labels = json.loads((real_samples / "k8s-objects/node-labels_h100-80gb-hbm3_mig-mixed_gpu-operator-docs.json").read_text())
    no_product = {k: v for k, v in labels.items() if k != "nvidia.com/gpu.product"}
    ctx = run(tmp_path, [obj_row(node_body("h100-a", labels)), obj_row(node_body("h100-b", no_product))], k8s_nodes)
    rows = {r["node"]: r for r in ctx.table("nodes").to_pylist()}
    a = rows["h100-a"]
    assert a["gpu_product"] == "NVIDIA-H100-80GB-HBM3"
    assert (a["mig_strategy"], a["gpu_memory_mib"], a["gpu_count_label"], a["hostname"]) == ("mixed", 81559, 1, "s4124-0073")
    assert a["ready"] is None and a["gpu_capacity"] is None  # no status listed: unknown, not false/0
    # Without gpu.product, the three MIG product labels all name the same parent GPU.
    assert rows["h100-b"]["gpu_product"] == "NVIDIA-H100-80GB-HBM3"
    assert json.loads(a["labels_json"])["nvidia.com/mig-1g.10gb.count"] == "2"


def test_node_labels_mig_single_real_sample(tmp_path, real_samples):
    labels = json.loads((real_samples / "k8s-objects/node-labels_h100-80gb-hbm3_mig-single_gpu-operator-docs.json").read_text())
    ctx = run(tmp_path, [obj_row(node_body("h100", labels))], k8s_nodes)
    row = ctx.table("nodes").to_pylist()[0]
    assert (row["gpu_product"], row["mig_strategy"], row["gpu_memory_mib"]) == ("NVIDIA-H100-80GB-HBM3", "single", 81559)


def test_node_capacity_real_sample_and_gpus_missing_from_allocatable(tmp_path, real_samples):
    capacity = json.loads((real_samples / "k8s-objects/node-status-capacity_t4-time-slicing-8-replicas_openshift-docs.json").read_text())
    allocatable = dict(capacity, **{"nvidia.com/gpu": "7"})
    status = {
        "capacity": capacity, "allocatable": allocatable,
        "addresses": [{"type": "InternalIP", "address": "10.0.3.17"}, {"type": "Hostname", "address": "ip-10-0-3-17"}],
        "conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady", "lastTransitionTime": iso(at(3))}],
        "nodeInfo": {"kubeletVersion": "v1.31.2"},
    }
    spec = {"unschedulable": True, "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                                              {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]}
    ctx = run(tmp_path, [obj_row(node_body("t4", {"node.kubernetes.io/instance-type": "g4dn.xlarge"}, status, spec))], k8s_nodes)
    row = ctx.table("nodes").to_pylist()[0]
    assert (row["gpu_capacity"], row["gpu_allocatable"]) == (8, 7)
    assert json.loads(row["gpu_resources_json"]) == {"nvidia.com/gpu": {"capacity": 8, "allocatable": 7}}
    assert row["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                             {"key": "node.kubernetes.io/unreachable", "value": None, "effect": "NoExecute"}]
    assert (row["ready"], row["ready_reason"], row["ready_changed_at"]) == (False, "KubeletNotReady", at(3))
    assert (row["unschedulable"], row["internal_ip"], row["hostname"]) == (True, "10.0.3.17", "ip-10-0-3-17")
    assert (row["instance_type"], row["kubelet_version"]) == ("g4dn.xlarge", "v1.31.2")


def test_node_last_listing_wins_and_mig_resources_count(tmp_path):
    early = node_body("n1", status={"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"},
                                    "conditions": [{"type": "Ready", "status": "True"}]})
    late = node_body("n1", status={"capacity": {"nvidia.com/mig-1g.10gb": "7", "nvidia.com/mig-3g.40gb": "2"},
                                   "allocatable": {"nvidia.com/mig-1g.10gb": "7"}, "conditions": [{"type": "Ready", "status": "False"}]})
    # the later listing is written first: order in the file must not matter, captured_at does
    ctx = run(tmp_path, [obj_row(late, at(5)), obj_row(early, at(0))], k8s_nodes)
    rows = ctx.table("nodes").to_pylist()
    assert len(rows) == 1
    assert (rows[0]["ready"], rows[0]["gpu_capacity"], rows[0]["gpu_allocatable"], rows[0]["captured_at"]) == (False, 9, 7, at(5))


# ---- pods and containers ---------------------------------------------------------------
def _status_with(container_status: dict) -> dict:
    return {"phase": "Running", "startTime": iso(T0), "containerStatuses": [container_status]}


def test_container_laststate_jsonfrag_real_sample(tmp_path, real_samples):
    frag = (real_samples / "k8s-objects/pod-containerstatus-laststate_exit137-reason-error-system-oom_k8s-issue53669.jsonfrag").read_text()
    # The fragment is a member list cut out of a containerStatuses entry: wrap it into one.
    entry = json.loads('{"name": "app", "restartCount": 4, "state": {"running": {"startedAt": "2017-10-10T17:42:00Z"}},' + frag.strip().rstrip(",") + "}")
    p = pod("svc-0", containers=[container("app")], status=_status_with(entry))
    bare = obj_row(frag, kind="Pod", name="frag", namespace="team-a", uid="u-frag")  # the fragment as a body: not JSON
    ctx = run(tmp_path, [obj_row(p), bare], k8s_pods)
    c = ctx.table("containers").to_pylist()[0]
    assert (c["state"], c["restart_count"], c["last_reason"], c["last_exit_code"]) == ("running", 4, "Error", 137)
    assert c["last_finished_at"] == dt.datetime(2017, 10, 10, 17, 41, 58, tzinfo=UTC)
    assert c["last_started_at"] == dt.datetime(2017, 10, 10, 17, 20, 37, tzinfo=UTC)
    issues = {(r["source"], r["reason"]): r for r in ctx.issues.rows()}
    assert issues[("objects:Pod", "unparseable JSON body")]["count"] == 1
    assert issues[("objects:Pod", "unparseable JSON body")]["first_raw_row"] == 1


def test_container_laststate_oomkilled_yaml_real_sample(tmp_path, real_samples):
    frag = yaml.safe_load((real_samples / "k8s-objects/pod-containerstatus-laststate_oomkilled_k8s-website.yaml").read_text())
    entry = {"name": "memory-demo", "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}, **jsonable(frag)}
    ctx = run(tmp_path, [obj_row(pod("demo", containers=[container("memory-demo")], status=_status_with(entry)))], k8s_pods)
    c = ctx.table("containers").to_pylist()[0]
    assert (c["state"], c["reason"], c["message"]) == ("waiting", "CrashLoopBackOff", "back-off 40s")
    assert (c["last_reason"], c["last_exit_code"], c["last_started_at"]) == ("OOMKilled", 137, None)
    assert c["last_finished_at"] == dt.datetime(2017, 6, 20, 20, 52, 19, tzinfo=UTC)


def test_pod_gpu_request_finished_at_multus_and_job(tmp_path):
    network_status = json.dumps([
        {"name": "cbr0", "interface": "eth0", "ips": ["10.1.0.5"], "default": True},
        {"name": "team-a/rdma-net", "interface": "net1", "ips": ["192.168.10.5", "fd00::5"]},
    ])
    init = [container("fetch", gpus=8), container("log-sidecar", gpus=0, restartPolicy="Always")]
    apps = [container("pytorch", gpus=2, limits_only=True), container("helper", gpus=2)]
    terminated = {"phase": "Failed", "startTime": iso(T0), "podIP": "10.1.0.5",
                  "containerStatuses": [
                      {"name": "pytorch", "restartCount": 0, "state": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": iso(at(7))}}},
                      {"name": "helper", "restartCount": 0, "state": {"terminated": {"exitCode": 143, "reason": "Error", "finishedAt": iso(at(9))}}}]}
    done = pod("llama-worker-0", labels=pytorch_labels("llama", "worker", 0), containers=apps, initContainers=init,
               status=terminated, annotations={"k8s.v1.cni.cncf.io/network-status": network_status})
    deleting = pod("web-1", owner=("ReplicaSet", "web-abc"), containers=[container("web")])
    deleting["metadata"]["deletionTimestamp"] = iso(at(4))
    bad_annotation = pod("odd", annotations={"k8s.v1.cni.cncf.io/network-status": "[{not json"})
    ctx = run(tmp_path, [obj_row(done), obj_row(deleting), obj_row(bad_annotation)], k8s_pods)
    rows = {r["pod"]: r for r in ctx.table("pods").to_pylist()}
    w = rows["llama-worker-0"]
    assert w["gpu_request"] == 8  # max(init 8, apps 2+2)
    assert w["finished_at"] == at(9)
    assert w["pod_ips"] == ["10.1.0.5", "192.168.10.5", "fd00::5"]
    assert (w["job_kind"], w["job"], w["replica_type"], w["replica_index"]) == ("PyTorchJob", "llama", "worker", 0)
    web = rows["web-1"]
    assert (web["finished_at"], web["deleted_at"], web["job"], web["owner_kind"]) == (at(4), at(4), None, "ReplicaSet")
    containers = {(c["pod"], c["container"]): c for c in ctx.table("containers").to_pylist()}
    assert containers[("llama-worker-0", "fetch")]["init"] is True
    assert containers[("llama-worker-0", "fetch")]["state"] is None  # listed in spec, no status
    assert containers[("llama-worker-0", "pytorch")]["gpu_request"] == 2  # limits only
    assert containers[("llama-worker-0", "helper")]["exit_code"] == 143
    issues = {(r["source"], r["reason"]): r["count"] for r in ctx.issues.rows()}
    assert issues == {("objects:Pod", "unparseable network-status annotation"): 1}


def test_pod_incarnations_keyed_by_uid(tmp_path):
    first = pod("llama-worker-1", uid="uid-a", labels=pytorch_labels("llama", "worker", 1))
    second = pod("llama-worker-1", uid="uid-b", labels=pytorch_labels("llama", "worker", 1), started=at(6))
    first_late = json.loads(json.dumps(first))
    first_late["status"]["phase"] = "Failed"
    objs = [obj_row(first, at(0)), obj_row(first_late, at(5)), obj_row(second, at(10))]
    ctx = run(tmp_path, objs, k8s_pods)
    rows = {r["pod_uid"]: r for r in ctx.table("pods").to_pylist()}
    assert set(rows) == {"uid-a", "uid-b"}
    assert (rows["uid-a"]["phase"], rows["uid-a"]["first_seen_at"], rows["uid-a"]["last_seen_at"]) == ("Failed", at(0), at(5))
    assert (rows["uid-b"]["phase"], rows["uid-b"]["started_at"]) == ("Running", at(6))


@pytest.mark.parametrize(
    "labels, owner, expected",
    [
        ({"training.kubeflow.org/job-name": "m", "training.kubeflow.org/job-role": "launcher",
          "training.kubeflow.org/operator-name": "mpi-operator"}, None, ("MPIJob", "m")),
        ({"training.kubeflow.org/job-name": "t", "training.kubeflow.org/replica-type": "worker"}, ("TFJob", "t"), ("TFJob", "t")),
        ({"pytorch-job-name": "old", "group-name": "kubeflow.org", "job-name": "old"}, None, ("PyTorchJob", "old")),
        ({"jobset.sigs.k8s.io/jobset-name": "js", "batch.kubernetes.io/job-name": "js-w-0"}, ("Job", "js-w-0"), ("JobSet", "js")),
        ({"jobset.sigs.k8s.io/jobset-name": "tj", "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}, None, ("TrainJob", "tj")),
        ({"batch.kubernetes.io/job-name": "bench"}, ("Job", "bench"), ("Job", "bench")),
        ({"job-name": "legacy"}, None, ("Job", "legacy")),
        ({"ray.io/cluster": "rc-x", "ray.io/originated-from-cr-name": "rj", "ray.io/originated-from-crd": "RayJob"}, None, ("RayJob", "rj")),
        ({"ray.io/cluster": "rc", "ray.io/node-type": "head"}, None, ("RayCluster", "rc")),
        ({"leaderworkerset.sigs.k8s.io/name": "lws"}, ("StatefulSet", "lws-0"), ("LeaderWorkerSet", "lws")),
        ({}, ("PyTorchJob", "owned"), ("PyTorchJob", "owned")),
        ({"app": "web"}, ("ReplicaSet", "web-1"), (None, None)),
    ],
)
def test_job_of_pod(tmp_path, labels, owner, expected):
    ctx = run(tmp_path, [obj_row(pod("p", labels=labels, owner=owner))], k8s_pods)
    row = ctx.table("pods").to_pylist()[0]
    assert (row["job_kind"], row["job"]) == expected


def test_job_of_pod_walks_owner_chain(tmp_path):
    """A pod of a Job owned by a JobSet owned by a TrainJob belongs to the TrainJob."""
    def owned(kind, name, okind, oname, api):
        return {"apiVersion": api, "kind": kind, "metadata": meta(name, ownerReferences=[{"kind": okind, "name": oname, "controller": True}])}

    objs = [
        obj_row({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta("ft")}),
        obj_row(owned("JobSet", "ft", "TrainJob", "ft", "jobset.x-k8s.io/v1alpha2")),
        obj_row(owned("Job", "ft-node-0", "JobSet", "ft", "batch/v1")),
        obj_row(pod("ft-node-0-0", labels={"batch.kubernetes.io/job-name": "ft-node-0"}, owner=("Job", "ft-node-0"))),
    ]
    ctx = run(tmp_path, objs, k8s_pods)
    row = ctx.table("pods").to_pylist()[0]
    assert (row["job_kind"], row["job"], row["batch_job"]) == ("TrainJob", "ft", "ft-node-0")


def test_rank_env_resolves_field_refs_and_keeps_only_rank_vars(tmp_path):
    env = {"PET_NODE_RANK": {"fieldRef": "metadata.annotations['batch.kubernetes.io/job-completion-index']"},
           "PET_NPROC_PER_NODE": "auto", "HF_TOKEN": "hf_secret_value"}
    p = pod("ft-node-0-3", containers=[container("node", gpus=4, env=env)], annotations={"batch.kubernetes.io/job-completion-index": "3"})
    ctx = run(tmp_path, [obj_row(p)], k8s_pods)
    row = ctx.table("pods").to_pylist()[0]
    assert json.loads(row["rank_env_json"]) == {"PET_NODE_RANK": "3", "PET_NPROC_PER_NODE": "auto"}
    assert row["completion_index"] == 3
    assert "hf_secret_value" not in json.dumps(ctx.table("pods").to_pylist(), default=str)


# ---- bad input -------------------------------------------------------------------------
def test_bad_bodies_are_counted_and_the_rest_kept(tmp_path):
    good = pod("ok-0")
    no_meta = {"apiVersion": "v1", "kind": "Pod", "spec": {}}
    no_uid = pod("no-uid")
    del no_uid["metadata"]["uid"]
    invalid_utf8 = b'{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-\xff-1","uid":"n1"}}'
    objs = [
        obj_row(good),
        obj_row(no_meta, name=None),  # neither body nor raw columns name it
        obj_row(no_uid, uid=None),
        obj_row("[1, 2]", kind="Pod", name="list"),
        obj_row("", kind="Pod", name="empty"),
        obj_row('{"kind": "Pod", "metadata": {"name": "trunc', kind="Pod", name="trunc"),
        obj_row(invalid_utf8, kind="Node", name=None),
    ]
    ctx = run(tmp_path, objs, k8s_pods, k8s_nodes)
    assert [r["pod"] for r in ctx.table("pods").to_pylist()] == ["ok-0"]
    assert [r["node"] for r in ctx.table("nodes").to_pylist()] == ["gpu-\ufffd-1"]
    issues = {(r["source"], r["reason"]): (r["count"], r["first_raw_row"]) for r in ctx.issues.rows()}
    assert issues == {
        ("objects:Pod", "missing metadata.name"): (1, 1),
        ("objects:Pod", "missing metadata.uid"): (1, 2),
        ("objects:Pod", "body is not a JSON object"): (1, 3),
        ("objects:Pod", "empty body"): (1, 4),
        ("objects:Pod", "unparseable JSON body"): (1, 5),
    }


# ---- events ----------------------------------------------------------------------------
def core_event(uid: str, count: int, last: dt.datetime, **extra) -> dict:
    body = {"apiVersion": "v1", "kind": "Event", "metadata": meta(f"p.{uid}", uid=uid),
            "involvedObject": {"kind": "Pod", "name": "llama-worker-1", "namespace": "team-a", "uid": "uid-w1"},
            "reason": "FailedScheduling", "type": "Warning",
            "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.",
            "count": count, "firstTimestamp": iso(at(0)), "lastTimestamp": iso(last),
            "source": {"component": "default-scheduler"}}
    body.update(extra)
    return body


def new_event(uid: str, count: int | None, last: dt.datetime | None, **extra) -> dict:
    body = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": meta(f"p.{uid}", uid=uid),
            "regarding": {"kind": "Pod", "name": "llama-worker-1", "namespace": "team-a", "uid": "uid-w1"},
            "reason": "FailedScheduling", "type": "Warning", "note": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.",
            "eventTime": None, "reportingController": "default-scheduler", "reportingInstance": "scheduler-abc", "action": "Scheduling"}
    if count is not None:
        body["deprecatedCount"] = count
    if last is not None:
        body["deprecatedLastTimestamp"] = iso(last)
        body["deprecatedFirstTimestamp"] = iso(at(0))
    body.update(extra)
    return body


def test_events_from_both_apis_deduplicated(tmp_path):
    objs = [
        obj_row(core_event("e1", 3, at(2)), at(2)),                 # early listing, core API
        obj_row(new_event("e1", 7, at(8)), at(9)),                  # later listing, events API: wins
        obj_row(core_event("e1", 5, at(5)), at(9)),
        obj_row(new_event("e2", None, None, eventTime="2026-11-21T10:20:00.123456Z",
                          series={"count": 12, "lastObservedTime": "2026-11-21T10:30:00.500000Z"}), at(31)),
        obj_row(core_event("e3", 0, at(1), reason="Started", type="Normal", message="Started container", lastTimestamp=None,
                           firstTimestamp=None, eventTime="2026-11-21T10:01:00.000001Z")),
    ]
    ctx = run(tmp_path, objs, k8s_events)
    rows = {r["event_uid"]: r for r in ctx.table("events").to_pylist()}
    assert set(rows) == {"e1", "e2", "e3"}
    e1 = rows["e1"]
    assert (e1["count"], e1["ts"], e1["first_ts"], e1["api_version"]) == (7, at(8), at(0), "events.k8s.io/v1")
    assert (e1["object_kind"], e1["object_name"], e1["object_uid"], e1["source_component"], e1["source_host"]) == (
        "Pod", "llama-worker-1", "uid-w1", "default-scheduler", "scheduler-abc")
    assert e1["message"].startswith("0/4 nodes are available")
    e2 = rows["e2"]
    assert (e2["count"], e2["ts"], e2["first_ts"]) == (12, at(30) + dt.timedelta(seconds=0.5), at(20) + dt.timedelta(microseconds=123456))
    e3 = rows["e3"]
    assert (e3["count"], e3["ts"], e3["type"], e3["source_component"]) == (1, at(1) + dt.timedelta(microseconds=1), "Normal", "default-scheduler")
