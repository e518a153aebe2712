"""Kubernetes object bodies as the API serves them (metadata, spec, status)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.store.bundle import iso
from k10s_forensics.simulate.cluster import Cluster, Node
from k10s_forensics.simulate.constants import (
    DCGM_EXPORTER_APP, DCGM_EXPORTER_CONTAINER, DRIVER_APP, DRIVER_CONTAINER, GPU_OPERATOR_NAMESPACE,
)
from k10s_forensics.simulate.job import Job, Pod, Run

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


class Versions:
    """Monotonic resourceVersion source."""

    def __init__(self, start: int):
        self.n = start

    def next(self) -> str:
        self.n += 7
        return str(self.n)


def meta(name: str, uid: str, created: dt.datetime, rv: Versions, namespace: str | None = None, **extra: Any) -> dict:
    out: dict[str, Any] = {"name": name}
    if namespace is not None:
        out["namespace"] = namespace
    out.update({"uid": uid, "resourceVersion": rv.next(), "creationTimestamp": iso(created)})
    out.update({k: v for k, v in extra.items() if v})
    return out


#: the node controller's taints on a node whose kubelet stopped posting its status
UNREACHABLE_TAINTS = [{"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"},
                      {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]


def _conditions(cluster: Cluster, created: dt.datetime, down: tuple[dt.datetime, dt.datetime] | None) -> list[dict]:
    """MemoryPressure and Ready; ``down`` = (the kubelet's last heartbeat, when the node controller marked it Unknown)."""
    if down is None:
        beat, since = cluster.base_time, created
        return [{"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory", "lastHeartbeatTime": iso(beat), "lastTransitionTime": iso(since), "message": "kubelet has sufficient memory available"},
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": iso(beat), "lastTransitionTime": iso(since), "message": "kubelet is posting ready status"}]
    beat, since = down
    gone = {"status": "Unknown", "reason": "NodeStatusUnknown", "lastHeartbeatTime": iso(beat), "lastTransitionTime": iso(since), "message": "Kubelet stopped posting node status."}
    return [{"type": "MemoryPressure", **gone}, {"type": "Ready", **gone}]


def node_body(cluster: Cluster, node: Node, rv: Versions, lost: int, down: tuple[dt.datetime, dt.datetime] | None = None) -> dict:
    m = cluster.model
    count = len(node.gpus)
    labels = {
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": node.name, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": m["instance"][("eks", "gke", "aks", "plain").index(cluster.naming) % 3],
        "nvidia.com/cuda.driver.major": (node.driver or cluster.driver).split(".")[0], "nvidia.com/gpu.compute.major": "9" if m["arch"] == "Hopper" else "8",
        "nvidia.com/gpu.count": str(count), "nvidia.com/gpu.deploy.dcgm-exporter": "true", "nvidia.com/gpu.deploy.driver": "true",
        "nvidia.com/gpu.family": m["family"], "nvidia.com/gpu.machine": "HGX", "nvidia.com/gpu.memory": str(m["memory_mib"]),
        "nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": m["label"], "nvidia.com/gpu.replicas": "1",
        "nvidia.com/mig.capable": "false" if m["arch"] == "Ada Lovelace" else "true", "nvidia.com/mig.strategy": "single",
    }
    labels.update(node.labels)
    taints = list(node.taints) + ([GPU_TAINT] if cluster.gpu_taint else []) + (UNREACHABLE_TAINTS if down else [])
    gpu_alloc = str(count - lost)
    created = cluster.base_time - dt.timedelta(days=3 + node.gpus[0].gid % 17)
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": meta(node.name, node.uid, created, rv, labels=labels, annotations={"node.alpha.kubernetes.io/ttl": "0"}),
        "spec": {"podCIDR": f"{node.pod_prefix}.0/24", "taints": taints} if taints else {"podCIDR": f"{node.pod_prefix}.0/24"},
        "status": {
            "addresses": [{"type": "InternalIP", "address": node.ip}, {"type": "Hostname", "address": node.name}],
            "capacity": {"cpu": "192", "memory": "2113412312Ki", **_gpu_res(node, str(count)), "pods": "110", "ephemeral-storage": "1845262880Ki"},
            "allocatable": {"cpu": "191450m", "memory": "2052354520Ki", **_gpu_res(node, gpu_alloc), "pods": "110", "ephemeral-storage": "1700563104223"},
            "conditions": _conditions(cluster, created, down),
            "nodeInfo": {"kubeletVersion": cluster.k8s_version, "containerRuntimeVersion": "containerd://1.7.22", "osImage": "Ubuntu 22.04.5 LTS", "kernelVersion": "5.15.0-1071-aws", "architecture": "amd64", "operatingSystem": "linux"},
        },
    }


def _gpu_res(node: Node, count: str) -> dict[str, str]:
    return dict(node.gpu_resources) if node.gpu_resources is not None else {"nvidia.com/gpu": count}


def namespace_body(name: str, uid: str, created: dt.datetime, rv: Versions) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(name, uid, created, rv, labels={"kubernetes.io/metadata.name": name}),
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


def _cstate(run: Run | None, t: dt.datetime, waiting: bool) -> dict:
    if run is None or waiting:
        return {"waiting": {"reason": "CrashLoopBackOff" if run else "ContainerCreating",
                            **({"message": "back-off 10s restarting failed container"} if run else {})}}
    if run.finished is not None and run.finished <= t:
        return {"terminated": {"exitCode": run.exit_code, "reason": run.reason or ("Completed" if run.exit_code == 0 else "Error"),
                               "startedAt": iso(run.started), "finishedAt": iso(run.finished), "containerID": f"containerd://{abs(hash_str(iso(run.started))):064x}"[:77]}}
    return {"running": {"startedAt": iso(run.started)}}


def hash_str(text: str) -> int:
    """Deterministic string hash (Python's hash() is salted per process)."""
    h = 1469598103934665603
    for ch in text.encode():
        h = ((h ^ ch) * 1099511628211) % (1 << 64)
    return h


def operator_pod(node: Node, app: str, name: str, uid: str, created: dt.datetime, rv: Versions, t: dt.datetime) -> dict:
    container = DCGM_EXPORTER_CONTAINER if app == DCGM_EXPORTER_APP else DRIVER_CONTAINER
    image = "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.8-3.6.0-ubuntu22.04" if app == DCGM_EXPORTER_APP else "nvcr.io/nvidia/driver:550.90.07-ubuntu22.04"
    owner = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": app, "uid": f"{hash_str(app):016x}"[:8] + "-0000-4000-8000-" + f"{hash_str(app + 'x'):012x}"[:12], "controller": True, "blockOwnerDeletion": True}]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": meta(name, uid, created, rv, GPU_OPERATOR_NAMESPACE, labels={"app": app, "controller-revision-hash": "6d9f8c7b5"}, ownerReferences=owner),
        "spec": {"nodeName": node.name, "containers": [{"name": container, "image": image}], "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], "serviceAccountName": app},
        "status": {"phase": "Running", "hostIP": node.ip, "podIP": node.ip if app == DRIVER_APP else f"{node.pod_prefix}.2", "startTime": iso(created),
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": iso(created)}],
                   "containerStatuses": [{"name": container, "ready": True, "restartCount": 0, "image": image, "imageID": image, "started": True, "state": {"running": {"startedAt": iso(created)}}}]},
    }


def _env(job: Job, pod: Pod) -> list[dict]:
    return _launcher_env(job, pod) + _fr_env(job) + [dict(e) for e in job.extra_env]


def _fr_env(job: Job) -> list[dict]:
    if not job.flight_recorder:
        return []
    env = [{"name": "TORCH_NCCL_TRACE_BUFFER_SIZE", "value": "2000"}, {"name": "TORCH_NCCL_DUMP_ON_TIMEOUT", "value": "1"},
           {"name": "TORCH_NCCL_ASYNC_ERROR_HANDLING", "value": "0"}]
    if job.fr_prefix != "/tmp/nccl_trace_rank_":
        env.append({"name": "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "value": job.fr_prefix})
    return env


def _launcher_env(job: Job, pod: Pod) -> list[dict]:
    nnodes = str(job.replicas)
    if job.kind == "PyTorchJob":
        master = f"{job.name}-master-0"
        return [{"name": "PET_NPROC_PER_NODE", "value": str(job.nproc)}, {"name": "PET_NNODES", "value": nnodes},
                {"name": "PET_NODE_RANK", "value": str(pod.node_rank)}, {"name": "MASTER_ADDR", "value": master},
                {"name": "MASTER_PORT", "value": str(job.master_port)}, {"name": "WORLD_SIZE", "value": str(job.world_size)},
                {"name": "RANK", "value": str(pod.node_rank)}, {"name": "PYTHONUNBUFFERED", "value": "1"},
                {"name": "NCCL_DEBUG", "value": "INFO" if job.nccl_info else "WARN"}]
    rjob = "node" if job.kind == "TrainJob" else "workers"
    idx = {"valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}
    return [{"name": "PET_NNODES", "value": nnodes}, {"name": "PET_NPROC_PER_NODE", "value": str(job.nproc)},
            {"name": "PET_NODE_RANK", **idx}, {"name": "PET_MASTER_ADDR", "value": f"{job.name}-{rjob}-0-0.{job.name}"},
            {"name": "PET_MASTER_PORT", "value": str(job.master_port)}, {"name": "NCCL_DEBUG", "value": "INFO" if job.nccl_info else "WARN"}]


def pod_status_at(pod: Pod, t: dt.datetime) -> tuple[str, list[dict] | None]:
    """(phase, containerStatuses-or-None) of ``pod`` at ``t``."""
    if pod.node is None:
        return "Pending", None
    runs = [r for r in pod.runs if r.started <= t]
    cur = runs[-1] if runs else None
    later = [r for r in pod.runs if r.started > t]
    waiting = cur is not None and cur.finished is not None and cur.finished <= t and bool(later)
    state = _cstate(cur, t, waiting or cur is None)
    if cur is None and pod.waiting is not None:
        state = {"waiting": {"reason": pod.waiting[0], **({"message": pod.waiting[1]} if pod.waiting[1] else {})}}
    status: dict[str, Any] = {"name": "", "ready": "running" in state, "restartCount": max(0, len(runs) - 1), "state": state, "started": "running" in state}
    prev = runs[-2] if len(runs) >= 2 else None
    if waiting:
        prev = cur
        status["restartCount"] = len(runs) - 1
    if prev is not None and prev.finished is not None:
        status["lastState"] = {"terminated": {"exitCode": prev.exit_code, "reason": prev.reason or "Error", "startedAt": iso(prev.started), "finishedAt": iso(prev.finished)}}
    else:
        status["lastState"] = {}
    if "terminated" in state and not later:
        phase = "Succeeded" if state["terminated"]["exitCode"] == 0 else "Failed"
    else:
        phase = "Running" if cur is not None else "Pending"
    return phase, [status]


def pod_body(cluster: Cluster, job: Job, pod: Pod, rv: Versions, t: dt.datetime, owner: dict, image: str) -> dict:
    phase, statuses = pod_status_at(pod, t)
    gpus = str(pod._request or len(pod.gpu_ids))
    container = {"name": job.container, "image": image, "command": ["torchrun"],
                 "args": [f"--nproc-per-node={job.nproc}", "--max-restarts=1", "/workspace/train.py"],
                 "env": _env(job, pod), "ports": [{"containerPort": job.master_port, "name": "pytorchjob-port" if job.kind == "PyTorchJob" else "trainer", "protocol": "TCP"}],
                 "resources": {"limits": {"nvidia.com/gpu": gpus, "memory": "1600Gi"}, "requests": {"cpu": "90", "memory": "1600Gi", "nvidia.com/gpu": gpus}}}
    spec: dict[str, Any] = {"containers": [container], "restartPolicy": job.restart_policy, "schedulerName": "default-scheduler",
                            "tolerations": ([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}] if pod.tolerates_gpu_taint else [])
                            + [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]}
    annotations = {}
    if job.kind != "PyTorchJob":
        spec.update({"hostname": pod.hostname, "subdomain": job.name})
        annotations = {"batch.kubernetes.io/job-completion-index": str(pod.node_rank)}
    if pod.node is not None:
        spec["nodeName"] = pod.node.name
    if pod.runtime_class:
        spec["runtimeClassName"] = pod.runtime_class
    status: dict[str, Any] = {"phase": phase, "qosClass": "Burstable"}
    if pod.node is None:
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": pod.pending_message, "lastTransitionTime": iso(pod.created)}]
    else:
        for s in statuses or []:
            s["name"] = job.container
            s["image"] = image
            s["imageID"] = job.image_id or image
        ready = bool(statuses and statuses[0]["ready"])
        status.update({"hostIP": pod.node.ip, "podIP": pod.ip, "podIPs": [{"ip": pod.ip}], "startTime": iso(pod.created),
                       "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": iso(pod.created)},
                                      {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": iso(pod.runs[-1].started if pod.runs else pod.created)}],
                       "containerStatuses": statuses})
        if pod.stopped is not None and pod.stopped[0] <= t:
            at, cond_reason, message, status_reason = pod.stopped
            status["conditions"].append({"type": "DisruptionTarget", "status": "True", "reason": cond_reason, "message": message,
                                         "lastTransitionTime": iso(at)})
            if status_reason is not None:
                status.update({"reason": status_reason, "message": message})
        if pod.rejected is not None and not pod.runs:
            status.update({"phase": "Failed", "reason": pod.rejected[0], "message": pod.rejected[1]})
            status.pop("containerStatuses", None)
    md = meta(pod.name, pod.uid, pod.created, rv, job.namespace, labels=pod.labels, annotations=annotations, ownerReferences=[owner])
    if pod.deleted is not None and pod.deleted <= t + dt.timedelta(seconds=30):
        md["deletionTimestamp"] = iso(pod.deleted)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def event_body(ns: str, obj_kind: str, obj_name: str, obj_uid: str, reason: str, etype: str, message: str, first: dt.datetime,
               last: dt.datetime, count: int, component: str, uid: str, rv: Versions, host: str | None = None, api: str = "v1") -> dict:
    name = f"{obj_name}.{hash_str(reason + obj_uid + iso(first)):016x}"[: len(obj_name) + 17]
    src = {"component": component} if host is None else {"component": component, "host": host}
    return {"apiVersion": "v1", "kind": "Event", "metadata": meta(name, uid, first, rv, ns),
            "involvedObject": {"kind": obj_kind, "namespace": ns, "name": obj_name, "uid": obj_uid, "apiVersion": api},
            "reason": reason, "message": message, "source": src, "firstTimestamp": iso(first), "lastTimestamp": iso(last),
            "count": count, "type": etype, "eventTime": None, "reportingComponent": component, "reportingInstance": host or ""}


def tenant_pod_body(pod: dict, rv: Versions, node: Node) -> dict:
    """A Running pod of another tenant (a Deployment replica) holding GPUs."""
    gpus = str(len(pod["gpus"]))
    image = "nvcr.io/nvidia/tritonserver:24.08-py3"
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": pod["rs"], "uid": pod["rs_uid"], "controller": True, "blockOwnerDeletion": True}
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": meta(pod["name"], pod["uid"], pod["created"], rv, pod["namespace"], labels={"app": pod["app"], "pod-template-hash": pod["rs"].rsplit("-", 1)[-1]}, ownerReferences=[owner]),
        "spec": {"nodeName": node.name, "containers": [{"name": pod["container"], "image": image, "resources": {"limits": {"nvidia.com/gpu": gpus}, "requests": {"nvidia.com/gpu": gpus}}}],
                 "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], "restartPolicy": "Always"},
        "status": {"phase": "Running", "hostIP": node.ip, "podIP": pod["ip"], "podIPs": [{"ip": pod["ip"]}], "startTime": iso(pod["created"]), "qosClass": "Burstable",
                   "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": iso(pod["created"])}, {"type": "Ready", "status": "True", "lastTransitionTime": iso(pod["created"])}],
                   "containerStatuses": [{"name": pod["container"], "ready": True, "restartCount": 0, "image": image, "imageID": image, "started": True, "state": {"running": {"startedAt": iso(pod["created"])}}, "lastState": {}}]},
    }
