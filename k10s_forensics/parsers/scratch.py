"""One in-memory DuckDB per process for the parsers' own work, a connection to it per use.

Opening a DuckDB database builds its catalog of built-in functions: ~13 ms of CPU, more than a
small bundle's whole log parse. A connection (cursor) to a database already open costs ~0.2 ms,
and its TEMP tables and registered Arrow tables are its own and go with it. The parsers never
read files through it except a bundle's own Parquet tables by path, as before; nothing from the
cluster reaches it but data.

The database is made on first use in each process (a pool worker, forked from a clean
forkserver, makes its own; one made before a fork is not used by the child).
"""

from __future__ import annotations

import os
import threading

import duckdb

from k10s_forensics.threads import default_threads

_base: tuple[int, duckdb.DuckDBPyConnection] | None = None
_lock = threading.Lock()


def connection() -> duckdb.DuckDBPyConnection:
    """A new connection to this process's scratch database, in UTC; close it when done."""
    global _base
    with _lock:
        if _base is None or _base[0] != os.getpid():
            base = duckdb.connect(database=":memory:")
            threads = default_threads()
            if threads:
                base.execute(f"SET threads = {threads}")
            _base = (os.getpid(), base)
        con = _base[1].cursor()
    con.execute("SET TimeZone = 'UTC'")
    return con


__all__ = ["connection"]
