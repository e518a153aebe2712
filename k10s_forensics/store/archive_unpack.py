"""Streaming a bundle archive into a folder: the manifest first, then each member checked
(``archive_checks``) before a byte of it is written, written with ``O_EXCL|O_NOFOLLOW``, hashed
while it streams and compared with the manifest."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k10s_forensics.errors import BundleError, UnsafeArchiveError
from k10s_forensics.store.archive_checks import (
    CHUNK,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    _ancestor_dirs,
    _check_budget,
    _manifest_files,
    _strip_prefix,
    check_member_name,
    check_member_type,
)


@dataclass
class UnpackResult:
    """What an unpack wrote and which problems it found (when asked to collect them)."""

    root: Path
    manifest: dict[str, Any]
    files: int = 0
    bytes_written: int = 0
    digests: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _write_member(tf: tarfile.TarFile, member: tarfile.TarInfo, dest: Path, declared: int, origin: str) -> str:
    """Stream one member to ``dest`` (created exclusively, never through a link); return its SHA-256."""
    if member.size != declared:
        kind = "larger" if member.size > declared else "smaller"
        raise UnsafeArchiveError(
            f"{origin}: member {member.name!r} is {member.size} bytes, {kind} than the {declared} the manifest lists (refused)"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(dest, flags, 0o644)
    digest = hashlib.sha256()
    written = 0
    src = tf.extractfile(member)
    if src is None:  # pragma: no cover - regular files always have data
        os.close(fd)
        raise UnsafeArchiveError(f"{origin}: member {member.name!r} has no data")
    with os.fdopen(fd, "wb") as out:
        while True:
            block = src.read(CHUNK)
            if not block:
                break
            written += len(block)
            if written > declared:
                raise UnsafeArchiveError(f"{origin}: member {member.name!r} expands past its declared size (refused)")
            digest.update(block)
            out.write(block)
    return digest.hexdigest()


def safe_unpack(archive: Path, target: Path, *, collect: bool = False, on_file: Callable[[str, Path], None] | None = None) -> UnpackResult:
    """Unpack ``archive`` into the new folder ``target`` with every safety check.

    Unsafe members always raise UnsafeArchiveError. Checksum mismatches and listed files
    missing from the archive raise BundleError, or are collected in ``problems`` when
    ``collect`` is true (``k10s verify`` names every one). ``on_file(rel, path)`` is called
    as each file lands (``k10s verify`` starts reading Parquet files while the rest unpacks).
    """
    origin = str(archive)
    target.mkdir(parents=True, exist_ok=False, mode=0o700)
    base = target.resolve()
    try:
        tf = tarfile.open(archive, mode="r|*", bufsize=CHUNK)
    except (tarfile.TarError, OSError, EOFError, zlib.error, TypeError, ValueError) as exc:  # tarfile raises TypeError on a 3-byte gzip
        raise BundleError(f"{origin}: not a readable tar archive ({exc.__class__.__name__}: {exc})") from None
    try:
        return _unpack_stream(tf, archive, target, base, collect=collect, on_file=on_file)
    except (tarfile.TarError, EOFError, zlib.error, TypeError) as exc:  # damage anywhere in the stream, e.g. inside the manifest
        raise BundleError(f"{origin}: archive is truncated or damaged ({exc.__class__.__name__}: {exc})") from None


def _unpack_stream(tf: tarfile.TarFile, archive: Path, target: Path, base: Path, *, collect: bool,
                   on_file: Callable[[str, Path], None] | None) -> UnpackResult:
    origin = str(archive)
    archive_bytes = archive.stat().st_size
    problems: list[str] = []
    with tf:
        try:
            first = tf.next()
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise BundleError(f"{origin}: not a readable tar archive ({exc})") from None
        manifest, prefix, manifest_bytes = _read_manifest_member(tf, first, origin)
        files = _manifest_files(manifest, origin)
        _check_budget(files, archive_bytes, origin)
        (target / MANIFEST).write_bytes(manifest_bytes)
        allowed_dirs = _ancestor_dirs(files)
        result = UnpackResult(target, manifest)
        seen: set[str] = set()
        while True:
            try:
                member = tf.next()
            except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
                raise BundleError(f"{origin}: archive is truncated or damaged ({exc})") from None
            if member is None:
                break
            name = check_member_name(member.name)
            check_member_type(member)
            rel = _strip_prefix(name, prefix, origin)
            if member.isdir():
                if rel not in allowed_dirs:
                    raise UnsafeArchiveError(f"{origin}: member {member.name!r} is a folder the manifest does not list (refused)")
                continue
            if rel not in files:
                raise UnsafeArchiveError(f"{origin}: member {member.name!r} is not listed in the manifest (refused)")
            if rel in seen:
                raise UnsafeArchiveError(f"{origin}: member {member.name!r} appears twice (refused)")
            seen.add(rel)
            dest = base / rel
            if not str(dest.resolve().parent).startswith(str(base)):
                raise UnsafeArchiveError(f"{origin}: member {member.name!r} would land outside the target (refused)")
            try:
                digest = _write_member(tf, member, dest, int(files[rel]["bytes"]), origin)
            except (tarfile.TarError, EOFError, OSError) as exc:
                if isinstance(exc, FileExistsError):
                    raise UnsafeArchiveError(f"{origin}: member {member.name!r} appears twice (refused)") from None
                raise BundleError(f"{origin}: archive is truncated or damaged at {member.name!r} ({exc})") from None
            result.digests[rel] = digest
            if on_file is not None:
                on_file(rel, dest)
            result.files += 1
            result.bytes_written += member.size
            expected = str(files[rel].get("sha256") or "")
            if digest != expected:
                problems.append(f"{rel}: checksum mismatch (manifest {expected[:12] or 'none'}..., archive {digest[:12]}...): altered or damaged")
        for rel in sorted(set(files) - seen):
            if not rel.startswith("tables/"):  # derived tables are rebuilt, never required
                problems.append(f"{rel}: listed in the manifest but missing from the archive")
    result.problems = problems
    if problems and not collect:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BundleError(f"{origin}: {problems[0]}{more}")
    return result


def _read_manifest_member(tf: tarfile.TarFile, first: tarfile.TarInfo | None, origin: str) -> tuple[Any, str, bytes]:
    if first is None:
        raise BundleError(f"{origin}: empty archive (no {MANIFEST})")
    name = check_member_name(first.name)
    check_member_type(first)
    # Skip one leading folder entry (``tar czf b.tgz bundle/`` writes it first).
    if first.isdir():
        prefix_dir = name
        first = tf.next()
        if first is None:
            raise BundleError(f"{origin}: empty archive (no {MANIFEST})")
        name = check_member_name(first.name)
        check_member_type(first)
        if posixpath.dirname(name) != prefix_dir:
            raise BundleError(f"{origin}: not a k10s bundle archive ({MANIFEST} must come first)")
    if posixpath.basename(name) != MANIFEST or name.count("/") > 1 or not first.isreg():
        raise BundleError(f"{origin}: not a k10s bundle archive ({MANIFEST} must be the first member, found {first.name!r})")
    if first.size > MAX_MANIFEST_BYTES:
        raise UnsafeArchiveError(f"{origin}: {MANIFEST} is {first.size} bytes, over {MAX_MANIFEST_BYTES} (refused)")
    data = tf.extractfile(first)
    raw = data.read(MAX_MANIFEST_BYTES + 1) if data else b""
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{origin}: unreadable {MANIFEST} ({exc})") from None
    prefix = posixpath.dirname(name)
    return manifest, prefix, raw


__all__ = ["UnpackResult", "safe_unpack"]
