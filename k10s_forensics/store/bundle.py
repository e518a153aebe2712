"""The bundle on disk: manifest, raw evidence layer, derived tables.

Layout (format version 1, see docs/bundle-format.md)::

    <bundle>/manifest.json
    <bundle>/raw/{objects,exec,scrapes,logs}.parquet
    <bundle>/tables/<name>.parquet

``BundleWriter`` streams raw rows to Parquet as they arrive (memory stays flat);
``Bundle`` opens an existing bundle and checks its format.

Their parts: ``bundle_format`` (names, raw schemas, manifest skeleton), ``values`` (times, text,
digests, atomic JSON) and ``raw_writer`` (streaming raw tables to Parquet); this module re-exports them.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics import FORMAT_VERSION
from k10s_forensics.errors import BundleError
from k10s_forensics.store.bundle_format import (
    COLLECTOR_STATUSES,
    COMPRESSION,
    DERIVED_NAMES,
    DERIVED_PREFIXES,
    FORMAT_NAME,
    GROUP_BY,
    MANIFEST,
    RAW_NAMES,
    RAW_SCHEMAS,
    TS,
    is_derived_path,
    new_manifest,
)
from k10s_forensics.store.raw_writer import RawWriter, split_groups, write_raw_table
from k10s_forensics.store.values import iso, parse_iso, sha256_file, to_text, utcnow, write_json_atomic


@dataclass
class Bundle:
    """An opened bundle directory whose manifest has been checked."""

    path: Path
    manifest: dict[str, Any]
    #: Where the derived tables are read from: ``path/tables`` or, for a read-only bundle, a
    #: per-user cache entry (set by :func:`k10s_forensics.rebuild.run.ensure_layer` or :func:`k10s_forensics.store.derived.attach`).
    tables_dir: Path | None = None
    derived_lock: Any = None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> "Bundle":
        root = Path(path)
        if not root.exists():
            raise BundleError(f"{root}: no such file or directory")
        if root.is_file():
            from k10s_forensics.store import archive  # archives unpack into a cache dir

            root = archive.unpack_to_cache(root)
        manifest_path = root / MANIFEST
        if not manifest_path.is_file():
            raise BundleError(f"{root}: not a k10s bundle (no {MANIFEST})")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BundleError(f"{manifest_path}: unreadable manifest ({exc.__class__.__name__}: {exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
            raise BundleError(f"{manifest_path}: not a k10s bundle manifest (format is not {FORMAT_NAME!r})")
        version = manifest.get("format_version")
        if version != FORMAT_VERSION:
            raise BundleError(
                f"{manifest_path}: bundle format version {version!r} is not supported "
                f"(this k10s reads version {FORMAT_VERSION})"
            )
        return cls(root, manifest)

    def raw_path(self, name: str) -> Path:
        return self.path / "raw" / f"{name}.parquet"

    def table_path(self, name: str) -> Path:
        return (self.tables_dir or self.path / "tables") / f"{name}.parquet"

    def has_raw(self, name: str) -> bool:
        return self.raw_path(name).is_file()

    def table_names(self) -> list[str]:
        folder = self.tables_dir or self.path / "tables"
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.parquet"))

    def save_manifest(self) -> None:
        write_json_atomic(self.path / MANIFEST, self.manifest)

    def refresh_checksums(self) -> None:
        """Record SHA-256 and size of every evidence file but the manifest (sorted paths).

        Derived tables are not evidence: they carry their own record (tables/derived.json).
        Only a writer of new evidence (capture, redact) calls this, before the manifest is final.
        """
        files: dict[str, dict[str, Any]] = {}
        for p in sorted(self.path.rglob("*")):
            if not p.is_file() or p.name == MANIFEST or p.name.endswith((".tmp", ".partial")):
                continue
            rel = p.relative_to(self.path).as_posix()
            if is_derived_path(rel):
                continue
            files[rel] = {"sha256": sha256_file(p), "bytes": p.stat().st_size}
        self.manifest["files"] = files


class BundleWriter:
    """Creates a bundle directory and streams the raw layer into it."""

    def __init__(self, path: str | os.PathLike[str], manifest: dict[str, Any] | None = None):
        self.path = Path(path)
        if (self.path / MANIFEST).exists():
            raise BundleError(f"{self.path}: a bundle already exists there")
        (self.path / "raw").mkdir(parents=True, exist_ok=True)
        self.manifest = manifest or new_manifest()
        self.writers = {name: RawWriter(self.path / "raw" / f"{name}.parquet", schema, group_by=GROUP_BY.get(name)) for name, schema in RAW_SCHEMAS.items()}
        self._lock = threading.Lock()
        # An early manifest makes an interrupted capture a valid (incomplete) bundle.
        self.manifest["complete"] = False
        write_json_atomic(self.path / MANIFEST, self.manifest)

    def add(self, raw_name: str, row: Mapping[str, Any]) -> None:
        self.writers[raw_name].append(row)

    def record_collector(self, run: Mapping[str, Any]) -> None:
        status = run.get("status")
        if status not in COLLECTOR_STATUSES:
            raise ValueError(f"collector status {status!r} is not one of {COLLECTOR_STATUSES}")
        entry = {
            "name": run["name"],
            "status": status,
            "started_at": run.get("started_at"),
            "finished_at": run.get("finished_at"),
            "rows": int(run.get("rows", 0)),
            "errors": list(run.get("errors", [])),
        }
        entry.update({k: v for k, v in run.items() if k not in entry})
        with self._lock:
            self.manifest["collectors"] = [c for c in self.manifest["collectors"] if c["name"] != entry["name"]]
            self.manifest["collectors"].append(entry)

    def checkpoint(self) -> None:
        """Flush buffered rows and rewrite the manifest; the bundle stays readable."""
        for writer in self.writers.values():
            writer.flush()
        with self._lock:
            write_json_atomic(self.path / MANIFEST, self.manifest)

    def close(self, complete: bool = True) -> Bundle:
        for writer in self.writers.values():
            writer.close()
        bundle = Bundle(self.path, self.manifest)
        bundle.manifest["complete"] = bool(complete)
        bundle.refresh_checksums()
        bundle.save_manifest()
        return bundle


def read_raw(bundle: Bundle, name: str, columns: list[str] | None = None) -> pa.Table:
    """The raw table, or an empty table with the right schema when the file is absent."""
    schema = RAW_SCHEMAS[name]
    path = bundle.raw_path(name)
    if not path.is_file():
        return schema.empty_table() if columns is None else schema.empty_table().select(columns)
    return pq.read_table(path, columns=columns)


__all__ = [
    "Bundle",
    "BundleWriter",
    "RawWriter",
    "RAW_SCHEMAS",
    "RAW_NAMES",
    "MANIFEST",
    "TS",
    "new_manifest",
    "read_raw",
    "write_raw_table",
    "iso",
    "parse_iso",
    "to_text",
    "utcnow",
    # re-exported from their modules for the callers that import them from here
    "COLLECTOR_STATUSES",
    "COMPRESSION",
    "DERIVED_NAMES",
    "DERIVED_PREFIXES",
    "FORMAT_NAME",
    "GROUP_BY",
    "is_derived_path",
    "sha256_file",
    "split_groups",
    "write_json_atomic",
]
