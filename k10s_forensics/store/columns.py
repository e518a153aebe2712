"""Raw table writers that buffer rows column by column (bundle layer: capture and rebuild share it).

``RawWriter`` keeps a list of row dicts and converts them with ``pa.Table.from_pylist``;
for the ~12,000 rows of a 1000-node capture round that conversion and the per-value
cleaning were a third of capture's Python CPU. ``ColumnWriter`` keeps one list per column
and converts each with one ``pa.array`` call. The bytes written are the same: text that
pyarrow refuses (lone surrogates) or bytes take ``RawWriter``'s per-value cleaning.
"""

from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from k10s_forensics.store.bundle import BundleWriter
from k10s_forensics.store.raw_writer import RawWriter, _clean_value, split_groups


def _array(values: list[Any], type_: pa.DataType) -> pa.Array:
    if pa.types.is_string(type_):
        if not any(isinstance(v, bytes) for v in values):
            try:
                return pa.array(values, type=type_)
            except (pa.ArrowException, UnicodeError):
                pass
        values = [_clean_value(v) for v in values]
    return pa.array(values, type=type_)


class ColumnWriter(RawWriter):
    """A ``RawWriter`` (same file, schema, flush rules) with column-wise buffers."""

    def __init__(self, base: RawWriter, flush_bytes: int):
        super().__init__(base.path, base.schema, flush_rows=base.flush_rows, flush_bytes=flush_bytes, group_by=base.group_by)
        self._columns: dict[str, list[Any]] = {name: [] for name in self.schema.names}
        self._count = 0
        #: Called with (row group table, raw row number of its first row) after each row group is
        #: written, in the writer's lock (capture derives tables from them as rounds arrive).
        self.listeners: list[Any] = []

    def append(self, row: Mapping[str, Any]) -> None:
        size = 0
        with self._lock:
            for name, column in self._columns.items():
                value = row.get(name)
                column.append(value)
                if isinstance(value, str):
                    size += len(value)
            self._count += 1
            self._buffer_bytes += size
            if self._count >= self.flush_rows or self._buffer_bytes >= self.flush_bytes:
                self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._count:
            return
        arrays = [_array(self._columns[f.name], f.type) for f in self.schema]
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        first = self.rows_written
        for part in split_groups(table, self.group_by):  # one row group per source of raw/exec
            self._open_writer().write_table(part)
            for listener in self.listeners:
                listener(part, first)
            first += part.num_rows
        self.rows_written += self._count
        self._columns = {name: [] for name in self.schema.names}
        self._count = 0
        self._buffer_bytes = 0


def use_column_writers(writer: BundleWriter, flush_bytes: int) -> None:
    """Swap the bundle writer's raw writers (none written yet) for ``ColumnWriter``s."""
    for name, raw in list(writer.writers.items()):
        writer.writers[name] = ColumnWriter(raw, flush_bytes)
