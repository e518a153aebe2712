"""Rows a parser emits, fitted to their table's integer columns (``DeriveContext.emit``).

A number no column of its type can hold (a log line printing 2^64-1, a corrupt counter) is read as
unknown (null) and counted as a parse issue; left as it is, it would fail the whole table: every
other row emitted with it, every line of every pod, lost for one field.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa


def int_bounds(dtype: pa.DataType) -> tuple[int, int] | None:
    """The range of an integer column type; None for any other type."""
    if not pa.types.is_integer(dtype):
        return None
    bits = dtype.bit_width
    if pa.types.is_signed_integer(dtype):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def fit_rows(rows: list[dict[str, Any]], schema: pa.Schema) -> tuple[list[dict[str, Any]], int, str | None]:
    """``rows`` with every integer outside its column's range set to None; how many were, and the first."""
    bounds = {f.name: b for f in schema if (b := int_bounds(f.type)) is not None}
    fitted: list[dict[str, Any]] = []
    count, example = 0, None
    for row in rows:
        bad = [k for k, v in row.items() if k in bounds and type(v) is int and not bounds[k][0] <= v <= bounds[k][1]]
        if bad:
            row = dict(row)
            for key in bad:
                example = example or f"{key}={row[key]}"
                row[key] = None
            count += len(bad)
        fitted.append(row)
    return fitted, count, example


def rows_table(rows: list[dict[str, Any]], schema: pa.Schema) -> tuple[pa.Table, int, str | None]:
    """A table of ``rows`` in ``schema``; out-of-range integers null (how many, the first) only when
    they would fail it (the common case costs one conversion)."""
    try:
        return pa.Table.from_pylist(rows, schema=schema), 0, None
    except (OverflowError, pa.ArrowInvalid):
        fitted, count, example = fit_rows(rows, schema)
        if not count:
            raise
        return pa.Table.from_pylist(fitted, schema=schema), count, example


__all__ = ["fit_rows", "int_bounds", "rows_table"]
