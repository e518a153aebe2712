"""The training job: kind, pods, ranks, GPUs, and each container's runs (with log lines).

Pod incarnations are separate ``Pod`` objects: a pod recreated under the same name gets a
new uid. A ``Run`` is one container instance (restartCount counts the runs of a pod).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from k10s_forensics.simulate.cluster import Cluster, Node, suffix, uid
from k10s_forensics.simulate.constants import MASTER_PORT, TRAINING_CONTAINER

NAMESPACES = ("team-a", "ml-research", "llm-train", "nlp", "vision-ft", "applied-ml")
JOB_NAMES = ("llama-ft", "gpt2-ddp", "mistral-sft", "bert-pretrain", "vit-l-train", "qwen-7b-sft", "t5-xl-ft")
TORCH_STYLES = ("1.13", "2.3", "2.5")
STEP_FORMATS = ("nanogpt", "titan", "kv")


@dataclass
class Run:
    """One container instance of a pod."""

    started: dt.datetime
    finished: dt.datetime | None = None
    exit_code: int | None = None
    reason: str | None = None
    lines: list[tuple[dt.datetime, str]] = field(default_factory=list)

    def log(self, ts: dt.datetime, text: str) -> None:
        for part in text.split("\n"):
            self.lines.append((ts, part))


@dataclass
class Pod:
    """One pod incarnation (uid)."""

    name: str
    hostname: str
    uid: str
    node: Node | None
    ip: str | None
    gpu_ids: list[int]  # cluster GPU ids in local-rank order
    node_rank: int
    replica_type: str
    replica_index: int
    labels: dict[str, str]
    created: dt.datetime
    runs: list[Run] = field(default_factory=list)
    deleted: dt.datetime | None = None
    pending_message: str | None = None
    tolerates_gpu_taint: bool = True
    restart_attempt: int = 0
    waiting: tuple[str, str] | None = None  # (reason, message) of a container that never started (gpu-startup scenarios)
    rejected: tuple[str, str] | None = None  # (status.reason, message): the kubelet rejected the pod (phase Failed)
    #: (when, DisruptionTarget reason, its message, status.reason or None): Kubernetes stopped the pod (disruption scenarios)
    stopped: tuple[dt.datetime, str, str, str | None] | None = None
    runtime_class: str | None = None

    @property
    def gpu_request(self) -> int:
        return len(self.gpu_ids) if self.node is not None else self._request

    _request: int = 0


@dataclass
class Job:
    """The training job and its pods."""

    kind: str
    namespace: str
    name: str
    uid: str
    created: dt.datetime
    nproc: int
    gpus_per_pod: int
    replicas: int  # pods
    pods: list[Pod]
    torch_style: str
    step_format: str
    nccl_info: bool
    timeout_ms: int
    nccl_version: str
    queue: str | None = None
    suspended: bool = False
    restart_policy: str = "OnFailure"
    child_uids: dict[str, str] = field(default_factory=dict)
    log_prefix: str | None = None  # a log shipper's prefix on every line: pod, host, clock (writer._prefixed)
    flight_recorder: bool = False  # TORCH_NCCL_TRACE_BUFFER_SIZE / DUMP_ON_TIMEOUT set in the pod spec
    fr_prefix: str = "/tmp/nccl_trace_rank_"
    extra_env: list[dict] = field(default_factory=list)  # env added to the training container (variants)
    image_id: str | None = None  # containerStatuses imageID (variants: a digest); None: the image

    @property
    def container(self) -> str:
        return TRAINING_CONTAINER[self.kind]

    @property
    def master_port(self) -> int:
        return MASTER_PORT[self.kind]

    @property
    def world_size(self) -> int:
        return self.replicas * self.nproc

    def pods_at(self, ts: dt.datetime) -> list[Pod]:
        """The incarnation of each pod name alive at ``ts`` (created before, not deleted)."""
        alive = {}
        for p in self.pods:
            if p.created <= ts and (p.deleted is None or p.deleted > ts):
                alive[p.name] = p
        return list(alive.values())

    def latest(self) -> list[Pod]:
        """The newest incarnation of every pod name, in node-rank order."""
        last: dict[str, Pod] = {}
        for p in self.pods:
            last[p.name] = p
        return sorted(last.values(), key=lambda p: p.node_rank)


def pod_identity(kind: str, job: str, node_rank: int, rng: random.Random, attempt: int = 0) -> tuple[str, str, str, int, dict]:
    """(pod name, hostname, replica type, replica index, labels) for the pod of ``node_rank``."""
    if kind == "PyTorchJob":
        rtype, idx = ("master", 0) if node_rank == 0 else ("worker", node_rank - 1)
        name = f"{job}-{rtype}-{idx}"
        labels = {
            "training.kubeflow.org/job-name": job,
            "training.kubeflow.org/operator-name": "pytorchjob-controller",
            "training.kubeflow.org/replica-type": rtype,
            "training.kubeflow.org/replica-index": str(idx),
        }
        if rtype == "master":
            labels["training.kubeflow.org/job-role"] = "master"
        return name, name, rtype, idx, labels
    rjob = "node" if kind == "TrainJob" else "workers"
    child = f"{job}-{rjob}-0"
    hostname = f"{child}-{node_rank}"
    name = f"{hostname}-{suffix(rng)}"
    labels = {
        "batch.kubernetes.io/controller-uid": "",
        "batch.kubernetes.io/job-completion-index": str(node_rank),
        "batch.kubernetes.io/job-name": child,
        "job-name": child,
        "jobset.sigs.k8s.io/jobset-name": job,
        "jobset.sigs.k8s.io/replicatedjob-name": rjob,
        "jobset.sigs.k8s.io/replicatedjob-replicas": "1",
        "jobset.sigs.k8s.io/job-index": "0",
        "jobset.sigs.k8s.io/job-global-index": "0",
        "jobset.sigs.k8s.io/global-replicas": "1",
        "jobset.sigs.k8s.io/restart-attempt": str(attempt),
        "jobset.sigs.k8s.io/job-key": "",
    }
    if kind == "TrainJob":
        labels["trainer.kubeflow.org/trainjob-ancestor-step"] = "trainer"
    return name, hostname, rjob, node_rank, labels


def build_job(
    cluster: Cluster,
    rng: random.Random,
    created: dt.datetime,
    slots: list[list[int]],
    nodes: list[Node | None],
    nproc: int,
    kind: str | None = None,
    timeout_choices: tuple[int, ...] = (600000, 1800000),
) -> Job:
    """A job whose pod ``i`` runs on ``nodes[i]`` with cluster GPUs ``slots[i]`` (local-rank order).

    A ``None`` node means the pod is Pending (it asks for ``nproc`` GPUs).
    """
    kind = kind or rng.choice(("PyTorchJob", "PyTorchJob", "TrainJob", "JobSet"))
    ns = rng.choice(NAMESPACES)
    name = rng.choice(JOB_NAMES) + rng.choice(("", "", f"-{rng.randrange(2, 40)}", "-run" + str(rng.randrange(1, 9))))
    job = Job(
        kind=kind, namespace=ns, name=name, uid=uid(rng), created=created, nproc=nproc, gpus_per_pod=nproc,
        replicas=len(slots), pods=[], torch_style=rng.choice(TORCH_STYLES), step_format=rng.choice(STEP_FORMATS),
        nccl_info=rng.random() < 0.85, timeout_ms=rng.choice(timeout_choices),
        nccl_version=rng.choice(("2.18.1", "2.20.5", "2.21.5", "2.23.4")),
    )
    if kind != "PyTorchJob":
        job.child_uids = {"jobset": uid(rng), "job": uid(rng)}
    for rank_of_pod, (gpu_ids, node) in enumerate(zip(slots, nodes)):
        pname, host, rtype, idx, labels = pod_identity(kind, name, rank_of_pod, rng)
        if "batch.kubernetes.io/controller-uid" in labels:
            labels["batch.kubernetes.io/controller-uid"] = job.child_uids["job"]
            labels["jobset.sigs.k8s.io/job-key"] = job.child_uids["jobset"].replace("-", "")[:40]
        start = created + dt.timedelta(seconds=rng.uniform(1.0, 4.0))
        pod = Pod(
            name=pname, hostname=host, uid=uid(rng), node=node,
            ip=cluster.pod_ip(node) if node is not None else None, gpu_ids=list(gpu_ids) if node is not None else [],
            node_rank=rank_of_pod, replica_type=rtype, replica_index=idx, labels=labels, created=start,
        )
        pod._request = nproc
        job.pods.append(pod)
    return job


def recreate_pod(cluster: Cluster, rng: random.Random, job: Job, old: Pod, at: dt.datetime, attempt: int) -> Pod:
    """A new incarnation of ``old`` (same node and GPUs, new uid; new name suffix for JobSet pods)."""
    name, host, _, _, labels = pod_identity(job.kind, job.name, old.node_rank, rng, attempt)
    if job.kind == "PyTorchJob":
        name = old.name
    for key in ("batch.kubernetes.io/controller-uid", "jobset.sigs.k8s.io/job-key"):
        if key in old.labels:
            labels[key] = old.labels[key]
    pod = Pod(
        name=name, hostname=host, uid=uid(rng), node=old.node, ip=cluster.pod_ip(old.node) if old.node else None,
        gpu_ids=list(old.gpu_ids), node_rank=old.node_rank, replica_type=old.replica_type,
        replica_index=old.replica_index, labels=labels, created=at, restart_attempt=attempt,
    )
    pod._request = old._request
    old.deleted = at
    job.pods.append(pod)
    return pod
