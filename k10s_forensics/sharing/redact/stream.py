"""Streaming the raw layer through redaction, batch by batch (memory stays flat).

Two passes over ``raw/*.parquet``: the first collects the identity vocabulary (strict
only, ``collect.py``), the second rewrites every row, whole columns at a time
(``columns.py``; batches of about 32 MB of decoded data, on a few threads). At the
standard level a raw file (other than objects, whose JSON is re-serialised) in which the
secret prefilter selects nothing is copied as it is after a read-only pass: its rewrite
would be the same table. Every string column is redacted; a few columns that
the format fixes as non-identifying words (``source``, ``kind``, ``api_version``, ``uid``,
``pod_uid``) are kept. A raw file that cannot be read is dropped and listed in the
manifest, never copied unredacted.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import COMPRESSION
from k10s_forensics.sharing.redact.bodies import Redactor
from k10s_forensics.sharing.redact.collect import collect_vocabulary, read_batches
from k10s_forensics.sharing.redact.dumps import SOURCE as FR_SOURCE
from k10s_forensics.sharing.redact.dumps import open_envelope
from k10s_forensics.sharing.redact.columns import ColumnRedactor
from k10s_forensics.sharing.redact.pipeline import ordered_map
from k10s_forensics.sharing.redact.prefilter import SECRET_PREFILTER

#: Columns kept as they are (the format's own words, or random ids).
KEEP_COLUMNS = {
    "objects": {"api_version", "kind", "uid"},
    "exec": {"source"},
    "scrapes": {"source"},
    "logs": {"pod_uid"},
}
#: Columns holding exactly one name (replaced as a whole when known).
NAME_COLUMNS = frozenset({"node", "namespace", "pod", "name", "container"})
#: Large free-text columns: written without a dictionary page (their values rarely repeat).
TEXT_COLUMNS = frozenset({"body", "stdout", "stderr"})


def rewrite_raw(
    src: Path, dst: Path, name: str, redactor: Redactor, on_batch: Callable[[int], None] | None = None,
    columns: ColumnRedactor | None = None,
) -> int:
    """Write the redacted copy of one raw file; returns rows written.

    Pass the same ``columns`` (a ``ColumnRedactor`` of ``redactor``) for every file of a
    bundle so that segments replaced once are remembered across files.
    """
    columns = columns or ColumnRedactor(redactor)
    pf = pq.ParquetFile(src)
    schema = pf.schema_arrow
    keep = KEEP_COLUMNS.get(name, set())
    rows = 0
    dst.parent.mkdir(parents=True, exist_ok=True)
    text_columns = [f.name for f in schema if f.name not in keep and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))]
    has_dumps = name == "exec" and _has_flight_recorder(pf)  # base64 dumps must be opened, never copied
    if redactor.replacer is None and name != "objects" and not has_dumps and not _has_secrets(pf, text_columns):
        shutil.copyfile(src, dst)  # standard level, nothing to mask: the rewrite would be this very table
        if on_batch is not None:
            on_batch(pf.metadata.num_rows)
        return pf.metadata.num_rows
    dictionary = [f.name for f in schema if f.name not in TEXT_COLUMNS]
    writer = pq.ParquetWriter(dst, schema, compression=COMPRESSION, use_dictionary=dictionary)

    def redact_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
        arrays = []
        if has_dumps:
            batch = _open_dumps(batch)
        for i, field in enumerate(schema):
            column = batch.column(i)
            if field.name in keep or not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
                arrays.append(column)
            elif name == "objects" and field.name == "body":
                values = column.to_pylist()
                with columns.lock:
                    arrays.append(pa.array([redactor.object_body(v) for v in values], type=field.type))
            elif field.name in NAME_COLUMNS:
                arrays.append(columns.exact(column))
            else:
                arrays.append(columns.text(column, key=f"{name}.{field.name}"))
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    try:
        for batch in ordered_map(redact_batch, read_batches(pf)):  # redacted on a few threads, written in order
            writer.write_batch(batch)
            rows += batch.num_rows
            if on_batch is not None:
                on_batch(batch.num_rows)
    finally:
        writer.close()
    return rows


def _has_flight_recorder(pf: pq.ParquetFile) -> bool:
    if "source" not in pf.schema_arrow.names:
        return False
    return any(pc.any(pc.equal(b.column(0), FR_SOURCE)).as_py() for b in read_batches(pf, ["source"]))


def _open_dumps(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Flight Recorder rows with their dumps as JSON text (sharing/redact/dumps.py)."""
    names = batch.schema.names
    if "source" not in names or "stdout" not in names:
        return batch
    sources = batch.column(names.index("source")).to_pylist()
    if FR_SOURCE not in sources:
        return batch
    i = names.index("stdout")
    values = [open_envelope(v) if s == FR_SOURCE else v for s, v in zip(sources, batch.column(i).to_pylist())]
    arrays = list(batch.columns)
    arrays[i] = pa.array(values, type=batch.schema.field(i).type)
    return pa.RecordBatch.from_arrays(arrays, schema=batch.schema)


def _has_secrets(pf: pq.ParquetFile, text_columns: list[str]) -> bool:
    """Whether the secret prefilter selects any value of ``text_columns`` (a read-only pass)."""
    if not text_columns:
        return False

    def selects(batch: pa.RecordBatch) -> bool:
        return any(pc.any(pc.match_substring_regex(column, SECRET_PREFILTER)).as_py() for column in batch.columns)

    return any(ordered_map(selects, read_batches(pf, text_columns)))


__all__ = ["collect_vocabulary", "rewrite_raw", "KEEP_COLUMNS", "NAME_COLUMNS"]
