"""Helpers for the log / ss parser tests: a raw-only bundle with real DuckDB/Parquet I/O."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.parsers import ParseIssues
from k10s_forensics.rebuild.run import DeriveContext

UTC = dt.timezone.utc
CAPTURED = dt.datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
PREFIX_T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def with_api_prefix(text: str, t0: dt.datetime = PREFIX_T0) -> str:
    """Prefix every line as the API does with ``timestamps=true`` (line i at t0 + i s + i us)."""
    out = []
    for i, line in enumerate(text.split("\n")):
        t = t0 + dt.timedelta(seconds=i, microseconds=i)
        out.append(t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z " + line)
    return "\n".join(out)


def prefix_ts(line_no: int, t0: dt.datetime = PREFIX_T0) -> dt.datetime:
    """The timestamp ``with_api_prefix`` gave line ``line_no`` (1-based)."""
    i = line_no - 1
    return t0 + dt.timedelta(seconds=i, microseconds=i)


def log_row(body: str | None, pod: str = "train-worker-0", error: str | None = None, captured_at: dt.datetime = CAPTURED, **extra: Any) -> dict:
    row = dict(
        captured_at=captured_at, node="gpu-node-1", namespace="team-a", pod=pod, pod_uid=f"uid-{pod}",
        container="pytorch", previous=False, body=body, error=error,
    )
    row.update(extra)
    return row


def ss_row(stdout: str | None, pod: str = "train-worker-0", error: str | None = None, exit_code: int | None = 0, stderr: str = "") -> dict:
    return dict(
        captured_at=CAPTURED, duration_ms=12, source="ss", node="gpu-node-1", namespace="team-a", pod=pod,
        container="pytorch", command="ss -tin", exit_code=exit_code, stdout=stdout, stderr=stderr, error=error,
    )


def raw_bundle(path: Path, **raw: list[dict]) -> Bundle:
    (path / "raw").mkdir(parents=True)
    for name, rows in raw.items():
        write_raw_table(path, name, rows)
    write_json_atomic(path / "manifest.json", new_manifest())
    return Bundle.open(path)


def derive(tmp_path: Path, module, **raw: list[dict]) -> tuple[DeriveContext, ParseIssues]:
    bundle = raw_bundle(tmp_path / "bundle", **raw)
    out = tmp_path / "tables"
    out.mkdir()
    issues = ParseIssues()
    ctx = DeriveContext(bundle, out, issues)
    module.derive(ctx)
    return ctx, issues


def issue_counts(issues: ParseIssues) -> dict[tuple[str, str], int]:
    return {(b.source, b.reason): b.count for b in issues.buckets()}
