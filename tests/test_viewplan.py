"""View planning (analyze.viewplan): only the shared views the running rules need, same findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from _analyze_kit import T0, assert_planned_light, gang, table_bundle
from conftest import SAMPLE_BUNDLES
from determinism_kit import analyse_all
from incident_kit import incident_bundle, load_corpus, spread

from k10s_forensics.analyze import render, viewplan
from k10s_forensics.analyze.rules import builtin_rules, load_rules, parse_rule
from k10s_forensics.analyze.runner import prepare, run_rules
from k10s_forensics.store.bundle import Bundle

SAMPLES = sorted(p.name for p in SAMPLE_BUNDLES.iterdir() if (p / "manifest.json").is_file())


def _temp_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()}
    views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal").fetchall()}
    return {n for n in tables | views if n.startswith("k10s_") and n != "k10s_gpu_prices"}  # the price table (TEMP too) is no shared view


def test_every_statement_reads_only_names_created_before_it():
    seen: set[str] = set()
    for st in viewplan.statements():
        assert st.reads <= seen, (st.name, st.reads - seen)
        seen.add(st.name)
    assert len(seen) == len(viewplan.statements()), "a shared name is created twice"


def test_every_shared_name_is_needed_by_some_builtin_rule():
    needed = viewplan.closure(set().union(*(viewplan.rule_roots(r) for r in builtin_rules())))
    assert needed == viewplan.shared_names()


def test_closure_follows_dependencies_and_ignores_comments():
    assert viewplan.closure({"k10s_rank"}) == {"k10s_rank", "k10s_pod_span"}
    assert viewplan.mentioned("-- k10s_rank\nSELECT 1 FROM K10S_IP /* k10s_log */", viewplan.shared_names()) == {"k10s_ip"}


@pytest.fixture(scope="module")
def empty_bundle(tmp_path_factory):
    return table_bundle(tmp_path_factory.mktemp("vp") / "b", {})


def test_only_one_rule_creates_only_its_closure(empty_bundle):
    rules = [r for r in builtin_rules() if r.id == "pending"]
    con = prepare(empty_bundle, threads=1, rules=rules)
    try:
        assert _temp_names(con) <= viewplan.closure(viewplan.rule_roots(rules[0]))
        assert {s.name for s in viewplan.plan(rules)} == {"k10s_pod_span", "k10s_pod_job", "k10s_rank"} | viewplan.closure({"k10s_pod_job"}) | viewplan.ALWAYS
        assert "k10s_incident" not in _temp_names(con)
    finally:
        con.close()


def test_rules_certain_to_be_skipped_need_no_views():
    counts = {"gpu_samples": 0, "pods": 3, "log_events": 0, "ranks": 0, "gpus": 0, "nodes": 0}
    rules = builtin_rules()
    kept = {r.id for r in viewplan.applicable(rules, counts)}
    assert "idle-gpu" not in kept  # requires gpu_samples, which is empty
    assert "pending" in kept
    assert {r.id for r in viewplan.applicable(rules, counts, only={"pending"})} == {"pending"}


def test_user_rule_reading_a_shared_view_gets_it(tmp_path, empty_bundle):
    rule = parse_rule("-- id: mine\n-- title: t\n-- severity: info\n-- requires: pods\n-- description: d\n"
                      "-- columns:\n--   n BIGINT -- count\nSELECT count(*) AS n FROM k10s_hang_verdict\n", "mine.sql", builtin=False)
    names = {s.name for s in viewplan.plan([rule])}
    assert "k10s_hang_verdict" in names and "k10s_incident" in names


def _reference(bundle: Bundle) -> dict:
    """Every shared view, DuckDB's optimizer on: what ``analyze`` gave before view planning and light plans."""
    con = prepare(bundle, threads=1, rules=None, light=False)
    try:
        assert con.execute("SELECT current_setting('enable_optimizer')").fetchall() == [(True,)]
        return run_rules(con, bundle, load_rules(()))
    finally:
        con.close()


def _assert_light_output_is_the_reference(bundle: Bundle, folder, name: str) -> None:
    """The analysis in ``folder`` (light plan, views planned) is byte for byte the reference's, in
    every format; and the bundle is small enough to be planned light at all."""
    assert_planned_light(bundle)
    reference = _reference(bundle)
    assert (folder / f"{name}.json").read_text(encoding="utf-8") == render.to_json(reference)
    assert (folder / f"{name}.txt").read_text(encoding="utf-8") == render.to_text(reference, color=False)
    assert (folder / f"{name}.md").read_text(encoding="utf-8") == render.to_markdown(reference)


@pytest.mark.slow  # every sample bundle x 3 analyses
@pytest.mark.parametrize("sample", SAMPLES)
def test_findings_identical_with_and_without_view_planning(sample, tmp_path, twins):
    """``analyze`` (views planned, small bundles planned without DuckDB's optimizer) gives, byte for
    byte in JSON, text and Markdown, what every shared view with the optimizer gives. The planned
    analysis comes from ``twins``: seed 1 and one DuckDB thread, byte for byte the same as seed 2 and
    4 threads — the determinism check of the sample bundles (tests/test_determinism.py)."""
    copy = shutil.copytree(SAMPLE_BUNDLES / sample, tmp_path / sample)
    folder, _ = twins.analyze({f"sample-{sample}": copy}, tmp_path / "runs")
    _assert_light_output_is_the_reference(Bundle.open(copy), folder, f"sample-{sample}")


#: A few real incidents (12 spread over the corpus, by name): pasted logs, the smallest bundles.
CORPUS = Path(__file__).resolve().parent / "data" / "real-incidents"
INCIDENTS = spread(sorted(load_corpus(CORPUS), key=lambda c: c.incident), 12)


@pytest.mark.parametrize("case", INCIDENTS, ids=lambda c: c.incident)
def test_light_plans_of_real_incidents_are_the_reference(case, tmp_path):
    bundle = incident_bundle(tmp_path / case.incident, case, (CORPUS / case.incident / "log.txt").read_text(encoding="utf-8"))
    folder = tmp_path / "out"
    analyse_all({case.incident: str(bundle.path)}, folder, threads=2)
    _assert_light_output_is_the_reference(Bundle.open(bundle.path), folder, case.incident)


def test_a_group_naming_a_shared_view_is_undecided():
    rule = next(r for r in builtin_rules() if r.id == "rank-failure")
    assert rule.requires[0] == ("k10s_job_log",)
    assert [r.id for r in viewplan.applicable([rule], {"ranks": 0})] == ["rank-failure"]


def test_incident_pricing_finds_its_macro_even_when_no_rule_runs(empty_bundle):
    con = prepare(empty_bundle, threads=1, rules=[])
    try:
        con.execute("SELECT k10s_price('H100')").fetchall()  # no Catalog Error
    finally:
        con.close()


EMPTY_SHORTCUTS = [s for s in viewplan.statements() if s.empty_without or s.empty_unless]


def test_flight_recorder_ras_log_hang_evidence_and_incidents_have_empty_shortcuts():
    names = {s.name: s.empty_without for s in EMPTY_SHORTCUTS if s.empty_without}
    assert names == {"k10s_fr_rank": ("flight_recorder",), "k10s_fr_entry": ("flight_recorder",),
                     "k10s_hang_evidence_fr_dumps": ("flight_recorder",), "k10s_ras_report": ("nccl_ras",),
                     "k10s_ras_process": ("nccl_ras",), "k10s_hang_evidence_ras": ("nccl_ras",),
                     "k10s_logs_desync_ev": ("k10s_desync_lines",), "k10s_logs_fingerprint_ev": ("k10s_fingerprint_obs",),
                     "k10s_logs_watchdog_ev": ("k10s_wd_lines",), "k10s_logs_lost_peer_ev": ("k10s_peer_closed",),
                     "k10s_logs_late_peer_ev": ("k10s_gloo_wait",), "k10s_xid_event": ("k10s_xid_line", "gpu_samples"),
                     "k10s_incident_line": ("k10s_failure_line",), "k10s_incident_hang": ("k10s_incident_line",),
                     "k10s_incident_restarted": ("k10s_incident_line",), "k10s_incident_own": ("k10s_incident_line",),
                     "k10s_wait_exit_alike": ("k10s_incident_line",),
                     "k10s_incident_best": ("k10s_incident_own",), "k10s_incident_device_fault": ("k10s_incident_own",),
                     "k10s_incident_host_refused": ("k10s_incident_best",),
                     "k10s_incident_after_teardown": ("k10s_incident_best",),
                     "k10s_incident_first": ("k10s_incident_best",), "k10s_incident_same_frame": ("k10s_incident_best",),
                     "k10s_incident_unclocked": ("k10s_incident_best",),
                     "k10s_incident_all_said": ("k10s_incident_best",),
                     "k10s_incident_common_mode": ("k10s_incident_line",),
                     "k10s_incident_nccl_unplaced": ("k10s_incident_line",),
                     "k10s_incident_nonfinite_one": ("k10s_incident_line",),
                     "k10s_incident": ("k10s_incident_line",)}
    st = next(s for s in EMPTY_SHORTCUTS if s.name == "k10s_fr_rank")
    assert st.empty_sql(None) is None and st.empty_sql({"flight_recorder": 3}) is None and st.empty_sql({"flight_recorder": -1}) is None
    assert st.empty_sql({"flight_recorder": 0}).startswith(f"CREATE OR REPLACE TEMP TABLE {st.name} (job_key VARCHAR, ")
    assert st.empty_sql({"pods": 4}) is not None  # a table the bundle lacks has no rows


@pytest.mark.parametrize("st", EMPTY_SHORTCUTS, ids=lambda s: s.name)
def test_declared_empty_columns_are_the_statements_own(st, empty_bundle):
    """The columns an empty shortcut declares are, name for name and type for type, what the statement
    itself creates (run for real on a bundle without those tables): consumers bind the same either way."""
    con = prepare(empty_bundle, threads=1)  # every shared statement, none shortcut
    try:
        real = con.execute(f"DESCRIBE {st.name}").fetchall()
        con.execute(f"DROP TABLE {st.name}")
        con.execute(st.empty_sql({}, unless_false=True))
        assert con.execute(f"DESCRIBE {st.name}").fetchall() == real
        assert con.execute(f"SELECT count(*) FROM {st.name}").fetchall() == [(0,)]
    finally:
        con.close()


def test_empty_shortcuts_change_no_output_on_a_bundle_with_and_without_dumps(tmp_path):
    from k10s_forensics.analyze.runner import analyze

    for name in ("hang-flight-recorder", "hang-ras-dead", "nccl-hang", "nccl-desync-report", "collective-mismatch", "rank-segfault", "xid-79",
                 "healthy", "straggler-network"):  # the last two without failure lines: k10s_incident created empty
        copy = shutil.copytree(SAMPLE_BUNDLES / name, tmp_path / name)
        on, off = (render.to_json(analyze(Bundle.open(copy), threads=1, gates=g)) for g in (True, False))
        assert on == off, name


def test_a_shared_table_in_empty_without_is_counted_once_created(empty_bundle, monkeypatch):
    """``-- empty-without: k10s_x`` counts k10s_x after creating it and before the statement: empty, the
    statement is created from its declared columns (unbound); with rows, it runs."""
    st = next(s for s in viewplan.statements() if s.name == "k10s_logs_watchdog_ev")
    assert st.empty_without == ("k10s_wd_lines",) and "k10s_wd_lines" in st.reads
    ran: list[str] = []
    real_run = viewplan._run
    monkeypatch.setattr(viewplan, "_run", lambda con, script, file: (ran.extend(script), real_run(con, script, file)))
    con = prepare(empty_bundle, threads=1)
    try:
        viewplan.create(con, [s for s in viewplan.statements() if s.file == st.file], {})
        mine = [sql for sql in ran if f"TABLE {st.name} " in sql]
        assert mine == [st.empty_sql({})]
        ran.clear()
        con.execute("INSERT INTO k10s_wd_lines (job_key, rank, kind, ord) VALUES ('ns/j', 0, 'nccl_watchdog_timeout', 1)")
        viewplan.create(con, [s for s in viewplan.statements() if s.file == st.file and s.name not in ("k10s_wd_lines",)], {})
        assert [sql for sql in ran if f"TABLE {st.name} " in sql] == [st.sql.rstrip().rstrip(";")]
    finally:
        con.close()


def _refused_header(monkeypatch, old: str, new: str, message: str) -> None:
    """The shared statements with ``old`` replaced by ``new`` in their SQL files are refused with ``message``."""
    from k10s_forensics.errors import QueryError

    viewplan.statements.cache_clear()
    real = viewplan.read_text
    monkeypatch.setattr(viewplan, "read_text", lambda f: real(f).replace(old, new))
    try:
        with pytest.raises(QueryError, match=message):
            viewplan.statements()
    finally:
        monkeypatch.undo()
        viewplan.statements.cache_clear()


def test_empty_without_a_shared_table_the_statement_does_not_read_is_refused(monkeypatch):
    _refused_header(monkeypatch, "-- empty-without: k10s_gloo_wait", "-- empty-without: k10s_ip",
                    "k10s_logs_late_peer_ev: empty-without names .*k10s_ip")


def test_empty_unless_conditions_are_evaluated_together_and_false_ones_create_empty(tmp_path, monkeypatch):
    """``-- empty-unless:`` conditions over the bundle's own tables: every planned one in one SELECT before
    any statement; on a bundle with no log line of their families the statements are created from their
    declared columns (unbound), and the analysis is the one without the shortcuts, byte for byte."""
    from k10s_forensics.analyze.runner import analyze

    conditional = {s.name for s in viewplan.statements() if s.empty_unless}
    assert {"k10s_desync_lines", "k10s_fingerprint_obs", "k10s_wd_lines", "k10s_node_clock", "k10s_hang_evidence_fr",
            "k10s_failure_line"} <= conditional
    g = gang(pods=2)
    g["log_events"] = [{"namespace": "team-a", "pod": "llama-worker-0", "pod_uid": "uid-llama-worker-0", "container": "pytorch",
                        "ts": T0, "kind": "training_step", "step": 1, "line": "step 1", "line_no": 1, "raw_row": 0}]
    bundle = table_bundle(tmp_path / "b", g)
    ran: list[str] = []
    evaluated: list[frozenset[str]] = []
    real_run, real_false = viewplan._run, viewplan._false_conditions
    monkeypatch.setattr(viewplan, "_run", lambda con, script, file: (ran.extend(script), real_run(con, script, file)))
    monkeypatch.setattr(viewplan, "_false_conditions", lambda con, planned: evaluated.append(real_false(con, planned)) or evaluated[-1])
    on = render.to_json(analyze(bundle, threads=1))
    assert len(evaluated) == 1 and conditional <= evaluated[0]
    for name in conditional:
        st = next(s for s in viewplan.statements() if s.name == name)
        assert st.empty_sql({}, True) in ran and st.sql.rstrip().rstrip(";") not in ran, name
    monkeypatch.undo()
    assert on == render.to_json(analyze(bundle, threads=1, gates=False))


def test_empty_columns_like_a_shared_table_the_statement_does_not_read_is_refused(monkeypatch):
    """``-- empty-columns: k10s_x.*, …`` copies k10s_x's columns: only a table the statement reads is created before it."""
    _refused_header(monkeypatch, "-- empty-columns: k10s_failure_line.*, brk INTEGER", "-- empty-columns: k10s_ip.*, brk INTEGER",
                    "k10s_incident_line: empty-columns starts with a table it does not read")


def test_empty_unless_reading_a_shared_name_is_refused(monkeypatch):
    _refused_header(monkeypatch, "-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE kind = 'collective_mismatch'",
                    "-- empty-unless: EXISTS (SELECT 1 FROM k10s_log WHERE kind = 'collective_mismatch'",
                    "k10s_fingerprint_obs: empty-unless may read only the bundle's own tables")
