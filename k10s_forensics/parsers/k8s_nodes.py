"""``nodes``: one row per Node, from its last listing (raw/objects kind=Node).

GPU columns come from GPU feature discovery labels (``nvidia.com/gpu.product``; with the
MIG *mixed* strategy only ``nvidia.com/mig-<profile>.product`` may be set) and from the
device plugin's extended resources (``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` and
``nvidia.com/mig-*``). Allocatable below capacity means the device plugin marked GPUs
unhealthy.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from k10s_forensics.parsers.k8s_common import (
    Obj, as_dict, as_list, cond_time, condition, condition_true, first, gpu_amount, is_gpu_resource, iter_objects,
    json_text, labels, latest, text_or_none, to_int, ts,
)

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

_MIG_PRODUCT = re.compile(r"^nvidia\.com/mig-(?P<profile>[^.]+\.[^.]+)\.product$")


def derive(ctx: "DeriveContext") -> None:
    by_name: dict[str, list[Obj]] = defaultdict(list)
    for obj in iter_objects(ctx, "Node"):
        by_name[obj.name].append(obj)
    ctx.emit("nodes", [node_row(latest(objs)) for _, objs in sorted(by_name.items())])


def gpu_product(lab: dict[str, str]) -> str | None:
    """GFD product label; for MIG-mixed nodes without it, the parent of the MIG products."""
    product = first(lab, "nvidia.com/gpu.product")
    if product:
        return product
    parents = set()
    for key, value in lab.items():
        if _MIG_PRODUCT.match(key) and value:
            parents.add(re.sub(r"-MIG-[^-]+$", "", value))
    return parents.pop() if len(parents) == 1 else None


def node_row(obj: Obj) -> dict[str, Any]:
    body, status, spec = obj.body, obj.status, obj.spec
    lab = labels(body)
    ready_cond = condition(status, "Ready")
    addresses = [a for a in as_list(status.get("addresses")) if isinstance(a, dict)]
    internal = [str(a.get("address")) for a in addresses if a.get("type") == "InternalIP" and a.get("address")]
    hostnames = [str(a.get("address")) for a in addresses if a.get("type") == "Hostname" and a.get("address")]
    return {
        "node": obj.name,
        "ready": condition_true(status, "Ready"),
        "unschedulable": bool(spec.get("unschedulable")),
        "gpu_product": gpu_product(lab),
        "gpu_capacity": gpu_amount(status.get("capacity")),
        "gpu_allocatable": gpu_amount(status.get("allocatable")),
        "internal_ip": internal[0] if internal else None,
        "taints": taints(spec),
        "uid": obj.uid,
        "created_at": ts(obj.meta.get("creationTimestamp")),
        "captured_at": obj.captured_at,
        "ready_reason": text_or_none((ready_cond or {}).get("reason")),
        "ready_changed_at": cond_time(ready_cond),
        "gpu_memory_mib": to_int(lab.get("nvidia.com/gpu.memory")),
        "gpu_count_label": to_int(lab.get("nvidia.com/gpu.count")),
        "mig_strategy": first(lab, "nvidia.com/mig.strategy"),
        "instance_type": first(lab, "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"),
        "kubelet_version": text_or_none(as_dict(status.get("nodeInfo")).get("kubeletVersion")),
        "hostname": hostnames[0] if hostnames else first(lab, "kubernetes.io/hostname"),
        "addresses": [str(a.get("address")) for a in addresses if a.get("address")],
        "labels_json": json.dumps(lab, sort_keys=True) if lab else None,
        "conditions_json": json_text(as_list(status.get("conditions"))),
        "gpu_resources_json": json_text(gpu_resources(status)),
    }


def gpu_resources(status: dict[str, Any]) -> dict[str, dict[str, int | None]]:
    """Per GPU resource name: capacity and allocatable (MIG profiles listed apart)."""
    out: dict[str, dict[str, int | None]] = {}
    for field in ("capacity", "allocatable"):
        for key, value in as_dict(status.get(field)).items():
            if is_gpu_resource(str(key)):
                out.setdefault(str(key), {"capacity": None, "allocatable": None})[field] = gpu_amount({key: value})
    return out


def taints(spec: dict[str, Any]) -> list[dict[str, str | None]]:
    return [
        {"key": text_or_none(t.get("key")), "value": text_or_none(t.get("value")), "effect": text_or_none(t.get("effect"))}
        for t in as_list(spec.get("taints"))
        if isinstance(t, dict)
    ]
