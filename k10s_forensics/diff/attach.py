"""Both sides of a diff in one DuckDB: schema ``base`` (the baseline runs) and ``cur`` (the bundle).

Every derived table and the raw tables the facets read become views ``base.<table>`` and
``cur.<table>`` with a ``run`` column (0 for the bundle; 0..N-1 for the baseline runs, in
the order given). The database can read nothing but those files (``allowed_paths``,
external access off, configuration locked), as ``engine.connect`` does for one bundle.
"""

from __future__ import annotations

import weakref
from typing import Sequence

import duckdb
import pyarrow as pa

from k10s_forensics.store import derived
from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle
from k10s_forensics.store.tables import TABLE_NAMES, table_def
from k10s_forensics.threads import threads_or_default

#: Raw tables the facets read (views ``<side>.raw_<name>``).
RAW_USED = ("objects", "exec")


def _quote(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


def ready(bundle: Bundle) -> Bundle:
    """Make the bundle's derived layer current and hold its lock shared (as ``engine.connect``)."""
    if derived.needs_work(bundle):
        from k10s_forensics.rebuild.pool import ensure_tables  # only when tables must be derived

        ensure_tables(bundle)
    elif bundle.tables_dir is None:
        derived.attach(bundle)
    return bundle


def _empty(con: duckdb.DuckDBPyConnection, name: str, schema: pa.Schema) -> str:
    """A registered empty relation with ``schema`` (a table or raw file a bundle lacks)."""
    con.register(name, schema.empty_table())
    return f"SELECT *, 0::BIGINT AS run FROM {name} WHERE false"


def _side_view(con: duckdb.DuckDBPyConnection, side: str, view: str, paths: list, schema: pa.Schema) -> None:
    parts = [f"SELECT *, {i}::BIGINT AS run FROM read_parquet({_quote(str(p))})" for i, p in enumerate(paths) if p.is_file()]
    body = " UNION ALL BY NAME ".join(parts) if parts else _empty(con, f"_empty_{side}_{view}", schema)
    con.execute(f"CREATE VIEW {side}.{view} AS {body}")


def connect(baseline: Sequence[Bundle], bundle: Bundle, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """A locked in-memory DuckDB with ``base.*`` and ``cur.*`` views over the bundles' files."""
    threads = threads_or_default(threads)  # a bad K10S_THREADS is refused before any bundle is rebuilt
    sides = {"base": [ready(b) for b in baseline], "cur": [ready(bundle)]}
    locks = []
    for bundles in sides.values():
        for b in bundles:
            lock = getattr(b, "derived_lock", None)
            if lock is not None:
                lock.acquire_shared()
                locks.append(lock)
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for lock in locks:
        weakref.finalize(con, lock.release_shared)
    con.execute("SET TimeZone = 'UTC'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    files = [b.table_path(n) for bs in sides.values() for b in bs for n in TABLE_NAMES]
    files += [b.raw_path(n) for bs in sides.values() for b in bs for n in RAW_USED]
    con.execute(f"SET allowed_paths = [{', '.join(_quote(str(p)) for p in files if p.is_file())}]")
    con.execute("SET enable_external_access = false")
    for side, bundles in sides.items():
        con.execute(f"CREATE SCHEMA {side}")
        for name in TABLE_NAMES:
            _side_view(con, side, name, [b.table_path(name) for b in bundles], table_def(name).schema)
        for name in RAW_USED:
            _side_view(con, side, f"raw_{name}", [b.raw_path(name) for b in bundles], RAW_SCHEMAS[name])
    con.execute("SET lock_configuration = true")
    return con


__all__ = ["connect", "ready", "RAW_USED"]
