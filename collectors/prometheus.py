"""DCGM history from Prometheus (``--prometheus URL --since 6h``) via ``query_range``.

The incident usually began before anyone ran capture; Prometheus has the GPU series from
before. ``URL`` is either an address (``http://localhost:9090`` after a port-forward) or an
API-server service-proxy path (``/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy``),
read through the API server with the ``services/proxy`` permission. Each answer is stored
as-is (``source=prometheus-query``). With ``-n``/``--job`` the series are limited to the
scope's GPU nodes (``Hostname``, ``hostname``, ``node`` or ``kubernetes_node`` label).
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from urllib.parse import urlencode

from k10s_forensics.bundle import utcnow
from k10s_forensics.capture.retry import CallError, call_with_retry, parse_retry_after
from k10s_forensics.collectors import Access, Collector

METRICS = (
    "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_XID_ERRORS",
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
    "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_NVLINK_TX_BYTES",
)
NODE_LABELS = ("Hostname", "hostname", "node", "kubernetes_node")
MAX_POINTS = 10_000  # Prometheus refuses more than 11,000 points per series


def promql(metric: str, nodes: list[str] | None) -> str:
    """The query for one metric, limited to ``nodes`` when given."""
    if not nodes:
        return metric
    # A regex inside a PromQL double-quoted string: metacharacters get a backslash, and the
    # backslash itself is doubled for the string literal (a.b becomes "a\\.b" in the query).
    regex = "|".join(re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\\\1", n) for n in nodes)
    return " or ".join(f'{metric}{{{label}=~"{regex}"}}' for label in NODE_LABELS)


class PrometheusCollector(Collector):
    name = "prometheus"
    phases = ("start",)
    needs = ("pods", "nodes")
    access = (Access("get", "services", subresource="proxy"),)
    description = "query_range of DCGM metrics over --since from --prometheus"

    def run(self, ctx, phase: str) -> None:
        base = ctx.options.prometheus
        if not base:
            ctx.skip("no --prometheus URL given")
            return
        end = time.time()
        start = end - ctx.options.since_s
        step = max(15.0, ctx.options.since_s / MAX_POINTS)
        nodes = None if ctx.scope.all_namespaces and not ctx.scope.jobs else ctx.inventory.gpu_nodes()
        if nodes == []:
            ctx.skip("no GPU nodes in scope to query Prometheus for")
            return

        def query(metric: str) -> None:
            params = urlencode({"query": promql(metric, nodes), "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"})
            url = f"{base.rstrip('/')}/api/v1/query_range?{params}"
            try:
                status, body = self._fetch(ctx, base, url)
                error = None if status == 200 else f"HTTP {status}"
            except CallError as exc:
                status, body, error = exc.status or 0, "", str(exc)
            ctx.add("scrapes", {"captured_at": utcnow(), "source": "prometheus-query", "node": None, "url": url,
                                "status": status, "body": body, "error": error})
            if error:
                ctx.error(f"prometheus {metric}: {error}")
            else:
                ctx.ok()

        ctx.fan_out(query, METRICS, lambda m: f"prometheus {m}")

    @staticmethod
    def _fetch(ctx, base: str, url: str) -> tuple[int, str]:
        if base.startswith("/"):
            return ctx.source.proxy_get(url)

        def once() -> tuple[int, str]:
            timeout = ctx.deadline.bound(ctx.options.timeout_s)
            try:
                with urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=timeout) as resp:
                    return resp.status, resp.read().decode("utf-8", errors="replace")
            except urllib.error.HTTPError as exc:
                body = exc.read().decode("utf-8", errors="replace")
                if exc.code in (429, 502, 503, 504):
                    raise CallError(f"HTTP {exc.code}", status=exc.code, kind="server",
                                    retry_after_s=parse_retry_after(exc.headers.get("Retry-After"))) from None
                return exc.code, body
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                raise CallError(f"cannot reach {base}: {exc}", kind="connection") from None

        return call_with_retry(once, ctx.source.retry, ctx.deadline)


COLLECTOR = PrometheusCollector()
