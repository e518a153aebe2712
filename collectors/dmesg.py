"""Kernel log (``dmesg --time-format iso``) of each sampled GPU node, at the end.

Read in the GPU operator's driver pod, which is privileged and can read the kernel ring
buffer (Xid lines, OOM killer). Nodes without a driver pod are listed as not covered.
"""

from __future__ import annotations

from k10s_forensics.capture.commands import judge, run_command
from k10s_forensics.capture.inventory import DRIVER_CONTAINER
from k10s_forensics.collectors import Access, Collector

COMMAND = ("dmesg", "--time-format", "iso")


class DmesgCollector(Collector):
    name = "dmesg"
    phases = ("end",)
    access = (Access("create", "pods", subresource="exec", namespaced=False),)
    description = "dmesg --time-format iso in the driver pod of each GPU node, at the end"

    def run(self, ctx, phase: str) -> None:
        nodes = ctx.inventory.gpu_nodes()
        targets = []
        uncovered = []
        drivers, _ = ctx.inventory.pods_by_node()
        for node in nodes:
            pods = drivers.get(node)
            if pods:
                targets.append(pods[0])
            else:
                uncovered.append(node)
        if not targets:
            ctx.skip("no GPU-operator driver pod on the sampled nodes to read the kernel log from")
            return
        for node in uncovered:
            ctx.error(f"node {node}: no GPU-operator driver pod to read the kernel log from")

        def one(pod) -> None:
            names = [c.name for c in pod.containers if not c.init]
            container = DRIVER_CONTAINER if DRIVER_CONTAINER in names else names[0]
            result = run_command(ctx, pod, container, COMMAND, "dmesg")
            judge(ctx, result, missing=f"dmesg not in image {[c.image for c in pod.containers if c.name == container][0]} (pod {pod.key})",
                  where=f"node {pod.node} (pod {pod.key})")

        ctx.fan_out(one, targets, lambda p: f"node {p.node}", node_task=True)


COLLECTOR = DmesgCollector()
