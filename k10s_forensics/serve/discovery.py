"""Discovery documents (/api, /apis, APIResourceList) built from the kinds a bundle holds.

Every captured (api_version, kind) becomes a resource with the verbs ``get``, ``list`` and
``watch`` (a watch on a snapshot never sees a change). Well-known kinds get their real plural,
scope and short names (``kubectl get po`` works); unknown kinds get a plural derived the way
Kubernetes derives CRD plurals and the scope seen in the data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

READ_VERBS = ["get", "list", "watch"]


@dataclass(frozen=True)
class Resource:
    """One API resource: where it is served and how kubectl names it."""

    group: str  # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular(self) -> str:
        return self.kind.lower()


@dataclass(frozen=True)
class _Known:
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()


# kind -> facts, for kinds whose plural/scope/short names should match a real cluster.
KNOWN_KINDS: dict[str, _Known] = {
    "Pod": _Known("pods", True, ("po",), ("all",)),
    "Node": _Known("nodes", False, ("no",)),
    "Event": _Known("events", True, ("ev",)),
    "Namespace": _Known("namespaces", False, ("ns",)),
    "Service": _Known("services", True, ("svc",), ("all",)),
    "Endpoints": _Known("endpoints", True, ("ep",)),
    "ConfigMap": _Known("configmaps", True, ("cm",)),
    "PersistentVolumeClaim": _Known("persistentvolumeclaims", True, ("pvc",)),
    "PersistentVolume": _Known("persistentvolumes", False, ("pv",)),
    "ServiceAccount": _Known("serviceaccounts", True, ("sa",)),
    "ResourceQuota": _Known("resourcequotas", True, ("quota",)),
    "LimitRange": _Known("limitranges", True, ("limits",)),
    "Job": _Known("jobs", True, (), ("all",)),
    "CronJob": _Known("cronjobs", True, ("cj",), ("all",)),
    "Deployment": _Known("deployments", True, ("deploy",), ("all",)),
    "StatefulSet": _Known("statefulsets", True, ("sts",), ("all",)),
    "DaemonSet": _Known("daemonsets", True, ("ds",), ("all",)),
    "ReplicaSet": _Known("replicasets", True, ("rs",), ("all",)),
    "Lease": _Known("leases", True),
    "PriorityClass": _Known("priorityclasses", False, ("pc",)),
    "StorageClass": _Known("storageclasses", False, ("sc",)),
    "RuntimeClass": _Known("runtimeclasses", False),
    "PodDisruptionBudget": _Known("poddisruptionbudgets", True, ("pdb",)),
    "CustomResourceDefinition": _Known("customresourcedefinitions", False, ("crd", "crds")),
    "PyTorchJob": _Known("pytorchjobs", True),
    "TFJob": _Known("tfjobs", True),
    "MPIJob": _Known("mpijobs", True),
    "TrainJob": _Known("trainjobs", True),
    "TrainingRuntime": _Known("trainingruntimes", True),
    "ClusterTrainingRuntime": _Known("clustertrainingruntimes", False),
    "JobSet": _Known("jobsets", True),
    "RayJob": _Known("rayjobs", True),
    "RayCluster": _Known("rayclusters", True),
    "Workload": _Known("workloads", True, ("wl",)),
    "ClusterQueue": _Known("clusterqueues", False, ("cq",)),
    "LocalQueue": _Known("localqueues", True, ("queue", "queues", "lq")),
    "ResourceFlavor": _Known("resourceflavors", False, ("flavor", "flavors", "rf")),
    "WorkloadPriorityClass": _Known("workloadpriorityclasses", False),
    "AdmissionCheck": _Known("admissionchecks", False),
    "ClusterPolicy": _Known("clusterpolicies", False),
    "NVIDIADriver": _Known("nvidiadrivers", False),
    "PodGroup": _Known("podgroups", True, ("pg", "podgroup")),
}

# Resources a Kubernetes cluster always serves: listable (empty) even when not captured.
BASE_CORE = ("Pod", "Node", "Event", "Namespace")

# Subresources served under the core group (read-only replays).
CORE_SUBRESOURCES = (
    ("pods/log", "Pod", True, ["get"]),
    ("pods/exec", "PodExecOptions", True, ["create", "get"]),
    ("pods/proxy", "PodProxyOptions", True, ["create", "delete", "get", "patch", "update"]),
    ("services/proxy", "ServiceProxyOptions", True, ["create", "delete", "get", "patch", "update"]),
    ("nodes/proxy", "NodeProxyOptions", False, ["create", "delete", "get", "patch", "update"]),
)


def plural_of(kind: str) -> str:
    """The plural Kubernetes would give a kind (as CRD tooling derives it)."""
    known = KNOWN_KINDS.get(kind)
    if known:
        return known.plural
    low = kind.lower()
    if re.search(r"[^aeiou]y$", low):
        return low[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", low):
        return low + "es"
    return low + "s"


def split_api_version(api_version: str) -> tuple[str, str]:
    """``"kubeflow.org/v1"`` -> ``("kubeflow.org", "v1")``; ``"v1"`` -> ``("", "v1")``."""
    if "/" in api_version:
        group, _, version = api_version.partition("/")
        return group, version
    return "", api_version


def make_resource(api_version: str, kind: str, namespaced_seen: bool | None) -> Resource:
    group, version = split_api_version(api_version)
    known = KNOWN_KINDS.get(kind)
    if known:
        return Resource(group, version, kind, known.plural, known.namespaced, known.short_names, known.categories)
    namespaced = True if namespaced_seen is None else namespaced_seen
    return Resource(group, version, kind, plural_of(kind), namespaced)


_VERSION_RE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(version: str) -> tuple[int, int, int]:
    """Sort key: GA before beta before alpha, higher numbers first (Kubernetes' order)."""
    m = _VERSION_RE.match(version)
    if not m:
        return (3, 0, 0)
    major, stage, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -major, -minor)


@dataclass
class Catalog:
    """All served resources, looked up by (group, version, plural)."""

    resources: list[Resource] = field(default_factory=list)

    @classmethod
    def build(cls, seen: Iterable[tuple[str, str, bool]]) -> "Catalog":
        """``seen``: (api_version, kind, namespaced_in_data) for each captured kind."""
        by_key: dict[tuple[str, str, str], Resource] = {}
        for kind in BASE_CORE:
            res = make_resource("v1", kind, None)
            by_key[(res.group, res.version, res.plural)] = res
        for api_version, kind, namespaced in seen:
            res = make_resource(api_version, kind, namespaced)
            by_key[(res.group, res.version, res.plural)] = res
        return cls(sorted(by_key.values(), key=lambda r: (r.group, r.version, r.plural)))

    def find(self, group: str, version: str, plural: str) -> Resource | None:
        for res in self.resources:
            if res.group == group and res.version == version and res.plural == plural:
                return res
        return None

    def groups(self) -> dict[str, list[str]]:
        """Non-core group -> versions, preferred version first."""
        out: dict[str, set[str]] = {}
        for res in self.resources:
            if res.group:
                out.setdefault(res.group, set()).add(res.version)
        return {g: sorted(v, key=version_priority) for g, v in sorted(out.items())}

    def has_version(self, group: str, version: str) -> bool:
        return any(r.group == group and r.version == version for r in self.resources)


def api_versions(server_address: str) -> dict:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def _group_doc(name: str, versions: list[str]) -> dict:
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": entries, "preferredVersion": entries[0]}


def api_group_list(catalog: Catalog) -> dict:
    groups = [_group_doc(n, v) for n, v in catalog.groups().items()]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(catalog: Catalog, name: str) -> dict | None:
    versions = catalog.groups().get(name)
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group_doc(name, versions)}


def api_resource_list(catalog: Catalog, group: str, version: str) -> dict:
    resources = []
    for res in catalog.resources:
        if res.group != group or res.version != version:
            continue
        entry = {
            "name": res.plural,
            "singularName": res.singular,
            "namespaced": res.namespaced,
            "kind": res.kind,
            "verbs": list(READ_VERBS),
        }
        if res.short_names:
            entry["shortNames"] = list(res.short_names)
        if res.categories:
            entry["categories"] = list(res.categories)
        resources.append(entry)
    if not group:
        served = {r.plural for r in catalog.resources if not r.group}
        for name, kind, namespaced, verbs in CORE_SUBRESOURCES:
            if name.split("/")[0] in served:
                resources.append({"name": name, "singularName": "", "namespaced": namespaced, "kind": kind, "verbs": verbs})
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}


def version_doc(version: str) -> dict[str, str]:
    core = version.lstrip("v").split("-")[0].split("+")[0].split(".")
    major = core[0] if core else "1"
    minor = core[1] if len(core) > 1 else "0"
    return {
        "major": major,
        "minor": minor,
        "gitVersion": version,
        "gitCommit": "k10s-serve",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": "k10s-serve",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


__all__ = [
    "version_doc",
    "Catalog",
    "Resource",
    "KNOWN_KINDS",
    "api_group",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "plural_of",
    "split_api_version",
    "version_priority",
]
