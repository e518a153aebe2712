"""RuntimeClasses (node.k8s.io/v1): which runtime handler a pod's ``runtimeClassName`` names
(``nvidia`` -> the NVIDIA container runtime in containerd/CRI-O). Cluster-scoped, read-only."""

from __future__ import annotations

from k10s_forensics.collectors import Access, Collector


class RuntimeClassesCollector(Collector):
    name = "runtime-classes"
    phases = ("start",)
    access = (Access("list", "runtimeclasses", group="node.k8s.io", namespaced=False),)
    description = "list RuntimeClasses (node.k8s.io/v1): the runtime handler GPU pods ask for"

    def run(self, ctx, phase: str) -> None:
        if "RuntimeClass" not in ctx.source.resources("node.k8s.io", "v1"):
            ctx.skip("node.k8s.io/v1 RuntimeClass not served by this cluster")
            return
        ctx.try_list("/apis/node.k8s.io/v1/runtimeclasses", "node.k8s.io/v1", "RuntimeClass")


COLLECTOR = RuntimeClassesCollector()
