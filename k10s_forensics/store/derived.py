"""The derived layer: where ``tables/`` lives, whether it is current, and rebuilding it safely.

The evidence (``manifest.json`` and ``raw/``) is never rewritten after capture. Derived
tables carry their own record, ``tables/derived.json``::

    {"format": "k10s-derived", "parser_version": "1.1.0", "tool_version": "0.1.0",
     "built_at": "...", "raw": {"raw/logs.parquet": {"sha256": "...", "bytes": 123}},
     "files": {"tables/pods.parquet": {"sha256": "...", "bytes": 456}, ...},
     "parse_errors": {...}, "damage": ["raw/logs.parquet is damaged: ..."]}

The layer is current when its record names this parser version and exactly the raw files
(by checksum) the bundle holds now; otherwise it is rebuilt, which is routine, not a
problem. A bundle folder that is not writable keeps its derived layer in the per-user
cache, ``<cache>/derived/<key>/tables`` with ``key`` the SHA-256 of the raw checksums.

Rebuilds are serialised by :mod:`k10s_forensics.store.locking`; tables are built in a fresh
``tables.tmp-*`` folder, the record written last, and the folder swapped in whole, so a
killed rebuild never leaves a half-written table under its final name. The next run
removes what a killed one left and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from k10s_forensics import __version__
from k10s_forensics.store.bundle import RAW_NAMES, Bundle, is_derived_path, iso, sha256_file, utcnow, write_json_atomic
from k10s_forensics.store.locking import LOCK_NAME, LayerLock

RECORD = "derived.json"
RECORD_FORMAT = "k10s-derived"
TMP_PREFIX = "tables.tmp"
OLD_PREFIX = "tables.old-"
PARTIAL_SUFFIX = ".partial"
#: Seconds between two looks at a layer another process is rebuilding.
POLL_S = 0.2

Say = Callable[[str], None]
#: First step of a rebuild: derives what it can on the context, returns the parsers left to run.
DeriveRaw = Callable[[Any], tuple[str, ...]]
BUILD_GUARD = threading.RLock()


def stderr_say(message: str) -> None:
    print(f"k10s: {message}", file=sys.stderr, flush=True)


# ---- the raw layer's identity ----------------------------------------------------------------
def raw_fingerprint(bundle: Bundle) -> dict[str, dict[str, Any]]:
    """SHA-256 and size of every raw file present (the manifest's checksum when the size agrees)."""
    listed = bundle.manifest.get("files") if isinstance(bundle.manifest.get("files"), dict) else {}
    out: dict[str, dict[str, Any]] = {}
    for name in RAW_NAMES:
        path = bundle.raw_path(name)
        if not path.is_file():
            continue
        rel = f"raw/{name}.parquet"
        size = path.stat().st_size
        entry = listed.get(rel) if isinstance(listed.get(rel), dict) else {}
        sha = entry.get("sha256") if entry.get("bytes") == size and isinstance(entry.get("sha256"), str) else None
        out[rel] = {"sha256": sha or sha256_file(path), "bytes": size}
    return out


def raw_key(fingerprint: dict[str, dict[str, Any]]) -> str:
    text = json.dumps({k: v["sha256"] for k, v in sorted(fingerprint.items())}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _writable(folder: Path) -> bool:
    if os.environ.get("K10S_READONLY_BUNDLES") == "1":  # simulate a read-only mount (tests as root)
        return False
    tables = folder / "tables"
    return os.access(folder, os.W_OK | os.X_OK) and (not tables.exists() or os.access(tables, os.W_OK | os.X_OK))


def cache_dir(fingerprint: dict[str, dict[str, Any]]) -> Path:
    from k10s_forensics.store.archive import cache_root

    folder = cache_root() / "derived" / raw_key(fingerprint)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def layer_home(bundle: Bundle, fingerprint: dict[str, dict[str, Any]] | None = None) -> Path:
    """The folder that holds ``tables/`` and the lock: the bundle, or its cache entry."""
    if _writable(bundle.path):
        return bundle.path
    if current_reason(bundle, bundle.path / "tables", fingerprint or raw_fingerprint(bundle)) is None:
        return bundle.path  # read-only, but its tables are current: use them in place
    return cache_dir(fingerprint or raw_fingerprint(bundle))


# ---- the record ------------------------------------------------------------------------------
def read_record(tables_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((tables_dir / RECORD).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == RECORD_FORMAT else None


def current_reason(bundle: Bundle, tables_dir: Path, fingerprint: dict[str, dict[str, Any]]) -> str | None:
    """None when ``tables_dir`` is current for ``bundle``, else why it must be rebuilt."""
    from k10s_forensics import PARSER_VERSION

    record = read_record(tables_dir)
    if record is None:
        return "no derived tables yet" if not tables_dir.is_dir() else "tables/ has no derived record"
    if record.get("parser_version") != PARSER_VERSION:
        return f"tables/ built by parsers {record.get('parser_version')}, these are {PARSER_VERSION}"
    if record.get("raw") != fingerprint:
        return "tables/ were built from other raw files"
    files = record.get("files") if isinstance(record.get("files"), dict) else {}
    missing = [rel for rel in files if not (tables_dir / rel.removeprefix("tables/")).is_file()]
    if missing:
        return f"tables/ lacks {', '.join(missing[:3])}"
    return None


def staleness(bundle: Bundle) -> str | None:
    """None when the bundle's derived layer is current, else why not."""
    fp = raw_fingerprint(bundle)
    return current_reason(bundle, layer_home(bundle, fp) / "tables", fp)


def write_record(bundle: Bundle, tables_dir: Path, fingerprint: dict[str, dict[str, Any]], issues: Any = None) -> dict[str, Any]:
    """Write ``tables_dir/derived.json`` describing the tables in it (written last)."""
    from k10s_forensics import PARSER_VERSION

    files = {}
    for p in sorted(tables_dir.glob("*.parquet")):
        files[f"tables/{p.name}"] = {"sha256": sha256_file(p), "bytes": p.stat().st_size}
    record = {
        "format": RECORD_FORMAT,
        "parser_version": PARSER_VERSION,
        "tool_version": __version__,
        "built_at": iso(utcnow()),
        "raw": fingerprint,
        "files": files,
        "parse_errors": issues.summary() if issues is not None else {},
        "damage": damage_lines(bundle, issues),
    }
    write_json_atomic(tables_dir / RECORD, record)
    return record


def damage_lines(bundle: Bundle, issues: Any = None) -> list[str]:
    """One line per damaged evidence file, naming it and what it cost."""
    from k10s_forensics.store.damage import describe

    return describe(bundle, issues)


# ---- pointing a bundle at its layer -------------------------------------------------------------
def needs_work(bundle: Bundle) -> bool:
    """True when the derived layer must be (re)built or a killed rebuild's leftovers removed."""
    fp = raw_fingerprint(bundle)
    home = layer_home(bundle, fp)
    return current_reason(bundle, home / "tables", fp) is not None or bool(leftovers(home))


def attach(bundle: Bundle) -> Path:
    """Point ``bundle.tables_dir`` (and its lock) at its current derived layer."""
    home = layer_home(bundle)
    bundle.tables_dir = home / "tables"
    bundle.derived_lock = LayerLock(home / LOCK_NAME)
    return bundle.tables_dir


def swap_in(tmp: Path, final: Path) -> None:
    """Replace ``final`` by ``tmp`` (two renames; a crash between them is cleaned up later)."""
    old = None
    if final.exists():
        old = final.with_name(f"{OLD_PREFIX}{uuid.uuid4().hex[:8]}")
        os.rename(final, old)
    os.rename(tmp, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def leftovers(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir() if p.name.startswith((TMP_PREFIX, OLD_PREFIX)))


def clean_leftovers(home: Path, previous: str, say: Say | None) -> None:
    """Remove what a killed rebuild left (we hold the lock exclusively: nobody else is building)."""
    left = leftovers(home)
    if not left and not previous:
        return
    for name in left:
        shutil.rmtree(home / name, ignore_errors=True)
    if say is not None:
        who = f" ({previous})" if previous else ""
        what = f"removed its unfinished {', '.join(left)}" if left else "nothing was left half-written"
        say(f"found a rebuild that was interrupted{who}: {what}; tables/ is rebuilt when stale")


def mark_current(bundle: Bundle) -> dict[str, Any]:
    """Write a record for tables written by hand (tests, benchmarks): they count as current."""
    return write_record(bundle, bundle.path / "tables", raw_fingerprint(bundle))


def record_of(bundle: Bundle) -> dict[str, Any]:
    """The derived record of the tables this bundle reads (empty when not built)."""
    return read_record(bundle.tables_dir or bundle.path / "tables") or {}


__all__ = [
    "RECORD",
    "attach",
    "needs_work",
    "staleness",
    "raw_fingerprint",
    "read_record",
    "record_of",
    "mark_current",
    "is_derived_path",
    "layer_home",
    "stderr_say",
]
