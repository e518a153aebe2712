"""Identity across bundles: bundle ids, hardware keys and partition slugs.

* a bundle is the SHA-256 over its raw files' checksums (``raw/<name>.parquet:<sha256>``
  lines, sorted), so re-deriving ``tables/`` or re-packing it as an archive keeps its id;
* a GPU is its board serial where a source knows it (nvidia-smi), else its UUID (the
  fleet views resolve a UUID to the serial seen with it in any bundle);
* a node is its system UUID, else its machine ID, else its name (renames keep the key).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import Bundle, sha256_file

#: Serial texts that mean "unknown" in nvidia-smi and DCGM output.
_NO_SERIAL = {"", "n/a", "[n/a]", "not supported", "[not supported]", "unknown", "none", "0", "00000000000000"}
_SLUG_BAD = re.compile(r"[^a-z0-9._-]+")


def bundle_id(bundle: Bundle) -> str:
    """SHA-256 over the raw layer's checksums (from the manifest, computed when absent)."""
    files = bundle.manifest.get("files") or {}
    lines = []
    for raw in sorted((bundle.path / "raw").glob("*.parquet")):
        rel = f"raw/{raw.name}"
        entry = files.get(rel) if isinstance(files, dict) else None
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        lines.append(f"{rel}:{digest or sha256_file(raw)}")
    if not lines:  # a manifest-only bundle: its manifest is all there is
        lines.append("manifest.json:" + sha256_file(bundle.path / "manifest.json"))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def clean_serial(value: Any) -> str | None:
    """The board serial, or None for the texts tools print when they do not know it."""
    if value is None:
        return None
    text = str(value).strip()
    return None if text.lower() in _NO_SERIAL else text


def node_key(name: str | None, system_uuid: str | None = None, machine_id: str | None = None) -> str | None:
    """The node's identity across bundles: system UUID > machine ID > name."""
    for prefix, value in (("system-uuid:", system_uuid), ("machine-id:", machine_id), ("name:", name)):
        if value and str(value).strip():
            return prefix + str(value).strip().lower()
    return None


def partition_slug(value: str | None, fallback: str = "unknown") -> str:
    """A Hive partition value safe on every engine and object store: ``[a-z0-9._-]``.

    An altered value gets a short hash so two names never share a folder by accident.
    """
    text = (value or "").strip()
    slug = _SLUG_BAD.sub("-", text.lower()).strip("-.")[:60] or fallback
    if slug != text:
        slug = f"{slug}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return slug


def cluster_name(manifest: dict[str, Any]) -> str:
    cluster = manifest.get("cluster") or {}
    if not isinstance(cluster, dict):
        return "unknown"
    return str(cluster.get("context") or cluster.get("server") or "unknown")


def is_bundle_dir(path: Path) -> bool:
    return (path / "manifest.json").is_file()


__all__ = ["bundle_id", "clean_serial", "node_key", "partition_slug", "cluster_name", "is_bundle_dir"]
