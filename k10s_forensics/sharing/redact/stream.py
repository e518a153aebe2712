"""Streaming the raw layer through redaction, batch by batch (memory stays flat).

Two passes over ``raw/*.parquet``: the first collects the identity vocabulary (strict
only), the second rewrites every row. Every string column is redacted; a few columns that
the format fixes as non-identifying words (``source``, ``kind``, ``api_version``, ``uid``,
``pod_uid``) are kept. A raw file that cannot be read is dropped and listed in the
manifest, never copied unredacted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.bundle import COMPRESSION, RAW_NAMES
from k10s_forensics.sharing.redact.bodies import Redactor
from k10s_forensics.sharing.redact.vocab import Vocabulary

BATCH_ROWS = 256
#: Columns kept as they are (the format's own words, or random ids).
KEEP_COLUMNS = {
    "objects": {"api_version", "kind", "uid"},
    "exec": {"source"},
    "scrapes": {"source"},
    "logs": {"pod_uid"},
}
#: Columns holding exactly one name (replaced as a whole when known).
NAME_COLUMNS = frozenset({"node", "namespace", "pod", "name", "container"})


def iter_batches(path: Path, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    pf = pq.ParquetFile(path)
    yield from pf.iter_batches(batch_size=BATCH_ROWS, columns=columns)


def collect_vocabulary(raw_dir: Path, vocab: Vocabulary) -> list[str]:
    """Fill ``vocab`` from every raw file; returns the raw files that could not be read."""
    unreadable = []
    for name in RAW_NAMES:
        path = raw_dir / f"{name}.parquet"
        if not path.is_file():
            continue
        try:
            _collect_file(name, path, vocab)
        except Exception as exc:  # a damaged file is dropped in the rewrite pass as well
            unreadable.append(f"raw/{name}.parquet: unreadable ({exc.__class__.__name__})")
    return unreadable


def _collect_file(name: str, path: Path, vocab: Vocabulary) -> None:
    schema = pq.ParquetFile(path).schema_arrow
    if name == "objects":
        for batch in iter_batches(path, [c for c in ("kind", "namespace", "name", "body") if c in schema.names]):
            cols = batch.to_pydict()
            for i in range(batch.num_rows):
                kind = cols.get("kind", [None] * batch.num_rows)[i]
                vocab.add(cols.get("namespace", [None] * batch.num_rows)[i], "namespace")
                body = cols.get("body", [None] * batch.num_rows)[i]
                try:
                    obj = json.loads(body) if body else None
                except (json.JSONDecodeError, RecursionError):
                    obj = None
                if obj is None:
                    from k10s_forensics.sharing.redact.vocab import KIND_CLASS, JOB_KINDS

                    row_name = cols.get("name", [None] * batch.num_rows)[i]
                    vocab.add(row_name, KIND_CLASS.get(kind, "job" if kind in JOB_KINDS else "object"))
                    continue
                vocab.add_object(obj, kind)
        return
    want = [c for c in ("node", "namespace", "pod", "url", "body", "stdout", "source") if c in schema.names]
    for batch in iter_batches(path, want):
        cols = batch.to_pydict()
        for column, kind in (("node", "node"), ("namespace", "namespace"), ("pod", "pod")):
            for value in set(cols.get(column, [])):
                vocab.add(value, kind)
        for url in set(cols.get("url", [])):
            vocab.add_url(url)
        if name == "scrapes":
            for body in cols.get("body", []):
                vocab.add_text_labels(body)
        elif name == "logs":
            for body in cols.get("body", []):
                vocab.add_log_hosts(body)


def rewrite_raw(src: Path, dst: Path, name: str, redactor: Redactor, on_batch: Callable[[int], None] | None = None) -> int:
    """Write the redacted copy of one raw file; returns rows written."""
    pf = pq.ParquetFile(src)
    schema = pf.schema_arrow
    keep = KEEP_COLUMNS.get(name, set())
    rows = 0
    dst.parent.mkdir(parents=True, exist_ok=True)
    writer = pq.ParquetWriter(dst, schema, compression=COMPRESSION)
    try:
        for batch in pf.iter_batches(batch_size=BATCH_ROWS):
            arrays = []
            for i, field in enumerate(schema):
                column = batch.column(i)
                if field.name in keep or not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
                    arrays.append(column)
                    continue
                arrays.append(pa.array(_redact_column(name, field.name, column.to_pylist(), redactor), type=field.type))
            writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
            rows += batch.num_rows
            if on_batch is not None:
                on_batch(batch.num_rows)
    finally:
        writer.close()
    return rows


def _redact_column(raw_name: str, column: str, values: list[str | None], redactor: Redactor) -> list[str | None]:
    if raw_name == "objects" and column == "body":
        return [redactor.object_body(v) for v in values]
    if column in NAME_COLUMNS:
        cache: dict[str | None, str | None] = {}
        out = []
        for v in values:
            if v not in cache:
                cache[v] = redactor.exact(v)
            out.append(cache[v])
        return out
    return [redactor.text(v) for v in values]


__all__ = ["collect_vocabulary", "rewrite_raw", "KEEP_COLUMNS"]
