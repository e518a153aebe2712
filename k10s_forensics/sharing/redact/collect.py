"""Collecting the identity vocabulary from the raw layer (first pass of strict redaction).

Objects are parsed one by one (JSON structure says what each name is). Everything else is
read column-wise: the distinct values of the ``node``/``namespace``/``pod``/``url`` columns,
and names inside scrape bodies (dcgm-exporter labels) and log bodies (NCCL host prefixes).
Those body patterns run in RE2 (``pyarrow.compute``, linear time) on ASCII-only batches,
where RE2 and Python's ``re`` agree character for character (the RE2 forms drop the
253-character bounds; a batch with a match longer than ``MAX_MATCH`` chars, where a bound
could matter, is redone in Python); each distinct match is then read with the exact Python
pattern of ``vocab.py``. Batches holding other characters, or JSON-style labels, use
``Vocabulary.add_text_labels`` / ``add_log_hosts`` row by row. Values are added in order
of first occurrence, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_NAMES
from k10s_forensics.sharing.redact import pieces
from k10s_forensics.sharing.redact.columns import is_ascii, mark_matches, sentinel_for
from k10s_forensics.sharing.redact.pipeline import ordered_map
from k10s_forensics.sharing.redact.vocab import _DCGM_LABEL, _LABEL_CLASS, _NCCL_HOST, JOB_KINDS, KIND_CLASS, Vocabulary

_SPACE = r"[\t\n\x0b\f\r \x1c-\x1f]"
_NOT_SPACE = r"[^\t\n\x0b\f\r \x1c-\x1f]"
_LABELS = "Hostname|hostname|pod|exported_pod|namespace|exported_namespace|node|kubernetes_node|job_name"
DCGM_RE2 = rf'\b(?:{_LABELS}){_SPACE}*={_SPACE}*"[^"\\]+"'
_PIECE_SPACE = r"[\t\x0b\f\r \x1c-\x1f]"
DCGM_OPEN_RE2 = rf'\b(?:{_LABELS}){_PIECE_SPACE}*(?:={_PIECE_SPACE}*(?:"[^"\\]*)?)?$'
JSON_LABEL_RE2 = r'"(?:Hostname|hostname|pod|exported_pod|namespace|exported_namespace|node|kubernetes_node)"'
NCCL_RE2 = rf"(?m)^(?:{_NOT_SPACE}+ )?[A-Za-z][A-Za-z0-9.-]*:[0-9]+:[0-9]+ \[[0-9]+\] NCCL"
MAX_MATCH = 250
BATCH_BYTES = 32 << 20
MAX_GROUP_BYTES = 256 << 20


def read_batches(pf: pq.ParquetFile, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """The file's batches, a row group at a time (much faster than ``iter_batches`` for big
    text columns); a row group larger than ``MAX_GROUP_BYTES`` is streamed in batches."""
    meta = pf.metadata
    for i in range(meta.num_row_groups):
        if meta.row_group(i).total_byte_size > MAX_GROUP_BYTES:
            yield from pf.iter_batches(batch_size=batch_rows(pf), row_groups=[i], columns=columns)
            continue
        table = pf.read_row_group(i, columns=columns)
        yield from table.to_batches(max_chunksize=batch_rows(pf))


def batch_rows(pf: pq.ParquetFile, target_bytes: int = BATCH_BYTES) -> int:
    """Rows per batch so that one batch holds about ``target_bytes`` of decoded data."""
    meta = pf.metadata
    if meta.num_rows == 0:
        return 1024
    total = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return int(min(16384, max(8, target_bytes * meta.num_rows // max(total, 1))))


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
    pf = pq.ParquetFile(path)
    names = pf.schema_arrow.names
    if name == "objects":
        _collect_objects(pf, vocab)
        return
    want = [c for c in ("node", "namespace", "pod", "url") if c in names]
    body = "body" if name in ("scrapes", "logs") and "body" in names else None

    def scan(batch: pa.RecordBatch) -> list[tuple[str, Any]]:
        """What one batch adds, in order (found on a worker thread, added on this one)."""
        found: list[tuple[str, Any]] = []
        for column in ("node", "namespace", "pod", "url"):
            if column in want:
                found.append((column, pc.unique(batch.column(column)).to_pylist()))
        if body is not None:
            found.append((name, _scan_body(name, batch.column(body))))
        return found

    for found in ordered_map(scan, read_batches(pf, want + ([body] if body else []))):
        for what, values in found:
            _apply(vocab, what, values)


def _scan_body(name: str, column: pa.Array) -> tuple[list[str] | None, pa.Array]:
    """Distinct RE2 matches of the body pattern (None: use the Python rule on ``column``)."""
    if name == "scrapes":
        if pc.any(pc.match_substring_regex(column, JSON_LABEL_RE2)).as_py():
            return None, column
        found = _label_matches_by_piece(column)
        return (found if found is not None else distinct_matches(column, DCGM_RE2)), column
    column = column.filter(pc.fill_null(pc.match_substring(column, "NCCL"), False))
    return (distinct_matches(column, NCCL_RE2) if len(column) else []), column


def _label_matches_by_piece(column: pa.Array) -> list[str] | None:
    """dcgm-exporter label matches read from the distinct pieces of ``column`` (pieces.py).

    Exact when no match crosses a cut: a match that would shows as a piece ending in an open
    ``label = "value`` (``DCGM_OPEN_RE2``), and then None is returned (read the whole text).
    Values are added in any order: outside objects every kind ranks at or above ``host``,
    so the vocabulary does not depend on the order.
    """
    if len(column) == 0 or column.null_count == len(column) or not is_ascii(column):
        return None
    cut = pieces.cut(column)
    distinct = pc.unique(cut.flat)
    if pieces.distinct_share(column, distinct) > pieces.MAX_DISTINCT_SHARE:
        return None
    if pc.any(pc.match_substring_regex(distinct, DCGM_OPEN_RE2)).as_py():
        return None
    selected = distinct.filter(pc.match_substring_regex(distinct, DCGM_RE2))
    found = distinct_matches(selected, DCGM_RE2)  # RE2 equals Python here (ASCII, short matches)
    if found is None:
        found = list(dict.fromkeys(m.group(0) for piece in selected.to_pylist() for m in _DCGM_LABEL.finditer(piece)))
    return found


def _apply(vocab: Vocabulary, what: str, values: Any) -> None:
    if what in ("node", "namespace", "pod"):
        for value in values:
            vocab.add(value, what)
    elif what == "url":
        for url in values:
            vocab.add_url(url)
    else:
        found, column = values
        if found is None:
            for text in column.to_pylist():
                vocab.add_text_labels(text) if what == "scrapes" else vocab.add_log_hosts(text)
            return
        for text in found:
            m = (_DCGM_LABEL if what == "scrapes" else _NCCL_HOST).fullmatch(text)
            if m is not None:
                if what == "scrapes":
                    vocab.add(m.group(2), _LABEL_CLASS[m.group(1)])
                else:
                    vocab.add(m.group(1), "host")


def _collect_objects(pf: pq.ParquetFile, vocab: Vocabulary) -> None:
    columns = [c for c in ("kind", "namespace", "name", "body") if c in pf.schema_arrow.names]
    for batch in pf.iter_batches(batch_size=256, columns=columns):
        cols = batch.to_pydict()
        none = [None] * batch.num_rows
        for i in range(batch.num_rows):
            kind = cols.get("kind", none)[i]
            vocab.add(cols.get("namespace", none)[i], "namespace")
            body = cols.get("body", none)[i]
            try:
                obj = json.loads(body) if body else None
            except (json.JSONDecodeError, RecursionError):
                obj = None
            if obj is None:
                vocab.add(cols.get("name", none)[i], KIND_CLASS.get(kind, "job" if kind in JOB_KINDS else "object"))
                continue
            vocab.add_object(obj, kind)


def distinct_matches(column: pa.Array, pattern: str) -> list[str] | None:
    """Every distinct RE2 match of ``pattern`` in ``column`` in order of first occurrence,
    or None when the column is not pure ASCII or a match is longer than ``MAX_MATCH``."""
    if not is_ascii(column):
        return None
    mark = sentinel_for(column)
    _parts, flat, is_match, _rows = mark_matches(column, pattern, mark)
    if is_match is None:
        return []
    found = pc.unique(flat.filter(is_match))
    if len(found) and pc.max(pc.utf8_length(found)).as_py() > MAX_MATCH:
        return None
    return found.to_pylist()


__all__ = ["collect_vocabulary", "distinct_matches", "batch_rows", "read_batches"]
