"""``k10s pack``: one reproducible ``.tar.gz`` of a bundle, streamed.

Members: ``<name>/manifest.json`` first, then every evidence file the manifest lists in
sorted order. The derived layer (tables/) is not shipped: the recipient's k10s rebuilds it
with its own parsers (a manifest written by an older k10s may still list tables/ files;
they are left out and the unpacker does not miss them). Owner, group, permissions and times are fixed (mtime = the manifest's
``created_at``) and the gzip header carries no name or time, so packing the same bundle
twice gives the same bytes. Each file is hashed while it streams and compared with the
manifest: a bundle edited after its manifest was written is refused, not shipped.

Parquet members are already zstd-compressed (deflate saves about 1% of them at a tenth of
the speed), so they are *stored* in the deflate stream (level 0); the manifest and any
other member are compressed at ``level``. One gzip member holds it all: the compressor is
switched between tar members after a sync flush, which every gzip reader accepts.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import struct
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from k10s_forensics.store.bundle import MANIFEST, Bundle, parse_iso
from k10s_forensics.store.derived import is_derived_path
from k10s_forensics.errors import BundleError

CHUNK = 1 << 20
DEFAULT_LEVEL = 6
#: Deflate level of Parquet members (0 = stored: they are zstd-compressed already).
PARQUET_LEVEL = 0
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no name, mtime 0, OS unknown
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class PackResult:
    """What ``pack`` wrote."""

    path: Path
    sha256: str
    members: list[str] = field(default_factory=list)
    bytes_in: int = 0
    bytes_out: int = 0
    skipped: list[str] = field(default_factory=list)


class _HashingWriter(io.RawIOBase):
    """A write-only file that hashes and counts what passes through it."""

    def __init__(self, fh: IO[bytes]):
        self.fh = fh
        self.digest = hashlib.sha256()
        self.count = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[override]
        view = memoryview(data)
        self.digest.update(view)
        self.count += len(view)
        self.fh.write(view)
        return len(view)


class _GzipTar:
    """A streamed ``.tar.gz`` whose deflate level can change from one member to the next."""

    def __init__(self, out: _HashingWriter):
        self.out = out
        self.crc = 0
        self.size = 0
        self.level: int | None = None
        self.deflate = None
        out.write(_GZIP_HEADER)

    def _level(self, level: int) -> None:
        if level == self.level:
            return
        if self.deflate is not None:
            self.out.write(self.deflate.flush(zlib.Z_SYNC_FLUSH))  # byte-aligned, not final
        self.deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS, 9)
        self.level = level

    def write(self, data: bytes, level: int) -> None:
        self._level(level)
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        block = self.deflate.compress(data)
        if block:
            self.out.write(block)

    def add(self, info: tarfile.TarInfo, fh: IO[bytes], level: int) -> str:
        """Write one member; returns the SHA-256 of its data."""
        self.write(info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape"), level)
        digest = hashlib.sha256()
        remaining = info.size
        while remaining > 0:
            block = fh.read(min(CHUNK, remaining))
            if not block:
                raise BundleError(f"{info.name}: file shrank while packing")
            digest.update(block)
            self.write(block, level)
            remaining -= len(block)
        if info.size % tarfile.BLOCKSIZE:
            self.write(tarfile.NUL * (tarfile.BLOCKSIZE - info.size % tarfile.BLOCKSIZE), level)
        return digest.hexdigest()

    def close(self) -> None:
        self.write(tarfile.NUL * (2 * tarfile.BLOCKSIZE), DEFAULT_LEVEL)
        if self.size % tarfile.RECORDSIZE:
            self.write(tarfile.NUL * (tarfile.RECORDSIZE - self.size % tarfile.RECORDSIZE), DEFAULT_LEVEL)
        self.out.write(self.deflate.flush(zlib.Z_FINISH))
        self.out.write(struct.pack("<II", self.crc & 0xFFFFFFFF, self.size & 0xFFFFFFFF))


def default_output(bundle_dir: Path) -> Path:
    return bundle_dir.parent / f"{bundle_dir.name}.tar.gz"


def unlisted_files(bundle: Bundle) -> list[str]:
    """Files in the bundle folder that the manifest does not list (never packed)."""
    listed = set((bundle.manifest.get("files") or {}).keys())
    out = []
    for p in sorted(bundle.path.rglob("*")):
        if p.is_file() or p.is_symlink():
            rel = p.relative_to(bundle.path).as_posix()
            if rel != MANIFEST and rel not in listed and not is_derived_path(rel):
                out.append(rel)
    return out


def pack(bundle_path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *, level: int = DEFAULT_LEVEL) -> PackResult:
    """Write ``bundle_path`` as one ``.tar.gz`` and return what was written."""
    src = Path(bundle_path)
    if src.is_file():
        raise BundleError(f"{src}: already a file (pack takes a bundle folder; verify an archive with k10s verify)")
    bundle = Bundle.open(src)
    files = bundle.manifest.get("files")
    if not isinstance(files, dict):
        raise BundleError(f"{src}: manifest has no 'files' table (run k10s rebuild to refresh it)")
    target = Path(out) if out else default_output(bundle.path.resolve())
    if target.resolve().is_relative_to(bundle.path.resolve()):
        raise BundleError(f"{target}: the archive cannot be written inside the bundle it packs")
    prefix = _SAFE_NAME.sub("-", bundle.path.resolve().name).strip(".-") or "bundle"
    created = parse_iso(bundle.manifest.get("created_at"))
    mtime = int(created.timestamp()) if created else 0
    result = PackResult(target, "", skipped=unlisted_files(bundle))
    partial = target.with_name(target.name + ".partial")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(partial, "wb") as raw_out:
            hashing = _HashingWriter(raw_out)
            tar = _GzipTar(hashing)
            manifest_path = bundle.path / MANIFEST
            _add(tar, f"{prefix}/{MANIFEST}", manifest_path, mtime, None, level=level)
            result.members.append(f"{prefix}/{MANIFEST}")
            for rel in sorted(files):
                if is_derived_path(rel):
                    continue  # derived tables (listed by an older k10s) are rebuilt by the recipient
                entry = files[rel]
                path = bundle.path / rel
                if not path.is_file() or path.is_symlink():
                    raise BundleError(f"{src}: {rel} is listed in the manifest but missing (run k10s verify {src})")
                expected = entry.get("sha256") if isinstance(entry, dict) else None
                member_level = PARQUET_LEVEL if rel.endswith(".parquet") else level
                result.bytes_in += _add(tar, f"{prefix}/{rel}", path, mtime, str(expected or ""), src, level=member_level)
                result.members.append(f"{prefix}/{rel}")
            tar.close()
        os.replace(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
    result.sha256 = hashing.digest.hexdigest()
    result.bytes_out = hashing.count
    return result


def _add(tar: _GzipTar, name: str, path: Path, mtime: int, expected: str | None, src: Path | None = None, *, level: int) -> int:
    size = path.stat().st_size
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = mtime
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    with open(path, "rb") as fh:
        digest = tar.add(info, fh, level)
    if expected is not None and digest != expected:
        rel = name.split("/", 1)[1]
        raise BundleError(
            f"{src}: {rel} changed since the manifest was written (checksum mismatch); "
            f"run k10s verify {src}, or k10s rebuild {src} to refresh the manifest"
        )
    return size


__all__ = ["PackResult", "pack", "default_output", "unlisted_files"]
