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

Parts: ``archive_checks`` (what a member must be, the limits), ``archive_unpack`` (the streamed,
checked unpack into a folder); this module holds the cache and re-exports their public names.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path

from k10s_forensics.errors import BundleError
from k10s_forensics.store.archive_checks import (
    CHUNK,
    MANIFEST,
    check_member_name,
    check_member_type,
    max_unpack_bytes,
    max_unpack_ratio,
)
from k10s_forensics.store.archive_unpack import UnpackResult, safe_unpack

VERIFIED_SUFFIX = ".verified"


def cache_root() -> Path:
    """Folder holding unpacked archives (``$K10S_CACHE_DIR`` or ``~/.cache/k10s/bundles``)."""
    env = os.environ.get("K10S_CACHE_DIR")
    root = Path(env).expanduser() if env else Path.home() / ".cache" / "k10s" / "bundles"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return root


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
    "max_unpack_bytes",
    "max_unpack_ratio",
    "safe_unpack",
    "unpack_to_cache",
]
