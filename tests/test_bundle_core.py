"""The bundle spine: manifest, raw writer, rebuild on bad input, engine views, CLI errors."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from k10s_forensics import parsers
from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle, BundleWriter, parse_iso, write_raw_table
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.errors import BundleError, QueryError
from k10s_forensics.rebuild.run import needs_rebuild, rebuild
from k10s_forensics.store.tables import TABLE_NAMES, TABLES_BY_NAME

T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)


def k10s(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "k10s_forensics", *args], capture_output=True, text=True, timeout=120)


def make_bundle(path, **rows):
    writer = BundleWriter(path)
    for name, items in rows.items():
        for item in items:
            writer.add(name, item)
    writer.record_collector({"name": "pods", "status": "ok", "rows": 1, "errors": []})
    writer.record_collector({"name": "kueue", "status": "skipped", "rows": 0, "errors": ["kueue.x-k8s.io not served by this cluster"]})
    return writer.close()


def test_manifest_has_every_spec_key(tmp_path):
    bundle = make_bundle(tmp_path / "b")
    m = json.loads((tmp_path / "b" / "manifest.json").read_text())
    for key in ("format", "format_version", "created_at", "tool", "cluster", "scope", "window", "complete", "collectors", "files"):
        assert key in m
    assert m["format"] == "k10s-bundle" and m["format_version"] == 1 and m["complete"] is True
    assert {c["status"] for c in m["collectors"]} == {"ok", "skipped"}
    assert bundle.manifest["files"], "checksums of the raw files are recorded"


def test_raw_files_follow_the_spec_schema(tmp_path):
    make_bundle(
        tmp_path / "b",
        objects=[{"captured_at": T0, "api_version": "v1", "kind": "Pod", "namespace": "a", "name": "p", "uid": "u1", "body": "{}"}],
        logs=[{"captured_at": T0, "node": "n", "namespace": "a", "pod": "p", "pod_uid": "u1", "container": "c", "previous": False, "body": b"caf\xe9 \xff\n", "error": None}],
    )
    for name in ("objects", "logs"):
        table = pq.read_table(tmp_path / "b" / "raw" / f"{name}.parquet")
        assert table.schema.equals(RAW_SCHEMAS[name])
    body = pq.read_table(tmp_path / "b" / "raw" / "logs.parquet")["body"][0].as_py()
    assert "\ufffd" in body and body.startswith("caf"), "invalid UTF-8 is replaced, not dropped"
    meta = pq.ParquetFile(tmp_path / "b" / "raw" / "objects.parquet").metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"


def test_rebuild_writes_every_table_even_without_sources(tmp_path):
    bundle = make_bundle(tmp_path / "b")
    rebuild(bundle)
    assert set(Bundle.open(tmp_path / "b").table_names()) == set(TABLE_NAMES)
    for name in TABLE_NAMES:
        table = pq.read_table(bundle.table_path(name))
        assert table.schema.equals(TABLES_BY_NAME[name].schema), name
    con = connect(Bundle.open(tmp_path / "b"))
    runs = run_sql(con, "SELECT collector, status, errors FROM collector_runs ORDER BY collector").to_pylist()
    assert runs == [
        {"collector": "kueue", "status": "skipped", "errors": ["kueue.x-k8s.io not served by this cluster"]},
        {"collector": "pods", "status": "ok", "errors": []},
    ]


def test_rebuild_is_idempotent(tmp_path):
    bundle = make_bundle(tmp_path / "b")
    manifest_before = (tmp_path / "b" / "manifest.json").read_bytes()
    rebuild(bundle)
    first = {n: pq.read_table(bundle.table_path(n)) for n in TABLE_NAMES}
    rebuild(Bundle.open(tmp_path / "b"))
    second = {n: pq.read_table(bundle.table_path(n)) for n in TABLE_NAMES}
    assert all(first[n].equals(second[n]) for n in TABLE_NAMES)
    assert not [p.name for p in (tmp_path / "b").iterdir() if p.name.startswith("tables.")]
    assert (tmp_path / "b" / "manifest.json").read_bytes() == manifest_before, "the evidence's manifest is never rewritten"
    record = json.loads((tmp_path / "b" / "tables" / "derived.json").read_text())
    assert record["parser_version"] == parsers.PARSER_VERSION
    assert not needs_rebuild(Bundle.open(tmp_path / "b"))
    assert set(record["files"]) >= {f"tables/{n}.parquet" for n in TABLE_NAMES}
    assert set(record["raw"]) == {p for p in Bundle.open(tmp_path / "b").manifest["files"] if p.startswith("raw/")}


def test_corrupt_raw_file_is_recorded_not_fatal(tmp_path):
    bundle = make_bundle(
        tmp_path / "b",
        objects=[{"captured_at": T0, "api_version": "v1", "kind": "Namespace", "namespace": None, "name": "a", "uid": "u", "body": "{}"}],
    )
    (tmp_path / "b" / "raw" / "exec.parquet").write_bytes(b"PAR1 this is not parquet")
    issues = rebuild(bundle)
    sources = {b.source for b in issues.buckets()}
    assert "raw:exec" in sources
    con = connect(Bundle.open(tmp_path / "b"))
    rows = run_sql(con, "SELECT source, reason, count FROM parse_errors WHERE source = 'raw:exec'").to_pylist()
    assert rows and rows[0]["count"] >= 1 and "unreadable parquet" in rows[0]["reason"]
    record = json.loads((tmp_path / "b" / "tables" / "derived.json").read_text())
    assert record["parse_errors"]["raw:exec"]["count"] >= 1
    assert any(line.startswith("raw/exec.parquet is damaged:") and "unreadable parquet" in line for line in record["damage"])


def test_not_a_bundle_and_unknown_version(tmp_path):
    with pytest.raises(BundleError, match="no such file"):
        Bundle.open(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleError, match="not a k10s bundle"):
        Bundle.open(tmp_path / "empty")
    make_bundle(tmp_path / "future")
    m = json.loads((tmp_path / "future" / "manifest.json").read_text())
    m["format_version"] = 99
    (tmp_path / "future" / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(BundleError, match="format version 99 is not supported"):
        Bundle.open(tmp_path / "future")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "manifest.json").write_bytes(b"\x00\xff{")
    with pytest.raises(BundleError, match="unreadable manifest"):
        Bundle.open(tmp_path / "junk")


@pytest.mark.parametrize("args", [["sql", "{missing}", "SELECT 1"], ["rebuild", "{empty}"], ["sql", "{future}", "SELECT 1"]])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, args):
    (tmp_path / "empty").mkdir()
    make_bundle(tmp_path / "future")
    m = json.loads((tmp_path / "future" / "manifest.json").read_text())
    m["format_version"] = 2
    (tmp_path / "future" / "manifest.json").write_text(json.dumps(m))
    paths = {"missing": tmp_path / "missing", "empty": tmp_path / "empty", "future": tmp_path / "future"}
    result = k10s(*[a.format(**paths) for a in args])
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("k10s: error:")
    assert "Traceback" not in result.stderr


def test_cli_sql_formats_and_query_errors(tmp_path):
    make_bundle(tmp_path / "b")
    out = k10s("sql", str(tmp_path / "b"), "SELECT collector, rows FROM collector_runs ORDER BY collector", "--format", "csv")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["collector,rows", "kueue,0", "pods,1"]
    out = k10s("sql", str(tmp_path / "b"), "SELECT collector FROM collector_runs WHERE status = 'ok'", "--format", "json")
    assert json.loads(out.stdout) == [{"collector": "pods"}]
    out = k10s("sql", str(tmp_path / "b"), "SELECT * FROM no_such_table")
    assert out.returncode == 1 and out.stderr.startswith("k10s: error: query:") and "Traceback" not in out.stderr


def test_query_error_names_origin(tmp_path):
    make_bundle(tmp_path / "b")
    con = connect(Bundle.open(tmp_path / "b"))
    with pytest.raises(QueryError, match="^rules/x.sql: "):
        run_sql(con, "SELEC 1", origin="rules/x.sql")


def test_raw_views_exist(tmp_path):
    make_bundle(
        tmp_path / "b",
        scrapes=[{"captured_at": T0, "source": "dcgm-exporter", "node": "n1", "url": "/metrics", "status": 500, "body": "", "error": "HTTP 500"}],
    )
    con = connect(Bundle.open(tmp_path / "b"))
    assert run_sql(con, "SELECT node, status FROM raw_scrapes").to_pylist() == [{"node": "n1", "status": 500}]


def test_parse_iso_variants():
    assert parse_iso("2026-11-21T10:00:00.123456789Z") == dt.datetime(2026, 11, 21, 10, 0, 0, 123456, tzinfo=dt.timezone.utc)
    assert parse_iso("2026-11-21T12:00:00+02:00") == dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)
    assert parse_iso("garbage") is None and parse_iso(None) is None


def test_every_parser_module_is_registered():
    from pathlib import Path

    folder = Path(parsers.__file__).parent
    helpers = {"__init__", "common"}
    modules = {p.stem for p in folder.glob("*.py") if p.stem not in helpers}
    with_derive = set()
    for name in modules:
        import importlib

        module = importlib.import_module(f"k10s_forensics.parsers.{name}")
        if hasattr(module, "derive"):
            with_derive.add(name)
    assert with_derive <= set(parsers.DERIVERS), f"parser modules with derive() not in DERIVERS: {sorted(with_derive - set(parsers.DERIVERS))}"
    for name in parsers.DERIVERS:
        assert callable(parsers.load_deriver(name)), name


def test_write_raw_table_roundtrip(tmp_path):
    (tmp_path / "b").mkdir()
    write_raw_table(tmp_path / "b", "exec", [{"captured_at": T0, "source": "ss", "stdout": "x", "exit_code": 0}])
    t = pq.read_table(tmp_path / "b" / "raw" / "exec.parquet")
    assert t.num_rows == 1 and t["source"][0].as_py() == "ss" and t["error"][0].as_py() is None
    assert isinstance(t.schema.field("captured_at").type, pa.TimestampType)


def test_bundle_format_doc_is_generated_from_tables():
    from k10s_forensics import docgen

    assert docgen.main(["--check"]) == 0, "docs/bundle-format.md is out of date: python -m k10s_forensics.docgen"
    text = docgen.DOC.read_text()
    for name in TABLE_NAMES:
        assert f"### `{name}`" in text


def test_cli_doc_is_generated_from_help():
    from k10s_forensics import clidoc

    assert clidoc.main(["--check"]) == 0, "docs/cli.md is out of date: python -m k10s_forensics.clidoc"


def test_sample_bundles_hold_tables_from_the_current_parsers():
    """Committed samples are rebuilt whenever the parsers change (else the demo rewrites them)."""
    from conftest import SAMPLE_BUNDLES

    bundles = [p for p in sorted(SAMPLE_BUNDLES.iterdir()) if (p / "manifest.json").is_file()]
    assert bundles
    stale = [b.name for b in bundles if needs_rebuild(Bundle.open(b))]
    assert not stale, f"run `k10s rebuild` on sample-bundles/{{{','.join(stale)}}}"
