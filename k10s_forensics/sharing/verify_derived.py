"""``k10s verify``'s check of the derived layer apart: tables/ against its own record
(tables/derived.json); missing or stale is a state, not a problem, since analyze rebuilds it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from k10s_forensics.sharing.verify_files import _check_file
from k10s_forensics.sharing.verify_parquet import _submit_parquet
from k10s_forensics.sharing.verify_result import VerifyResult


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


__all__ = ["verify_derived"]
