"""``k10s verify``'s check of one listed file: a safe path, present, its size and SHA-256 against
its manifest entry (or the digest taken while unpacking), then its Parquet read."""

from __future__ import annotations

import hashlib
import re
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from k10s_forensics.sharing.verify_parquet import _check_parquet, _parquet_outcome
from k10s_forensics.sharing.verify_result import VerifyResult

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _check_file(root: Path, rel: str, entry: Any, result: VerifyResult, hashed: Future | None, read: tuple | None,
                checksums: bool, digests: dict[str, str] | None) -> None:
    path = root / rel
    if ".." in rel.split("/") or rel.startswith("/"):
        result.problems.append(f"manifest lists an unsafe path {rel!r}")
        return
    if path.is_symlink() or not path.is_file():
        result.problems.append(f"{rel}: listed in the manifest but missing")
        return
    size = path.stat().st_size
    result.files_checked += 1
    result.bytes_checked += size
    if not isinstance(entry, dict):
        result.problems.append(f"{rel}: manifest entry is not an object")
        return
    if entry.get("bytes") != size:
        result.problems.append(f"{rel}: size {size} bytes, manifest says {entry.get('bytes')}")
    expected = entry.get("sha256")
    if not isinstance(expected, str) or not _HEX64.match(expected):
        result.problems.append(f"{rel}: manifest has no valid sha256")
    elif checksums:
        actual = hashed.result() if hashed is not None else _sha256(path)
        if actual != expected:
            result.problems.append(f"{rel}: checksum mismatch (manifest {expected[:12]}..., file {actual[:12]}...): altered or damaged")
    elif digests is not None and rel not in digests:
        result.problems.append(f"{rel}: not checked (missing from the archive)")
    if read is not None:
        _check_parquet(rel, _parquet_outcome(read), result)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


__all__ = ["_check_file", "_sha256"]
