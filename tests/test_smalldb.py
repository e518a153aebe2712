"""Small bundles analysed in this process's locked database (k10s_forensics/smalldb.py): the same output as
a database of their own, no file access, no setting changed, and analyses in threads kept apart."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import duckdb
import pytest

from conftest import SAMPLE_BUNDLES
from incident_kit import incident_bundle, load_corpus, spread
from k10s_forensics import engine, smalldb
from k10s_forensics.analyze import render
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle

CORPUS = Path(__file__).resolve().parent / "data" / "real-incidents"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> list[Path]:
    """Copies of a few sample bundles and a spread of corpus incidents (routed, and one pod with API timestamps)."""
    root = tmp_path_factory.mktemp("smalldb")
    out = []
    for name in ("oom-crashloop", "nccl-hang", "rank-segfault", "healthy", "pending-quota", "hang-flight-recorder"):
        shutil.copytree(SAMPLE_BUNDLES / name, root / name)
        out.append(root / name)
    for i, case in enumerate(spread(load_corpus(CORPUS), 12)):
        path = root / f"corpus-{i}"
        incident_bundle(path, case, (CORPUS / case.incident / "log.txt").read_text(encoding="utf-8"), api_timestamps=bool(i % 2))
        out.append(path)
    return out


def _outputs(path: Path, threads: int = 1) -> str:
    result = analyze(Bundle.open(path), threads=threads)
    return render.to_json(result) + render.to_text(result, color=False) + render.to_markdown(result)


def test_same_output_as_a_database_of_its_own(bundles, monkeypatch):
    pooled = {p.name: _outputs(p) for p in bundles}
    monkeypatch.setattr(smalldb, "read_small", lambda files, max_rows: None)  # every bundle takes the ordinary path
    own = {p.name: _outputs(p) for p in bundles}
    assert [name for name in pooled if pooled[name] != own[name]] == []


def test_pooled_connection_opens_no_file_and_changes_no_setting(bundles, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("token\nhunter2\n")
    con, counts = engine.open_tables(Bundle.open(bundles[0]), light=True, pooled=True, threads=1)
    try:
        assert counts["pods"] > 0 and con.execute("SELECT count(*) FROM pods").fetchone()[0] == counts["pods"]
        parquet = Bundle.open(bundles[0]).table_path("pods")
        for sql in (f"SELECT * FROM read_parquet('{parquet}')", f"SELECT * FROM read_csv('{secret}')",
                    f"COPY (SELECT 1 AS x) TO '{tmp_path / 'out.csv'}'", "SET enable_external_access = true",
                    "SET enable_optimizer = true", "SET allowed_directories = ['/']", "INSTALL httpfs"):
            with pytest.raises(duckdb.Error):
                con.execute(sql)
        assert not (tmp_path / "out.csv").exists()
        assert con.execute("SELECT current_setting('TimeZone')").fetchone()[0] == "UTC"
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE 'raw_%'").fetchone()[0] == 0
    finally:
        con.close()


def test_a_bundle_over_the_bound_gets_a_database_of_its_own(bundles, monkeypatch):
    monkeypatch.setattr(engine, "LIGHT_MAX_ROWS", 0)
    con, _ = engine.open_tables(Bundle.open(bundles[0]), light=True, pooled=True, threads=1)
    try:  # its own, locked the usual way: the raw tables are there, read through allowed_paths
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE 'raw_%'").fetchone()[0] > 0
        assert con.execute("SELECT current_setting('enable_optimizer')").fetchone()[0] is True
    finally:
        con.close()


def test_user_rules_never_use_the_pooled_database(bundles, tmp_path):
    """A ``--rules`` rule keeps the optimizer and the raw tables (a database of its own, as before)."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "raw_count.sql").write_text(
        "-- id: raw-count\n-- severity: info\n-- title: raw log rows\n-- description: d\n-- requires: pods\n"
        "-- columns:\n--   summary VARCHAR -- text\nSELECT 'raw log rows: ' || count(*) AS summary FROM raw_logs\n", encoding="utf-8")
    result = analyze(Bundle.open(bundles[0]), rules_dirs=(str(rules),), threads=1)
    assert not [s for s in result["skipped"] if s["rule"] == "raw-count"], result["skipped"]
    assert [f["summary"] for f in result["findings"] if f["rule"] == "raw-count"][0].startswith("raw log rows: ")


def test_analyses_in_threads_side_by_side_keep_apart(bundles):
    """Each analysis's TEMP objects and registered tables are its connection's: four threads analysing
    different bundles at once give what one at a time gives."""
    alone = {p.name: _outputs(p, threads=2) for p in bundles}
    together: dict[str, str] = {}
    errors: list[BaseException] = []

    def work(paths):
        try:
            for p in paths:
                together[p.name] = _outputs(p, threads=2)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(bundles[i::4],)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    assert together == alone
