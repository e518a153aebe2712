"""The bundle on disk: manifest, raw evidence layer, derived tables.

Layout (format version 1, see docs/bundle-format.md)::

    <bundle>/manifest.json
    <bundle>/raw/{objects,exec,scrapes,logs}.parquet
    <bundle>/tables/<name>.parquet

``BundleWriter`` streams raw rows to Parquet as they arrive (memory stays flat);
``Bundle`` opens an existing bundle and checks its format.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics import FORMAT_VERSION, __version__
from k10s_forensics.errors import BundleError

MANIFEST = "manifest.json"
FORMAT_NAME = "k10s-bundle"
TS = pa.timestamp("us", tz="UTC")
COMPRESSION = "zstd"
COLLECTOR_STATUSES = ("ok", "partial", "failed", "skipped")

RAW_SCHEMAS: dict[str, pa.Schema] = {
    "objects": pa.schema(
        [
            ("captured_at", TS),
            ("api_version", pa.string()),
            ("kind", pa.string()),
            ("namespace", pa.string()),
            ("name", pa.string()),
            ("uid", pa.string()),
            ("body", pa.string()),
        ]
    ),
    "exec": pa.schema(
        [
            ("captured_at", TS),
            ("duration_ms", pa.int64()),
            ("source", pa.string()),
            ("node", pa.string()),
            ("namespace", pa.string()),
            ("pod", pa.string()),
            ("container", pa.string()),
            ("command", pa.string()),
            ("exit_code", pa.int32()),
            ("stdout", pa.string()),
            ("stderr", pa.string()),
            ("error", pa.string()),
        ]
    ),
    "scrapes": pa.schema(
        [
            ("captured_at", TS),
            ("source", pa.string()),
            ("node", pa.string()),
            ("url", pa.string()),
            ("status", pa.int32()),
            ("body", pa.string()),
            ("error", pa.string()),
        ]
    ),
    "logs": pa.schema(
        [
            ("captured_at", TS),
            ("node", pa.string()),
            ("namespace", pa.string()),
            ("pod", pa.string()),
            ("pod_uid", pa.string()),
            ("container", pa.string()),
            ("previous", pa.bool_()),
            ("body", pa.string()),
            ("error", pa.string()),
        ]
    ),
}
RAW_NAMES = tuple(RAW_SCHEMAS)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def iso(ts: dt.datetime | None) -> str | None:
    """RFC 3339 text in UTC with a Z suffix (seconds precision unless sub-second)."""
    if ts is None:
        return None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=dt.timezone.utc)
    ts = ts.astimezone(dt.timezone.utc)
    text = ts.isoformat(timespec="microseconds" if ts.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def parse_iso(text: str | None) -> dt.datetime | None:
    """Parse RFC 3339 (``Z`` or offset, up to nanoseconds) to an aware UTC datetime."""
    if not text:
        return None
    t = text.strip().replace("Z", "+00:00").replace("z", "+00:00")
    # Python < 3.11 and nanosecond fractions: trim the fraction to microseconds.
    if "." in t:
        head, _, rest = t.partition(".")
        frac = ""
        i = 0
        while i < len(rest) and rest[i].isdigit():
            frac += rest[i]
            i += 1
        t = f"{head}.{(frac + '000000')[:6]}{rest[i:]}"
    try:
        value = dt.datetime.fromisoformat(t)
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


def to_text(value: bytes | str | None) -> str | None:
    """UTF-8 text with invalid bytes replaced by U+FFFD (the bundle's rule for text)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to a unique temporary name, then rename it over ``path`` (readers see old or new)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def new_manifest(
    *,
    cluster: Mapping[str, Any] | None = None,
    scope: Mapping[str, Any] | None = None,
    window_start: dt.datetime | None = None,
    window_end: dt.datetime | None = None,
    created_at: dt.datetime | None = None,
) -> dict[str, Any]:
    """A manifest with every key the format fixes, in the spec's order."""
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "created_at": iso(created_at or utcnow()),
        "tool": {"name": "k10s", "version": __version__},
        "cluster": dict(cluster or {"context": None, "server": None, "kubernetes_version": None}),
        "scope": dict(scope or {"namespaces": [], "jobs": []}),
        "window": {"start": iso(window_start), "end": iso(window_end)},
        "complete": True,
        "collectors": [],
        "files": {},
    }


#: Top-level names of a bundle folder that belong to the derived layer or its machinery
#: (tables, the rebuild lock, a rebuild's temporary and old folders), not to the evidence.
DERIVED_NAMES = ("tables", ".k10s.lock")
DERIVED_PREFIXES = ("tables.tmp", "tables.old-")


def is_derived_path(rel: str) -> bool:
    """True for a bundle-relative path that is derived data or lock/temporary machinery."""
    head = rel.split("/", 1)[0]
    return head in DERIVED_NAMES or head.startswith(DERIVED_PREFIXES)


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


#: Raw tables written with one value of a column per row group (see docs/bundle-format.md).
GROUP_BY: dict[str, str] = {"exec": "source"}


def split_groups(table: pa.Table, column: str | None) -> list[pa.Table]:
    """``table`` split into one table per value of ``column`` (nulls last), each value in the
    order it first appears and the rows of each in their order; ``[table]`` without a column."""
    if column is None or table.num_rows == 0:
        return [table]
    import pyarrow.compute as pc  # here: analyze imports this module and never writes

    keys = table[column]
    values = pc.unique(keys).to_pylist()
    if len(values) == 1:
        return [table]
    parts = [table.filter(pc.fill_null(pc.equal(keys, v), False)) for v in values if v is not None]
    if None in values:
        parts.append(table.filter(pc.is_null(keys)))
    return parts


class RawWriter:
    """Streams rows of one raw table to Parquet, a row group per ``flush_rows`` rows.

    Rows stream into ``<name>.parquet.partial``, renamed to its final name only once the
    Parquet footer is written: a capture killed mid-way never leaves a half-written file
    under the final name (the ``.partial`` file says what was lost).
    Thread-safe: collectors running in parallel append to the same writer.
    """

    def __init__(self, path: Path, schema: pa.Schema, flush_rows: int = 2000, flush_bytes: int = 32 << 20,
                 group_by: str | None = None):
        self.path = path
        #: A column whose values each get row groups of their own (``source`` of raw/exec):
        #: a parser reading one source then skips every other source's row groups.
        self.group_by = group_by if group_by in schema.names else None
        self.partial = path.with_name(path.name + ".partial")
        self.schema = schema
        self.flush_rows = flush_rows
        self.flush_bytes = flush_bytes
        self.rows_written = 0
        self._buffer: list[dict[str, Any]] = []
        self._buffer_bytes = 0
        self._lock = threading.Lock()
        self._writer: pq.ParquetWriter | None = None

    def append(self, row: Mapping[str, Any]) -> None:
        clean = {name: _clean_value(row.get(name)) for name in self.schema.names}
        size = sum(len(v) for v in clean.values() if isinstance(v, str))
        with self._lock:
            self._buffer.append(clean)
            self._buffer_bytes += size
            if len(self._buffer) >= self.flush_rows or self._buffer_bytes >= self.flush_bytes:
                self._flush_locked()

    def extend(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            self.append(row)

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._buffer:
            return
        table = pa.Table.from_pylist(self._buffer, schema=self.schema)
        for part in split_groups(table, self.group_by):
            self._open_writer().write_table(part)
        self.rows_written += len(self._buffer)
        self._buffer = []
        self._buffer_bytes = 0

    def _open_writer(self) -> pq.ParquetWriter:
        """The Parquet writer, streaming into ``.partial`` until :meth:`close` renames it."""
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = pq.ParquetWriter(self.partial, self.schema, compression=COMPRESSION)
        return self._writer

    def close(self, write_empty: bool = True) -> None:
        """Flush and close; with ``write_empty`` a table that got no rows is still written."""
        with self._lock:
            self._flush_locked()
            if self._writer is None and write_empty:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(self.schema.empty_table(), self.partial, compression=COMPRESSION)
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            if self.partial.is_file():
                os.replace(self.partial, self.path)


def _clean_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return to_text(value)
    if isinstance(value, str):
        # Lone surrogates cannot be encoded as UTF-8: replace them as invalid bytes are.
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", errors="replace").decode("utf-8")
    return value


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


def write_raw_table(path: Path, name: str, rows: list[Mapping[str, Any]]) -> None:
    """Write a whole raw table at once (tests, simulator)."""
    writer = RawWriter(path / "raw" / f"{name}.parquet", RAW_SCHEMAS[name], group_by=GROUP_BY.get(name))
    writer.extend(rows)
    writer.close()


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
]
