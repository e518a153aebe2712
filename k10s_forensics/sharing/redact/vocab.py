"""The identity vocabulary of a bundle: every name strict redaction must replace.

Collected first, from structure (object names, namespaces, owner references, node
addresses, pod node names, images, label values, the raw columns node/namespace/pod,
dcgm-exporter labels, NCCL log-line host prefixes, the manifest's cluster and scope), then
replaced in every text of the bundle in one pass. A value has one kind (the most specific
wins: a namespace also used as a label value is a namespace), so it gets one token
wherever it appears, and every join on it still works.

Values that carry no identity and that the analysis reads are kept: numbers, booleans,
GPU UUIDs, values of well-known structural labels (``nvidia.com/*``, instance type,
topology, replica-type/index, completion index, ...), common words (``worker``, ``master``,
``default``, ``pytorch``), well-known namespaces (``default``, ``kube-*``) and public image
registries (``nvcr.io``, ``docker.io``, ...). Addresses are not names: IPs and hostnames
embedding an IP are mapped by pattern (see pseudonym.py).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

#: Most specific first: the first kind a value is seen with below a better one is replaced.
PRIORITY = ("node", "namespace", "job", "pod", "workload", "queue", "host", "registry", "cluster", "object", "label")
_RANK = {k: i for i, k in enumerate(PRIORITY)}

JOB_KINDS = frozenset(
    {"PyTorchJob", "TrainJob", "JobSet", "Job", "MPIJob", "RayJob", "RayCluster", "TFJob", "XGBoostJob", "PaddleJob",
     "JAXJob", "MXJob", "CronJob", "LeaderWorkerSet", "VolcanoJob", "AppWrapper"}
)
KIND_CLASS = {"Node": "node", "Namespace": "namespace", "Pod": "pod", "Workload": "workload", "LocalQueue": "queue", "ClusterQueue": "queue"}

KEEP_WORDS = frozenset(
    """default kube-system kube-public kube-node-lease gpu-operator nvidia-gpu-operator kueue-system kubeflow
    monitoring true false yes no none null enabled disabled present absent exists on off worker workers master
    launcher leader driver head node trainer training pytorch tensorflow mpi ray jax xgboost paddle nccl gloo cuda
    gpu cpu amd64 arm64 linux windows spot on-demand ondemand reserved standard preemptible system main primary
    secondary app job pod service test dev staging production prod batch single mixed latest stable nvidia""".split()
)

_STRUCTURAL_LABEL = re.compile(
    r"^(?:nvidia\.com/|feature\.node\.kubernetes\.io/|topology\.kubernetes\.io/|failure-domain\.beta\.kubernetes\.io/|"
    r"node\.kubernetes\.io/instance-type$|beta\.kubernetes\.io/(?:instance-type|arch|os)$|kubernetes\.io/(?:arch|os)$|"
    r"node-role\.kubernetes\.io/|karpenter\.sh/capacity-type$|cloud\.google\.com/gke-accelerator|"
    r"(?:.*/)?(?:replica-type|replica-index|completion-index|job-completion-index|job-index|job-global-index|"
    r"restart-attempt|job-key|replicatedjob-replicas|jobset-restart-attempt|pod-template-hash|controller-revision-hash|"
    r"pod-template-generation|operator-name|group-name|rank|node-rank|world-size|nproc-per-node)$)"
)
PUBLIC_REGISTRIES = frozenset(
    {"docker.io", "index.docker.io", "registry-1.docker.io", "nvcr.io", "ghcr.io", "quay.io", "gcr.io", "registry.k8s.io",
     "k8s.gcr.io", "public.ecr.aws", "mcr.microsoft.com", "registry.gitlab.com", "huggingface.co"}
)
PUBLIC_SUFFIXES = frozenset(
    {"internal", "ec2.internal", "compute.internal", "cluster.local", "svc.cluster.local", "local", "localdomain",
     "amazonaws.com", "googleapis.com", "azure.com", "windows.net", "azmk8s.io", "nip.io", "sslip.io", "example.com"}
)
_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?$")
_GPU_UUID = re.compile(r"^(?:GPU|MIG)-[0-9a-fA-F-]{8,}$")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_IP_HOST = re.compile(r"(?i)^(?:ip-)?\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?:\.(?:[a-z0-9-]+\.)*(?:ec2\.internal|compute\.internal|internal|local|pod|cluster\.local))?$")
_DCGM_LABEL = re.compile(r'\b(Hostname|hostname|pod|exported_pod|namespace|exported_namespace|node|kubernetes_node|job_name)\s*=\s*"([^"\\]{1,253})"')
_JSON_LABEL = re.compile(r'"(Hostname|hostname|pod|exported_pod|namespace|exported_namespace|node|kubernetes_node)"\s*:\s*"([^"\\]{1,253})"')
_NCCL_HOST = re.compile(r"(?m)^(?:\S+ )?([A-Za-z][A-Za-z0-9.-]{0,252}):\d+:\d+ \[\d+\] NCCL")
_LABEL_CLASS = {"Hostname": "host", "hostname": "host", "pod": "pod", "exported_pod": "pod", "namespace": "namespace",
                "exported_namespace": "namespace", "node": "node", "kubernetes_node": "node", "job_name": "job"}


def is_ip_like(value: str) -> bool:
    """An IP or a hostname that only embeds one: mapped by pattern, not by name."""
    return bool(_IPV4.match(value) or _IP_HOST.match(value) or (":" in value and _is_ipv6(value)))


def _is_ipv6(value: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(value)
        return True
    except ValueError:
        return False


class Vocabulary:
    """Values to pseudonymise, each with its kind; plus values that must stay."""

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self.keep: set[str] = set()

    def add(self, value: Any, kind: str) -> None:
        if not isinstance(value, str) or not value or len(value) > 253:
            return
        if kind == "host" and "." in value and not is_ip_like(value):
            self._add_domains(value)
        current = self.kinds.get(value)
        if current is None or _RANK[kind] < _RANK[current]:
            self.kinds[value] = kind

    def _add_domains(self, host: str) -> None:
        labels = host.strip(".").split(".")
        if labels and labels[0] and not _IP_HOST.match(labels[0]):
            self.add(labels[0], "host")
        for i in range(1, len(labels) - 1):
            suffix = ".".join(labels[i:])
            if suffix.lower() not in PUBLIC_SUFFIXES and not any(suffix.lower().endswith("." + p) for p in PUBLIC_SUFFIXES):
                self.kinds.setdefault(suffix, "host")

    def add_label(self, key: str, value: Any) -> None:
        if not isinstance(value, str):
            return
        if _STRUCTURAL_LABEL.match(key):
            self.keep.add(value)
        else:
            self.add(value, "label")

    def add_image(self, image: Any) -> None:
        if not isinstance(image, str) or "/" not in image:
            return
        first = image.split("/", 1)[0]
        if "." in first or ":" in first or first == "localhost":
            host = first.split(":", 1)[0]
            if host.lower() not in PUBLIC_REGISTRIES and not host.lower().endswith((".docker.io", ".gcr.io")):
                self.add(host, "registry")

    def add_url(self, url: Any) -> None:
        if not isinstance(url, str) or "://" not in url:
            return
        try:
            netloc = urlsplit(url).netloc  # .hostname would lower-case it: keep the text's case
        except ValueError:
            return
        host = netloc.rpartition("@")[2]
        host = host[1 : host.find("]")] if host.startswith("[") else host.partition(":")[0]
        if host and not is_ip_like(host) and host not in ("localhost", "kubernetes.default.svc"):
            self.add(host, "host")

    def add_text_labels(self, text: Any) -> None:
        """Names in dcgm-exporter / Prometheus label sets (``pod="..."``)."""
        if not isinstance(text, str) or not text:
            return
        for rx in (_DCGM_LABEL, _JSON_LABEL):
            seen: set[tuple[str, str]] = set()
            for m in rx.finditer(text):
                pair = (m.group(1), m.group(2))
                if pair not in seen:
                    seen.add(pair)
                    self.add(m.group(2), _LABEL_CLASS[m.group(1)])

    def add_log_hosts(self, text: Any) -> None:
        """Hostnames in NCCL log-line prefixes (``host:pid:tid [rank] NCCL INFO``)."""
        if isinstance(text, str) and "NCCL" in text:
            for host in set(_NCCL_HOST.findall(text)):
                self.add(host, "host")

    def finish(self) -> dict[str, str]:
        """value -> kind for everything to replace (kept and address-like values dropped)."""
        out = {}
        for value, kind in self.kinds.items():
            if self.must_keep(value):
                continue
            out[value] = kind
        return out

    def must_keep(self, value: str) -> bool:
        low = value.lower()
        return (
            value in self.keep
            or low in KEEP_WORDS
            or len(value) < 2
            or bool(_NUMBER.match(value))
            or bool(_GPU_UUID.match(value))
            or is_ip_like(value)
            or value.startswith("[REDACTED:")
            or low in PUBLIC_REGISTRIES
        )

    # ---- objects ----------------------------------------------------------------------
    def add_object(self, obj: Any, kind: str | None) -> None:
        """Everything identifying in one Kubernetes object (parsed JSON)."""
        if not isinstance(obj, dict):
            return
        kind = kind or obj.get("kind")
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        name = meta.get("name")
        if kind == "Event":
            pass  # event names are <object>.<hex>: the object's name is replaced inside them
        elif kind in KIND_CLASS:
            self.add(name, KIND_CLASS[kind])
        elif kind in JOB_KINDS:
            self.add(name, "job")
        else:
            self.add(name, "object")
        self.add(meta.get("namespace"), "namespace")
        for key, value in (meta.get("labels") or {}).items() if isinstance(meta.get("labels"), dict) else ():
            self.add_label(str(key), value)
        for ref in meta.get("ownerReferences") or []:
            if isinstance(ref, dict):
                rk = ref.get("kind")
                self.add(ref.get("name"), "job" if rk in JOB_KINDS else KIND_CLASS.get(rk, "object"))
        self._walk(obj)
        status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
        if kind == "Node":
            for addr in status.get("addresses") or []:
                if isinstance(addr, dict) and addr.get("type") in ("Hostname", "InternalDNS", "ExternalDNS"):
                    self.add(addr.get("address"), "host")
        if kind == "Event":
            for ref_key in ("involvedObject", "regarding", "related"):
                ref = obj.get(ref_key)
                if isinstance(ref, dict):
                    rk = ref.get("kind")
                    self.add(ref.get("name"), "job" if rk in JOB_KINDS else KIND_CLASS.get(rk, "object"))
                    self.add(ref.get("namespace"), "namespace")
            source = obj.get("source")
            if isinstance(source, dict):
                self.add(source.get("host"), "node")
            self.add(obj.get("reportingInstance"), "host")

    def _walk(self, value: Any, depth: int = 0) -> None:
        """Fields that name things wherever they sit (pod templates inside jobs included)."""
        if depth > 40:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str):
                    if key == "image":
                        self.add_image(item)
                    elif key in ("nodeName", "nominatedNodeName"):
                        self.add(item, "node")
                    elif key in ("hostname", "subdomain"):
                        self.add(item, "host")
                    elif key in ("queueName", "clusterQueue", "cohort"):
                        self.add(item, "queue")
                elif key in ("labels", "matchLabels", "nodeSelector") and isinstance(item, dict):
                    for lk, lv in item.items():
                        self.add_label(str(lk), lv)
                else:
                    self._walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value:
                self._walk(item, depth + 1)


__all__ = ["Vocabulary", "PRIORITY", "JOB_KINDS", "is_ip_like"]
