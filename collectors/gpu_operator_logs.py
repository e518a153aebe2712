"""Recent logs of the GPU operator operands on the nodes in scope (device plugin, container
toolkit, operator validator): why a GPU pod on that node cannot start. Bounded: the last
``OPERAND_LOG_BYTES`` of each container (current and previous instance). Read-only."""

from __future__ import annotations

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.retry import CallError
from k10s_forensics.collectors import Access, Collector

#: Operand apps whose logs say why a container cannot start on their node.
LOG_APPS = ("nvidia-device-plugin-daemonset", "nvidia-container-toolkit-daemonset", "nvidia-operator-validator")
OPERAND_LOG_BYTES = 64 * 1024
OPERAND_TAIL_LINES = 400


class GpuOperatorLogsCollector(Collector):
    name = "gpu-operator-logs"
    phases = ("end",)
    needs_at_end = ("gpu-operator", "pods")
    access = (Access("get", "pods", subresource="log", namespaced=False),)
    description = "bounded recent logs of the device plugin, container toolkit and validator pods on the nodes in scope"

    def run(self, ctx, phase: str) -> None:
        with ctx.inventory.lock:
            operands = list(getattr(ctx.inventory, "operator_pods", {}).values())
            nodes = {p.node for p in ctx.inventory.pods.values() if p.node}
        nodes |= set(ctx.inventory.gpu_nodes())
        targets = [(pod, c, prev) for pod in sorted(operands, key=lambda p: p.key)
                   if pod.node in nodes and (pod.labels or {}).get("app") in LOG_APPS
                   for c in pod.containers if c.ever_started for prev in ((False, True) if c.has_previous else (False,))]
        if not targets:
            ctx.skip("no device plugin, toolkit or validator pods on the nodes in scope")
            return

        def one(target) -> None:
            pod, container, previous = target
            captured_at = utcnow()
            error = None
            try:
                body, cut = ctx.source.logs(pod.namespace, pod.name, container.name, previous=previous,
                                            limit_bytes=OPERAND_LOG_BYTES, tail_lines=OPERAND_TAIL_LINES)
                if cut:
                    error = f"truncated: kept the last {OPERAND_TAIL_LINES} lines, at most {OPERAND_LOG_BYTES} bytes"
            except CallError as exc:
                body, error = "", str(exc)
            ctx.add("logs", {"captured_at": captured_at, "node": pod.node, "namespace": pod.namespace, "pod": pod.name,
                             "pod_uid": pod.uid, "container": container.name, "previous": previous, "body": body, "error": error})
            if error and not error.startswith("truncated"):
                ctx.error(f"pod {pod.key} container {container.name}: {error}")
            else:
                ctx.ok()

        ctx.fan_out(one, targets, lambda t: f"pod {t[0].key} container {t[1].name}")


COLLECTOR = GpuOperatorLogsCollector()
