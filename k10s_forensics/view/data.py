"""The one data interface of ``k10s view``: views ask it, it asks DuckDB.

``ViewData`` holds one DuckDB connection: first only the bundle's tables (enough for
Fleet, which so shows before anything heavy runs), then, on the first question that needs
them, the price table and the shared ``k10s_*`` views of queries/_views*.sql exactly as
``k10s analyze`` prepares them. It runs the rules once (the findings ``y`` shows are the analysis', not a copy) and answers
every view from named SQL: the report's own queries (reports/sql: fleet_nodes, job_list,
job_ranks, job_rank_events, job_gpu_bins, queues_*, timeline_events) and the view's few
extra ones (view/sql). Results are cached, so a view switch or a drill-down that was
asked once (or prefetched by :meth:`prefetch`) answers from memory.

All methods are thread-safe (one lock around the connection): the app calls them from
worker threads, never from the UI thread.

Parts: ``data_cache`` (the connection, caching, named questions); this module adds the views.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from k10s_forensics.store.bundle import Bundle

from .data_cache import BundleConnection, NotCached, view_sql
from .series import SERIES_COLUMNS
from .series import series as _series

SPARK_BINS = 24
NODE_BINS = 30
#: Views prefetched in the background after Fleet is on screen, in this order.
PREFETCH = ("analysis", "jobs", "queue", "events", "logs", "timeline", "all_node_gpus", "prefetch_facts")
#: The facts ``y`` reads (view/sql/<name>.sql) and the columns they are looked up by.
FACTS = (("fact_rank_oom", ("job_key", "rank")), ("fact_gpu_xid", ("gpu_uuid",)), ("fact_pod_net", ("pod_key",)),
         ("fact_recent_events", ("object_name",)), ("fact_pod_start", ("pod_key",)))
#: Tables whose row count ``y`` reads (to say why a fact is absent).
COUNTED = ("log_events", "gpu_samples", "gpus", "tcp_samples", "events")


class ViewData(BundleConnection):
    """Cached, thread-safe answers for every view of one bundle."""

    @classmethod
    def open(cls, path: str | Path) -> "ViewData":
        """Open a bundle folder or archive (BundleError when it is not one)."""
        return cls(Bundle.open(path))

    def prefetch_facts(self) -> None:
        """Every fact ``y`` reads, and the row counts it reads, computed once."""
        for name, key in FACTS:
            if name != "fact_recent_events" or self.window_end is not None:
                self.facts(name, *key)
        for table in COUNTED:
            self.count(table)

    # -- the analysis ------------------------------------------------------------------------

    def analysis(self) -> dict[str, Any]:
        """``k10s analyze`` of the bundle (built-in rules), run once on this connection."""
        def run(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
            from k10s_forensics.analyze.rules import load_rules
            from k10s_forensics.analyze.runner import run_rules

            return run_rules(con, self.bundle, load_rules(()))

        return self._cached("analysis", run, shared=True)

    def findings(self) -> list[dict[str, Any]]:
        return self.analysis()["findings"]

    def skipped(self) -> list[dict[str, Any]]:
        return self.analysis()["skipped"]

    # -- views -------------------------------------------------------------------------------

    def fleet(self) -> list[dict[str, Any]]:
        return self.report_query("fleet_nodes")

    def jobs(self) -> list[dict[str, Any]]:
        return self.report_query("job_list")

    def queue(self) -> dict[str, list[dict[str, Any]]]:
        return {"cluster": self.report_query("queues_cluster"), "local": self.report_query("queues_local"),
                "workloads": self.report_query("queues_workloads"), "pending_pods": self.fact("pending_pods")}

    def events(self) -> list[dict[str, Any]]:
        return self.fact("events_list")

    def logs(self) -> list[dict[str, Any]]:
        return self.fact("logs_list")

    def timeline(self) -> list[dict[str, Any]]:
        return self.report_query("timeline_events")

    def ranks(self, job_key: str) -> list[dict[str, Any]]:
        """One row per rank of a job: pod, node, GPU, log-event counts and activity series."""
        def run(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
            ranks = self.report_query("job_ranks", job_key=job_key)
            events = {r["rank"]: r for r in self.report_query("job_rank_events", job_key=job_key)}
            series = _series(self.report_query("job_gpu_bins", job_key=job_key, max_bins=SPARK_BINS), "rank")
            out = []
            for r in ranks:
                row = dict(r, job_key=job_key, **{k: events.get(r["rank"], {}).get(k, 0) for k in ("oom", "nccl", "exits", "restarts")})
                row.update(series.get(r["rank"], {}))
                out.append(row)
            return out

        return self._cached(("ranks", job_key), run)

    def node_gpus(self, node: str) -> list[dict[str, Any]]:
        """One row per GPU of a node, with its metric series (node drill-down)."""
        return self.all_node_gpus().get(node, [])

    def all_node_gpus(self) -> dict[str, list[dict[str, Any]]]:
        """Per node, its GPUs with their metric series: one query for the whole fleet."""
        def run(con: duckdb.DuckDBPyConnection) -> dict[str, list[dict[str, Any]]]:
            by_node: dict[str, list[dict[str, Any]]] = {}
            for row in self.fact("node_gpu_bins", max_bins=NODE_BINS):
                by_node.setdefault(row["node"], []).append(row)
            owners = {r["gpu_uuid"]: r for r in self.fact("gpu_owners")}
            out: dict[str, list[dict[str, Any]]] = {}
            for node, rows in by_node.items():
                first = {r["gpu_uuid"]: r for r in rows}
                out[node] = [dict(gpu_uuid=g, gpu_index=first[g]["gpu_index"], model=first[g]["model"], **s,
                                  job_key=owners.get(g, {}).get("job_key"), rank=owners.get(g, {}).get("rank"),
                                  pod=owners.get(g, {}).get("pod")) for g, s in _series(rows, "gpu_uuid").items()]
            return out

        return self._cached("all_node_gpus", run)

    def prefetch(self, should_stop: Callable[[], bool] = lambda: False) -> None:
        """Compute the views a user reaches next, so switching to them answers from memory."""
        for name in PREFETCH:
            if should_stop():
                return
            getattr(self, name)()
        for job in self.jobs():
            if should_stop():
                return
            self.ranks(job["job_key"])

    def write_report(self, out_path: str | Path) -> Path:
        """The HTML report of this bundle with this analysis (``r``)."""
        from k10s_forensics.reports import render_report

        return render_report(self.bundle, self.analysis(), out_path)


__all__ = ["ViewData", "NotCached", "view_sql", "SERIES_COLUMNS"]
