"""``k10s fleet index``: find bundles, skip the ones already indexed, extract the rest in
parallel and write them to the FLEET folder in batches.

SOURCES are bundle folders, folders holding bundles (searched recursively), archives
(``.tar.gz``/``.tgz``) or globs of those. A bundle is known by ``identity.bundle_id`` (its
raw checksums), so the same bundle given twice, re-packed or re-derived is indexed once.
"""

from __future__ import annotations

import glob as globlib
import multiprocessing
import os
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from k10s_forensics.store.archive import is_archive
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.errors import BundleError, K10sError
from k10s_forensics.fleet.identity import bundle_id, is_bundle_dir
from k10s_forensics.fleet.store import FleetStore


@dataclass
class IndexResult:
    """What one ``fleet index`` run did."""

    indexed: list[str] = field(default_factory=list)
    skipped: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    raw_bytes: int = 0
    orphans_dropped: int = 0


def find_sources(sources: list[str]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Bundle folders and archives named by ``sources``; and sources that name none."""
    found: list[Path] = []
    missing: list[tuple[str, str]] = []
    for source in sources:
        paths = [Path(p) for p in sorted(globlib.glob(source))] if globlib.has_magic(source) else [Path(source)]
        before = len(found)
        for path in paths:
            found.extend(_walk(path))
        if len(found) == before:
            missing.append((source, "no such file or folder" if not paths or not paths[0].exists() else "holds no k10s bundle"))
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique, missing


def _walk(path: Path) -> Iterator[Path]:
    if path.is_file():
        if is_archive(path):
            yield path
        return
    if not path.is_dir():
        return
    if is_bundle_dir(path):
        yield path
        return
    for child in sorted(path.iterdir()):
        if child.is_dir() or child.name.endswith((".tar.gz", ".tgz")):
            yield from _walk(child)


def _extract_one(path: str, known: frozenset[str]) -> tuple[str, str, Any]:
    """Worker: ("skip", id, None) | ("ok", id, rows) | ("error", path, reason)."""
    from k10s_forensics.fleet.extract import extract

    try:
        bundle = Bundle.open(path)
        bid = bundle_id(bundle)
        if bid in known:
            return "skip", bid, None
        return "ok", bid, extract(str(bundle.path), source=path)
    except K10sError as exc:
        return "error", path, str(exc)
    except Exception as exc:  # a damaged bundle must not stop the others
        return "error", path, f"{exc.__class__.__name__}: {exc}"


def index_fleet(
    sources: list[str],
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    batch_size: int = 200,
    progress: Callable[[int, int], None] | None = None,
) -> IndexResult:
    """Index ``sources`` into the fleet folder ``out`` (created when absent).

    Raises:
        BundleError: no source names a bundle, or ``out`` is not a fleet folder.
    """
    paths, missing = find_sources(sources)
    if not paths:
        reasons = "; ".join(f"{s}: {r}" for s, r in missing) or "no sources given"
        raise BundleError(f"nothing to index ({reasons})")
    store = FleetStore.create(out)
    result = IndexResult(failed=[(s, r) for s, r in missing])
    from k10s_forensics.fleet.compact import recover

    recover(store)
    result.orphans_dropped = store.drop_orphans()
    known = frozenset(store.indexed_ids())
    jobs = max(1, jobs or min(4, os.cpu_count() or 1))
    pending: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen: set[str] = set(known)

    def flush() -> None:
        if pending.get("bundles"):
            store.write_batch(pending)
        pending.clear()

    def take(status: str, key: str, rows: Any) -> None:
        if status == "error":
            result.failed.append((key, rows))
        elif status == "skip" or key in seen:
            result.skipped += 1
        else:
            seen.add(key)
            result.indexed.append(key)
            result.raw_bytes += rows["bundles"][0]["raw_bytes"] or 0
            for table, table_rows in rows.items():
                pending[table].extend(table_rows)
                result.rows[table] = result.rows.get(table, 0) + len(table_rows)
            if len(pending["bundles"]) >= batch_size:
                flush()

    done = 0
    if jobs == 1 or len(paths) == 1:
        for path in paths:
            take(*_extract_one(str(path), known))
            done += 1
            if progress:
                progress(done, len(paths))
    else:
        # forkserver, not fork: a fork of this process (threads, live DuckDB databases) crashed its child
        # opening a database of its own (a SIGSEGV in duckdb.connect, seen under the test suite's load)
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["k10s_forensics.fleet.index"])
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            for outcome in pool.map(_extract_one, [str(p) for p in paths], [known] * len(paths), chunksize=4):
                take(*outcome)
                done += 1
                if progress:
                    progress(done, len(paths))
    flush()
    return result


__all__ = ["index_fleet", "find_sources", "IndexResult"]
