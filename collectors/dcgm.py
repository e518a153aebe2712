"""dcgm-exporter ``/metrics`` on each sampled GPU node, through the API server's pod proxy.

One scrape per exporter pod per sampling round, at
``/api/v1/namespaces/<ns>/pods/<pod>:9400/proxy/metrics`` (needs ``get pods/proxy``),
stored verbatim with ``source=dcgm-exporter`` and the exporter pod's node.
"""

from __future__ import annotations

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.retry import CallError
from k10s_forensics.collectors import Access, Collector

EXPORTER_LABELS = (("app", "nvidia-dcgm-exporter"), ("app.kubernetes.io/name", "dcgm-exporter"))


def exporter_pods(inventory) -> list:
    with inventory.lock:
        pods = list(inventory.operator_pods.values())
    return sorted((p for p in pods if p.running and any(p.labels.get(k) == v for k, v in EXPORTER_LABELS)), key=lambda p: p.key)


class DcgmCollector(Collector):
    name = "dcgm"
    phases = ("round",)
    access = (Access("get", "pods", subresource="proxy", namespaced=False),)
    description = "scrape each dcgm-exporter pod's /metrics through the pod proxy, every round"

    def run(self, ctx, phase: str) -> None:
        nodes = set(ctx.inventory.gpu_nodes())
        pods = [p for p in exporter_pods(ctx.inventory) if p.node in nodes]
        if not pods:
            ctx.skip("no running dcgm-exporter pod on the sampled GPU nodes (labels app=nvidia-dcgm-exporter or app.kubernetes.io/name=dcgm-exporter)")
            return
        for node in sorted(nodes - {p.node for p in pods}):
            ctx.error(f"node {node}: no running dcgm-exporter pod")

        def scrape(pod) -> None:
            path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}:{pod.metrics_port}/proxy/metrics"
            try:
                status, body = ctx.source.proxy_get(path)
                error = None if status == 200 else f"HTTP {status}"
            except CallError as exc:
                status, body, error = exc.status or 0, "", str(exc)
            ctx.add("scrapes", {"captured_at": utcnow(), "source": "dcgm-exporter", "node": pod.node, "url": path,
                                "status": status, "body": body, "error": error})
            if error:
                ctx.error(f"dcgm-exporter {pod.key} on node {pod.node}: {error}")
            else:
                ctx.ok()

        ctx.fan_out(scrape, pods, lambda p: f"dcgm-exporter {p.key}", node_task=True)


COLLECTOR = DcgmCollector()
