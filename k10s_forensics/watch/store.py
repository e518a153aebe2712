"""The watcher's output directory: one folder per incident, retention, and the listing.

``<out>/<id>/`` holds ``bundle/`` (the capture during the hang), ``next/`` (the second
round, after the restart), ``report.html`` and ``incident.json`` (what triggered it, what
analyze found). An incident is written as ``<id>.partial`` and renamed when its first
capture, analysis and report are done: a crash leaves a ``.partial`` folder that no listing
shows as complete, and retention removes it first. ``<out>/index.html`` lists them all.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

PARTIAL = ".partial"
INCIDENT_JSON = "incident.json"


def dir_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def entries(out: Path) -> list[Path]:
    """Incident folders (complete and ``.partial``), oldest first (ids start with the UTC time)."""
    if not out.is_dir():
        return []
    return sorted((p for p in out.iterdir() if p.is_dir() and not p.is_symlink() and p.name[:1].isdigit()),
                  key=lambda p: p.name)


def read_incident(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads((path / INCIDENT_JSON).read_text(encoding="utf-8"))
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError):
        return {}


def write_json(path: Path, doc: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def prune(out: Path, *, max_bundles: int, max_age_h: float, max_bytes: int, busy: set[str],
          need_bytes: int = 0, now: float | None = None, limit: int | None = None) -> list[str]:
    """Remove incidents, oldest first, until count, age and bytes (plus ``need_bytes`` for the
    next capture) fit; never one in ``busy`` (being written). Returns the removed names."""
    now = now or time.time()
    items = [(p, dir_bytes(p)) for p in entries(out)]
    total = sum(b for _, b in items)
    removed: list[str] = []
    # stale .partial folders (a crash) go first, then by age
    order = sorted(items, key=lambda it: (not it[0].name.endswith(PARTIAL), it[0].name))
    count = len(items)
    for path, size in order:
        if path.name in busy or path.name.removesuffix(PARTIAL) in busy:
            continue
        too_old = now - path.stat().st_mtime > max_age_h * 3600
        if not (too_old or count > max_bundles or total + need_bytes > max_bytes):
            continue
        if limit is not None and len(removed) >= limit:
            break
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path.name)
        count -= 1
        total -= size
    return removed


def used_bytes(out: Path) -> int:
    return sum(dir_bytes(p) for p in entries(out))


def listing(out: Path) -> list[dict[str, Any]]:
    """One row per incident, newest first: id, job, state, triggers, top finding, y text."""
    rows = []
    for path in reversed(entries(out)):
        doc = read_incident(path)
        state = "incomplete (the watcher stopped while writing it)" if path.name.endswith(PARTIAL) else doc.get("state", "?")
        rows.append({
            "id": path.name.removesuffix(PARTIAL),
            "job": doc.get("job", ""),
            "state": state,
            "started_at": doc.get("started_at", ""),
            "triggers": doc.get("triggers", []),
            "findings": doc.get("findings", []),
            "y": doc.get("y", ""),
            "report": f"{path.name}/report.html" if (path / "report.html").is_file() else "",
            "bytes": dir_bytes(path),
        })
    return rows


__all__ = ["INCIDENT_JSON", "PARTIAL", "dir_bytes", "entries", "listing", "prune", "read_incident", "used_bytes",
           "write_json"]
