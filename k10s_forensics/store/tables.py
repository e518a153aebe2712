"""The derived tables: names, columns, types and meaning (the public SQL surface).

Every table listed here is written to ``tables/<name>.parquet`` by ``k10s rebuild`` (empty
when its sources are absent) and is a DuckDB view of that name in ``k10s sql``. The key
columns fixed by the bundle-format spec come first in each table; the rest are ours.
docs/bundle-format.md is checked against this module by a test.
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.table_schema import I64, STR, TS, Column, TableDef, declare
from k10s_forensics.store.tables_comms import COMMS_TABLES
from k10s_forensics.store.tables_gpu import GPU_TABLES
from k10s_forensics.store.tables_k8s import K8S_TABLES

#: The bundle's own tables: what the capture and the parsers report about themselves.
_BUNDLE_TABLES: tuple[TableDef, ...] = (
    declare(
        "collector_runs", "collector (from the manifest)", "manifest.json collectors",
        ("collector", STR, ""),
        ("status", STR, "ok, partial, failed, skipped"),
        ("rows", I64, ""),
        ("errors", pa.list_(STR), ""),
        ("started_at", TS, ""),
        ("finished_at", TS, ""),
    ),
    declare(
        "parse_errors", "raw source x reason", "every parser",
        ("source", STR, "raw source (objects:Pod, exec:nvidia-smi-xml, scrapes:dcgm-exporter, logs, ...)"),
        ("reason", STR, "why it could not be parsed"),
        ("count", I64, "how many raw rows/lines failed this way"),
        ("examples", pa.list_(STR), "first examples (truncated)"),
        ("raw_file", STR, "raw/<name>.parquet"),
        ("first_raw_row", I64, "row index in raw_file of the first failure"),
    ),
)

_DECLARED: dict[str, TableDef] = {t.name: t for t in (*K8S_TABLES, *GPU_TABLES, *COMMS_TABLES, *_BUNDLE_TABLES)}
#: The order of the tables (docs, rebuild, ``k10s sql``): unchanged since the tables were declared in one list.
_ORDER = (
    "nodes", "gpus", "pods", "containers", "jobs", "ranks", "gpu_samples", "tcp_samples", "log_events",
    "events", "kueue_workloads", "kueue_cluster_queues", "kueue_local_queues", "flight_recorder",
    "flight_recorder_dumps", "nccl_ras", "runtime_classes", "pod_runtime", "collector_runs", "parse_errors",
)
assert set(_ORDER) == set(_DECLARED) and len(_ORDER) == len(_DECLARED)

TABLES: tuple[TableDef, ...] = tuple(_DECLARED[name] for name in _ORDER)

TABLES_BY_NAME: dict[str, TableDef] = {t.name: t for t in TABLES}
TABLE_NAMES: tuple[str, ...] = tuple(TABLES_BY_NAME)


def table_def(name: str) -> TableDef:
    return TABLES_BY_NAME[name]


def conform(name: str, table: pa.Table) -> pa.Table:
    """Cast/extend ``table`` to the declared schema of ``name`` (missing columns become null)."""
    schema = TABLES_BY_NAME[name].schema
    n = table.num_rows
    arrays = []
    for field in schema:
        if field.name in table.column_names:
            col = table.column(field.name)
            if not col.type.equals(field.type):
                col = col.cast(field.type)
            arrays.append(col)
        else:
            arrays.append(pa.nulls(n, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def from_rows(name: str, rows: list[dict]) -> pa.Table:
    """Build a table of ``name`` from Python dicts (missing keys -> null)."""
    schema = TABLES_BY_NAME[name].schema
    return pa.Table.from_pylist(rows, schema=schema)



@functools.lru_cache(maxsize=None)
def empty_parquet(name: str, compression: str) -> bytes:
    """The Parquet file of derived table ``name`` with no rows, as ``pq.write_table`` writes it (a small
    bundle leaves most of its ~25 tables empty: writing each costs ~2 ms of CPU, these bytes nothing)."""
    sink = pa.BufferOutputStream()
    pq.write_table(TABLES_BY_NAME[name].empty(), sink, compression=compression)
    return sink.getvalue().to_pybytes()

__all__ = ["empty_parquet", "Column", "TableDef", "TABLES", "TABLES_BY_NAME", "TABLE_NAMES", "table_def", "conform", "from_rows"]
