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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb

from k10s_forensics.store.bundle import Bundle, parse_iso
from k10s_forensics.engine import run_sql

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


class NotCached(LookupError):
    """Inside :meth:`ViewData.from_memory`: the answer would need a query."""


def view_sql(name: str) -> str:
    """Text of ``k10s_forensics/view/sql/<name>.sql``."""
    return resources.files("k10s_forensics.view").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


class ViewData:
    """Cached, thread-safe answers for every view of one bundle."""

    def __init__(self, bundle: Bundle):
        self.bundle = bundle
        self._lock = threading.RLock()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._shared_ready = False
        self._cache: dict[Any, Any] = {}
        self._memo: dict[Any, Any] = {}
        self._memo_lock = threading.Lock()
        self._thread = threading.local()
        self.window = bundle.manifest.get("window") or {}
        self.baseline_diff: dict[str, Any] | None = None  # the k10s diff result when --baseline was given (d)

    @classmethod
    def open(cls, path: str | Path) -> "ViewData":
        """Open a bundle folder or archive (BundleError when it is not one)."""
        return cls(Bundle.open(path))

    # -- plumbing ----------------------------------------------------------------------------

    def _connection(self) -> duckdb.DuckDBPyConnection:
        """The bundle's tables as views (absent ones empty with their schema): enough for
        Fleet, so it shows before the shared views and the rules have run."""
        if self._con is None:
            from k10s_forensics.analyze.runner import _ensure_views
            from k10s_forensics.engine import connect

            con = connect(self.bundle)
            _ensure_views(con)
            self._con = con
        return self._con

    def _shared(self) -> duckdb.DuckDBPyConnection:
        """The connection with the price table and the shared k10s_* views, exactly as
        ``k10s analyze`` prepares it (queries/_views*.sql), built once."""
        con = self._connection()
        if not self._shared_ready:
            from k10s_forensics.analyze.prices import PriceTable
            from k10s_forensics.errors import QueryError
            from k10s_forensics.queries import VIEWS_FILES, read_text

            PriceTable.default().register(con)
            for name in VIEWS_FILES:
                try:
                    con.sql(read_text(name))
                except duckdb.Error as exc:
                    raise QueryError(str(exc).splitlines()[0], f"queries/{name}") from None
            self._shared_ready = True
        return con

    @contextmanager
    def from_memory(self) -> Iterator[None]:
        """Within it, this thread gets only answers already computed: one that would need a
        query raises :class:`NotCached` at once, never waiting for the connection (a
        worker may be using it). The UI thread asks so, and hands over to a worker on
        NotCached."""
        before = getattr(self._thread, "memory_only", False)
        self._thread.memory_only = True
        try:
            yield
        finally:
            self._thread.memory_only = before

    def _cached(self, key: Any, compute: Callable[[duckdb.DuckDBPyConnection], Any], shared: bool = False) -> Any:
        if getattr(self._thread, "memory_only", False):
            try:
                return self._cache[key]  # read without the lock: a dict lookup is atomic
            except KeyError:
                raise NotCached(key) from None
        with self._lock:
            if key not in self._cache:
                self._cache[key] = compute(self._shared() if shared else self._connection())
            return self._cache[key]

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """Something made from this bundle's answers (a view's rows), made once. Not under
        the connection's lock: making one view's rows never waits for another's."""
        with self._memo_lock:
            if key in self._memo:
                return self._memo[key]
        value = compute()
        with self._memo_lock:
            return self._memo.setdefault(key, value)

    def memoized(self, key: Any) -> Any:
        """What :meth:`memo` made for ``key`` already, else None (never computes)."""
        with self._memo_lock:
            return self._memo.get(key)

    def report_query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """A named report query (reports/sql/<name>.sql), cached by name and parameters."""
        from k10s_forensics.reports.common import query

        return self._cached(("report", name, tuple(sorted(params.items()))), lambda con: query(con, name, **params))

    def fact(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """A named view query (view/sql/<name>.sql), cached by name and parameters."""
        def run(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
            table = run_sql(con, view_sql(name), params or None, origin=f"k10s_forensics/view/sql/{name}.sql")
            return table.to_pylist() if table is not None else []

        return self._cached(("view", name, tuple(sorted(params.items()))), run, shared="k10s_" in view_sql(name))

    def facts(self, name: str, *key: str) -> dict[Any, list[dict[str, Any]]]:
        """A whole-bundle fact query (view/sql/fact_*.sql) indexed by its ``key`` columns:
        ``y`` on any row is then a lookup, never a query."""
        def run(con: duckdb.DuckDBPyConnection) -> dict[Any, list[dict[str, Any]]]:
            params = {"window_end": self.window_end} if "$window_end" in view_sql(name) else {}
            out: dict[Any, list[dict[str, Any]]] = {}
            for row in self.fact(name, **params):
                out.setdefault(tuple(row[k] for k in key) if len(key) > 1 else row[key[0]], []).append(row)
            return out

        return self._cached(("facts", name, key), run)

    def prefetch_facts(self) -> None:
        """Every fact ``y`` reads, and the row counts it reads, computed once."""
        for name, key in FACTS:
            if name != "fact_recent_events" or self.window_end is not None:
                self.facts(name, *key)
        for table in COUNTED:
            self.count(table)

    def count(self, table: str) -> int:
        """Rows of a derived table (0 when absent)."""
        def run(con: duckdb.DuckDBPyConnection) -> int:
            try:
                return int(con.sql(f'SELECT count(*) FROM "{table}"').fetchall()[0][0])
            except duckdb.Error:
                return 0

        return self._cached(("count", table), run)

    def absent_reason(self, table: str) -> str | None:
        """Why ``table`` is empty (the analysis' words, plus the collector's), or None when it has rows."""
        if self.count(table):
            return None
        from k10s_forensics.analyze.runner import EMPTY_REASONS, _collector_notes

        note = _collector_notes(self.bundle).get(table)
        reason = EMPTY_REASONS.get(table, f"table {table} is empty in this bundle")
        return f"{reason} — {note}" if note else reason

    @property
    def window_end(self):
        return parse_iso(self.window.get("end"))

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

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
                self._shared_ready = False


__all__ = ["ViewData", "NotCached", "view_sql", "SERIES_COLUMNS"]
