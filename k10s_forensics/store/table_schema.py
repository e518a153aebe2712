"""The declaration kit of the derived tables: Arrow type shorthands, ``Column``, ``TableDef`` and ``declare``.

The tables themselves are declared in ``tables_k8s``, ``tables_gpu`` and ``tables_comms``;
``k10s_forensics.store.tables`` lists them in order and holds the helpers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pyarrow as pa

TS = pa.timestamp("us", tz="UTC")
STR = pa.string()
I32 = pa.int32()
I64 = pa.int64()
F64 = pa.float64()
BOOL = pa.bool_()
TAINT = pa.struct([("key", STR), ("value", STR), ("effect", STR)])
TOLERATION = pa.struct([("key", STR), ("operator", STR), ("value", STR), ("effect", STR)])


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    doc: str


@dataclass(frozen=True)
class TableDef:
    name: str
    grain: str
    sources: str
    columns: tuple[Column, ...]

    @functools.cached_property
    def schema(self) -> pa.Schema:
        return pa.schema([(c.name, c.type) for c in self.columns])

    @functools.cached_property
    def _empty(self) -> pa.Table:
        return self.schema.empty_table()

    def empty(self) -> pa.Table:
        """The table with no rows (one per process: Arrow tables are immutable)."""
        return self._empty


def declare(name: str, grain: str, sources: str, *cols: tuple[str, pa.DataType, str]) -> TableDef:
    return TableDef(name, grain, sources, tuple(Column(*c) for c in cols))


__all__ = ["TS", "STR", "I32", "I64", "F64", "BOOL", "TAINT", "TOLERATION", "Column", "TableDef", "declare"]
