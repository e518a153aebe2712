"""Streaming the raw layer to Parquet: ``RawWriter`` (one raw table, row groups split by a column
where the format asks), ``write_raw_table`` (a whole table at once) and the text clean-up of values."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Iterable, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle_format import COMPRESSION, GROUP_BY, RAW_SCHEMAS
from k10s_forensics.store.values import to_text


def split_groups(table: pa.Table, column: str | None) -> list[pa.Table]:
    """``table`` split into one table per value of ``column`` (nulls last), each value in the
    order it first appears and the rows of each in their order; ``[table]`` without a column."""
    if column is None or table.num_rows == 0:
        return [table]
    import pyarrow.compute as pc  # here: analyze imports this module and never writes

    keys = table[column]
    values = pc.unique(keys).to_pylist()
    if len(values) == 1:
        return [table]
    parts = [table.filter(pc.fill_null(pc.equal(keys, v), False)) for v in values if v is not None]
    if None in values:
        parts.append(table.filter(pc.is_null(keys)))
    return parts


class RawWriter:
    """Streams rows of one raw table to Parquet, a row group per ``flush_rows`` rows.

    Rows stream into ``<name>.parquet.partial``, renamed to its final name only once the
    Parquet footer is written: a capture killed mid-way never leaves a half-written file
    under the final name (the ``.partial`` file says what was lost).
    Thread-safe: collectors running in parallel append to the same writer.
    """

    def __init__(self, path: Path, schema: pa.Schema, flush_rows: int = 2000, flush_bytes: int = 32 << 20,
                 group_by: str | None = None):
        self.path = path
        #: A column whose values each get row groups of their own (``source`` of raw/exec):
        #: a parser reading one source then skips every other source's row groups.
        self.group_by = group_by if group_by in schema.names else None
        self.partial = path.with_name(path.name + ".partial")
        self.schema = schema
        self.flush_rows = flush_rows
        self.flush_bytes = flush_bytes
        self.rows_written = 0
        self._buffer: list[dict[str, Any]] = []
        self._buffer_bytes = 0
        self._lock = threading.Lock()
        self._writer: pq.ParquetWriter | None = None

    def append(self, row: Mapping[str, Any]) -> None:
        clean = {name: _clean_value(row.get(name)) for name in self.schema.names}
        size = sum(len(v) for v in clean.values() if isinstance(v, str))
        with self._lock:
            self._buffer.append(clean)
            self._buffer_bytes += size
            if len(self._buffer) >= self.flush_rows or self._buffer_bytes >= self.flush_bytes:
                self._flush_locked()

    def extend(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            self.append(row)

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._buffer:
            return
        table = pa.Table.from_pylist(self._buffer, schema=self.schema)
        for part in split_groups(table, self.group_by):
            self._open_writer().write_table(part)
        self.rows_written += len(self._buffer)
        self._buffer = []
        self._buffer_bytes = 0

    def _open_writer(self) -> pq.ParquetWriter:
        """The Parquet writer, streaming into ``.partial`` until :meth:`close` renames it."""
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = pq.ParquetWriter(self.partial, self.schema, compression=COMPRESSION)
        return self._writer

    def close(self, write_empty: bool = True) -> None:
        """Flush and close; with ``write_empty`` a table that got no rows is still written."""
        with self._lock:
            self._flush_locked()
            if self._writer is None and write_empty:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(self.schema.empty_table(), self.partial, compression=COMPRESSION)
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            if self.partial.is_file():
                os.replace(self.partial, self.path)


def _clean_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return to_text(value)
    if isinstance(value, str):
        # Lone surrogates cannot be encoded as UTF-8: replace them as invalid bytes are.
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", errors="replace").decode("utf-8")
    return value


def write_raw_table(path: Path, name: str, rows: list[Mapping[str, Any]]) -> None:
    """Write a whole raw table at once (tests, simulator)."""
    writer = RawWriter(path / "raw" / f"{name}.parquet", RAW_SCHEMAS[name], group_by=GROUP_BY.get(name))
    writer.extend(rows)
    writer.close()


__all__ = ["split_groups", "RawWriter", "write_raw_table"]
