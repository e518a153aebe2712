"""The rolling window of live mode: capture rounds (each an ordinary one-round bundle)
kept for ``--keep`` and under a disk cap, merged into one ordinary bundle.

Merging follows what one long multi-round capture would have written: object listings,
exec samples (nvidia-smi, ss) and scrapes (DCGM) are concatenated round after round; the
once-per-capture exec sources (dmesg, the visible-devices map) and container logs (each
round fetches the whole tail again) come from the newest round only, so nothing is
counted twice. The merged bundle's window runs from the oldest kept round to the newest,
its collectors are the newest round's. Nothing here talks to a cluster.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import COMPRESSION, MANIFEST, RAW_NAMES, RAW_SCHEMAS, Bundle, parse_iso, write_json_atomic

#: exec sources captured once per capture, not per sampling round.
ONCE_PER_CAPTURE = ("dmesg", "visible-devices")
#: raw tables whose newest round replaces the older ones.
NEWEST_ONLY = ("logs",)


def _round_start(path: Path) -> dt.datetime | None:
    try:
        return parse_iso(Bundle.open(path).manifest.get("window", {}).get("start"))
    except Exception:
        return None


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def prune(rounds: list[Path], *, keep_s: float, disk_cap_bytes: int, now: dt.datetime) -> tuple[list[Path], list[Path]]:
    """(rounds kept, rounds dropped): older than ``keep_s`` or beyond the disk cap, oldest
    first; the newest round is always kept."""
    kept, dropped = [], []
    for path in rounds:
        start = _round_start(path)
        (dropped if start is not None and (now - start).total_seconds() > keep_s and path != rounds[-1] else kept).append(path)
    sizes = {p: dir_bytes(p) for p in kept}
    while len(kept) > 1 and sum(sizes[p] for p in kept) > disk_cap_bytes:
        dropped.append(kept.pop(0))
    return kept, dropped


def _read(path: Path, name: str) -> pa.Table | None:
    file = path / "raw" / f"{name}.parquet"
    if not file.is_file():
        return None
    try:
        return pq.read_table(file, schema=RAW_SCHEMAS[name])
    except (OSError, pa.ArrowException):
        return None  # a damaged round file: that round's rows are left out


def merge(rounds: list[Path], out: Path) -> Bundle:
    """Merge the kept rounds (oldest first) into a new bundle at ``out``."""
    if not rounds:
        raise ValueError("no round to merge")
    (out / "raw").mkdir(parents=True, exist_ok=False)
    newest = rounds[-1]
    for name in RAW_NAMES:
        sources = [newest] if name in NEWEST_ONLY else rounds
        parts = [t for t in (_read(p, name) for p in sources) if t is not None]
        if name == "exec" and parts:
            import pyarrow.compute as pc

            once = pa.array(ONCE_PER_CAPTURE)
            parts = [t.filter(pc.invert(pc.is_in(t.column("source"), once))) for t in parts[:-1]] + [parts[-1]]
        if parts:
            pq.write_table(pa.concat_tables(parts), out / "raw" / f"{name}.parquet", compression=COMPRESSION)
    manifest = dict(Bundle.open(newest).manifest)
    first = Bundle.open(rounds[0]).manifest.get("window") or {}
    manifest["window"] = {"start": first.get("start"), "end": (manifest.get("window") or {}).get("end")}
    manifest["files"] = {}
    for derived in ("parser_version", "tables_built_at", "parse_errors"):  # tables are rebuilt from the merged raw layer
        manifest.pop(derived, None)
    write_json_atomic(out / MANIFEST, manifest)
    bundle = Bundle.open(out)
    bundle.refresh_checksums()
    bundle.save_manifest()
    return bundle


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


__all__ = ["merge", "prune", "dir_bytes", "remove", "ONCE_PER_CAPTURE"]
