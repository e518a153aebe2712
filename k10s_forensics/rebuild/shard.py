"""One task of a parallel rebuild, and the ``DeriveContext`` a worker runs it in (see ``rebuild_pool``).

A worker writes its tables as Arrow IPC files (``<table>.arrow``, one LZ4-compressed record
batch per ``emit``), not Parquet: the parent reads them back and writes the real Parquet once,
so Parquet encoding + zstd in the worker and decoding in the parent were pure cost. LZ4 IPC
writes about 2.5x and reads about 1.5-2x faster than zstd Parquet for these tables, at 2.4x
its size on disk; uncompressed IPC reads 5x faster still but takes 10x the disk while shards
wait for their turn to merge (benchmarks/results/scale.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.parsers import ParseIssues
from k10s_forensics.rebuild.run import STREAMED, DeriveContext
from k10s_forensics.store.tables import TABLE_NAMES, TABLES_BY_NAME


@dataclass(frozen=True)
class Task:
    """One unit of parsing: a parser over all of its raw input or over row groups [first, stop)."""

    order: int
    parser: str
    raw: str | None = None
    first: int = 0
    stop: int | None = None
    weight: int = 0


#: Extension of a worker's table files; their IPC compression (LZ4 frames where pyarrow has them).
SHARD_SUFFIX = ".arrow"
_IPC_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4" if pa.Codec.is_available("lz4_frame") else None)


class ShardWriter:
    """An Arrow IPC file written one table at a time: each ``write_table`` is one record batch."""

    def __init__(self, path: Path, schema: pa.Schema):
        self._sink = pa.OSFile(str(path), "wb")
        self._writer = pa.ipc.new_file(self._sink, schema, options=_IPC_OPTIONS)

    def write_table(self, table: pa.Table) -> None:
        self._writer.write_table(table.combine_chunks())

    def close(self) -> None:
        self._writer.close()
        self._sink.close()


def read_shard(path: Path) -> Iterator[pa.Table]:
    """The tables a worker wrote to ``path``, one per ``write_table`` (read into memory, not mapped)."""
    with pa.OSFile(str(path)) as source:
        reader = pa.ipc.open_file(source)
        for i in range(reader.num_record_batches):
            yield pa.Table.from_batches([reader.get_batch(i)])


class Unwritten:
    """Stands for the bundle while capture is still writing it (sharded parsers read rows only)."""

    path = Path(".")
    manifest: dict[str, Any] = {}

    def raw_path(self, name: str) -> Path:
        return Path("/nonexistent") / f"{name}.parquet"


class ShardContext(DeriveContext):
    """A ``DeriveContext`` that sees only row groups [first, stop) of one raw file, or only the
    in-memory row group ``rows`` (with its ``_row`` numbers) that capture just wrote."""

    def __init__(self, bundle: Any, out_dir: Path, issues: ParseIssues, task: Task, rows: pa.Table | None = None):
        super().__init__(bundle, out_dir, issues)
        self.task = task
        self.rows = rows

    def group_range(self, name: str, pf: pq.ParquetFile) -> range:
        if name != self.task.raw or self.task.stop is None:
            return range(pf.num_row_groups)
        return range(self.task.first, min(self.task.stop, pf.num_row_groups))

    def first_raw_row(self, name: str) -> int:
        if self.rows is not None and name == self.task.raw:
            return int(self.rows["_row"][0].as_py()) if self.rows.num_rows else 0
        if name != self.task.raw or not self.task.first:
            return 0
        meta = pq.ParquetFile(self.bundle.raw_path(name)).metadata
        return sum(meta.row_group(i).num_rows for i in range(self.task.first))

    def raw_groups(self, name: str, source: str | None = None, kind: str | None = None) -> Iterator[pa.Table]:
        if self.rows is None:
            yield from super().raw_groups(name, source, kind)
        elif name == self.task.raw:
            key, wanted = ("source", source) if source is not None else ("kind", kind)
            part = self.rows.filter(pc.fill_null(pc.equal(self.rows[key], wanted), False)) if wanted is not None else self.rows
            if part.num_rows:
                yield self._conform_raw(name, part)

    def raw_batches(self, name: str, columns: list[str] | None = None, batch_rows: int = 64) -> Iterator[pa.RecordBatch]:
        if self.rows is None:
            yield from super().raw_batches(name, columns, batch_rows)
        elif name == self.task.raw:
            yield from (self.rows.select(columns) if columns else self.rows.drop_columns(["_row"])).to_batches(batch_rows)

    def _open_stream(self, name: str, schema: pa.Schema) -> ShardWriter:
        return ShardWriter(self.out_dir / f"{name}{SHARD_SUFFIX}", schema)

    def table(self, name: str) -> pa.Table:
        if name not in STREAMED:
            return super().table(name)
        self._close_stream(name)
        path = self.out_dir / f"{name}{SHARD_SUFFIX}"
        return pa.concat_tables(read_shard(path)) if path.is_file() else TABLES_BY_NAME[name].empty()

    def write_shard(self) -> list[str]:
        """Close streamed tables and write the in-memory ones: the table names this task derived."""
        for name in list(self._writers):
            self._close_stream(name)
        names = []
        for name in TABLE_NAMES:
            path = self.out_dir / f"{name}{SHARD_SUFFIX}"
            if name in STREAMED:
                if path.is_file():
                    names.append(name)
            elif self._memory.get(name):
                table = self.table(name)
                writer = ShardWriter(path, table.schema)
                writer.write_table(table)
                writer.close()
                names.append(name)
        return names


__all__ = ["SHARD_SUFFIX", "ShardContext", "ShardWriter", "Task", "Unwritten", "read_shard"]
