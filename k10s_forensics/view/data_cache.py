"""The plumbing of ``ViewData``: one bundle's DuckDB connection (its tables first, the shared
``k10s_*`` views on the first question that needs them), answers cached under one lock, a
memory-only mode for the UI thread (:class:`NotCached`), and the named questions (report queries,
view/sql facts, row counts) the views are made of."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import duckdb

from k10s_forensics.engine import run_sql
from k10s_forensics.store.bundle import Bundle, parse_iso


class NotCached(LookupError):
    """Inside :meth:`ViewData.from_memory`: the answer would need a query."""


def view_sql(name: str) -> str:
    """Text of ``k10s_forensics/view/sql/<name>.sql``."""
    return resources.files("k10s_forensics.view").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


class BundleConnection:
    """Cached, thread-safe answers to named questions about one bundle (``ViewData`` adds the views)."""

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

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
                self._shared_ready = False


__all__ = ["BundleConnection", "NotCached", "view_sql"]
