"""The FLEET folder: Hive-partitioned Parquet per table, written in batches.

Each ``write_batch`` writes, per table and per (cluster, month) partition, one file
``<table>/cluster=<slug>/month=<YYYY-MM>/part-<batch>.parquet`` (temporary name, then
renamed), the ``bundles`` files last: a bundle counts as indexed once its ``bundles`` row
exists, and ``drop_orphans`` deletes data files of a batch that never got that far (an
interrupted index), so re-indexing never doubles rows.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import write_json_atomic
from k10s_forensics.errors import BundleError
from k10s_forensics.fleet.identity import partition_slug
from k10s_forensics.fleet.schema import FLEET_TABLES, TABLE_NAMES, TABLES_BY_NAME

MARKER = "_fleet.json"
FORMAT = "k10s-fleet"
FORMAT_VERSION = 1
COMPRESSION = "zstd"


class FleetStore:
    """A FLEET folder on local disk (object stores are read by Spark, see docs/fleet.md)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)

    @classmethod
    def open(cls, root: str | os.PathLike[str]) -> "FleetStore":
        """An existing fleet folder (raises BundleError when it is not one)."""
        store = cls(root)
        marker = store.root / MARKER
        if not marker.is_file():
            raise BundleError(f"{store.root}: not a k10s fleet folder (no {MARKER}; make one with `k10s fleet index`)")
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BundleError(f"{marker}: unreadable ({exc.__class__.__name__})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise BundleError(f"{marker}: not a fleet of format {FORMAT} version {FORMAT_VERSION}")
        return store

    @classmethod
    def create(cls, root: str | os.PathLike[str]) -> "FleetStore":
        store = cls(root)
        if store.root.exists() and not store.root.is_dir():
            raise BundleError(f"{store.root}: exists and is not a folder")
        if store.root.is_dir() and any(store.root.iterdir()) and not (store.root / MARKER).is_file():
            raise BundleError(f"{store.root}: folder is not empty and not a k10s fleet (refusing to write into it)")
        store.root.mkdir(parents=True, exist_ok=True)
        if not (store.root / MARKER).is_file():
            write_json_atomic(store.root / MARKER, {"format": FORMAT, "format_version": FORMAT_VERSION,
                                                   "tables": list(TABLE_NAMES), "layout": "<table>/cluster=<slug>/month=<YYYY-MM>/part-<batch>.parquet"})
        return cls.open(store.root)

    def files(self, table: str) -> list[Path]:
        return sorted((self.root / table).glob("cluster=*/month=*/part-*.parquet"))

    def glob(self, table: str) -> str:
        """The glob DuckDB reads for ``table``."""
        return str(self.root / table / "cluster=*" / "month=*" / "part-*.parquet")

    def indexed_ids(self) -> set[str]:
        ids: set[str] = set()
        for path in self.files("bundles"):
            ids.update(pq.read_table(path, columns=["bundle_id"]).column("bundle_id").to_pylist())
        return ids

    def drop_orphans(self) -> int:
        """Delete data files whose batch has no ``bundles`` file (an interrupted index)."""
        committed = {_batch(p) for p in self.files("bundles")}
        dropped = 0
        for table in TABLE_NAMES:
            for path in (self.root / table).glob("cluster=*/month=*/*"):
                if path.name.endswith(".tmp") or (path.suffix == ".parquet" and _batch(path) not in committed):
                    path.unlink()
                    dropped += 1
        return dropped

    def write_batch(self, rows: dict[str, list[dict[str, Any]]]) -> str:
        """Write one batch of rows (every table, ``bundles`` last); returns the batch id."""
        batch = new_batch_id()
        where = {r["bundle_id"]: (partition_slug(r["cluster_name"]), r["window_month"] if r.get("window_month") else "unknown") for r in rows.get("bundles", [])}
        for table in [t.name for t in FLEET_TABLES if t.name != "bundles"] + ["bundles"]:
            groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
            for row in rows.get(table, []):
                groups[where.get(row["bundle_id"], ("unknown", "unknown"))].append(row)
            for (cluster, month), part in sorted(groups.items()):
                self._write(table, cluster, month, batch, part)
        return batch

    def _write(self, table: str, cluster: str, month: str, batch: str, rows: Iterable[dict[str, Any]]) -> None:
        schema = TABLES_BY_NAME[table].schema
        data = pa.Table.from_pylist([{n: r.get(n) for n in schema.names} for r in rows], schema=schema)
        write_part(self.root / table / f"cluster={cluster}" / f"month={month}", batch, data)


def new_batch_id() -> str:
    """Sortable, unique across concurrent indexers: UTC time plus 8 random hex digits."""
    return f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{secrets.token_hex(4)}"


def write_part(folder: Path, batch: str, data: pa.Table) -> Path:
    """``folder/part-<batch>.parquet`` written under a temporary name, then renamed."""
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"part-{batch}.parquet"
    tmp = final.with_name(final.name + ".tmp")
    pq.write_table(data, tmp, compression=COMPRESSION)
    os.replace(tmp, final)
    return final


def _batch(path: Path) -> str:
    return path.name[len("part-"):].split(".", 1)[0]


__all__ = ["FleetStore", "MARKER", "FORMAT", "FORMAT_VERSION", "new_batch_id", "write_part"]
