"""NVIDIA GPU operator: the ClusterPolicy and the operand pods (driver, dcgm-exporter, ...).

Operand pods are found cluster-wide by their ``app`` label; later collectors use them to
reach each GPU node (nvidia-smi and dmesg in the driver pod, /metrics of dcgm-exporter).
Pods outside the scope's namespaces are written only when they run on a sampled node.
"""

from __future__ import annotations

import threading

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.inventory import PodInfo
from k10s_forensics.collectors import Access, Collector

#: Label selectors of GPU operator operands and of a standalone dcgm-exporter (Helm chart).
OPERAND_SELECTORS = (
    "app=nvidia-driver-daemonset",
    "app=nvidia-dcgm-exporter",
    "app=nvidia-device-plugin-daemonset",
    "app=nvidia-container-toolkit-daemonset",
    "app=nvidia-operator-validator",
    "app=gpu-feature-discovery",
    "app=nvidia-mig-manager",
    "app=gpu-operator",
    "app.kubernetes.io/name=dcgm-exporter",
)


def _matches(selector: str, labels: dict[str, str]) -> bool:
    key, _, value = selector.partition("=")
    return labels.get(key) == value


class GpuOperatorCollector(Collector):
    name = "gpu-operator"
    phases = ("start", "end")
    needs = ("pods", "nodes")
    access = (Access("list", "clusterpolicies", group="nvidia.com", namespaced=False),
              Access("list", "pods", namespaced=False))
    description = "ClusterPolicy and GPU operator operand pods (cluster-wide, by label)"

    def run(self, ctx, phase: str) -> None:
        policy = ctx.source.resources("nvidia.com", "v1").get("ClusterPolicy")
        if policy is None:
            ctx.note_skipped("nvidia.com/v1 ClusterPolicy not served by this cluster")
        else:
            ctx.try_list(f"/apis/nvidia.com/v1/{policy['name']}", "nvidia.com/v1", "ClusterPolicy")
        sampled = set(ctx.inventory.gpu_nodes())
        operands: dict[str, PodInfo] = {}
        seen_uids: set[str] = set()
        lock = threading.Lock()

        def list_selector(selector: str) -> None:
            # Page by page: summaries are kept, bodies are written and dropped (memory stays flat).
            for _doc, items in ctx.source.list("/api/v1/pods", [("labelSelector", selector)]):
                now = utcnow()
                for item in items:
                    meta = item.get("metadata") or {}
                    if not _matches(selector, meta.get("labels") or {}):
                        continue
                    with lock:
                        if meta.get("uid") in seen_uids:
                            continue
                        seen_uids.add(meta.get("uid"))
                    info = PodInfo.from_object(item)
                    with lock:
                        operands[info.key] = info
                    already_written = ctx.scope.in_namespaces(info.namespace) and not ctx.scope.job_scoped
                    if not already_written and (info.node in sampled or not info.node):
                        ctx.add_object(item, "v1", "Pod", now)
            ctx.ok()

        ctx.fan_out(list_selector, OPERAND_SELECTORS, lambda s: f"list pods {s}")
        with ctx.inventory.lock:
            ctx.inventory.operator_pods = operands
        if policy is None and not operands:
            ctx.skip("no GPU operator found: nvidia.com/v1 ClusterPolicy not served and no operand pods (app=nvidia-driver-daemonset, ...)")


COLLECTOR = GpuOperatorCollector()
