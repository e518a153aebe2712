"""What a parser may ask of the rebuild: the ``DeriveContext`` interface, as a Protocol.

Parsers type their ``ctx`` with this Protocol instead of importing ``k10s_forensics.rebuild.run``
(which imports the parsers): the dependency points one way, rebuild -> parsers. The class
that implements it is ``k10s_forensics.rebuild.run.DeriveContext``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt

    import pyarrow as pa

    from k10s_forensics.store.bundle import Bundle


class DeriveContext(Protocol):
    """The raw layer, the tables derived so far, and an issue log (see rebuild.DeriveContext)."""

    bundle: "Bundle"
    manifest: dict[str, Any]
    window_start: "dt.datetime | None"
    window_end: "dt.datetime | None"

    def raw(self, name: str, source: str | None = None, kind: str | None = None) -> "pa.Table": ...

    def raw_groups(self, name: str, source: str | None = None, kind: str | None = None) -> Iterator["pa.Table"]: ...

    def raw_batches(self, name: str, columns: list[str] | None = None, batch_rows: int = 64) -> Iterator["pa.RecordBatch"]: ...

    def first_raw_row(self, name: str) -> int: ...

    def emit(self, name: str, table: "pa.Table | list[dict[str, Any]]") -> None: ...

    def table(self, name: str) -> "pa.Table": ...

    def replace(self, name: str, table: "pa.Table") -> None: ...

    def table_path(self, name: str) -> Path: ...

    def issue(self, source: str, reason: str, example: str | None = None, raw_file: str | None = None,
              raw_row: int | None = None, count: int = 1) -> None: ...


__all__ = ["DeriveContext"]
