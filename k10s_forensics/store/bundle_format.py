"""What a bundle holds, by the format (version 1, docs/bundle-format.md): the file names and
constants, the raw layer's schemas, the manifest skeleton, and which paths are derived data."""

from __future__ import annotations

import datetime as dt
from typing import Any, Mapping

import pyarrow as pa

from k10s_forensics import FORMAT_VERSION, __version__
from k10s_forensics.store.values import iso, utcnow

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


#: Raw tables written with one value of a column per row group (see docs/bundle-format.md).
GROUP_BY: dict[str, str] = {"exec": "source"}


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


__all__ = ["MANIFEST", "FORMAT_NAME", "TS", "COMPRESSION", "COLLECTOR_STATUSES", "RAW_SCHEMAS", "RAW_NAMES", "GROUP_BY",
           "new_manifest", "DERIVED_NAMES", "DERIVED_PREFIXES", "is_derived_path"]
