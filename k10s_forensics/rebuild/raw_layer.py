"""The raw layer as the parsers read it (``DeriveContext``'s half that reads ``raw/``).

Each parser asks for the rows it needs (``raw(name, kind=…)``, ``raw(name, source=…)``); several
ask for the same file (every Kubernetes parser reads ``raw/objects``). A rebuild therefore opens
each file once and keeps the row groups it decoded, up to ``GROUP_CACHE_BYTES`` each and
``CACHE_BYTES`` in all (uncompressed, from the footer): a small bundle's raw layer is read
once, a large one's big groups (scrape and log bodies) are read when asked for, as before.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_SCHEMAS

#: Row groups of at most this many bytes (uncompressed) stay decoded for the rest of the rebuild ...
GROUP_CACHE_BYTES = 8 << 20
#: ... as long as all of them together stay under this.
CACHE_BYTES = 64 << 20


def _group_holds(pf: pq.ParquetFile, index: int, column: str, wanted: str) -> bool | None:
    """From row-group statistics alone: True when every row of the group has ``column ==
    wanted`` (capture writes one exec source per row group), False when none can, None when
    the statistics do not say (no statistics, nulls, or a mixed group of an older bundle)."""
    meta = pf.metadata.row_group(index)
    cols = [meta.column(j) for j in range(meta.num_columns) if meta.column(j).path_in_schema == column]
    stats = cols[0].statistics if cols else None
    if stats is None or not stats.has_min_max or stats.physical_type != "BYTE_ARRAY":
        return None
    low, high = stats.min, stats.max
    if isinstance(low, bytes) or isinstance(high, bytes):
        return None
    if wanted < low or wanted > high:
        return False
    if low == high == wanted and stats.has_null_count and stats.null_count == 0:
        return True
    return None


class RawLayer:
    """Reading ``raw/<name>.parquet`` for the parsers: filtered, damage counted, decoded once."""

    def init_raw_layer(self) -> None:
        self._damaged: dict[str, bool] = {}
        self._missing_reported: set[str] = set()
        self._files: dict[str, pq.ParquetFile] = {}
        self._groups: dict[tuple[str, int], pa.Table] = {}
        self._cached_bytes = 0

    def _parquet(self, name: str, path) -> pq.ParquetFile:
        """``raw/<name>`` opened once per rebuild (its footer parsed once)."""
        pf = self._files.get(name)
        if pf is None:
            pf = self._files[name] = pq.ParquetFile(path)
        return pf

    def _group(self, name: str, pf: pq.ParquetFile, index: int) -> pa.Table:
        """Row group ``index`` of ``raw/<name>``, decoded once while the cache has room for it."""
        cached = self._groups.get((name, index))
        if cached is not None:
            return cached
        table = pf.read_row_group(index)
        size = pf.metadata.row_group(index).total_byte_size
        if size <= GROUP_CACHE_BYTES and self._cached_bytes + size <= CACHE_BYTES:
            self._groups[(name, index)] = table
            self._cached_bytes += size
        return table

    def raw(self, name: str, source: str | None = None, kind: str | None = None) -> pa.Table:
        """The raw rows (empty with the raw schema when absent or unreadable), optionally filtered.

        ``source`` filters exec/scrapes rows by their ``source`` column; ``kind`` filters
        objects by ``kind``. Row order is the file's order; an ``_row`` column holds the
        row index in the file so issues can point back to it. Row groups are read one at a
        time and only when their key column matches, so asking for the few ``visible-devices``
        rows never loads gigabytes of scrape bodies.
        """
        parts = list(self.raw_groups(name, source=source, kind=kind))
        if not parts:
            return RAW_SCHEMAS[name].empty_table().append_column("_row", pa.array([], pa.int64()))
        return pa.concat_tables(parts)

    def raw_groups(self, name: str, source: str | None = None, kind: str | None = None) -> Iterator[pa.Table]:
        """Like :meth:`raw`, one Parquet row group at a time (flat memory for large sources)."""
        path = self.bundle.raw_path(name)
        if not path.is_file() or self._damaged.get(name):
            return
        key_col, wanted = ("source", source) if source is not None else ("kind", kind) if kind is not None else (None, None)
        try:
            pf = self._parquet(name, path)
        except Exception as exc:
            self._record_damage(name, exc)
            return
        groups = self.group_range(name, pf)
        offset = sum(pf.metadata.row_group(i).num_rows for i in range(groups.start))
        for i in groups:
            rows = pf.metadata.row_group(i).num_rows
            try:
                part = self._read_group(name, pf, i, key_col, wanted, offset)
            except Exception as exc:  # a damaged row group costs only its rows
                self.issues.add(f"raw:{name}", f"unreadable row group ({exc.__class__.__name__})", f"row group {i} ({rows} rows)", f"raw/{name}.parquet")
                part = None
            offset += rows
            if part is not None and part.num_rows:
                yield self._conform_raw(name, part)

    def _read_group(self, name: str, pf: pq.ParquetFile, index: int, key_col: str | None, wanted: str | None, offset: int) -> pa.Table | None:
        rows = pf.metadata.row_group(index).num_rows
        mask = None
        if key_col is not None and key_col in pf.schema_arrow.names:
            held = _group_holds(pf, index, key_col, wanted)
            if held is False:
                return None
            if not held:
                cached = self._groups.get((name, index))
                keys = (cached if cached is not None else pf.read_row_group(index, columns=[key_col]))[key_col]
                mask = pc.equal(keys, wanted)
                if not pc.any(mask).as_py():
                    return None
        table = self._group(name, pf, index)
        table = table.append_column("_row", pa.array(range(offset, offset + rows), pa.int64()))
        return table.filter(mask) if mask is not None else table

    def _conform_raw(self, name: str, table: pa.Table) -> pa.Table:
        missing = [f for f in RAW_SCHEMAS[name] if f.name not in table.column_names]
        if missing and name not in self._missing_reported:
            self._missing_reported.add(name)
            self.issues.add(f"raw:{name}", "missing required columns", ", ".join(f.name for f in missing), f"raw/{name}.parquet")
        for field in missing:
            table = table.append_column(field.name, pa.nulls(table.num_rows, field.type))
        return table

    def _record_damage(self, name: str, exc: Exception) -> None:
        if not self._damaged.get(name):
            self._damaged[name] = True
            self.issues.add(f"raw:{name}", f"unreadable parquet ({exc.__class__.__name__})", str(exc)[:200], f"raw/{name}.parquet")

    def raw_batches(self, name: str, columns: list[str] | None = None, batch_rows: int = 64) -> Iterator[pa.RecordBatch]:
        """Stream a raw file in small batches (large scrape bodies)."""
        path = self.bundle.raw_path(name)
        if not path.is_file() or self._damaged.get(name):
            return
        try:
            pf = pq.ParquetFile(path)
            yield from pf.iter_batches(batch_size=batch_rows, columns=columns, row_groups=list(self.group_range(name, pf)))
        except Exception as exc:  # damaged file: count it, keep what was read
            self.issues.add(f"raw:{name}", f"unreadable parquet ({exc.__class__.__name__})", str(exc), f"raw/{name}.parquet")

    def group_range(self, name: str, pf: pq.ParquetFile) -> range:
        """The row groups of raw/<name> this context reads (all; a shard's own in a parallel rebuild)."""
        return range(pf.num_row_groups)

    def first_raw_row(self, name: str) -> int:
        """Row number in raw/<name> of the first row this context reads (0; a shard's own start)."""
        return 0

    def check_raw(self, name: str) -> None:
        """Open a raw file up front so damage is recorded once, before any parser runs."""
        path = self.bundle.raw_path(name)
        if not path.is_file():
            return
        try:
            pq.ParquetFile(path).metadata  # noqa: B018 - reading the footer is the check
        except Exception as exc:
            self._record_damage(name, exc)


__all__ = ["RawLayer", "GROUP_CACHE_BYTES", "CACHE_BYTES"]
