"""What an archive member must be to be unpacked: a safe relative name, a regular file or folder,
listed by the manifest, inside the bundle folder, and within the size and expansion limits
(``K10S_MAX_UNPACK_BYTES``, ``K10S_MAX_UNPACK_RATIO``). Each check raises one clear error."""

from __future__ import annotations

import os
import posixpath
import tarfile
from typing import Any

from k10s_forensics.errors import BundleError, UnsafeArchiveError

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 16 << 20
DEFAULT_MAX_BYTES = 32 << 30
DEFAULT_MAX_RATIO = 100.0
RATIO_FLOOR_BYTES = 64 << 20
CHUNK = 1 << 20


def max_unpack_bytes() -> int:
    return _env_number("K10S_MAX_UNPACK_BYTES", DEFAULT_MAX_BYTES, int)


def max_unpack_ratio() -> float:
    return _env_number("K10S_MAX_UNPACK_RATIO", DEFAULT_MAX_RATIO, float)


def _env_number(name: str, default: Any, kind: type) -> Any:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise BundleError(f"{name}={text!r} is not a number") from None


def check_member_name(name: str) -> str:
    """The normalised relative path of an archive member, or UnsafeArchiveError."""
    if not name or "\x00" in name or "\\" in name:
        raise UnsafeArchiveError(f"archive member {name!r} has an invalid name (refused)")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"archive member {name!r} is an absolute path (refused)")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise UnsafeArchiveError(f"archive member {name!r} escapes the target directory with '..' (refused)")
    if not parts:
        raise UnsafeArchiveError(f"archive member {name!r} has an empty path (refused)")
    return "/".join(parts)


def check_member_type(member: tarfile.TarInfo) -> None:
    """Only regular files and directories may be unpacked."""
    if member.issym():
        raise UnsafeArchiveError(f"archive member {member.name!r} is a symbolic link to {member.linkname!r} (refused)")
    if member.islnk():
        raise UnsafeArchiveError(f"archive member {member.name!r} is a hard link to {member.linkname!r} (refused)")
    if member.isdev():
        raise UnsafeArchiveError(f"archive member {member.name!r} is a device file or FIFO (refused)")
    if member.issparse():
        raise UnsafeArchiveError(f"archive member {member.name!r} is a sparse file (refused)")
    if not (member.isreg() or member.isdir()) or member.type == tarfile.CONTTYPE:
        raise UnsafeArchiveError(f"archive member {member.name!r} has unsupported type {member.type!r} (refused)")


def _manifest_files(manifest: Any, origin: str) -> dict[str, dict[str, Any]]:
    if not isinstance(manifest, dict) or manifest.get("format") != "k10s-bundle":
        raise BundleError(f"{origin}: not a k10s bundle archive (manifest format is not 'k10s-bundle')")
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise BundleError(f"{origin}: manifest has no 'files' table")
    out: dict[str, dict[str, Any]] = {}
    for rel, entry in files.items():
        clean = check_member_name(str(rel))
        if clean == MANIFEST or clean != rel:
            raise UnsafeArchiveError(f"{origin}: manifest lists an unsafe path {rel!r} (refused)")
        if not isinstance(entry, dict) or not isinstance(entry.get("bytes"), int) or entry["bytes"] < 0:
            raise BundleError(f"{origin}: manifest entry for {rel!r} has no valid 'bytes'")
        out[rel] = entry
    return out


def _check_budget(files: dict[str, dict[str, Any]], archive_bytes: int, origin: str) -> int:
    total = sum(int(e["bytes"]) for e in files.values())
    limit = max_unpack_bytes()
    if total > limit:
        raise UnsafeArchiveError(
            f"{origin}: would expand to {total} bytes, over the limit of {limit} bytes "
            f"(decompression bomb? raise K10S_MAX_UNPACK_BYTES if this bundle is genuine)"
        )
    ratio = total / max(archive_bytes, 1)
    if total > RATIO_FLOOR_BYTES and ratio > max_unpack_ratio():
        raise UnsafeArchiveError(
            f"{origin}: would expand {ratio:.0f}x ({archive_bytes} -> {total} bytes), over the ratio limit "
            f"of {max_unpack_ratio():.0f}x (decompression bomb? raise K10S_MAX_UNPACK_RATIO if genuine)"
        )
    return total


def _strip_prefix(name: str, prefix: str, origin: str) -> str:
    if not prefix:
        return name
    if name == prefix:
        return ""
    if not name.startswith(prefix + "/"):
        raise UnsafeArchiveError(f"{origin}: member {name!r} is outside the bundle folder {prefix!r} (refused)")
    return name[len(prefix) + 1 :]


def _ancestor_dirs(files: dict[str, Any]) -> set[str]:
    dirs = {""}
    for rel in files:
        parent = posixpath.dirname(rel)
        while parent:
            dirs.add(parent)
            parent = posixpath.dirname(parent)
    return dirs


__all__ = ["check_member_name", "check_member_type", "max_unpack_bytes", "max_unpack_ratio"]
