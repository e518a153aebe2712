"""Every node, listed at the start and the end.

All nodes are listed even for ``-n``/``--job``: why a pod is pending (taints, free GPUs,
cordoned nodes) is a question about the whole fleet. GPU sampling (nvidia-smi, DCGM,
dmesg) is limited to the scope's nodes.
"""

from __future__ import annotations

from k10s_forensics.capture.inventory import NodeInfo
from k10s_forensics.collectors import Access, Collector


class NodesCollector(Collector):
    name = "nodes"
    phases = ("start", "end")
    access = (Access("list", "nodes", namespaced=False),)
    description = "list nodes (start and end)"

    def run(self, ctx, phase: str) -> None:
        found: dict[str, NodeInfo] = {}

        def seen(item: dict) -> None:
            info = NodeInfo.from_object(item)
            found[info.name] = info

        if ctx.try_list("/api/v1/nodes", "v1", "Node", seen=seen) is not None:
            with ctx.inventory.lock:
                ctx.inventory.nodes = found
                ctx.inventory.nodes_listed = True


COLLECTOR = NodesCollector()
