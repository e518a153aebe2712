"""Appendix: collector runs and their errors, parse errors, rules that could not run, and
the bundle's file checksums (to match the report to the bundle it was made from).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb

from k10s_forensics.store.bundle import Bundle, parse_iso
from k10s_forensics.store.derived import record_of

from .common import Absent, cell_text, fmt_duration, fmt_num, fmt_ts, query_inline

PARSE_ERRORS_SQL = """
SELECT source, reason, count, examples, raw_file, first_raw_row
FROM parse_errors
ORDER BY count DESC, source, reason
LIMIT 200
"""
MAX_FILES = 300


@dataclass
class CollectorRow:
    """One collector run from the manifest."""

    name: str = field(metadata={"help": "collector"})
    status: str = field(metadata={"help": "ok, partial, failed, skipped"})
    rows: str = field(metadata={"help": "raw rows written"})
    duration: str = field(metadata={"help": "how long it ran"})
    errors: list[str] = field(metadata={"help": "its errors (first ones)"})


@dataclass
class ParseErrorRow:
    """Raw rows a parser could not read, per source and reason."""

    source: str = field(metadata={"help": "raw source"})
    reason: str = field(metadata={"help": "why"})
    count: str = field(metadata={"help": "how many"})
    example: str = field(metadata={"help": "first example (truncated)"})
    where: str = field(metadata={"help": "raw file and first row"})


@dataclass
class AppendixContext:
    """The appendix."""

    collectors: list[CollectorRow] | Absent = field(metadata={"help": "collector runs"})
    parse_errors: list[ParseErrorRow] = field(metadata={"help": "parse errors, most frequent first"})
    skipped_rules: list[tuple[str, str]] = field(metadata={"help": "(rule, reason)"})
    files: list[tuple[str, str, str]] = field(metadata={"help": "(path, bytes, sha256)"})
    files_hidden: int = field(metadata={"help": "files not listed"})
    manifest: list[tuple[str, str]] = field(metadata={"help": "(key, value) of manifest facts"})


def _collector(c: dict[str, Any]) -> CollectorRow:
    start, end = parse_iso(c.get("started_at")), parse_iso(c.get("finished_at"))
    return CollectorRow(
        name=str(c.get("name") or "?"), status=str(c.get("status") or "?"), rows=fmt_num(c.get("rows")),
        duration=fmt_duration((end - start).total_seconds()) if start and end else "---",
        errors=[str(e)[:300] for e in (c.get("errors") or [])[:5]],
    )


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> AppendixContext:
    """The appendix context."""
    m = bundle.manifest
    runs = [c for c in m.get("collectors") or [] if isinstance(c, dict)]
    collectors: list[CollectorRow] | Absent = [_collector(c) for c in runs] if runs else Absent("the manifest records no collector run")
    parse = [
        ParseErrorRow(r["source"] or "---", r["reason"] or "---", fmt_num(r["count"]), cell_text((r["examples"] or [""])[0], 160),
                      f"{r['raw_file'] or '---'} row {r['first_raw_row'] if r['first_raw_row'] is not None else '---'}")
        for r in query_inline(con, PARSE_ERRORS_SQL, "reports/appendix.py (parse_errors)")
    ]
    files = sorted((m.get("files") or {}).items())
    file_rows = [(path, fmt_num((info or {}).get("bytes")), str((info or {}).get("sha256") or "---")) for path, info in files[:MAX_FILES]]
    skipped = [(str(s.get("rule")), str(s.get("reason"))) for s in (analysis or {}).get("skipped") or [] if isinstance(s, dict)]
    facts = [
        ("format", f"{m.get('format')} v{m.get('format_version')}"),
        ("created", fmt_ts(m.get("created_at"))),
        ("captured by", f"{(m.get('tool') or {}).get('name', 'k10s')} {(m.get('tool') or {}).get('version', '---')}"),
        ("parser version", str(record_of(bundle).get("parser_version") or "---")),
        ("tables built", fmt_ts(record_of(bundle).get("built_at"))),
        ("redaction", cell_text(m.get("redaction")) if m.get("redaction") else "none"),
        ("bundle path", str(bundle.path)),
    ]
    return AppendixContext(collectors, parse, skipped, file_rows, max(0, len(files) - MAX_FILES), facts)
