"""DuckDB over a bundle: every derived table (and raw table) is a view by its name.

The connection is read-only towards the outside world (``k10s sql``, built-in and
``--rules`` rules, the report): DuckDB may open only the bundle's own Parquet files
(``allowed_paths`` + ``enable_external_access = false``), extensions are never installed or
loaded, and the configuration is locked (``lock_configuration``) so a statement cannot undo
it. On top of that, statements that write or reach out (COPY, EXPORT, ATTACH, DETACH,
INSTALL/LOAD, ...) are refused by type before they run, since DuckDB would still let COPY
overwrite an allowed file. ``k10s shell --unsafe`` is the only way to an unlocked database.
A small bundle analysed with the built-in rules gets a connection to a database that can open no
file at all (``smalldb``; ``open_tables(pooled=True)``).
"""

from __future__ import annotations

import warnings
import weakref
from pathlib import Path
from typing import Any

import duckdb

from k10s_forensics.store.bundle import RAW_NAMES, Bundle
from k10s_forensics import smalldb
from k10s_forensics.errors import QueryError
from k10s_forensics.store import derived
from k10s_forensics.store.tables import TABLE_NAMES, TABLES_BY_NAME
from k10s_forensics.threads import threads_or_default

#: Statement types that would write files, reach other databases or load code.
REFUSED_STATEMENTS = frozenset({"COPY", "COPY_DATABASE", "EXPORT", "ATTACH", "DETACH", "LOAD", "EXTENSION", "VACUUM"})
_REFUSAL = "k10s SQL is read-only: {kind} statements are refused (save results with --format csv or json)"


def error_line(exc: BaseException) -> str:
    """A DuckDB error's first line (its kind when it has no text): what a QueryError says."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


def _quote_path(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


#: DuckDB warns that Arrow output of an executed statement copies its rows: a rule returns a few, and
#: binding the statement once (``run_select``) saves more than the copy costs. Set once, not per call
#: (``warnings.catch_warnings`` is not thread-safe; ``k10s view`` and ``watch`` analyse in threads).
warnings.filterwarnings("ignore", message="Arrow output on a DB-API result makes an extra copy", category=UserWarning)

#: Every derived table at most this many rows (a pasted incident, a small simulated job, a hand-built
#: test): ``open_tables(light=True)`` plans without DuckDB's optimizer.
LIGHT_MAX_ROWS = 20_000


def connect(bundle: Bundle, *, rebuild_if_needed: bool = True, threads: int | None = None, locked: bool = True) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with views ``<table>`` for derived tables and ``raw_<name>`` for raw ones.

    With ``locked`` (the default) the database can read nothing but those files.
    """
    return open_tables(bundle, rebuild_if_needed=rebuild_if_needed, threads=threads, locked=locked)[0]


def open_tables(bundle: Bundle, *, rebuild_if_needed: bool = True, threads: int | None = None, locked: bool = True,
                light: bool = False, pooled: bool = False) -> tuple[duckdb.DuckDBPyConnection, dict[str, int]]:
    """``connect``, and the row count of every derived table that has a view (from the Parquet footers).

    With ``light``, a bundle whose every derived table holds at most ``LIGHT_MAX_ROWS`` rows is
    planned without DuckDB's optimizer (``PRAGMA disable_optimizer``, before the configuration is
    locked): on such tables optimising costs more than running, and results do not depend on it
    (docs/architecture.md, "Small bundles: planned without the optimizer").

    With ``pooled`` too (``analyze`` with the built-in rules), such a bundle gets a connection to this
    process's locked database for small bundles instead of a database of its own (``smalldb``): its
    tables read by pyarrow and registered, no raw tables, DuckDB never opening a file.
    """
    threads = threads_or_default(threads)  # a bad K10S_THREADS is refused before any work
    if rebuild_if_needed and derived.needs_work(bundle):
        from k10s_forensics.rebuild.pool import ensure_tables  # only when tables must be derived

        ensure_tables(bundle)
    elif bundle.tables_dir is None:
        derived.attach(bundle)  # the layer is current: read it where it is (the bundle, or the cache)
    lock = getattr(bundle, "derived_lock", None)
    if lock is not None:  # each connection holds the layer's lock shared until it is closed or collected
        lock.acquire_shared()
    tables = {name: bundle.table_path(name) for name in TABLE_NAMES}
    if pooled and light and locked:
        small = smalldb.read_small({name: path for name, path in tables.items() if path.is_file()}, LIGHT_MAX_ROWS)
        if small is not None:
            con = smalldb.connection(small, threads)
            if lock is not None:
                weakref.finalize(con, lock.release_shared)
            counts = _FOOTER_ROWS[con] = {name: table.num_rows for name, table in small.items()}
            return con, counts
    config = {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"} if locked else {}
    con = duckdb.connect(database=":memory:", config=config)
    if lock is not None:
        weakref.finalize(con, lock.release_shared)
    con.execute("SET TimeZone = 'UTC'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    raws = {f"raw_{name}": bundle.raw_path(name) for name in RAW_NAMES}
    if locked:
        allowed = ", ".join(_quote_path(str(p)) for p in [*tables.values(), *raws.values()] if p.is_file())
        con.execute(f"SET allowed_paths = [{allowed}]")
        con.execute("SET enable_external_access = false")
    present = {name: path for name, path in tables.items() if path.is_file()}
    footer = _footer_counts(con, present) if light else {}
    small = bool(footer) and len(footer) == len(present) and max(footer.values()) <= LIGHT_MAX_ROWS
    empty = sorted(name for name, rows in footer.items() if rows == 0) if small else []
    _create_empty_tables(con, empty)
    viewed = {name: path for name, path in present.items() if name not in empty and _create_view(con, name, path, copy=small)}
    for view, path in raws.items():
        _create_view(con, view, path)
    counts = _FOOTER_ROWS[con] = {**dict.fromkeys(empty, 0), **_footer_rows(con, viewed, footer)}
    if light and max(counts.values(), default=0) <= LIGHT_MAX_ROWS:
        con.execute("PRAGMA disable_optimizer")
    if locked:
        con.execute("SET lock_configuration = true")
    return con, counts


#: Per connection from ``open_tables``: rows of each derived table that has a view over its file.
_FOOTER_ROWS: "weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, dict[str, int]]" = weakref.WeakKeyDictionary()


def footer_rows(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The row counts ``open_tables`` read for this connection (empty for any other connection)."""
    return dict(_FOOTER_ROWS.get(con, {}))


def _footer_counts(con: duckdb.DuckDBPyConnection, files: dict[str, Path]) -> dict[str, int]:
    """Rows per table from the Parquet footers, in one statement (empty when any footer is unreadable)."""
    if not files:
        return {}
    listed = ", ".join(_quote_path(str(p)) for p in files.values())
    try:
        rows = con.execute(f"SELECT file_name, num_rows FROM parquet_file_metadata([{listed}])").fetchall()
    except duckdb.Error:
        return {}
    by_file = {str(name): int(n) for name, n in rows}
    return {name: by_file[str(path)] for name, path in files.items() if str(path) in by_file}


def _footer_rows(con: duckdb.DuckDBPyConnection, viewed: dict[str, Path], footer: dict[str, int] | None = None) -> dict[str, int]:
    """Rows per viewed table, read from the Parquet footers in one statement (what ``count(*)`` of
    the view gives; ``footer``: counts already read); a table whose footer cannot be read is counted by its view."""
    if not viewed:
        return {}
    known = footer if footer and all(name in footer for name in viewed) else _footer_counts(con, viewed)
    counts = {}
    for name, path in viewed.items():
        if name in known:
            counts[name] = known[name]
            continue
        try:
            counts[name] = int(con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0])
        except duckdb.Error:
            counts[name] = -1
    return counts


def _create_empty_tables(con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    """Each of ``names`` (derived tables whose file has no rows) as an empty TEMP table of its schema.

    A view over a Parquet file opens the file and reads its footer each time a statement binds it
    (~1 ms a reference on a small bundle); most of a small bundle's tables are empty and are read
    by many statements (the rule gates, the shared views). The columns and their DuckDB types are
    the table's declared schema (store/tables.py), the same the Parquet reader gives.
    """
    if names:
        execute(con, "".join(f'CREATE TEMP TABLE "{name}" ({_columns_ddl(con, name)});' for name in names))


#: Per table name: its columns as DuckDB DDL (from the declared Arrow schema; the same in every process run).
_DDL: dict[str, str] = {}


def _columns_ddl(con: duckdb.DuckDBPyConnection, name: str) -> str:
    ddl = _DDL.get(name)
    if ddl is None:
        view = f"_k10s_schema_{name}"
        con.register(view, TABLES_BY_NAME[name].empty())
        try:
            described = con.execute(f'DESCRIBE "{view}"').fetchall()
        finally:
            con.unregister(view)
        ddl = _DDL[name] = ", ".join('"' + column.replace('"', '""') + f'" {kind}' for column, kind, *_ in described)
    return ddl


def _create_view(con: duckdb.DuckDBPyConnection, view: str, path, copy: bool = False) -> bool:
    """A view over one Parquet file (``copy``: a TEMP table read from it once, for small bundles);
    a missing or damaged file leaves it out."""
    if not path.is_file():
        return False
    kind = "TEMP TABLE" if copy else "VIEW"
    try:
        con.execute(f"CREATE {kind} {view} AS SELECT * FROM read_parquet({_quote_path(str(path))})")
    except duckdb.Error:
        return False
    return True


#: Parsed statements per SQL text: the built-in rules and shared views run on every analyze, and
#: parsing does not depend on the connection (no extension is ever loaded), so a process parses
#: each text once (``execute``; docs/architecture.md, "Statements parsed once").
_PARSED: dict[str, tuple[duckdb.Statement, ...]] = {}
_PARSED_MAX = 4096


def parsed(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[duckdb.Statement, ...]:
    """``sql``'s statements, parsed once per process (raises duckdb.Error on a syntax error)."""
    statements = _PARSED.get(sql)
    if statements is None:
        statements = tuple(con.extract_statements(sql))
        if len(_PARSED) < _PARSED_MAX:
            _PARSED[sql] = statements
    return statements


def execute(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """``con.execute(sql, params)`` for a script of one or more statements, from the parsed cache:
    each statement runs in order (``params`` bind the last), the connection is returned for its rows."""
    statements = parsed(con, sql)
    if not statements:
        return con.execute(sql, params or None)
    for statement in statements[:-1]:
        con.execute(statement)
    return con.execute(statements[-1], params or None)


def _statement_kinds(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[str, ...]:
    return tuple(statement.type.name for statement in parsed(con, sql))


def check_read_only(con: duckdb.DuckDBPyConnection, sql: str, origin: str | None = None) -> None:
    """Refuse a statement that would write, attach or load (QueryError naming ``origin``)."""
    try:
        kinds = _statement_kinds(con, sql)
    except duckdb.Error as exc:
        raise QueryError(error_line(exc), origin) from None
    for kind in kinds:
        if kind in REFUSED_STATEMENTS:
            word = "INSTALL/LOAD" if kind == "LOAD" else kind.replace("_", " ")
            raise QueryError(_REFUSAL.format(kind=word), origin)


def run_select(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None, *, origin: str | None = None):
    """``run_sql`` for a read-only query (a rule's): one SELECT is bound once, as it runs.

    ``con.sql`` binds a SELECT to describe its relation, then again to run it; here the statement
    runs at once and its rows come back as the same Arrow table. Any other text goes to ``run_sql``.
    """
    check_read_only(con, sql, origin)
    if _statement_kinds(con, sql) != ("SELECT",):
        return run_sql(con, sql, params, origin=origin)
    try:
        execute(con, sql, params)
        return con.to_arrow_table()
    except duckdb.Error as exc:
        raise QueryError(error_line(exc), origin) from None


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None, *, origin: str | None = None,
            read_only: bool = True):
    """Run SQL and return a pyarrow Table; DuckDB errors become QueryError naming ``origin``."""
    if read_only:
        check_read_only(con, sql, origin)
    try:
        rel = con.sql(sql, params=params or None)
        return rel.to_arrow_table() if rel is not None else None
    except duckdb.Error as exc:
        raise QueryError(error_line(exc), origin) from None


__all__ = ["LIGHT_MAX_ROWS", "connect", "error_line", "execute", "parsed", "footer_rows", "open_tables", "run_select", "run_sql", "check_read_only", "REFUSED_STATEMENTS"]
