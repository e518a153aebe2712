"""``k10s verify``'s Parquet checks: every row group read to the end on a thread pool (memory bounded:
an oversized group is streamed), raw files against the format's columns and types, derived tables
against their declared columns."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics import FORMAT_VERSION
from k10s_forensics.sharing.verify_result import VerifyResult
from k10s_forensics.store.bundle import RAW_SCHEMAS
from k10s_forensics.store.tables import TABLES_BY_NAME

MAX_GROUP_BYTES = 256 << 20


def _submit_parquet(pool: ThreadPoolExecutor, path: Path) -> tuple[pa.Schema | None, list[Future] | str]:
    """Open a Parquet file and queue the reading of each of its row groups on ``pool``."""
    try:
        pf = pq.ParquetFile(path)
        return pf.schema_arrow, [pool.submit(_read_group, path, i) for i in range(pf.num_row_groups)]
    except Exception as exc:  # any reader failure is a damaged file
        return None, f"{exc.__class__.__name__}: {str(exc)[:160]}"


def _read_group(path: Path, index: int) -> str | None:
    """Read one row group to the end; None, or the error as text."""
    try:
        pf = pq.ParquetFile(path)
        # read_row_group decodes big text columns ~5x faster than iter_batches; only an
        # oversized group is streamed, so memory stays bounded
        if pf.metadata.row_group(index).total_byte_size > MAX_GROUP_BYTES:
            for _batch in pf.iter_batches(batch_size=4096, row_groups=[index], use_threads=False):
                pass
        else:
            pf.read_row_group(index, use_threads=False)
        return None
    except Exception as exc:  # any reader failure is a damaged file
        return f"{exc.__class__.__name__}: {str(exc)[:160]}"


def _parquet_outcome(submitted: tuple[pa.Schema | None, list[Future] | str]) -> pa.Schema | str:
    schema, groups = submitted
    if isinstance(groups, str):
        return groups
    errors = [e for e in (f.result() for f in groups) if e is not None]
    return errors[0] if errors else schema


def _check_parquet(rel: str, read: pa.Schema | str, result: VerifyResult) -> None:
    if isinstance(read, str):
        result.problems.append(f"{rel}: unreadable Parquet ({read})")
        return
    schema = read
    result.parquet_checked += 1
    parts = rel.split("/")
    if len(parts) == 2 and parts[0] == "raw":
        name = parts[1].removesuffix(".parquet")
        expected = RAW_SCHEMAS.get(name)
        if expected is None:
            result.warnings.append(f"{rel}: not a raw file of format version {FORMAT_VERSION} (ignored by parsers)")
            return
        _check_columns(rel, schema, expected, result)
    elif len(parts) == 2 and parts[0] == "tables":
        table = TABLES_BY_NAME.get(parts[1].removesuffix(".parquet"))
        if table is not None:
            missing = [c.name for c in table.columns if c.name not in schema.names]
            if missing:
                result.problems.append(f"{rel}: missing columns {', '.join(missing)} (run k10s rebuild)")


def _check_columns(rel: str, actual: pa.Schema, expected: pa.Schema, result: VerifyResult) -> None:
    for fld in expected:
        if fld.name not in actual.names:
            result.problems.append(f"{rel}: missing required column {fld.name!r}")
            continue
        have = actual.field(fld.name).type
        if have != fld.type and not (pa.types.is_timestamp(have) and pa.types.is_timestamp(fld.type)) and not (
            pa.types.is_large_string(have) and pa.types.is_string(fld.type)
        ):
            result.problems.append(f"{rel}: column {fld.name!r} is {have}, the format says {fld.type}")


__all__ = ["MAX_GROUP_BYTES", "_submit_parquet", "_parquet_outcome", "_check_parquet"]
