"""Small summaries of pods and nodes that later collectors work from (not the bodies)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from k10s_forensics.capture.scope import Scope, pod_job_names

GPU_RESOURCE = "nvidia.com/gpu"
#: Training containers by name, in preference order (PyTorchJob, TrainJob, JobSet-style, MPI, Ray).
TRAINING_CONTAINERS = ("pytorch", "node", "trainer", "worker", "launcher", "mpi-launcher", "ray-worker", "ray-head", "main")
DRIVER_LABEL = ("app", "nvidia-driver-daemonset")
DRIVER_CONTAINER = "nvidia-driver-ctr"


def _gpu_count(resources: dict[str, Any] | None) -> int:
    total = 0
    for section in ("limits", "requests"):
        for key, value in ((resources or {}).get(section) or {}).items():
            if key == GPU_RESOURCE or key.endswith("/gpu") or key.startswith("nvidia.com/mig-"):
                try:
                    total = max(total, int(str(value)))
                except ValueError:
                    total = max(total, 1)
    return total


@dataclass
class ContainerInfo:
    name: str
    image: str
    gpus: int
    restart_count: int = 0
    has_previous: bool = False
    ever_started: bool = False
    init: bool = False
    #: The spec switches PyTorch's Flight Recorder on (env or command line; see dump_commands.FR_ENV).
    flight_recorder: bool = False


def _flight_recorder_on(container: dict[str, Any]) -> bool:
    from k10s_forensics.capture.dump_commands import FR_ENV

    for env in container.get("env") or []:
        if env.get("name") in FR_ENV and str(env.get("value", "1")).strip() not in ("", "0", "false", "False"):
            return True
    words = " ".join(str(a) for a in (container.get("command") or []) + (container.get("args") or []))
    return any(f"{name}=" in words and f"{name}=0 " not in words + " " for name in FR_ENV)


@dataclass
class PodInfo:
    namespace: str
    name: str
    uid: str
    node: str | None
    phase: str
    labels: dict[str, str]
    owner_uids: set[str]
    job_names: set[str]
    containers: list[ContainerInfo]
    metrics_port: int = 9400
    ip: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def gpus(self) -> int:
        return sum(c.gpus for c in self.containers if not c.init)

    @property
    def running(self) -> bool:
        return self.phase == "Running" and bool(self.node)

    def training_container(self) -> ContainerInfo | None:
        main = [c for c in self.containers if not c.init]
        for name in TRAINING_CONTAINERS:
            for c in main:
                if c.name == name:
                    return c
        gpu = [c for c in main if c.gpus]
        return gpu[0] if gpu else (main[0] if main else None)

    @classmethod
    def from_object(cls, pod: dict[str, Any]) -> "PodInfo":
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        status = pod.get("status") or {}
        statuses = {s.get("name"): s for s in (status.get("containerStatuses") or []) + (status.get("initContainerStatuses") or [])}
        containers = []
        for init, specs in ((True, spec.get("initContainers") or []), (False, spec.get("containers") or [])):
            for c in specs:
                st = statuses.get(c.get("name")) or {}
                state = st.get("state") or {}
                last = st.get("lastState") or {}
                restarts = int(st.get("restartCount") or 0)
                started = bool("running" in state or "terminated" in state or restarts or "terminated" in last)
                containers.append(ContainerInfo(
                    name=c.get("name", ""), image=c.get("image", ""), gpus=_gpu_count(c.get("resources")),
                    restart_count=restarts, has_previous=bool(restarts or "terminated" in last),
                    ever_started=started, init=init, flight_recorder=_flight_recorder_on(c)))
        port = 9400
        for c in spec.get("containers") or []:
            for p in c.get("ports") or []:
                if p.get("name") in ("metrics", "gpu-metrics", "http-metrics") and p.get("containerPort"):
                    port = int(p["containerPort"])
        return cls(
            metrics_port=port, ip=status.get("podIP") or "",
            namespace=meta.get("namespace", ""), name=meta.get("name", ""), uid=meta.get("uid", ""),
            node=spec.get("nodeName"), phase=status.get("phase", ""), labels=dict(meta.get("labels") or {}),
            owner_uids={o.get("uid") for o in meta.get("ownerReferences") or [] if o.get("uid")},
            job_names=pod_job_names(pod), containers=containers)


@dataclass
class NodeInfo:
    name: str
    gpu_capacity: int
    labels: dict[str, str]

    @classmethod
    def from_object(cls, node: dict[str, Any]) -> "NodeInfo":
        meta = node.get("metadata") or {}
        capacity = (node.get("status") or {}).get("capacity") or {}
        gpus = 0
        for key, value in capacity.items():
            if key == GPU_RESOURCE or key.startswith("nvidia.com/mig-"):
                try:
                    gpus += int(str(value))
                except ValueError:
                    pass
        return cls(meta.get("name", ""), gpus, dict(meta.get("labels") or {}))

    @property
    def is_gpu_node(self) -> bool:
        return self.gpu_capacity > 0 or self.labels.get("nvidia.com/gpu.present") == "true"


@dataclass
class Inventory:
    """Pods in scope, all nodes, GPU-operator pods and job uids, as listed most recently."""

    scope: Scope
    pods: dict[str, PodInfo] = field(default_factory=dict)
    nodes: dict[str, NodeInfo] = field(default_factory=dict)
    operator_pods: dict[str, PodInfo] = field(default_factory=dict)
    job_uids: set[str] = field(default_factory=set)
    nodes_listed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def pod_in_scope(self, pod: dict[str, Any]) -> bool:
        """Namespace in scope and, for ``--job``, the pod belongs to one of the jobs."""
        meta = pod.get("metadata") or {}
        if not self.scope.in_namespaces(meta.get("namespace")):
            return False
        if not self.scope.job_scoped:
            return True
        owners = {o.get("uid") for o in meta.get("ownerReferences") or []}
        if owners & self.job_uids:
            return True
        names = pod_job_names(pod)
        ns = meta.get("namespace")
        return any(j.namespace == ns and j.name in names for j in self.scope.jobs)

    def gpu_nodes(self) -> list[str]:
        """Nodes to sample (nvidia-smi, DCGM, dmesg): GPU nodes in scope, sorted.

        With ``-A`` and no job: every GPU node. Otherwise the nodes the scope's pods run on
        that have GPUs (by capacity/label, or a GPU request when nodes could not be listed).
        """
        with self.lock:
            if self.scope.all_namespaces and not self.scope.jobs:
                found = {n.name for n in self.nodes.values() if n.is_gpu_node}
                found |= {p.node for p in self.pods.values() if p.node and p.gpus}
                return sorted(found)
            found = set()
            for pod in self.pods.values():
                if not pod.node:
                    continue
                info = self.nodes.get(pod.node)
                if (info is not None and info.is_gpu_node) or pod.gpus:
                    found.add(pod.node)
            return sorted(found)

    def training_pods(self, running_only: bool = True) -> list[PodInfo]:
        """Scope pods that run training: a GPU request or a training-job label."""
        with self.lock:
            pods = [p for p in self.pods.values() if (p.gpus or p.job_names) and p.key not in self.operator_pods]
        return sorted((p for p in pods if p.running or not running_only), key=lambda p: p.key)

    def pods_by_node(self) -> tuple[dict[str, list[PodInfo]], dict[str, list[PodInfo]]]:
        """(running driver pods, running GPU workload pods sorted by key) per node, in one pass.

        A snapshot for collectors that visit every node (``driver_pods_on`` per node would
        scan all pods once per node: quadratic on a 1000-node cluster).
        """
        drivers: dict[str, list[PodInfo]] = {}
        workloads: dict[str, list[PodInfo]] = {}
        with self.lock:
            for p in self.operator_pods.values():
                if p.running and p.labels.get(DRIVER_LABEL[0]) == DRIVER_LABEL[1]:
                    drivers.setdefault(p.node or "", []).append(p)
            for p in self.pods.values():
                if p.running and p.gpus:
                    workloads.setdefault(p.node or "", []).append(p)
        for pods in workloads.values():
            pods.sort(key=lambda p: p.key)
        return drivers, workloads

    def driver_pods_on(self, node: str) -> list[PodInfo]:
        with self.lock:
            return [p for p in self.operator_pods.values()
                    if p.node == node and p.labels.get(DRIVER_LABEL[0]) == DRIVER_LABEL[1] and p.running]

    def gpu_workload_pods_on(self, node: str) -> list[PodInfo]:
        with self.lock:
            return sorted((p for p in self.pods.values() if p.node == node and p.running and p.gpus), key=lambda p: p.key)
