"""DuckDB over a bundle: every derived table (and raw table) is a view by its name."""

from __future__ import annotations

from typing import Any

import duckdb

from k10s_forensics.bundle import RAW_NAMES, Bundle
from k10s_forensics.errors import QueryError
from k10s_forensics.parsers import tables_stale
from k10s_forensics.tables import TABLE_NAMES


def _quote_path(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


def connect(bundle: Bundle, *, rebuild_if_needed: bool = True, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with views ``<table>`` for derived tables and ``raw_<name>`` for raw ones."""
    if rebuild_if_needed and tables_stale(bundle):
        from k10s_forensics.rebuild_pool import ensure_tables  # only when tables must be derived

        ensure_tables(bundle)
    con = duckdb.connect(database=":memory:")
    con.execute("SET TimeZone = 'UTC'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    for name in TABLE_NAMES:
        _create_view(con, name, bundle.table_path(name))
    for name in RAW_NAMES:
        _create_view(con, f"raw_{name}", bundle.raw_path(name))
    return con


def _create_view(con: duckdb.DuckDBPyConnection, view: str, path) -> bool:
    """A view over one Parquet file; a missing or damaged file leaves the view out."""
    if not path.is_file():
        return False
    try:
        con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet({_quote_path(str(path))})")
    except duckdb.Error:
        return False
    return True


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None, *, origin: str | None = None):
    """Run SQL and return a pyarrow Table; DuckDB errors become QueryError naming ``origin``."""
    try:
        rel = con.sql(sql, params=params or None)
        return rel.to_arrow_table() if rel is not None else None
    except duckdb.Error as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise QueryError(message, origin) from None


__all__ = ["connect", "run_sql"]
