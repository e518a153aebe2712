"""``nvidia-smi -q -x`` on each sampled GPU node, every round.

Where: the GPU operator's driver pod on the node (container ``nvidia-driver-ctr``), else a
running workload pod on that node with a GPU (the NVIDIA container runtime mounts
nvidia-smi into GPU containers), else the node is recorded as unavailable with the reason
(an exec row with no exit code and the reason in ``error``).
"""

from __future__ import annotations

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.commands import binary_missing, record_exec, run_command
from k10s_forensics.capture.inventory import DRIVER_CONTAINER
from k10s_forensics.capture.source import ExecResult
from k10s_forensics.collectors import Access, Collector

COMMAND = ("nvidia-smi", "-q", "-x")
SOURCE = "nvidia-smi-xml"


def candidates(inventory, node: str, by_node=None) -> list[tuple[object, str]]:
    """(pod, container) pairs to try on ``node``, best first (``by_node``: ``inventory.pods_by_node()``)."""
    drivers, workloads = by_node or inventory.pods_by_node()
    found = []
    for pod in drivers.get(node, []):
        names = [c.name for c in pod.containers if not c.init]
        found.append((pod, DRIVER_CONTAINER if DRIVER_CONTAINER in names else names[0]))
    for pod in workloads.get(node, []):
        gpu = [c for c in pod.containers if c.gpus and not c.init]
        if gpu:
            found.append((pod, gpu[0].name))
    return found


class NvidiaSmiCollector(Collector):
    name = "nvidia-smi"
    phases = ("round",)
    access = (Access("create", "pods", subresource="exec", namespaced=False),)
    description = "nvidia-smi -q -x in the driver pod (else a GPU workload pod) of each GPU node, every round"

    def run(self, ctx, phase: str) -> None:
        nodes = ctx.inventory.gpu_nodes()
        if not nodes:
            ctx.skip("no GPU nodes in scope")
            return
        by_node = ctx.inventory.pods_by_node()

        def one(node: str) -> None:
            tried: list[str] = []
            for pod, container in candidates(ctx.inventory, node, by_node):
                result = run_command(ctx, pod, container, COMMAND, SOURCE, record=False)
                if result.exit_code is not None and not binary_missing(result):
                    record_exec(ctx, pod, container, COMMAND, SOURCE, result, utcnow())
                    ctx.ok()
                    return
                tried.append(f"{pod.key}/{container}: {result.error or (result.stderr.strip()[:120] or f'exit {result.exit_code}')}")
            reason = ("no GPU-operator driver pod and no running GPU workload pod on the node" if not tried
                      else "nvidia-smi could not run: " + "; ".join(tried))
            record_exec(ctx, None, None, COMMAND, SOURCE, ExecResult(None, "", "", reason, 0), utcnow(), node=node)
            ctx.error(f"node {node}: {reason}")

        ctx.fan_out(one, nodes, lambda n: f"node {n}", node_task=True)


COLLECTOR = NvidiaSmiCollector()
