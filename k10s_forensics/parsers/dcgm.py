"""raw/scrapes source=dcgm-exporter (Prometheus text) -> gpu_samples (+ gpus identity rows).

Vectorised: scrape bodies are read in ~64 MB batches, split into lines by
``promtext.split_exposition`` (pyarrow/RE2), metric names and label blocks are
dictionary-encoded so only the distinct ones are looked at in Python, and the samples are
pivoted (scrape x device x pod) -> one wide row with numpy scatter.

One ``gpu_samples`` row per scrape, device and pod label set; ``ts`` is the scrape's
``captured_at`` (or the latest explicit sample timestamp of the row). The scrape row's
``node`` is the node: the ``Hostname`` label is often the exporter pod's name and is not
trusted. MIG devices key by ``MIG-<parent uuid>/<GPU_I_ID>`` (see ``gpu_common``).
Metrics we do not use are ignored silently; unreadable lines are counted issues.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.gpu_common import INT_COLUMNS, SAMPLE_COLUMNS, capture_failure, dcgm_identity, metric_column
from k10s_forensics.parsers.promtext import dense_unique, parse_labels, split_exposition
from k10s_forensics.store.tables import TABLES_BY_NAME

SOURCE = "dcgm-exporter"
ISSUE_SOURCE = "scrapes:dcgm-exporter"
RAW_FILE = "raw/scrapes.parquet"
BATCH_BYTES = 64 << 20
_COLUMNS = ["captured_at", "source", "node", "url", "status", "body", "error"]
_IDENT_FIELDS = ("gpu_uuid", "gpu_index", "pci_bus_id", "model_name", "mig_profile", "gpu_instance_id", "namespace", "pod", "container", "pod_uid")
_GPU_FIELDS = ("gpu_uuid", "gpu_index", "pci_bus_id", "model_name", "driver_version", "is_mig", "parent_gpu_uuid", "mig_profile", "gpu_instance_id")


class LabelCache:
    """Distinct label blocks -> device identity id (shared by all batches of a rebuild)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.identities: list[dict[str, Any]] = []
        self._by_key: dict[tuple, int] = {}
        self.series: dict = {}  # promtext.split_exposition's memo of series texts

    def lookup(self, block: str) -> int:
        """Identity id of a label block; -1 malformed block, -2 no UUID label."""
        hit = self.ids.get(block)
        if hit is None:
            labels = parse_labels(block, strict=True)
            if labels is None:
                hit = -1
            else:
                ident = dcgm_identity(labels)
                if ident is None:
                    hit = -2
                else:
                    key = tuple(ident.get(f) for f in _IDENT_FIELDS)
                    hit = self._by_key.get(key)
                    if hit is None:
                        hit = self._by_key[key] = len(self.identities)
                        self.identities.append(ident)
            self.ids[block] = hit
        return hit

    def column(self, field: str, pa_type: pa.DataType) -> pa.Array:
        values = [i.get(field) for i in self.identities]
        if pa.types.is_integer(pa_type):  # a label value beyond the column's range is damage, not a number
            low, high = -(1 << (pa_type.bit_width - 1)), 1 << (pa_type.bit_width - 1)
            values = [v if not isinstance(v, int) or low <= v < high else None for v in values]
        return pa.array(values, pa_type)


def parse_dcgm_bodies(
    bodies: pa.Array, captured_at: pa.Array, nodes: pa.Array, cache: LabelCache | None = None
) -> tuple[pa.Table, dict[str, Any]]:
    """Parse exposition bodies (one per scrape) into gpu_samples rows.

    Args:
        bodies: exposition texts.
        captured_at: scrape time of each body (timestamp[us, UTC]).
        nodes: node of each body (string, may be null).
        cache: label-block cache to reuse across calls.

    Returns:
        (gpu_samples table, stats) where stats counts ``malformed``, ``bad_values``,
        ``bad_labels``, ``no_uuid`` lines with ``examples`` [(reason, body index, text)].
    """
    cache = cache or LabelCache()
    s = split_exposition(bodies, memo=cache.series)
    stats: dict[str, Any] = {"lines": s.lines_total, "malformed": s.malformed_count, "bad_values": s.bad_value_count, "bad_labels": 0, "no_uuid": 0, "examples": []}
    stats["examples"] += [("malformed exposition line", b, line) for b, line in s.malformed_examples]
    schema = TABLES_BY_NAME["gpu_samples"].schema
    if len(s.series_id) == 0:
        return schema.empty_table(), stats
    found = [metric_column(n) for n in s.names]
    col_ids = {c: i for i, c in enumerate(SAMPLE_COLUMNS)}
    ser_col = np.array([col_ids[f[0]] if f else -1 for f in found], dtype=np.int64)
    ser_rank = np.array([f[1] if f else 0 for f in found], dtype=np.int64)
    ser_ident = np.array([cache.lookup(b) if f else -3 for f, b in zip(found, s.label_blocks)], dtype=np.int64)
    sel = np.flatnonzero(ser_col[s.series_id] >= 0)
    if len(sel) == 0:
        return schema.empty_table(), stats
    series = s.series_id[sel]
    line_col, line_rank, ident = ser_col[series], ser_rank[series], ser_ident[series]
    values = s.value[sel]
    body_index = s.body_index[sel]
    for code, key, reason in ((-1, "bad_labels", "malformed label block"), (-2, "no_uuid", "DCGM sample without UUID label")):
        bad = np.flatnonzero(ident == code)
        stats[key] = int(len(bad))
        if len(bad):
            sid = int(series[bad[0]])
            stats["examples"].append((reason, int(body_index[bad[0]]), f"{s.names[sid]}{{{s.label_blocks[sid]}}}"))
    good = ident >= 0
    if not good.any():
        return schema.empty_table(), stats
    line_col, line_rank, values, body_index, ident = line_col[good], line_rank[good], values[good], body_index[good], ident[good]
    n_ident = max(len(cache.identities), 1)
    rows, inv = dense_unique(body_index * n_ident + ident, int(body_index.max() + 1) * n_ident)
    row_body, row_ident = rows // n_ident, rows % n_ident
    wide: dict[str, np.ndarray] = {}
    finite = np.isfinite(values)
    for c in np.unique(line_col):
        out = np.full(len(rows), np.nan)
        in_col = (line_col == c) & finite
        for rank in sorted(np.unique(line_rank[in_col]), reverse=True):  # best rank written last
            m = in_col & (line_rank == rank)
            out[inv[m]] = values[m]
        wide[SAMPLE_COLUMNS[int(c)]] = out
    _fill_fb_total(wide, len(rows))
    ts = pc.take(captured_at, pa.array(row_body))
    if s.timestamp_ms is not None:
        ts = _explicit_ts(ts, s.timestamp_ms[sel][good], inv, len(rows))
    cols: dict[str, pa.Array] = {
        "ts": ts,
        "node": pc.take(nodes, pa.array(row_body)),
        "source": pa.repeat(SOURCE, len(rows)),
    }
    take_ident = pa.array(row_ident)
    for field in _IDENT_FIELDS:
        cols[field] = pc.take(cache.column(field, schema.field(field).type), take_ident)
    for name, arr in wide.items():
        if name.startswith("_"):
            continue
        typ = schema.field(name).type
        cols[name] = pa.array(arr, from_pandas=True).cast(typ, safe=False) if name in INT_COLUMNS else pa.array(arr, from_pandas=True)
    table = pa.table({f.name: cols[f.name] if f.name in cols else pa.nulls(len(rows), f.type) for f in schema}, schema=schema)
    stats["row_ident"] = row_ident
    return table, stats


def _fill_fb_total(wide: dict[str, np.ndarray], n: int) -> None:
    """fb_total_mib = used + free (+ reserved) where the exporter gives no total."""
    used, free = wide.get("fb_used_mib"), wide.get("_fb_free")
    if used is None or free is None:
        return
    reserved = wide.get("_fb_reserved")
    derived = used + free + (np.nan_to_num(reserved) if reserved is not None else 0.0)
    total = wide.get("fb_total_mib", np.full(n, np.nan))
    wide["fb_total_mib"] = np.where(np.isfinite(total), total, derived)


def _explicit_ts(ts: pa.Array, line_ms: np.ndarray, inv: np.ndarray, n: int) -> pa.Array:
    """Use the latest explicit sample timestamp (ms) of a row when its lines carry one."""
    best = np.full(n, np.nan)
    m = np.isfinite(line_ms)
    np.fmax.at(best, inv[m], line_ms[m])
    have = np.isfinite(best)
    explicit = pa.array((np.where(have, best, 0) * 1000).astype(np.int64)).cast(pa.timestamp("us", tz="UTC"))
    return pc.if_else(pa.array(have), explicit, ts)


def _chunks(ctx) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """dcgm-exporter scrape rows in batches of ~BATCH_BYTES of body, with their raw row numbers."""
    pending: list[pa.Table] = []
    rows: list[np.ndarray] = []
    size = 0
    offset = ctx.first_raw_row("scrapes")
    for batch in ctx.raw_batches("scrapes", columns=_COLUMNS, batch_rows=1024):
        n = batch.num_rows
        table = pa.Table.from_batches([batch])
        mask = pc.fill_null(pc.equal(table["source"], SOURCE), False)
        idx = np.flatnonzero(np.asarray(mask.to_numpy(zero_copy_only=False), dtype=bool))
        offset += n
        if len(idx) == 0:
            continue
        part = table if len(idx) == n else table.take(pa.array(idx))
        pending.append(part)
        rows.append(idx + offset - n)
        size += pc.sum(pc.binary_length(part["body"])).as_py() or 0
        if size >= BATCH_BYTES:
            yield pa.concat_tables(pending), np.concatenate(rows)
            pending, rows, size = [], [], 0
    if pending:
        yield pa.concat_tables(pending), np.concatenate(rows)


def derive(ctx) -> None:
    """Emit gpu_samples and gpus rows from every dcgm-exporter scrape of the bundle."""
    cache = LabelCache()
    seen: dict[tuple[str | None, str], list] = {}
    for table, raw_rows in _chunks(ctx):
        try:
            _derive_chunk(ctx, table, raw_rows, cache, seen)
        except Exception as exc:  # keep the other batches
            ctx.issue(ISSUE_SOURCE, f"batch could not be parsed ({exc.__class__.__name__})", str(exc)[:200], RAW_FILE, int(raw_rows[0]), count=len(raw_rows))
    gpu_rows = []
    for (node, _uuid), (ident_id, first, last) in seen.items():
        ident = cache.identities[ident_id]
        row = {f: ident.get(f) for f in _GPU_FIELDS}
        row.update(node=node, product=ident.get("model_name"), source=SOURCE, first_seen_at=first, last_seen_at=last)
        gpu_rows.append(row)
    if gpu_rows:
        ctx.emit("gpus", gpu_rows)


def _blank(bodies: pa.ChunkedArray) -> pa.Array:
    """Mask of null or whitespace-only bodies (only short bodies are trimmed)."""
    lengths = np.asarray(pc.fill_null(pc.binary_length(bodies), 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    blank = lengths == 0
    short = np.flatnonzero((lengths > 0) & (lengths < 256))
    if len(short):
        texts = pc.take(bodies, pa.array(short)).to_pylist()
        blank[short] = [not t.strip() for t in texts]
    return pa.array(blank)


def _derive_chunk(ctx, table: pa.Table, raw_rows: np.ndarray, cache: LabelCache, seen: dict) -> None:
    failed = pc.or_(pc.is_valid(table["error"]), pc.fill_null(pc.not_equal(table["status"], 200), False))
    empty = _blank(table["body"])
    for i in np.flatnonzero(np.asarray(pc.or_(failed, empty).to_numpy(zero_copy_only=False), dtype=bool)):
        row = {k: table[k][int(i)].as_py() for k in ("error", "status", "url", "body")}
        reason = capture_failure(row) or "empty body"
        ctx.issue(ISSUE_SOURCE, reason, row.get("error") or row.get("url"), RAW_FILE, int(raw_rows[i]))
    usable = pc.invert(pc.or_(pc.fill_null(pc.not_equal(table["status"], 200), False), empty))
    keep = np.flatnonzero(np.asarray(usable.to_numpy(zero_copy_only=False), dtype=bool))
    if len(keep) == 0:
        return
    table, raw_rows = table.take(pa.array(keep)), raw_rows[keep]
    samples, stats = parse_dcgm_bodies(table["body"].combine_chunks(), table["captured_at"].combine_chunks(), table["node"].combine_chunks(), cache)
    counts = {"malformed exposition line": stats["malformed"], "sample value is not a number": stats["bad_values"], "malformed label block": stats["bad_labels"], "DCGM sample without UUID label": stats["no_uuid"]}
    examples = {reason: (b, text) for reason, b, text in stats["examples"]}
    for reason, count in counts.items():
        if count:
            b, text = examples.get(reason, (0, None))
            ctx.issue(ISSUE_SOURCE, reason, text, RAW_FILE, int(raw_rows[b]), count=count)
    if samples.num_rows == 0:
        return
    ctx.emit("gpu_samples", samples)
    _remember_devices(samples, stats["row_ident"], cache, seen)


def _remember_devices(samples: pa.Table, row_ident: np.ndarray, cache: LabelCache, seen: dict) -> None:
    """First/last time each (node, device) showed up, for the gpus rows."""
    keys = pa.table({"node": samples["node"], "ident": pa.array(row_ident), "ts": samples["ts"]})
    grouped = keys.group_by(["node", "ident"]).aggregate([("ts", "min"), ("ts", "max")])
    for r in grouped.to_pylist():
        ident = r["ident"]
        key = (r["node"], cache.identities[ident]["gpu_uuid"])
        old = seen.get(key)
        if old is None:
            seen[key] = [ident, r["ts_min"], r["ts_max"]]
        else:
            old[1], old[2] = min(old[1], r["ts_min"]), max(old[2], r["ts_max"])


def parse_dcgm_text(text: str, node: str | None = None, captured_at=None) -> tuple[list[dict], dict[str, Any]]:
    """Parse one exposition text (tests, tools): gpu_samples rows as dicts and the stats."""
    import datetime as dt

    ts = captured_at or dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    table, stats = parse_dcgm_bodies(pa.array([text], pa.string()), pa.array([ts], pa.timestamp("us", tz="UTC")), pa.array([node], pa.string()))
    return table.to_pylist(), stats


__all__ = ["derive", "parse_dcgm_bodies", "parse_dcgm_text", "LabelCache", "SOURCE"]
