"""What ``k10s serve`` holds per raw row: served objects (``Obj``), recordings (``Recording``) whose big
text is read on demand by a ``RawReader`` (per row group, small LRU cache), and replay ``Cursors``."""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from k10s_forensics.errors import BundleError
from k10s_forensics.store.bundle import Bundle, RAW_SCHEMAS


@dataclass
class Obj:
    """One served object: parsed body plus its JSON bytes (serialised once)."""

    namespace: str | None
    name: str
    body: dict[str, Any]
    raw: bytes


@dataclass
class Recording:
    """One recorded exec run, scrape or log: small fields in memory, big text read on demand."""

    captured_at: dt.datetime
    fields: dict[str, Any]
    reader: "RawReader | None" = None

    def get(self, name: str, default: Any = None) -> Any:
        if name in self.fields:
            return self.fields[name]
        if self.reader is not None and name in self.reader.lazy:
            value = self.reader.value(self.fields["_rg"], self.fields["_i"], name)
            return default if value is None else value
        return default


class RawReader:
    """One raw Parquet file: small columns listed once, big text columns read per row group
    on demand with a small LRU cache (a served bundle never holds all bodies in memory)."""

    def __init__(self, path: Path, name: str, lazy: tuple[str, ...], cache_groups: int = 4):
        self.path, self.name, self.lazy = path, name, lazy
        self.cache_groups = cache_groups
        self._cache: "OrderedDict[tuple[int, str], Any]" = OrderedDict()
        self._lock = threading.Lock()
        try:
            self.file = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise BundleError(f"{path}: unreadable Parquet ({exc.__class__.__name__}: {exc})") from None
        missing = [c for c in RAW_SCHEMAS[name].names if c not in self.file.schema_arrow.names]
        if missing:
            raise BundleError(f"{path}: missing columns {', '.join(missing)}")

    def rows(self) -> list[dict[str, Any]]:
        """The small columns of every row, with ``_rg`` (row group) and ``_i`` (row in it)."""
        small = [c for c in RAW_SCHEMAS[self.name].names if c not in self.lazy]
        out: list[dict[str, Any]] = []
        try:
            for rg in range(self.file.num_row_groups):
                for i, row in enumerate(self.file.read_row_group(rg, columns=small).to_pylist()):
                    row["_rg"], row["_i"] = rg, i
                    out.append(row)
        except Exception as exc:
            raise BundleError(f"{self.path}: unreadable Parquet ({exc.__class__.__name__}: {exc})") from None
        return out

    def value(self, rg: int, i: int, column: str) -> Any:
        key = (rg, column)
        with self._lock:  # a ParquetFile must not be read from several threads at once
            col = self._cache.get(key)
            if col is not None:
                self._cache.move_to_end(key)
            else:
                col = self.file.read_row_group(rg, columns=[column]).column(0)
                self._cache[key] = col
                while len(self._cache) > self.cache_groups:
                    self._cache.popitem(last=False)
        return col[i].as_py()


LAZY = {"objects": ("body",), "exec": ("stdout", "stderr"), "scrapes": ("body",), "logs": ("body",)}


def _reader(bundle: Bundle, name: str) -> RawReader | None:
    path = bundle.raw_path(name)
    return RawReader(path, name, LAZY[name]) if path.is_file() else None


class Cursors:
    """Per-key replay cursors: call i returns recording i; after the last, the last again."""

    def __init__(self) -> None:
        self._next: dict[Any, int] = {}
        self._lock = threading.Lock()

    def take(self, key: Any, recordings: list[Recording]) -> Recording:
        with self._lock:
            i = self._next.get(key, 0)
            self._next[key] = i + 1
        return recordings[min(i, len(recordings) - 1)]

    def reset(self) -> None:
        with self._lock:
            self._next.clear()


__all__ = ["Cursors", "LAZY", "Obj", "RawReader", "Recording"]
