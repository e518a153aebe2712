"""``k10s rebuild``: re-derive ``tables/`` from ``raw/`` with the current parsers.

Idempotent: tables are written to a fresh ``tables.tmp-*`` folder and swapped in whole under
the layer's lock (see :mod:`k10s_forensics.store.derived`); the manifest and raw/ are never
rewritten. A raw file that is absent, damaged or unreadable costs only the tables it feeds.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.rebuild.fit_rows import rows_table
from k10s_forensics.rebuild.memory import keep_freed_memory
from k10s_forensics.rebuild.raw_layer import RawLayer
from k10s_forensics.store import derived
from k10s_forensics.store.bundle import COMPRESSION, RAW_SCHEMAS, Bundle, parse_iso
from k10s_forensics.store.locking import LOCK_NAME, LayerLock, holder_note
from k10s_forensics.parsers import DERIVERS, ParseIssues, load_deriver
from k10s_forensics.store.tables import TABLE_NAMES, TABLES_BY_NAME, conform, empty_parquet

#: Tables too large to keep in memory: written as they are emitted.
STREAMED = frozenset({"gpu_samples", "tcp_samples", "log_events"})


class DeriveContext(RawLayer):
    """What a parser sees: the raw layer, the tables derived so far, and an issue log."""

    def __init__(self, bundle: Bundle, out_dir: Path, issues: ParseIssues):
        self.bundle = bundle
        self.manifest = bundle.manifest
        self.out_dir = out_dir
        self.issues = issues
        self._memory: dict[str, list[pa.Table]] = {}
        self._writers: dict[str, Any] = {}
        self._closed: set[str] = set()
        self.init_raw_layer()
        self.window_start = parse_iso((bundle.manifest.get("window") or {}).get("start"))
        self.window_end = parse_iso((bundle.manifest.get("window") or {}).get("end"))

    # ---- derived tables --------------------------------------------------------------
    def emit(self, name: str, table: pa.Table | list[dict[str, Any]]) -> None:
        """Add rows to derived table ``name`` (columns missing from ``table`` become null)."""
        if name not in TABLES_BY_NAME:
            raise KeyError(f"unknown derived table {name!r}")
        if isinstance(table, list) and table:
            table, unfit, example = rows_table(table, TABLES_BY_NAME[name].schema)
            if unfit:
                self.issue(name, "integer out of its column's range: read as unknown", example, count=unfit)
        elif isinstance(table, list):
            table = TABLES_BY_NAME[name].empty()
        table = conform(name, table)
        if table.num_rows == 0:
            return
        if name in STREAMED:
            if name in self._closed:
                raise RuntimeError(f"{name} was already finalised")
            writer = self._writers.get(name)
            if writer is None:
                writer = self._writers[name] = self._open_stream(name, table.schema)
            writer.write_table(table)
        else:
            self._memory.setdefault(name, []).append(table)

    def _open_stream(self, name: str, schema: pa.Schema):
        """The writer of streamed table ``name`` (``write_table``, ``close``)."""
        return pq.ParquetWriter(self.out_dir / f"{name}.parquet", schema, compression=COMPRESSION)

    def table(self, name: str) -> pa.Table:
        """Everything emitted so far for ``name`` (streamed tables are closed and read back)."""
        if name in STREAMED:
            self._close_stream(name)
            path = self.out_dir / f"{name}.parquet"
            return pq.read_table(path) if path.is_file() else TABLES_BY_NAME[name].empty()
        parts = self._memory.get(name)
        if not parts:
            return TABLES_BY_NAME[name].empty()
        if len(parts) > 1:
            self._memory[name] = [pa.concat_tables(parts)]
        return self._memory[name][0]

    def replace(self, name: str, table: pa.Table) -> None:
        """Replace an in-memory table wholesale (finalising steps such as ``gpus``)."""
        if name in STREAMED:
            raise RuntimeError(f"{name} is streamed and cannot be replaced")
        self._memory[name] = [conform(name, table)]

    def table_path(self, name: str) -> Path:
        """Parquet path of a streamed table after it is closed (for DuckDB scans)."""
        self._close_stream(name)
        return self.out_dir / f"{name}.parquet"

    def _close_stream(self, name: str) -> None:
        writer = self._writers.pop(name, None)
        if writer is not None:
            writer.close()
        self._closed.add(name)

    def issue(self, source: str, reason: str, example: str | None = None, raw_file: str | None = None, raw_row: int | None = None, count: int = 1) -> None:
        self.issues.add(source, reason, example, raw_file, raw_row, count)

    def finish(self) -> None:
        """Write every table: streamed ones are closed, the rest written whole, absent ones empty."""
        for name in list(self._writers):
            self._close_stream(name)
        for name in TABLE_NAMES:
            path = self.out_dir / f"{name}.parquet"
            if name in STREAMED and path.is_file():
                continue
            if name == "parse_errors":
                continue
            if name in STREAMED or self._memory.get(name):
                pq.write_table(self.table(name), path, compression=COMPRESSION)
            else:  # nothing emitted: the table's empty file, the same bytes every time
                path.write_bytes(empty_parquet(name, COMPRESSION))


def _collector_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for c in manifest.get("collectors") or []:
        if not isinstance(c, dict):
            continue
        rows.append(
            {
                "collector": str(c.get("name")),
                "status": c.get("status"),
                "rows": int(c.get("rows") or 0),
                "errors": [str(e) for e in (c.get("errors") or [])],
                "started_at": parse_iso(c.get("started_at")),
                "finished_at": parse_iso(c.get("finished_at")),
            }
        )
    return rows


def derive_tables(bundle: Bundle, out_dir: Path, *, timings: dict[str, float] | None = None,
                  derive_raw: Callable[[DeriveContext], tuple[str, ...]] | None = None) -> ParseIssues:
    """Run every parser on ``bundle``'s raw layer, writing all tables into ``out_dir``.

    ``timings``, when given, receives the seconds each parser took (for benchmarks).
    ``derive_raw``, when given, runs first on the context and returns the parsers still to
    run here (``rebuild_pool`` runs the raw-only parsers in processes).
    Where the tables go and how they are swapped in is :mod:`k10s_forensics.store.derived`'s job.
    """
    keep_freed_memory()
    issues = ParseIssues()
    ctx = DeriveContext(bundle, out_dir, issues)
    ctx.emit("collector_runs", _collector_rows(bundle.manifest))
    for raw_name in RAW_SCHEMAS:
        ctx.check_raw(raw_name)
    remaining = derive_raw(ctx) if derive_raw is not None else DERIVERS
    for name in remaining:
        started = time.perf_counter()
        try:
            derive = load_deriver(name)
            derive(ctx)
        except Exception as exc:  # a parser bug costs its tables, never the rebuild
            last = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(last.filename).name}:{last.lineno}"
            issues.add(f"parser:{name}", f"parser crashed ({exc.__class__.__name__} at {where})", str(exc)[:200])
        if timings is not None:
            timings[name] = time.perf_counter() - started
    ctx.finish()
    pq.write_table(
        pa.Table.from_pylist(issues.rows(), schema=TABLES_BY_NAME["parse_errors"].schema),
        out_dir / "parse_errors.parquet",
        compression=COMPRESSION,
    )
    return issues


def ensure_layer(bundle: Bundle, say: derived.Say | None = derived.stderr_say, *, derive_raw: derived.DeriveRaw | None = None) -> Path:
    """Make the derived layer current (rebuilding under the lock when needed) and point
    ``bundle.tables_dir`` at it. ``engine.connect`` then holds the layer's lock shared for
    as long as its connection lives, so no rebuild swaps tables/ while they are read.

    While another process rebuilds, this one polls: it says once that it waits, and uses
    the other's result as soon as the layer is current (it never queues behind readers).
    ``derive_raw``: the first step of a rebuild, when one is needed (``rebuild_pool`` passes
    one that parses in processes)."""
    fp = derived.raw_fingerprint(bundle)
    home = derived.layer_home(bundle, fp)
    lock = LayerLock(home / LOCK_NAME)
    if lock.held_here():  # this process already reads the layer: convert its own lock
        if derived.current_reason(bundle, home / "tables", fp) is not None or derived.leftovers(home):
            _build_locked(bundle, home, lock, fp, say, only_if_stale=True, derive_raw=derive_raw)
    else:
        waiting_said = False
        while derived.current_reason(bundle, home / "tables", fp) is not None or derived.leftovers(home):
            with derived.BUILD_GUARD, lock.exclusive(f"k10s rebuilding tables of {bundle.path}", say, wait=False) as got:
                if got is not None:
                    _rebuild_held(bundle, home, lock, fp, say, only_if_stale=True, derive_raw=derive_raw)
                    break
            if not waiting_said and say is not None:
                say(f"waiting for {holder_note(lock.path) or 'another k10s process'} (lock {lock.path}) ...")
                waiting_said = True
            time.sleep(derived.POLL_S)
    bundle.tables_dir = home / "tables"
    bundle.derived_lock = lock
    return bundle.tables_dir


def build_layer(bundle: Bundle, *, say: derived.Say | None = derived.stderr_say, timings: dict[str, float] | None = None,
          derive_raw: derived.DeriveRaw | None = None):
    """Rebuild the derived layer now (``k10s rebuild``); returns the parse issues.

    ``derive_raw``: a first step of the rebuild (``rebuild_pool`` passes one that parses in processes)."""
    fp = derived.raw_fingerprint(bundle)
    home = derived.layer_home(bundle, fp)
    lock = LayerLock(home / LOCK_NAME)
    issues = _build_locked(bundle, home, lock, fp, say, only_if_stale=False, timings=timings, derive_raw=derive_raw)
    bundle.tables_dir = home / "tables"
    return issues


def _build_locked(bundle: Bundle, home: Path, lock: LayerLock, fp: dict[str, dict[str, Any]], say: derived.Say | None,
                  *, only_if_stale: bool, timings: dict[str, float] | None = None,
                  derive_raw: derived.DeriveRaw | None = None):
    with derived.BUILD_GUARD, lock.exclusive(f"k10s rebuilding tables of {bundle.path}", say):
        return _rebuild_held(bundle, home, lock, fp, say, only_if_stale=only_if_stale, timings=timings, derive_raw=derive_raw)


def _rebuild_held(bundle: Bundle, home: Path, lock: LayerLock, fp: dict[str, dict[str, Any]], say: derived.Say | None,
                  *, only_if_stale: bool, timings: dict[str, float] | None = None,
                  derive_raw: derived.DeriveRaw | None = None):
    """The rebuild itself; the caller holds ``lock`` exclusively."""
    derived.clean_leftovers(home, lock.previous, say)
    if only_if_stale and derived.current_reason(bundle, home / "tables", fp) is None:
        return None  # another process rebuilt it while we waited: use its result
    tmp = home / f"{derived.TMP_PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        tmp.mkdir(mode=0o755)
        issues = derive_tables(bundle, tmp, timings=timings, derive_raw=derive_raw)
        derived.write_record(bundle, tmp, fp, issues)
        derived.swap_in(tmp, home / "tables")
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return issues


def rebuild(bundle: Bundle, *, timings: dict[str, float] | None = None, say=derived.stderr_say,
            derive_raw: derived.DeriveRaw | None = None) -> ParseIssues:
    """Re-derive every table of ``bundle`` now (under its lock); returns what could not be parsed.

    The manifest and raw/ are not touched: the tables get their own record (tables/derived.json).
    """
    return build_layer(bundle, timings=timings, say=say, derive_raw=derive_raw)


def needs_rebuild(bundle: Bundle) -> bool:
    """True when the derived layer is missing, incomplete, or built by other parsers or from other raw files."""
    return derived.staleness(bundle) is not None


def ensure_tables(bundle: Bundle, derive_raw: derived.DeriveRaw | None = None) -> None:
    ensure_layer(bundle, derive_raw=derive_raw)


__all__ = ["DeriveContext", "derive_tables", "rebuild", "needs_rebuild", "ensure_tables", "ensure_layer", "build_layer",
           "STREAMED"]
