"""DCGM and kube-state-metrics history from Prometheus (``--prometheus URL``), via ``query_range``.

The incident usually began before anyone ran capture, and the job's pods may be gone;
Prometheus still has the series. ``URL`` is an address (``http://localhost:9090`` after a
port-forward, with ``--prometheus-token-file``/basic auth/``--prometheus-header``/TLS
flags) or an API-server service-proxy path
(``/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy``, read with the
``services/proxy`` permission).

Plan (see ``capture/promplan.py``): one ``/api/v1/series`` call over the window finds the
label convention and the GPU UUIDs in scope; two small probes give the scrape interval;
then one instant query of a range vector (raw samples at their own timestamps) per metric,
UUID group and time piece (no piece over 10,000 samples per series), at most
``PROM_CONCURRENCY`` at once, each with a timeout. Every answer is stored as is
(``source=prometheus-query``; the series answer as ``prometheus-series``, the interval
probes as ``prometheus-probe``). A failed request costs only its piece: the manifest's
``history`` entry lists what was not fetched and why, beside the window, interval and
convention.
"""

from __future__ import annotations

import threading
import time

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture import promplan as plan
from k10s_forensics.capture.promclient import PromClient
from k10s_forensics.capture.retry import CallError
from k10s_forensics.collectors import Access, Collector
from k10s_forensics.errors import CollectorError

METRICS = (
    "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_RESERVED", "DCGM_FI_DEV_FB_TOTAL", "DCGM_FI_PROF_DRAM_ACTIVE",
    "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_XID_ERRORS",
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
    "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_NVLINK_TX_BYTES",
)
#: kube-state-metrics series for pods gone before capture: (metric, extra matcher)
KSM_POD_METRICS = (
    ("kube_pod_info", ""), ("kube_pod_labels", ""), ("kube_pod_created", ""), ("kube_pod_status_phase", ""),
    ("kube_pod_container_status_restarts_total", ""), ("kube_pod_container_status_last_terminated_reason", ""),
    ("kube_pod_container_status_last_terminated_exitcode", ""), ("kube_pod_container_status_last_terminated_timestamp", ""),
    ("kube_pod_container_resource_requests", 'resource=~"nvidia_com_gpu|nvidia_com_mig.*"'),
    ("kube_pod_container_status_running", ""), ("kube_pod_container_status_waiting_reason", ""),
    ("kube_pod_container_status_terminated_reason", ""), ("kube_pod_status_reason", 'reason=~"Evicted|Shutdown"'),
)
KSM_NODE_METRICS = (("kube_node_info", ""), ("kube_node_status_allocatable", 'resource=~"nvidia_com_gpu|nvidia_com_mig.*"'),
                    ("kube_node_spec_taint", ""), ("kube_node_status_condition", 'condition="Ready"'))
#: metrics whose series list the GPUs, tried in order until one has series in the window
#: (a dcgm-exporter configured without GPU_UTIL still exports the framebuffer or a profiling field)
DISCOVERY = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_PROF_GR_ENGINE_ACTIVE")
#: raw/scrapes source of the planning answers (series discovery, interval probes): kept, not parsed as samples
SERIES, PROBE = "prometheus-series", "prometheus-probe"
PROM_CONCURRENCY = 8


class PrometheusCollector(Collector):
    name = "prometheus"
    phases = ("start",)
    needs = ("pods", "nodes", "gpu-operator")
    #: ``list services``: only ``--check``, to name the Prometheus services it can proxy to
    access = (Access("get", "services", subresource="proxy"), Access("list", "services"))
    description = "DCGM and kube-state-metrics history (raw samples) over --since or --from/--to from --prometheus"

    def run(self, ctx, phase: str) -> None:
        opts = ctx.options
        if not opts.prometheus:
            ctx.skip("no --prometheus URL given")
            return
        try:
            start, end = plan.history_window(opts.since_s, opts.history_from, opts.history_to, time.time())
        except CollectorError as exc:
            ctx.error(f"prometheus: {exc}")
            return
        client = PromClient(opts.prometheus, ctx, opts.prometheus_access)
        history = {"source": "prometheus", "url": opts.prometheus, "start": plan.as_iso(start), "end": plan.as_iso(end),
                   "not_fetched": []}
        manifest = ctx.sink.writer.manifest
        manifest["history"] = {**history, "not_fetched": []}  # the window, even if the fetch is interrupted
        try:
            _Run(ctx, client, start, end, history).plan_and_fetch()
        finally:
            history.update(requests=client.stats.requests, bytes=client.stats.bytes,
                           seconds=round(client.stats.seconds, 3), not_fetched=list(history["not_fetched"]))
            manifest["history"] = history  # one assignment: a checkpoint never sees it half-written


class _Run:
    """One collector run: discovery, step, then the fetches."""

    def __init__(self, ctx, client: PromClient, start: float, end: float, history: dict):
        self.ctx, self.client, self.start, self.end, self.history = ctx, client, start, end, history
        self.discovery = DISCOVERY[0]  # the metric whose series were found
        self.lock = threading.Lock()

    def missed(self, what: str, why: str) -> None:
        with self.lock:
            if len(self.history["not_fetched"]) < 50:
                self.history["not_fetched"].append(f"{what}: {why}")
        self.ctx.error(f"prometheus {what}: {why}")

    def fetch(self, what: str, path: str, params: list[tuple[str, str]], source: str = "prometheus-query") -> str | None:
        """One request, stored as a raw scrape row; the body when it succeeded, else None (recorded)."""
        try:
            status, body, url = self.client.get(path, params)
            error = None if status == 200 else f"HTTP {status}: {body[:200]}"
        except CallError as exc:
            status, body, url, error = exc.status or 0, "", self.client.url(path, params), str(exc)
        self.ctx.add("scrapes", {"captured_at": utcnow(), "source": source, "node": None, "url": url,
                                 "status": status, "body": body, "error": error})
        if error:
            self.missed(what, error)
            return None
        self.ctx.ok()
        return body

    def plan_and_fetch(self) -> None:
        ctx = self.ctx
        window = [("start", f"{self.start:.3f}"), ("end", f"{self.end:.3f}")]
        series: list[dict[str, str]] = []
        for metric in DISCOVERY:
            body = self.fetch("series discovery", "/api/v1/series", [("match[]", metric)] + window, SERIES)
            if body is None:
                return
            try:
                series = plan.series_labels(body)
            except CollectorError as exc:
                self.missed("series discovery", str(exc))
                return
            if series:
                self.discovery = metric
                break
        keys = plan.scope_keys(ctx)
        uuids = plan.scoped_uuids(series, keys, plan.inventory_attribution(ctx))
        self.history.update(convention=plan.describe_convention(series), series_seen=len(series),
                            gpus_in_scope=sum(len(v) for v in uuids.values()))
        if not series or (not keys.everything and not uuids):
            ctx.note_skipped(f"no DCGM series for the scope in {self.history['start']} .. {self.history['end']}")
        step = self._step(uuids)
        self.history["interval_s"] = step
        jobs = []
        # by GPU UUID groups even with -A: bounded answers, and a parse that merges one group at a time
        groups = [{label: g} for label, vals in sorted(uuids.items()) for g in plan.uuid_groups(vals)]
        for metric in METRICS:
            for matchers in groups:
                jobs.extend((metric, plan.raw_query(metric, matchers, a, b), a, b)
                            for a, b in plan.pieces(self.start, self.end, step))
        jobs.extend(self._ksm_jobs(step, plan.exporter_pods(series)))
        limit = threading.Semaphore(PROM_CONCURRENCY)
        ctx.fan_out(self._query, jobs, lambda j: f"prometheus {j[0]}", limit=limit)

    def _query(self, job: tuple) -> None:
        metric, query, a, b = job
        what = f"{metric} {plan.as_iso(a)}..{plan.as_iso(b)}"
        self.fetch(what, "/api/v1/query", plan.instant_params(query, b, self.ctx.options.timeout_s))

    def _step(self, uuids: dict[str, set[str]]) -> float:
        """The scrape interval of one in-scope series (default 15 s when it cannot be told)."""
        sample = next(((label, sorted(vals)[0]) for label, vals in sorted(uuids.items()) if vals), None)
        if sample is None:
            return plan.DEFAULT_STEP_S
        span = self.end - self.start
        window = float(max(1, round(min(600.0, span))))
        step = max(window, round(span / 50))
        sel = f'{self.discovery}{{{sample[0]}="{sample[1]}"}}'
        timeout = self.ctx.options.timeout_s
        body = self.fetch("scrape interval", "/api/v1/query_range", plan.range_params(
            f"count_over_time({sel}[{window:g}s])", min(self.end, self.start + window), self.end, step, timeout), PROBE)
        at = plan.busiest_time(body) if body else None
        if at is None:
            return plan.DEFAULT_STEP_S
        body = self.fetch("scrape interval", "/api/v1/query", plan.instant_params(f"{sel}[{window:g}s]", at, timeout), PROBE)
        return (plan.interval_from_samples(body) if body else None) or plan.DEFAULT_STEP_S

    def _ksm_jobs(self, step: float, exporters: set[str]) -> list[tuple]:
        scope = self.ctx.scope
        namespaces = None if scope.all_namespaces else sorted(set(scope.namespaces) | {j.namespace for j in scope.jobs})
        selectors = []
        for metric, extra in KSM_POD_METRICS + KSM_NODE_METRICS:
            matchers = []
            if namespaces and metric.startswith("kube_pod"):
                matchers.append('namespace=~"' + "|".join(plan.regex_escape(n) for n in namespaces) + '"')
            if extra:
                matchers.append(extra)
            selectors.append((metric, f"{metric}{{{','.join(matchers)}}}" if matchers else metric))
        if namespaces:  # the exporter pods that scraped the scope's GPUs: their node and IP place the series
            selectors.extend(("kube_pod_info", plan.selector("kube_pod_info", {"pod": g})) for g in plan.uuid_groups(exporters))
        return [(metric, plan.ranged(sel, a, b), a, b)
                for metric, sel in selectors for a, b in plan.pieces(self.start, self.end, step)]


COLLECTOR = PrometheusCollector()
