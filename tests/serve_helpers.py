"""A small hand-made bundle for the ``k10s serve`` tests (nodes, pods, a PyTorchJob, a Job,
events, exec rows, scrapes, logs), written with ``BundleWriter``."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from k10s_forensics.store.bundle import BundleWriter, iso, new_manifest

SAMPLES = Path(__file__).resolve().parent / "data" / "real-samples"
T0 = dt.datetime(2026, 1, 10, 10, 0, 0, tzinfo=dt.timezone.utc)
END = T0 + dt.timedelta(minutes=10)
ROUND_1 = T0 + dt.timedelta(seconds=5)
ROUND_2 = END - dt.timedelta(seconds=10)
DCGM_PATH = "/api/v1/namespaces/gpu-operator/pods/nvidia-dcgm-exporter-x7k2p:9400/proxy/metrics"


def nvidia_xml() -> str:
    """A real ``nvidia-smi -q -x`` output (a vendored real sample)."""
    return (SAMPLES / "nvidia-smi-xml" / "tesla-t4_driver-515.105.01_v11.xml").read_text(encoding="utf-8")


def _t(minutes: float) -> str:
    return iso(T0 + dt.timedelta(minutes=minutes))


def node(name: str, ip: str, ready: bool = True, unschedulable: bool = False) -> dict:
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-{name}", "creationTimestamp": _t(-60 * 24 * 3),
                     "labels": {"kubernetes.io/hostname": name, "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                                "node-role.kubernetes.io/gpu": ""}},
        "spec": {"unschedulable": True} if unschedulable else {},
        "status": {
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "capacity": {"cpu": "96", "memory": "1056Gi", "nvidia.com/gpu": "8"},
            "allocatable": {"cpu": "95", "memory": "1000Gi", "nvidia.com/gpu": "8"},
            "nodeInfo": {"kubeletVersion": "v1.31.2", "osImage": "Ubuntu 22.04.4 LTS", "kernelVersion": "5.15.0-1057-nvidia",
                         "containerRuntimeVersion": "containerd://1.7.13"},
        },
    }


def pod(ns: str, name: str, node_name: str | None, labels: dict, *, phase: str = "Running", ip: str | None = None,
        containers: tuple[str, ...] = ("pytorch",), restarts: int = 0, waiting: str | None = None,
        default_container: str | None = None) -> dict:
    statuses = []
    for c in containers:
        st: dict = {"name": c, "restartCount": restarts if c == containers[0] else 0, "image": "nvcr.io/pytorch:24.05"}
        if waiting and c == containers[0]:
            st.update(ready=False, state={"waiting": {"reason": waiting}},
                      lastState={"terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": _t(8)}})
        elif phase == "Running":
            st.update(ready=True, state={"running": {"startedAt": _t(1)}})
        else:
            st.update(ready=False, state={"waiting": {"reason": "ContainerCreating"}})
        statuses.append(st)
    meta = {"name": name, "namespace": ns, "uid": f"uid-{name}", "creationTimestamp": _t(0), "labels": labels}
    if default_container:
        meta["annotations"] = {"kubectl.kubernetes.io/default-container": default_container}
    spec = {"containers": [{"name": c, "image": "nvcr.io/pytorch:24.05"} for c in containers]}
    if node_name:
        spec["nodeName"] = node_name
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if phase == "Running" and not waiting else "False"}]}
    if phase != "Pending":
        status["containerStatuses"] = statuses
    if ip:
        status.update(podIP=ip, podIPs=[{"ip": ip}])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def event(ns: str, name: str, pod_name: str, reason: str, kind: str, message: str, minutes: float, count: int = 1) -> dict:
    return {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "creationTimestamp": _t(minutes)},
        "involvedObject": {"kind": "Pod", "namespace": ns, "name": pod_name, "uid": f"uid-{pod_name}", "apiVersion": "v1"},
        "reason": reason, "type": kind, "message": message, "count": count,
        "firstTimestamp": _t(minutes - 1), "lastTimestamp": _t(minutes), "source": {"component": "kubelet", "host": "gpu-node-2"},
    }


def pytorchjob() -> dict:
    return {
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": "llama-ft", "namespace": "team-a", "uid": "uid-llama-ft", "creationTimestamp": _t(-1)},
        "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2}}},
        "status": {"conditions": [{"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}]},
    }


def batch_job() -> dict:
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "nccl-test", "namespace": "team-a", "uid": "uid-nccl-test", "creationTimestamp": _t(-5)},
        "spec": {"completions": 1, "parallelism": 1, "selector": {"matchLabels": {"job-name": "nccl-test"}},
                 "template": {"spec": {"containers": [{"name": "nccl", "image": "nccl-tests:2.13"}]}}},
        "status": {"succeeded": 1, "startTime": _t(-5), "completionTime": _t(-3),
                   "conditions": [{"type": "Complete", "status": "True"}]},
    }


def round_objects(final: bool) -> list[dict]:
    nodes = [node("gpu-node-1", "10.0.1.11"), node("gpu-node-2", "10.0.1.12", unschedulable=final)]
    pods = [
        pod("team-a", "llama-ft-worker-0", "gpu-node-1", {"app": "llama", "role": "worker", "rank": "0"}, ip="10.244.1.5",
            containers=("pytorch", "sidecar"), default_container="pytorch"),
        pod("team-a", "llama-ft-worker-1", "gpu-node-2", {"app": "llama", "role": "worker", "rank": "1"}, ip="10.244.2.7",
            restarts=3 if final else 0, waiting="CrashLoopBackOff" if final else None),
        pod("team-a", "llama-ft-launcher", "gpu-node-1", {"app": "llama", "role": "launcher"}, ip="10.244.1.6"),
        pod("team-b", "bert-pretrain-0", None, {"app": "bert"}, phase="Pending"),
        pod("gpu-operator", "nvidia-dcgm-exporter-x7k2p", "gpu-node-1", {"app": "nvidia-dcgm-exporter"}, ip="10.244.1.2",
            containers=("nvidia-dcgm-exporter",)),
    ]
    if not final:
        pods.append(pod("team-a", "warmup-0", "gpu-node-2", {"app": "warmup"}, ip="10.244.2.3"))
    objs = nodes + pods + [pytorchjob(), batch_job()]
    if final:
        objs += [
            event("team-a", "llama-ft-worker-1.17a1", "llama-ft-worker-1", "BackOff", "Warning",
                  "Back-off restarting failed container pytorch in pod llama-ft-worker-1", 9, count=5),
            event("team-a", "llama-ft-worker-1.17a0", "llama-ft-worker-1", "OOMKilling", "Warning", "Memory cgroup out of memory", 8),
            event("team-a", "llama-ft-worker-0.17b0", "llama-ft-worker-0", "Scheduled", "Normal",
                  "Successfully assigned team-a/llama-ft-worker-0 to gpu-node-1", 0.5),
        ]
    return objs


def log_body(lines: list[tuple[float, str]]) -> str:
    return "".join(f"{iso(T0 + dt.timedelta(minutes=m)).replace('Z', '.123456789Z')} {text}\n" for m, text in lines)


WORKER1_CURRENT = [(8.5, "[rank1]: starting step 240"), (9.0, "[rank1]: loading checkpoint shard 3/8"), (9.5, "[rank1]: step 247")]
WORKER1_PREVIOUS = [(7.0, "[rank1]: step 246"),
                    (7.9, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.10 GiB")]


def build_bundle(path: Path) -> Path:
    """Write the test bundle at ``path`` and return it."""
    manifest = new_manifest(cluster={"context": "test", "server": "https://10.0.0.1", "kubernetes_version": "v1.31.2"},
                            scope={"namespaces": ["team-a"], "jobs": ["team-a/llama-ft"]}, window_start=T0, window_end=END)
    writer = BundleWriter(path, manifest)
    for when, final in ((ROUND_1, False), (ROUND_2, True)):
        for i, obj in enumerate(round_objects(final)):
            meta = obj["metadata"]
            writer.add("objects", {"captured_at": when + dt.timedelta(milliseconds=20 * i), "api_version": obj["apiVersion"],
                                   "kind": obj["kind"], "namespace": meta.get("namespace"), "name": meta["name"],
                                   "uid": meta["uid"], "body": json.dumps(obj)})
    xml = nvidia_xml()
    execs = [
        (1, "nvidia-smi -q -x", 0, xml, "", None),
        (6, "nvidia-smi -q -x", 0, xml.replace("</nvidia_smi_log>", "<!-- round 2 --></nvidia_smi_log>"), "", None),
        (1, "ss -tin", 0, "State Recv-Q Send-Q Local Address:Port Peer Address:Port\nESTAB 0 0 10.244.1.5:29500 10.244.2.7:41234\n", "", None),
        (1, "printenv NVIDIA_VISIBLE_DEVICES", 1, "", "", None),
        (1, "dmesg -T", None, "", "", "binary missing: dmesg not found in container"),
    ]
    for minute, command, code, out, err, error in execs:
        writer.add("exec", {"captured_at": T0 + dt.timedelta(minutes=minute), "duration_ms": 120, "source": "nvidia-smi-xml",
                            "node": "gpu-node-1", "namespace": "team-a", "pod": "llama-ft-worker-0", "container": "pytorch",
                            "command": command, "exit_code": code, "stdout": out, "stderr": err, "error": error})
    for minute, value in ((1, 97), (6, 12)):
        body = f'# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{{gpu="0",UUID="GPU-1"}} {value}\n'
        writer.add("scrapes", {"captured_at": T0 + dt.timedelta(minutes=minute), "source": "dcgm-exporter", "node": "gpu-node-1",
                               "url": DCGM_PATH, "status": 200, "body": body, "error": None})
    for previous, lines in ((False, WORKER1_CURRENT), (True, WORKER1_PREVIOUS)):
        writer.add("logs", {"captured_at": END, "node": "gpu-node-2", "namespace": "team-a", "pod": "llama-ft-worker-1",
                            "pod_uid": "uid-llama-ft-worker-1", "container": "pytorch", "previous": previous,
                            "body": log_body(lines), "error": None})
    writer.close()
    return path
