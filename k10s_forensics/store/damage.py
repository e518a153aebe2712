"""Damage is named: which evidence file is damaged, how, and what it costs the analysis.

Sources of the lines, in order:

* a raw file left as ``raw/<name>.parquet.partial`` (the capture was killed while writing it);
* a raw file whose size or SHA-256 disagrees with the manifest (altered or damaged after
  capture; hashed once per rebuild, which reads the raw layer anyway);
* what the rebuild could not read: an unreadable file, unreadable row groups (``raw:<name>``
  issues of the parse-error log), with the rows lost.

``analyze`` puts these lines in its JSON (``damage``) and text, ``sql`` prints them on stderr
and the report shows them in its header.
"""

from __future__ import annotations

from typing import Any

from k10s_forensics.store.bundle import RAW_NAMES, Bundle, sha256_file

#: What each raw file feeds, in words (what its loss costs).
RAW_FEEDS: dict[str, str] = {
    "objects": "Kubernetes objects (nodes, pods, jobs, events, Kueue)",
    "exec": "command outputs (nvidia-smi, ss, dmesg)",
    "scrapes": "DCGM and Prometheus samples",
    "logs": "container logs",
}
#: Derived tables fed by each raw file (rules that need them are skipped with the damage named).
RAW_TABLES: dict[str, tuple[str, ...]] = {
    "objects": ("nodes", "pods", "containers", "jobs", "ranks", "events", "kueue_workloads", "kueue_cluster_queues"),
    "exec": ("gpus", "tcp_samples"),
    "scrapes": ("gpu_samples",),
    "logs": ("log_events", "k10s_job_log"),
}


def describe(bundle: Bundle, issues: Any = None) -> list[str]:
    parts: dict[str, list[str]] = {}
    listed = bundle.manifest.get("files") if isinstance(bundle.manifest.get("files"), dict) else {}
    for name in RAW_NAMES:
        rel = f"raw/{name}.parquet"
        path = bundle.raw_path(name)
        partial = path.with_name(path.name + ".partial")
        entry = listed.get(rel)
        if partial.is_file() and not path.is_file():
            parts.setdefault(rel, []).append(f"the capture was killed while writing it ({rel}.partial); {RAW_FEEDS[name]} lost")
        elif path.is_file() and isinstance(entry, dict) and isinstance(entry.get("bytes"), int) and entry["bytes"] != path.stat().st_size:
            parts.setdefault(rel, []).append(f"{path.stat().st_size} bytes, the manifest says {entry['bytes']} (altered or truncated after capture)")
        elif path.is_file() and isinstance(entry, dict) and isinstance(entry.get("sha256"), str) and sha256_file(path) != entry["sha256"]:
            parts.setdefault(rel, []).append("its SHA-256 disagrees with the manifest (altered or damaged after capture)")
        elif not path.is_file() and isinstance(entry, dict):
            parts.setdefault(rel, []).append(f"listed in the manifest but missing; {RAW_FEEDS[name]} lost")
    for bucket in (issues.buckets() if issues is not None else []):
        raw_file = bucket.raw_file or ""
        if bucket.source.startswith("raw:"):
            name = bucket.source.split(":", 1)[1]
        elif raw_file.startswith("raw/") and bucket.reason.startswith(("unreadable", "missing required columns")):
            name = raw_file.removeprefix("raw/").removesuffix(".parquet")  # a parser reading its raw file itself
        else:
            continue
        where = "; ".join(list(dict.fromkeys(e[:160] for e in bucket.examples))[:2])
        if "row group" in bucket.reason:
            cost = f"row group(s) unreadable ({where}): those rows of {RAW_FEEDS.get(name, name)} lost, the rest kept"
        elif "missing required columns" in bucket.reason:
            cost = f"missing required columns ({where}): they read as empty"
        else:
            cost = f"{bucket.reason.split(' (')[0]} ({bucket.examples[0][:160] if bucket.examples else bucket.reason}): every row of it lost ({RAW_FEEDS.get(name, name)})"
        parts.setdefault(f"raw/{name}.parquet", []).append(cost)
    return [f"{rel} is damaged: {'; '.join(p)}" for rel, p in parts.items()]


def table_notes(lines: list[str]) -> dict[str, str]:
    """Per derived table, the damage line of the raw file feeding it (first one wins)."""
    notes: dict[str, str] = {}
    for line in lines:
        name = line.split(" ", 1)[0].removeprefix("raw/").removesuffix(".parquet")
        for table in RAW_TABLES.get(name, ()):
            notes.setdefault(table, line)
    return notes


__all__ = ["describe", "table_notes", "RAW_FEEDS", "RAW_TABLES"]
