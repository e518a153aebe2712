"""Small bundles analysed in one locked DuckDB database per process (issue 20, the fixed cost of an analysis).

Starting a DuckDB database costs ~10 ms of CPU (its catalog of built-in functions), a tenth of
analysing a pasted incident, and ``k10s view``, ``watch``, ``fleet`` and the test suite analyse
thousands of small bundles in one process. For ``analyze`` with the built-in rules on a bundle whose
every derived table holds at most ``engine.LIGHT_MAX_ROWS`` rows, ``engine.open_tables(pooled=True)``
takes a connection (``cursor()``) to a database this module keeps per thread count instead:

* the database is created locked: no file access at all (``enable_external_access = false``, no
  ``allowed_paths``), no extension installed or loaded, the optimizer off (what ``light`` does for
  small bundles), time zone UTC, ``lock_configuration = true`` before any connection is handed out,
  so no statement of any analysis can change a setting of the next one;
* the bundle's derived tables are read by pyarrow (the Parquet files, in this process) and registered
  on the connection: DuckDB itself never opens a file;
* everything an analysis creates is TEMP (the shared views, the price table, the views of absent
  tables) or registered, so it lives in its own connection and goes with it; nothing is created in the
  shared ``main`` schema, so analyses in threads side by side never see each other's objects.

A bundle with a table over the bound, an unreadable footer or a damaged file takes the ordinary path
(``engine.open_tables``: a database of its own). Results are the same either way (tests/test_smalldb.py
compares both on every sample bundle and a corpus subset, byte for byte).
"""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

#: One database per DuckDB thread count (None: DuckDB's default), created on first use.
_DATABASES: dict[int | None, duckdb.DuckDBPyConnection] = {}
_GUARD = threading.Lock()


def _config(threads: int | None) -> dict[str, object]:
    config: dict[str, object] = {
        "autoinstall_known_extensions": "false", "autoload_known_extensions": "false",
        "enable_external_access": "false", "enable_optimizer": "false",
    }
    if threads:
        config["threads"] = int(threads)
    return config


def _database(threads: int | None) -> duckdb.DuckDBPyConnection:
    with _GUARD:
        db = _DATABASES.get(threads)
        if db is None:
            db = duckdb.connect(database=":memory:", config=_config(threads))
            db.execute("SET GLOBAL TimeZone = 'UTC'")  # every connection's, as engine.open_tables sets it
            db.execute("SET lock_configuration = true")
            _DATABASES[threads] = db
        return db


def read_small(files: dict[str, Path], max_rows: int):
    """Each file's Arrow table when every one reads and holds at most ``max_rows`` rows, else None."""
    tables = {}
    for name, path in files.items():
        try:
            parquet = pq.ParquetFile(path)
            if parquet.metadata.num_rows > max_rows:
                return None
            tables[name] = parquet.read(use_threads=False)
        except Exception:  # noqa: BLE001 - a damaged file: the ordinary path reports it as it always does
            return None
    return tables


def connection(tables: dict, threads: int | None) -> duckdb.DuckDBPyConnection:
    """A new connection to this process's locked database with ``tables`` registered by name."""
    con = _database(threads).cursor()
    for name, table in tables.items():
        con.register(name, table)
    return con


__all__ = ["connection", "read_small"]
