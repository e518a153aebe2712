"""Render query results (pyarrow tables) as text, CSV or JSON."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
from typing import Any

import pyarrow as pa

ABSENT = "---"


def jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float) and value != value:
        return None
    return value


def cell(value: Any) -> str:
    if value is None:
        return ABSENT
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e6 else f"{value:.0f}"
    if isinstance(value, (list, dict)):
        return json.dumps(jsonable(value), separators=(",", ":"))
    if isinstance(value, dt.datetime):
        return jsonable(value)
    return str(value)


def to_text(table: pa.Table, max_width: int = 60) -> str:
    names = table.column_names
    rows = [[cell(v) for v in row.values()] for row in table.to_pylist()]
    rows = [[c if len(c) <= max_width else c[: max_width - 1] + "…" for c in r] for r in rows]
    widths = [max([len(n)] + [len(r[i]) for r in rows]) for i, n in enumerate(names)]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    lines.append(f"({table.num_rows} row{'s' if table.num_rows != 1 else ''})")
    return "\n".join(line.rstrip() for line in lines)


def to_csv(table: pa.Table) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.column_names)
    for row in table.to_pylist():
        writer.writerow(["" if v is None else (json.dumps(jsonable(v)) if isinstance(v, (list, dict)) else jsonable(v)) for v in row.values()])
    return buf.getvalue()


def to_json(table: pa.Table) -> str:
    return json.dumps([jsonable(r) for r in table.to_pylist()], indent=2)


__all__ = ["ABSENT", "cell", "jsonable", "to_text", "to_csv", "to_json"]
