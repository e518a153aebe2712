"""``k10s verify``: is this bundle (folder or archive) whole, unedited and readable?

Checks, each problem named on its own line:

* the manifest: format name, format version, the keys the format fixes and their types;
* the evidence: every file the manifest lists (raw/): present, its size and SHA-256; files
  it does not list (a ``raw/*.parquet.partial`` left by a killed capture is named as such);
* the derived layer apart: tables/ against its own record (tables/derived.json); missing or
  stale (older parsers, other raw files) is a state, not a problem, since analyze rebuilds it;
* every Parquet file reads to the end (row group by row group, memory stays bounded);
* raw files have the contract's required columns and types, derived tables their columns;
* archives: everything ``safe_unpack`` refuses (links, traversal, bombs, unlisted members).

A verified archive is kept in the unpack cache, so ``k10s analyze ARCHIVE`` reuses it.

Parts, by kind of check: ``verify_manifest``, ``verify_files`` (size, SHA-256), ``verify_parquet``,
``verify_derived`` (tables/ against its record), and ``verify_result``; this module walks a folder or
an archive through them and re-exports their public names.
"""

from __future__ import annotations

import os
import shutil
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from k10s_forensics.errors import BundleError, UnsafeArchiveError
from k10s_forensics.sharing.verify_derived import verify_derived
from k10s_forensics.sharing.verify_files import _check_file, _sha256
from k10s_forensics.sharing.verify_manifest import REDACTION_LEVELS, _check_manifest
from k10s_forensics.sharing.verify_parquet import _submit_parquet
from k10s_forensics.sharing.verify_result import VerifyResult, summary_line
from k10s_forensics.store import archive as archive_mod
from k10s_forensics.store.bundle import MANIFEST
from k10s_forensics.store.derived import is_derived_path

WORKERS = max(2, min(4, os.cpu_count() or 2))


def verify(path: str | Path) -> VerifyResult:
    """Verify a bundle folder or a bundle archive; never raises for a damaged bundle."""
    p = Path(path)
    if not p.exists():
        raise BundleError(f"{p}: no such file or directory")
    if p.is_dir():
        result = VerifyResult(p, bundle_dir=p)
        verify_dir(p, result, checksums=True)
        return result
    return _verify_archive(p)


def _verify_archive(path: Path) -> VerifyResult:
    result = VerifyResult(path, is_archive=True)
    if not archive_mod.is_archive(path):
        result.problems.append(f"{path}: not a k10s bundle (neither a bundle folder nor a .tar.gz archive)")
        return result
    root = archive_mod.cache_root()
    sha = archive_mod.archive_sha256(path)
    tmp = root / f"{sha}.{uuid.uuid4().hex}.tmp"
    try:
        with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="k10s-verify") as pool:
            reads: dict[str, tuple] = {}

            def landed(rel: str, dest: Path) -> None:  # read Parquet files while the rest unpacks
                if rel.endswith(".parquet"):
                    reads[rel] = _submit_parquet(pool, dest)

            try:
                unpacked = archive_mod.safe_unpack(path, tmp, collect=True, on_file=landed)
            except UnsafeArchiveError as exc:
                result.problems.append(f"unsafe archive: {exc}")
                return result
            except BundleError as exc:
                result.problems.append(str(exc))
                return result
            result.problems.extend(unpacked.problems)
            result.bundle_dir = tmp
            verify_dir(tmp, result, checksums=False, digests=unpacked.digests, reads=reads)
        if result.ok:
            archive_mod.adopt(tmp, root / sha, root / f"{sha}{archive_mod.VERIFIED_SUFFIX}")
            result.bundle_dir = root / sha
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def verify_dir(root: Path, result: VerifyResult, *, checksums: bool = True, digests: dict[str, str] | None = None,
               reads: dict[str, tuple] | None = None) -> None:
    """Check a bundle folder, appending to ``result``.

    Checksums and Parquet reads of different files run on a small thread pool (hashlib
    and pyarrow release the GIL); problems are reported in the manifest's file order.
    """
    manifest = _check_manifest(root, result)
    if manifest is None:
        return
    result.manifest = manifest
    listed = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    # Derived tables listed by an older k10s are checked against tables/derived.json instead.
    files = {rel: entry for rel, entry in listed.items() if not is_derived_path(rel)}
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="k10s-verify") as pool:
        hashes: dict[str, Future] = {}
        reads = dict(reads or {})
        for rel in sorted(files):
            path = root / rel
            if ".." in rel.split("/") or rel.startswith("/") or path.is_symlink() or not path.is_file():
                continue
            if checksums and isinstance(files[rel], dict) and isinstance(files[rel].get("sha256"), str):
                hashes[rel] = pool.submit(_sha256, path)
            if rel.endswith(".parquet") and rel not in reads:
                reads[rel] = _submit_parquet(pool, path)
        for rel in sorted(files):
            _check_file(root, rel, files[rel], result, hashes.get(rel), reads.get(rel), checksums, digests)
    if checksums:
        for p in sorted(root.rglob("*")):
            if p.is_dir() and not p.is_symlink():
                continue
            rel = p.relative_to(root).as_posix()
            if rel == MANIFEST or rel in files or is_derived_path(rel):
                continue
            if rel.startswith("raw/") and rel.endswith(".parquet.partial"):
                result.problems.append(f"{rel}: the capture was killed while writing {rel.removesuffix('.partial')}; its rows are lost")
            else:
                result.problems.append(f"{rel}: present but not listed in the manifest (added after capture?)")
    verify_derived(root, files, result, in_archive=not checksums)
    if not any(r.startswith("raw/") for r in files):
        result.warnings.append("the bundle holds no raw evidence files (every collector skipped or failed?)")


__all__ = ["VerifyResult", "verify", "verify_dir", "verify_derived", "summary_line", "REDACTION_LEVELS"]
