"""Shared pieces of the report sections: absent values, plots, named SQL, formatting.

Everything a section shows goes through here, so the report's rules hold everywhere:
absent data is ``Absent(reason)`` (rendered as ``---`` with the reason), numbers are
formatted one way, cluster text inside plot data is escaped for plotly's text renderer,
and plot JSON is embedded so no cluster text can close the ``<script>`` that holds it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import duckdb

from k10s_forensics.engine import run_sql
from k10s_forensics.output import ABSENT, jsonable


@dataclass(frozen=True)
class Absent:
    """A value the bundle does not have, and why (rendered as ``---`` + reason)."""

    reason: str

    def __str__(self) -> str:
        return ABSENT


@dataclass
class Plot:
    """One plotly figure: where it goes (``anchor``), a caption, and its JSON."""

    anchor: str
    title: str
    figure_json: str = field(repr=False)
    caption: str = ""
    height_px: int = 320

    @property
    def json_bytes(self) -> int:
        return len(self.figure_json)


# -- SQL --------------------------------------------------------------------------------------


def sql_text(name: str) -> str:
    """Text of ``reports/sql/<name>.sql`` (packaged, loaded with importlib.resources)."""
    return resources.files("k10s_forensics.reports").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


def sql_names() -> list[str]:
    """Every named query shipped with the report."""
    folder = resources.files("k10s_forensics.reports").joinpath("sql")
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".sql"))


def query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run the named query with ``$params``; rows as dicts (QueryError names the file)."""
    table = run_sql(con, sql_text(name), params or None, origin=f"reports/sql/{name}.sql")
    return table.to_pylist() if table is not None else []


def query_table(con: duckdb.DuckDBPyConnection, name: str, **params: Any):
    """Run the named query; the pyarrow Table (for matrices)."""
    return run_sql(con, sql_text(name), params or None, origin=f"reports/sql/{name}.sql")


def query_inline(con: duckdb.DuckDBPyConnection, sql: str, origin: str, **params: Any) -> list[dict[str, Any]]:
    """Run an inline SQL constant of a section module."""
    table = run_sql(con, sql, params or None, origin=origin)
    return table.to_pylist() if table is not None else []


def count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """Rows of a view, 0 when the view is absent."""
    try:
        return int(con.sql(f'SELECT count(*) FROM "{table}"').fetchall()[0][0])
    except duckdb.Error:
        return 0


# -- plot JSON --------------------------------------------------------------------------------

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")


def script_safe_json(text: str) -> str:
    """JSON text that can sit inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` only occur inside JSON strings, where ``\\u003c`` etc. mean the
    same characters, so ``</script>`` and ``<!--`` from cluster text can never appear.
    """
    return _JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def figure_json(fig: Any) -> str:
    """Plotly figure → compact JSON (numpy arrays as typed arrays), script-safe."""
    import plotly.io as pio

    return script_safe_json(pio.to_json(fig, validate=False, pretty=False))


def plot_text(value: Any, limit: int = 300) -> str:
    """Cluster text for plotly labels/hover: entity-escaped so plotly shows it literally."""
    text = "" if value is None else str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


# -- anchors, formatting -------------------------------------------------------------------------


def anchor(prefix: str, key: str) -> str:
    """A stable HTML id for a key of cluster text (slug + short hash; never raw text)."""
    slug = re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")[:40]
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:6]
    return f"{prefix}-{slug}-{digest}" if slug else f"{prefix}-{digest}"


def fmt_num(value: Any, digits: int = 1, unit: str = "") -> str:
    """A number with fixed decimals and thousands separators; ``---`` for none/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ABSENT
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}{unit}"
    return f"{float(value):,.{digits}f}{unit}"


def fmt_ts(value: Any) -> str:
    """UTC time as ``2026-11-21 10:15:03Z``; ``---`` for none."""
    if value is None:
        return ABSENT
    if isinstance(value, str):
        from k10s_forensics.store.bundle import parse_iso

        parsed = parse_iso(value)
        if parsed is None:
            return value
        value = parsed
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        value = value.astimezone(dt.timezone.utc)
        return value.strftime("%Y-%m-%d %H:%M:%S") + "Z"
    return str(value)


def fmt_duration(seconds: float | None) -> str:
    """``1 h 05 min``, ``12 min 30 s`` or ``45 s``."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return ABSENT
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def cell_text(value: Any, limit: int = 120) -> str:
    """Any evidence value as short text (lists/dicts as compact JSON)."""
    if value is None:
        return ABSENT
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            text = f"{int(value):,}"
        else:
            text = fmt_num(value, 2) if abs(value) < 1e6 else f"{value:.3g}"
    elif isinstance(value, (list, dict)):
        text = json.dumps(jsonable(value), separators=(",", ":"), ensure_ascii=False)
    elif isinstance(value, dt.datetime):
        text = fmt_ts(value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rank_span(ranks: list[int]) -> str:
    """``3``, ``8–15`` or ``0, 2, 5`` for a pod's ranks."""
    if not ranks:
        return ABSENT
    ranks = sorted(set(ranks))
    if len(ranks) > 2 and ranks[-1] - ranks[0] == len(ranks) - 1:
        return f"{ranks[0]}–{ranks[-1]}"
    return ", ".join(str(r) for r in ranks[:6]) + (" …" if len(ranks) > 6 else "")


__all__ = [
    "Absent", "Plot", "sql_text", "sql_names", "query", "query_table", "query_inline", "count", "script_safe_json",
    "figure_json", "plot_text", "anchor", "fmt_num", "fmt_ts", "fmt_duration", "cell_text", "rank_span",
]
