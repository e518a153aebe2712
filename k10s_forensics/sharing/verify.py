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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics import FORMAT_VERSION
from k10s_forensics.store import archive as archive_mod
from k10s_forensics.store.bundle import COLLECTOR_STATUSES, FORMAT_NAME, MANIFEST, RAW_SCHEMAS, parse_iso
from k10s_forensics.store.derived import is_derived_path
from k10s_forensics.errors import BundleError, UnsafeArchiveError
from k10s_forensics.store.tables import TABLES_BY_NAME

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
MAX_GROUP_BYTES = 256 << 20
WORKERS = max(2, min(4, os.cpu_count() or 2))
REDACTION_LEVELS = ("standard", "strict")


@dataclass
class VerifyResult:
    """Outcome of ``verify``: ``problems`` empty means the bundle is whole."""

    path: Path
    is_archive: bool = False
    bundle_dir: Path | None = None
    manifest: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The derived layer (tables/), reported apart from the evidence: its state in words,
    #: and problems (a table that disagrees with its own record: altered or damaged).
    derived_state: str = "not checked"
    derived_problems: list[str] = field(default_factory=list)
    files_checked: int = 0
    bytes_checked: int = 0
    parquet_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.derived_problems


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


def verify_derived(root: Path, evidence: dict[str, Any], result: VerifyResult, *, in_archive: bool = False) -> None:
    """Check tables/ against its own record; a missing or stale layer is a state, not a problem."""
    from k10s_forensics.store.derived import RECORD, read_record
    from k10s_forensics.parsers import PARSER_VERSION

    tables = root / "tables"
    if not tables.is_dir():
        result.derived_state = "not in the archive (the recipient rebuilds it)" if in_archive else "not built (analyze, sql and report build it)"
        return
    record = read_record(tables)
    if record is None:
        result.derived_state = "tables/ has no derived record (older k10s): rebuilt by the next analyze"
        return
    raw_now = {rel: {"sha256": e.get("sha256"), "bytes": e.get("bytes")} for rel, e in evidence.items()
               if rel.startswith("raw/") and isinstance(e, dict)}
    if record.get("parser_version") != PARSER_VERSION:
        result.derived_state = f"stale (parsers {record.get('parser_version')}, these are {PARSER_VERSION}): rebuilt by the next analyze"
    elif record.get("raw") != raw_now:
        result.derived_state = "stale (built from other raw files): rebuilt by the next analyze"
    else:
        result.derived_state = f"current (parsers {record.get('parser_version')}, built {record.get('built_at')})"
    files = record.get("files") if isinstance(record.get("files"), dict) else {}
    sub = VerifyResult(result.path)
    for rel in sorted(files):
        if not rel.startswith("tables/") or "/" in rel.removeprefix("tables/"):
            sub.problems.append(f"{RECORD} lists an unsafe path {rel!r}")
            continue
        path = root / rel
        read = None
        if path.is_file() and not path.is_symlink():
            with ThreadPoolExecutor(max_workers=1) as pool:
                read = _submit_parquet(pool, path)
                _check_file(root, rel, files[rel], sub, None, read, True, None)
        else:
            _check_file(root, rel, files[rel], sub, None, None, True, None)
    for p in sorted(tables.iterdir()):
        rel = f"tables/{p.name}"
        if p.name != RECORD and rel not in files:
            sub.problems.append(f"{rel}: present but not listed in tables/{RECORD}")
    result.derived_problems.extend(f"{p} (run k10s rebuild)" for p in sub.problems)
    result.files_checked += sub.files_checked
    result.bytes_checked += sub.bytes_checked
    result.parquet_checked += sub.parquet_checked


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


def _check_manifest(root: Path, result: VerifyResult) -> dict[str, Any] | None:
    path = root / MANIFEST
    if not path.is_file():
        result.problems.append(f"{MANIFEST}: missing (not a k10s bundle)")
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        result.problems.append(f"{MANIFEST}: unreadable ({exc.__class__.__name__}: {exc})")
        return None
    if not isinstance(manifest, dict):
        result.problems.append(f"{MANIFEST}: not a JSON object")
        return None
    p = result.problems
    if manifest.get("format") != FORMAT_NAME:
        p.append(f"{MANIFEST}: format is {manifest.get('format')!r}, expected {FORMAT_NAME!r}")
        return None
    if manifest.get("format_version") != FORMAT_VERSION:
        p.append(f"{MANIFEST}: format_version {manifest.get('format_version')!r} is not supported (this k10s reads {FORMAT_VERSION})")
    for key, kind in (("created_at", str), ("tool", dict), ("window", dict), ("complete", bool), ("collectors", list), ("files", dict)):
        if key not in manifest:
            p.append(f"{MANIFEST}: missing key {key!r}")
        elif not isinstance(manifest[key], kind):
            p.append(f"{MANIFEST}: {key!r} should be a {kind.__name__}")
    if isinstance(manifest.get("created_at"), str) and parse_iso(manifest["created_at"]) is None:
        p.append(f"{MANIFEST}: created_at {manifest['created_at']!r} is not an RFC 3339 time")
    window = manifest.get("window") if isinstance(manifest.get("window"), dict) else {}
    for key in ("start", "end"):
        value = window.get(key)
        if value is not None and (not isinstance(value, str) or parse_iso(value) is None):
            p.append(f"{MANIFEST}: window.{key} {value!r} is not an RFC 3339 time")
    for i, c in enumerate(manifest.get("collectors") if isinstance(manifest.get("collectors"), list) else []):
        if not isinstance(c, dict) or not c.get("name"):
            p.append(f"{MANIFEST}: collectors[{i}] has no name")
        elif c.get("status") not in COLLECTOR_STATUSES:
            p.append(f"{MANIFEST}: collector {c.get('name')!r} has status {c.get('status')!r}, not one of {', '.join(COLLECTOR_STATUSES)}")
    redaction = manifest.get("redaction")
    if redaction is not None:
        if not isinstance(redaction, dict) or redaction.get("level") not in REDACTION_LEVELS:
            p.append(f"{MANIFEST}: redaction block is malformed (level must be one of {', '.join(REDACTION_LEVELS)})")
        elif not isinstance(redaction.get("replaced"), dict) or not all(isinstance(v, int) for v in redaction["replaced"].values()):
            p.append(f"{MANIFEST}: redaction.replaced must map kinds to counts")
    return manifest


def _submit_parquet(pool: ThreadPoolExecutor, path: Path) -> tuple[pa.Schema | None, list[Future] | str]:
    """Open a Parquet file and queue the reading of each of its row groups on ``pool``."""
    try:
        pf = pq.ParquetFile(path)
        return pf.schema_arrow, [pool.submit(_read_group, path, i) for i in range(pf.num_row_groups)]
    except Exception as exc:  # any reader failure is a damaged file
        return None, f"{exc.__class__.__name__}: {str(exc)[:160]}"


def _read_group(path: Path, index: int) -> str | None:
    """Read one row group to the end; None, or the error as text."""
    try:
        pf = pq.ParquetFile(path)
        # read_row_group decodes big text columns ~5x faster than iter_batches; only an
        # oversized group is streamed, so memory stays bounded
        if pf.metadata.row_group(index).total_byte_size > MAX_GROUP_BYTES:
            for _batch in pf.iter_batches(batch_size=4096, row_groups=[index], use_threads=False):
                pass
        else:
            pf.read_row_group(index, use_threads=False)
        return None
    except Exception as exc:  # any reader failure is a damaged file
        return f"{exc.__class__.__name__}: {str(exc)[:160]}"


def _parquet_outcome(submitted: tuple[pa.Schema | None, list[Future] | str]) -> pa.Schema | str:
    schema, groups = submitted
    if isinstance(groups, str):
        return groups
    errors = [e for e in (f.result() for f in groups) if e is not None]
    return errors[0] if errors else schema


def _check_parquet(rel: str, read: pa.Schema | str, result: VerifyResult) -> None:
    if isinstance(read, str):
        result.problems.append(f"{rel}: unreadable Parquet ({read})")
        return
    schema = read
    result.parquet_checked += 1
    parts = rel.split("/")
    if len(parts) == 2 and parts[0] == "raw":
        name = parts[1].removesuffix(".parquet")
        expected = RAW_SCHEMAS.get(name)
        if expected is None:
            result.warnings.append(f"{rel}: not a raw file of format version {FORMAT_VERSION} (ignored by parsers)")
            return
        _check_columns(rel, schema, expected, result)
    elif len(parts) == 2 and parts[0] == "tables":
        table = TABLES_BY_NAME.get(parts[1].removesuffix(".parquet"))
        if table is not None:
            missing = [c.name for c in table.columns if c.name not in schema.names]
            if missing:
                result.problems.append(f"{rel}: missing columns {', '.join(missing)} (run k10s rebuild)")


def _check_columns(rel: str, actual: pa.Schema, expected: pa.Schema, result: VerifyResult) -> None:
    for fld in expected:
        if fld.name not in actual.names:
            result.problems.append(f"{rel}: missing required column {fld.name!r}")
            continue
        have = actual.field(fld.name).type
        if have != fld.type and not (pa.types.is_timestamp(have) and pa.types.is_timestamp(fld.type)) and not (
            pa.types.is_large_string(have) and pa.types.is_string(fld.type)
        ):
            result.problems.append(f"{rel}: column {fld.name!r} is {have}, the format says {fld.type}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def summary_line(result: VerifyResult) -> str:
    """One line describing what was checked."""
    mb = result.bytes_checked / 1e6
    return f"{result.files_checked} files ({mb:,.1f} MB) checked, {result.parquet_checked} Parquet files read"


__all__ = ["VerifyResult", "verify", "verify_dir", "summary_line", "REDACTION_LEVELS"]
