"""Filter and sort over every row of a view, in DuckDB.

A view's rows (the Python objects the table shows) are indexed once, in the loading
thread, as one in-memory DuckDB table: row number, group, group-header flag, the row's
lower-cased text and, per column, its sort value split into (absent?, number, text).
``/`` and ``< > !`` are then one query over the whole set, answering row numbers in
display order; the table shows only the lines on screen of that order, and the cursor,
``y`` and Enter act on the row at that position, however far down it is.

The order is exactly the one the views always had: rows whose text contains the filter
(substring, case-insensitive); sorted by the column's values, absent values last
(first when reversed), numbers before text, ties in their original order; rows of one
group kept together, groups in the order they first appear, each group's header first.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

_base: duckdb.DuckDBPyConnection | None = None
_base_lock = threading.Lock()


def _connection() -> duckdb.DuckDBPyConnection:
    """A connection of its own to the process' one in-memory database (opening a database
    takes ~30 ms, a connection to an open one well under 1 ms); its table is TEMP, so
    seen by this connection only and dropped with it."""
    global _base
    with _base_lock:
        if _base is None:
            _base = duckdb.connect(":memory:", config={"threads": 1})
        return _base.cursor()


def sort_key(v: Any) -> tuple[bool, float, str]:
    """(absent?, number, text): numbers compare as numbers, anything else as its text."""
    if v is None:
        return (True, 0.0, "")
    if isinstance(v, (int, float)):
        return (False, float(v), "")
    return (False, 0.0, str(v))


class RowIndex:
    """The rows of one view as a DuckDB table; :meth:`order` filters and sorts them."""

    def __init__(self, rows: Sequence[Any], columns: int):
        self.rows = rows
        self.size = len(rows)
        self.columns = columns
        self._con: duckdb.DuckDBPyConnection | None = None
        if not rows:
            return
        data: dict[str, list[Any]] = {"idx": list(range(len(rows))), "grp": [r.group for r in rows],
                                      "header": [bool(r.header) for r in rows], "text": [r.text for r in rows]}
        for c in range(columns):
            keys = [sort_key(r.sort[c] if c < len(r.sort) else r.cells[c]) for r in rows]
            data[f"n{c}"], data[f"f{c}"], data[f"s{c}"] = (list(k) for k in zip(*keys))
        con = _connection()
        con.register("view_rows", pa.table(data))
        con.execute("CREATE TEMP TABLE rows AS SELECT * FROM view_rows")
        con.unregister("view_rows")
        self._con = con

    def order(self, needle: str = "", column: int | None = None, descending: bool = False) -> list[int]:
        """Row numbers of the rows containing ``needle`` (lower case), in display order."""
        if self._con is None:
            return []
        where, params = ("WHERE contains(text, $needle)", {"needle": needle}) if needle else ("", {})
        if column is None:
            sql = f"SELECT idx FROM rows {where} ORDER BY idx"
        else:
            c, d = int(column), " DESC" if descending else ""
            sql = (f"SELECT idx FROM (SELECT *, min(idx) OVER (PARTITION BY grp) AS first FROM rows {where}) "
                   f"ORDER BY first, header DESC, n{c}{d}, f{c}{d}, s{c}{d}, idx")
        return [i for (i,) in self._con.execute(sql, params).fetchall()]

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


__all__ = ["RowIndex", "sort_key"]
