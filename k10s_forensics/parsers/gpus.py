"""Finalise ``gpus``: one row per (node, gpu_uuid) out of what every GPU parser emitted.

Each field is coalesced by source: nvidia-smi-xml, then nvidia-smi-csv, then dcgm-exporter
(then anything else); within a source the latest snapshot wins (counters grow). A row
whose node is null takes the node another source saw for the same UUID.
``first_seen_at``/``last_seen_at`` span the gpu_samples of the device and the snapshots
that named it; ``memory_total_mib`` falls back to the largest ``fb_total_mib`` sampled.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from k10s_forensics.store.tables import TABLES_BY_NAME
from k10s_forensics.parsers import scratch

SOURCE_ORDER = ("nvidia-smi-xml", "nvidia-smi-csv", "dcgm-exporter")
_KEYS = ("node", "gpu_uuid")
_SPECIAL = ("first_seen_at", "last_seen_at", "source", "memory_total_mib")


def merge_gpus(rows: pa.Table, samples_path: str | None) -> pa.Table:
    """The merged gpus table (see the module doc) from raw per-source rows."""
    schema = TABLES_BY_NAME["gpus"].schema
    con = scratch.connection()
    try:
        con.register("g_in", rows)
        order = " ".join(f"WHEN '{s}' THEN {i}" for i, s in enumerate(SOURCE_ORDER))
        con.execute(
            f"""CREATE TEMP TABLE g AS
            SELECT * REPLACE (coalesce(node, max(node) OVER (PARTITION BY gpu_uuid)) AS node),
                   CASE source {order} ELSE {len(SOURCE_ORDER)} END AS _prio
            FROM g_in WHERE gpu_uuid IS NOT NULL"""
        )
        if samples_path:
            seen = f"""SELECT node, gpu_uuid, min(ts) AS s_first, max(ts) AS s_last, max(fb_total_mib) AS s_fb
                       FROM read_parquet('{samples_path.replace("'", "''")}') WHERE gpu_uuid IS NOT NULL GROUP BY ALL"""
        else:
            seen = "SELECT NULL::VARCHAR AS node, NULL::VARCHAR AS gpu_uuid, NULL::TIMESTAMPTZ AS s_first, NULL::TIMESTAMPTZ AS s_last, NULL::DOUBLE AS s_fb WHERE false"
        fields = [f.name for f in schema if f.name not in _KEYS and f.name not in _SPECIAL]
        picks = ",\n".join(
            f"first({c} ORDER BY _prio, last_seen_at DESC NULLS LAST, {c}) FILTER (WHERE {c} IS NOT NULL) AS {c}" for c in fields
        )
        sql = f"""
        WITH merged AS (
            SELECT node, gpu_uuid,
                   first(source ORDER BY _prio, source) AS source,
                   first(memory_total_mib ORDER BY _prio, last_seen_at DESC NULLS LAST, memory_total_mib) FILTER (WHERE memory_total_mib IS NOT NULL) AS memory_total_mib,
                   min(first_seen_at) AS first_seen_at, max(last_seen_at) AS last_seen_at,
                   {picks}
            FROM g GROUP BY node, gpu_uuid
        ), seen AS ({seen})
        SELECT m.* REPLACE (
                   coalesce(m.memory_total_mib, CAST(s.s_fb AS BIGINT)) AS memory_total_mib,
                   least(m.first_seen_at, s.s_first) AS first_seen_at,
                   greatest(m.last_seen_at, s.s_last) AS last_seen_at)
        FROM merged m LEFT JOIN seen s ON s.gpu_uuid = m.gpu_uuid AND s.node IS NOT DISTINCT FROM m.node
        ORDER BY m.node NULLS LAST, m.is_mig NULLS FIRST, m.gpu_index NULLS LAST, m.gpu_uuid
        """
        out = con.sql(sql).to_arrow_table()
    finally:
        con.close()
    arrays = [out.column(f.name).cast(f.type) if f.name in out.column_names else pa.nulls(out.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def derive(ctx) -> None:
    """Replace the gpus rows emitted by the GPU parsers with the merged table."""
    rows = ctx.table("gpus")
    if rows.num_rows == 0:
        return
    path = ctx.table_path("gpu_samples")
    try:
        merged = merge_gpus(rows, str(path) if path.is_file() else None)
    except (duckdb.Error, pa.ArrowException) as exc:  # keep the unmerged rows rather than none
        ctx.issue("parser:gpus", f"gpus merge failed ({exc.__class__.__name__})", str(exc)[:200])
        return
    ctx.replace("gpus", merged)


__all__ = ["derive", "merge_gpus", "SOURCE_ORDER"]
