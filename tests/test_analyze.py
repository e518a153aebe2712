"""The analyze engine: rule registry and headers, skipping, user rules, renderers, CLI."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from importlib import resources

import pytest

from _analyze_kit import assert_planned_light, gang, samples, table_bundle
from k10s_forensics.analyze.prices import PriceError, PriceTable
from k10s_forensics.analyze.render import to_markdown, to_text
from k10s_forensics.analyze.rules import SEVERITIES, builtin_rules, parse_rule, user_rules
from k10s_forensics.analyze.runner import EMPTY_REASONS, analyze, prepare
from k10s_forensics.errors import QueryError
from k10s_forensics.queries import RULES, VIEWS_FILES, packaged_sql_files, rule_file_name
from k10s_forensics.store.tables import TABLE_NAMES

#: The spec's rules and those docs/bundle-format.md adds ("rules beyond the spec's list").
SPEC_RULES = {"straggler", "nccl-hang", "oom-cascade", "crashloop", "idle-gpu", "pending", "gpu-health", "network", "rank-failure",
              "gpu-startup", "disruption", "nic-open"}


def test_registry_lists_every_rule_file():
    files = set(packaged_sql_files()) - set(VIEWS_FILES)
    assert files == {rule_file_name(r) for r in RULES}, "a rule .sql file is missing from queries.RULES (or listed but absent)"
    assert set(RULES) == SPEC_RULES
    assert len(RULES) == len(set(RULES))


SHARED_VIEWS = {name for f in VIEWS_FILES for name in re.findall(r"CREATE OR REPLACE TEMP (?:TABLE|VIEW) (k10s_\w+)", resources.files("k10s_forensics.queries").joinpath(f).read_text())}


@pytest.mark.parametrize("rule", builtin_rules(), ids=lambda r: r.id)
def test_rule_header_is_complete(rule):
    assert rule.severity in SEVERITIES
    assert rule.title and len(rule.description) > 80
    assert all(t in TABLE_NAMES or t in SHARED_VIEWS for t in rule.tables), rule.tables
    assert all(t in EMPTY_REASONS for group in rule.requires for t in group if t in SHARED_VIEWS), "a required shared view needs a skip reason"
    assert rule.narrate is not None, "every built-in rule has a narrative step"
    names = [c.name for c in rule.columns]
    assert len(names) == len(set(names))
    assert all(c.doc for c in rule.columns), [c.name for c in rule.columns if not c.doc]


@pytest.fixture(scope="module")
def empty_con(tmp_path_factory):
    bundle = table_bundle(tmp_path_factory.mktemp("empty") / "b", {})
    con = prepare(bundle)
    yield con
    con.close()


@pytest.mark.parametrize("rule", builtin_rules(), ids=lambda r: r.id)
def test_rule_output_matches_declared_columns(rule, empty_con):
    """DESCRIBE of the query equals the header's columns (names, order, types)."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    params = {p: 600.0 if p == "window_s" else now for p in rule.params}
    got = empty_con.sql("DESCRIBE " + rule.sql, params=params or None).fetchall()
    got = [(r[0], r[1]) for r in got]
    want = [(c.name, c.type) for c in rule.columns]
    assert [g[0] for g in got] == [w[0] for w in want]
    for (name, gtype), (_, wtype) in zip(got, want):
        if wtype == "STRUCT[]":
            assert gtype.startswith("STRUCT(") and gtype.endswith("[]"), (name, gtype)
        else:
            assert gtype == wtype, (name, gtype, wtype)


def test_query_files_load_through_importlib_resources():
    text = resources.files("k10s_forensics.queries").joinpath("straggler.sql").read_text(encoding="utf-8")
    assert text.startswith("-- id: straggler")


HEADER = """-- id: {id}
-- title: Custom check
-- severity: {sev}
-- requires: {req}
-- description: A user rule: pods on node gpu-node-1.
-- columns:
--   pods VARCHAR[]   -- the pods
--   note VARCHAR     -- free text
SELECT list(namespace || '/' || pod) AS pods, 'hello' AS note FROM pods WHERE node = 'gpu-node-1' HAVING count(*) > 0
"""


def test_header_errors_name_file_and_problem():
    with pytest.raises(QueryError, match="x.sql: severity 'fatal'"):
        parse_rule(HEADER.format(id="x", sev="fatal", req="pods"), "x.sql")
    with pytest.raises(QueryError, match="lacks"):
        parse_rule("-- id: x\nSELECT 1", "x.sql")
    with pytest.raises(QueryError, match="kebab-case"):
        parse_rule(HEADER.format(id="Bad_Id", sev="info", req="pods"), "x.sql")


def test_user_rules_run_and_skip(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "my_check.sql").write_text(HEADER.format(id="my-check", sev="info", req="pods"))
    (rules / "needs_tcp.sql").write_text(HEADER.format(id="needs-tcp", sev="info", req="tcp_samples"))
    (rules / "broken.sql").write_text(HEADER.format(id="broken", sev="info", req="pods").replace("FROM pods", "FROM no_such_table"))
    (rules / "my_check.py").write_text("def narrate(f, row):\n    f['summary'] = 'narrated ' + row['note']\n    return f\n")
    assert {r.id for r in user_rules(rules)} == {"my-check", "needs-tcp", "broken"}
    bundle = table_bundle(tmp_path / "b", gang(pods=2))
    result = analyze(bundle, rules_dirs=[str(rules)], only={"my-check", "needs-tcp", "broken"})
    (f,) = result["findings"]
    assert f["rule"] == "my-check" and f["pods"] == ["team-a/llama-worker-1"] and f["summary"] == "narrated hello"
    assert f["evidence"] == [{"note": "hello"}]
    skipped = {s["rule"]: s for s in result["skipped"]}
    assert "no TCP socket samples" in skipped["needs-tcp"]["reason"]
    assert skipped["broken"]["error"] and "broken.sql" in skipped["broken"]["reason"]


def test_user_rules_keep_duckdbs_optimizer_on_a_small_bundle(tmp_path):
    """A small bundle is planned light for the built-in rules (engine.LIGHT_MAX_ROWS), but a user
    rule (an implicit join would be a cross product without the optimizer) runs optimised."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "opt.sql").write_text(HEADER.format(id="opt-seen", sev="info", req="pods").replace(
        "'hello' AS note", "current_setting('enable_optimizer')::VARCHAR AS note"))
    bundle = table_bundle(tmp_path / "b", gang(pods=2))
    (f,) = analyze(bundle, rules_dirs=[str(rules)], only={"opt-seen"})["findings"]
    assert f["evidence"] == [{"note": "true"}]
    assert_planned_light(bundle)  # while the built-in rules of the same bundle are planned light


def test_small_bundles_are_read_into_memory_with_the_parquet_readers_types(tmp_path):
    """Planned light, a small bundle's empty tables are empty TEMP tables of their declared columns
    and the others TEMP copies (engine.open_tables; docs/architecture.md "Small bundles in memory"):
    every column's name and DuckDB type is what the Parquet view gives, the rows the same; a
    bundle read for ``k10s sql`` (not light) keeps the views."""
    from k10s_forensics.engine import open_tables

    g = gang(pods=3)
    g["gpu_samples"] = samples(g)
    bundle = table_bundle(tmp_path / "b", g)
    light, light_rows = open_tables(bundle, light=True)
    plain, plain_rows = open_tables(bundle, light=False)
    try:
        assert light_rows == plain_rows and light_rows["pods"] == 3 and light_rows["tcp_samples"] == 0
        temp = {r[0] for r in light.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()}
        assert temp == set(TABLE_NAMES)
        assert not plain.execute("SELECT count(*) FROM duckdb_tables()").fetchall()[0][0]
        for name in TABLE_NAMES:
            assert light.execute(f'DESCRIBE "{name}"').fetchall() == plain.execute(f'DESCRIBE "{name}"').fetchall(), name
            order = f'SELECT * FROM "{name}" ORDER BY ALL'
            assert light.execute(order).fetchall() == plain.execute(order).fetchall(), name
    finally:
        light.close()
        plain.close()


def test_absent_table_files_are_skipped_not_crashed(tmp_path):
    g = gang(pods=3)
    g["gpu_samples"] = samples(g)
    bundle = table_bundle(tmp_path / "b", g, omit=("log_events", "tcp_samples", "events"))
    result = analyze(bundle)
    skipped = {s["rule"]: s["reason"] for s in result["skipped"]}
    assert "container logs absent" in skipped["nccl-hang"]
    assert "ss was not captured" in skipped["network"]
    assert not any(s.get("error") for s in result["skipped"])


def _result(tmp_path):
    g = gang(pods=4, per_pod=2)
    g["gpu_samples"] = samples(g, override=lambda r, t, row: row.update(sm_clock_mhz=1300.0, temp_c=90.0, throttle_reasons=0x40, tensor_active=0.8, power_w=640.0) if r == 5 else None)
    g["pods"][0]["pod"] = "llama-worker-0|<b>"  # untrusted text must not break markdown/markup
    return analyze(table_bundle(tmp_path / "b", g))


def test_json_shape_matches_spec(tmp_path):
    result = json.loads(json.dumps(_result(tmp_path)))
    assert list(result) == ["bundle", "findings", "incidents", "skipped", "damage"]
    assert result["damage"] == []
    assert set(result["bundle"]) == {"path", "window", "complete"}
    keys = ["rule", "severity", "title", "summary", "job", "ranks", "pods", "nodes", "gpus", "cause", "confidence", "started_at", "ended_at", "gpu_hours_lost", "evidence", "recommendation"]
    assert result["findings"]
    for f in result["findings"]:
        assert list(f) == keys
        assert f["rule"] in SPEC_RULES and f["severity"] in SEVERITIES
        assert all(isinstance(f[k], list) for k in ("ranks", "pods", "nodes", "gpus", "evidence"))
    sev = [SEVERITIES.index(f["severity"]) for f in result["findings"]]
    assert sev == sorted(sev)
    inc_keys = ["id", "severity", "job", "title", "cause", "confidence", "root", "symptoms", "ranks", "pods", "nodes", "gpus",
                "started_at", "ended_at", "gpu_hours_lost", "gpu_model", "usd_per_gpu_hour", "cost_usd", "advice"]
    refs = []
    for inc in result["incidents"]:  # docs/bundle-format.md "Incidents"
        assert list(inc) == inc_keys
        refs += [inc["root"]["finding"]] + [s["finding"] for s in inc["symptoms"]]
    assert sorted(refs) == list(range(len(result["findings"])))  # every finding in exactly one incident


def test_text_and_markdown_render(tmp_path):
    result = _result(tmp_path)
    text = to_text(result, color=False)
    assert "[WARNING] straggler" in text or "[CRITICAL] straggler" in text
    assert "Rank 5" in text and "gpu-node-2" in text and "\x1b[" not in text
    md = to_markdown(result)
    assert md.startswith("# k10s analysis") and "rank=5" in md and "Rank 5" in md
    empty = {"bundle": {"path": "p", "window": {}, "complete": False}, "findings": [], "skipped": [{"rule": "x", "reason": "why"}]}
    assert "Nothing found" in to_text(empty, color=False) and "x: why" in to_text(empty, color=False)
    assert "capture incomplete" in to_markdown(empty)


def test_prices():
    table = PriceTable.default()
    assert table.price("NVIDIA H100 80GB HBM3") == table.models["H100"]
    assert table.price("NVIDIA A100-SXM4-80GB") == table.models["A100-SXM4-80GB"]
    assert table.price("Mystery GPU") == table.default_usd
    assert PriceTable.flat(3.0).price("NVIDIA H100") == 3.0
    with pytest.raises(PriceError):
        PriceTable.from_json({"models": {"H100": "cheap"}}, "f.json")


def _k10s(*args):
    """The real CLI in a child process (exit code, stdout, stderr as a user sees them)."""
    return subprocess.run([sys.executable, "-m", "k10s_forensics", *args], capture_output=True, text=True, timeout=120)


def _k10s_here(capsys, *args) -> tuple[int, str, str]:
    """The same entry point (``cli.main``) in this process: cheaper than a child per call."""
    from k10s_forensics.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_cli_exit_codes_and_formats(tmp_path, capsys):
    g = gang(pods=4, per_pod=2)
    g["gpu_samples"] = samples(g, override=lambda r, t, row: row.update(sm_clock_mhz=1300.0, temp_c=90.0, throttle_reasons=0x40, tensor_active=0.8, power_w=640.0) if r == 5 else None)
    path = table_bundle(tmp_path / "b", g).path
    ok = _k10s("analyze", str(path), "--format", "json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["findings"][0]["ranks"] == [5]
    bad = _k10s("analyze", str(tmp_path / "nope"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1
    assert _k10s_here(capsys, "analyze", str(path), "--fail-on", "warning")[0] == 1
    assert _k10s_here(capsys, "analyze", str(path), "--fail-on", "critical", "--rule", "pending")[0] == 0
    prices = tmp_path / "prices.json"
    prices.write_text("{not json")
    code, _, err = _k10s_here(capsys, "analyze", str(path), "--prices", str(prices))
    assert code == 2 and "prices.json" in err
    code, out, _ = _k10s_here(capsys, "analyze", str(path), "--format", "markdown")
    assert code == 0 and out.startswith("# k10s analysis")
    code, out, _ = _k10s_here(capsys, "rules")
    assert code == 0 and all(r in out for r in SPEC_RULES)


def test_cli_html_writes_the_report(tmp_path, capsys):
    path = table_bundle(tmp_path / "b", gang(pods=2)).path
    code, out, err = _k10s_here(capsys, "analyze", str(path), "--html", str(tmp_path / "r.html"))
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert html.lower().startswith("<!doctype html>") and "k10s postmortem" in html
