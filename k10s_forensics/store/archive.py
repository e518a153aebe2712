"""Bundle archives (.tar.gz): safe, streamed unpacking into a cache directory.

A bundle archive (written by ``k10s pack``) holds ``manifest.json`` first, then every file
the manifest lists, optionally under one top-level folder. Unpacking refuses anything a
bundle never holds, before a byte of it is written:

* absolute paths, ``..`` components, backslashes or NUL in names;
* symbolic links, hard links, device files, FIFOs, sparse members;
* members the manifest does not list, duplicate members, a manifest that is not first;
* archives that would expand past a limit (decompression bombs): a member larger than the
  manifest says, a total larger than ``K10S_MAX_UNPACK_BYTES`` (default 32 GiB), or an
  expansion ratio above ``K10S_MAX_UNPACK_RATIO`` (default 100) for totals over 64 MiB.

Files are written with ``O_EXCL|O_NOFOLLOW`` into a fresh temporary folder, hashed while
they stream, and the folder is renamed into place only when every checksum matched; on any
error the temporary folder is removed, so nothing is left behind and nothing is ever
written outside it.

The cache lives in ``$K10S_CACHE_DIR`` (default ``~/.cache/k10s/bundles``), one folder per
archive named by the archive's SHA-256, and is reused when already unpacked and verified.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import shutil
import tarfile
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k10s_forensics.errors import BundleError, UnsafeArchiveError

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 16 << 20
DEFAULT_MAX_BYTES = 32 << 30
DEFAULT_MAX_RATIO = 100.0
RATIO_FLOOR_BYTES = 64 << 20
CHUNK = 1 << 20
VERIFIED_SUFFIX = ".verified"


def cache_root() -> Path:
    """Folder holding unpacked archives (``$K10S_CACHE_DIR`` or ``~/.cache/k10s/bundles``)."""
    env = os.environ.get("K10S_CACHE_DIR")
    root = Path(env).expanduser() if env else Path.home() / ".cache" / "k10s" / "bundles"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return root


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


def is_archive(path: Path) -> bool:
    """True for a file that starts like a tar archive, gzip-compressed or not."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        return True
    return len(head) == 512 and head[257:262] == b"ustar"


@dataclass
class UnpackResult:
    """What an unpack wrote and which problems it found (when asked to collect them)."""

    root: Path
    manifest: dict[str, Any]
    files: int = 0
    bytes_written: int = 0
    digests: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


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


def archive_sha256(path: Path) -> str:
    """SHA-256 of the archive, remembered per (path, size, mtime) to skip re-hashing."""
    st = path.stat()
    index_path = cache_root() / "index.json"
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8"))
        if not isinstance(index, dict):
            index = {}
    except (OSError, ValueError):
        index = {}
    if key in index:
        return str(index[key])
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    sha = digest.hexdigest()
    index = {k: v for k, v in index.items() if not k.startswith(f"{path.resolve()}|")}
    index[key] = sha
    tmp = index_path.with_name(f"index.{uuid.uuid4().hex}.tmp")
    tmp.write_text(json.dumps(index), encoding="utf-8")
    os.replace(tmp, index_path)
    return sha


def unpack_to_cache(path: Path, *, collect: bool = False) -> Path:
    """Unpack an archive safely into the cache (or reuse it) and return the bundle folder.

    Raises BundleError / UnsafeArchiveError with one clear message when the file is not a
    bundle archive, is hostile, or does not match its own checksums.
    """
    path = Path(path)
    if not is_archive(path):
        raise BundleError(f"{path}: not a k10s bundle (neither a bundle folder nor a .tar.gz archive)")
    root = cache_root()
    sha = archive_sha256(path)
    final = root / sha
    marker = root / f"{sha}{VERIFIED_SUFFIX}"
    if marker.is_file() and (final / MANIFEST).is_file():
        return final
    tmp = root / f"{sha}.{uuid.uuid4().hex}.tmp"
    try:
        safe_unpack(path, tmp, collect=False)
        adopt(tmp, final, marker)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def adopt(tmp: Path, final: Path, marker: Path) -> None:
    """Move a verified unpack into place (another process may have won the race)."""
    if final.exists():
        if (final / MANIFEST).is_file():  # another process adopted the same archive (same SHA-256): keep it,
            if not marker.is_file():      # it may already be reading it
                marker.write_text(str(final) + "\n", encoding="utf-8")
            return
        shutil.rmtree(final, ignore_errors=True)
    try:
        os.replace(tmp, final)
    except OSError:
        if not (final / MANIFEST).is_file():
            raise
    marker.write_text(str(final) + "\n", encoding="utf-8")


__all__ = [
    "UnpackResult",
    "archive_sha256",
    "cache_root",
    "check_member_name",
    "check_member_type",
    "is_archive",
    "safe_unpack",
    "unpack_to_cache",
]
