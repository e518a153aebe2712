"""Rule gates (analyze.gates): a gate is true wherever its rule fires, and gated == ungated byte for byte.

The determinism twins (tests/determinism_kit.py) already analyse a fixed quarter of every kind of
bundle (sample bundles, real incidents, scenarios) with gates on against gates off; here, whole: the header and the registry, a minimal bundle
per branch of every gated rule (the rule fires with gates off, and its gate is true there), a
healthy gang (every gate false: gates do something), the sample bundles and a spread of simulated
scenarios with and without gates, and the errors a user rule's gate can make.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from _analyze_kit import at, gang, samples, table_bundle
from conftest import SAMPLE_BUNDLES
from gate_cases import CASES
from determinism_kit import CONFIGS, analyse_all, differing, ungated
from k10s_forensics.analyze import gates, render, runner, viewplan
from k10s_forensics.analyze.rules import builtin_rules, parse_rule
from k10s_forensics.analyze.runner import analyze, prepare
from k10s_forensics.errors import QueryError
from k10s_forensics.simulate import simulate
from k10s_forensics.store.bundle import Bundle

RULES = {r.id: r for r in builtin_rules()}
HEADER = "-- id: mine\n-- title: t\n-- severity: info\n-- requires: pods\n{gate}-- description: d\n-- columns:\n--   n BIGINT -- count\n{sql}\n"


def _gate_true(bundle, rule_id: str) -> bool:
    con = prepare(bundle, threads=1, rules=[])
    try:
        return rule_id not in gates.evaluate(con, [RULES[rule_id]])
    finally:
        con.close()


# ---- the header and the registry ------------------------------------------------------------

def test_every_builtin_rule_is_gated_or_says_why_not():
    for rule in builtin_rules():
        assert bool(rule.gate) != (rule.id in gates.UNGATED), rule.id
    assert all(len(why) > 40 for why in gates.UNGATED.values())
    assert {"gpu-startup", "crashloop", "pending", "gpu-health"} <= {r.id for r in builtin_rules() if r.gate}


def test_gate_header_parsed_over_continuation_lines():
    rule = parse_rule(HEADER.format(gate="-- gate: EXISTS (SELECT 1 FROM pods)\n--   OR EXISTS (SELECT 1 FROM jobs)\n", sql="SELECT 1 AS n"), "mine.sql")
    assert rule.gate == "EXISTS (SELECT 1 FROM pods) OR EXISTS (SELECT 1 FROM jobs)"
    assert parse_rule(HEADER.format(gate="", sql="SELECT 1 AS n"), "mine.sql").gate is None


@pytest.mark.parametrize(("gate", "message"), [("EXISTS (SELECT 1 FROM k10s_pod_span)", "shared name"), ("", "empty gate")])
def test_gate_header_refused(gate, message):
    with pytest.raises(QueryError, match=message) as err:
        parse_rule(HEADER.format(gate=f"-- gate: {gate}\n", sql="SELECT 1 AS n"), "mine.sql")
    assert "mine.sql" in str(err.value)


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    g = gang(pods=4, per_pod=2)
    g["gpu_samples"] = samples(g)
    g["containers"] = [{"namespace": "team-a", "pod": p["pod"], "pod_uid": p["pod_uid"], "container": "pytorch", "restart_count": 0,
                        "state": "running", "started_at": at(-600)} for p in g["pods"]]
    return table_bundle(tmp_path_factory.mktemp("gates") / "healthy", g)


@pytest.mark.parametrize(("gate", "message"), [("no_such_column > 0", "no_such_column"), ("1); SELECT (2", "not one SQL expression")])
def test_user_gate_that_fails_names_its_file(tmp_path, healthy, gate, message):
    (tmp_path / "rules").mkdir()
    path = tmp_path / "rules" / "mine.sql"
    path.write_text(HEADER.format(gate=f"-- gate: {gate}\n", sql="SELECT count(*) AS n FROM pods"), encoding="utf-8")
    with pytest.raises(QueryError, match=message) as err:
        analyze(healthy, rules_dirs=[str(tmp_path / "rules")])
    assert str(path) in str(err.value)


def test_user_rule_gate_false_is_nothing_found_not_skipped(tmp_path, healthy):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "mine.sql").write_text(
        HEADER.format(gate="-- gate: EXISTS (SELECT 1 FROM pods WHERE phase = 'Failed')\n", sql="SELECT count(*) AS n FROM pods WHERE phase = 'Failed' HAVING n > 0"),
        encoding="utf-8")
    on = analyze(healthy, rules_dirs=[str(tmp_path / "rules")], only={"mine"})
    off = analyze(healthy, rules_dirs=[str(tmp_path / "rules")], only={"mine"}, gates=False)
    assert on == off and on["findings"] == [] and on["skipped"] == []


def test_healthy_gang_every_gate_false_and_the_same_output(healthy):
    con = prepare(healthy, threads=1, rules=[])
    try:
        assert gates.evaluate(con, builtin_rules()) == {r.id for r in builtin_rules() if r.gate}
    finally:
        con.close()
    on, off = analyze(healthy, threads=1), analyze(healthy, threads=1, gates=False)
    assert render.to_json(on) == render.to_json(off)


def test_gated_rule_views_are_not_created(healthy):
    rules = [RULES[r] for r in ("gpu-health", "pending", "idle-gpu")]
    con = prepare(healthy, threads=1, rules=rules)
    try:
        assert gates.gated_out(con) == {"gpu-health", "pending"}
        made = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary AND table_name LIKE 'k10s\\_%' ESCAPE '\\'").fetchall()} - {"k10s_gpu_prices"}
        assert "k10s_rank" in made and made <= {s.name for s in viewplan.plan([RULES["idle-gpu"]])}
        assert "k10s_xid_event" not in made  # gpu-health's
    finally:
        con.close()


# ---- a minimal bundle per branch of every gated rule (tests/gate_cases.py): the rule fires, its gate is true

def test_cases_cover_every_gated_rule():
    assert {rule for rule, _ in CASES} == {r.id for r in builtin_rules() if r.gate}


@pytest.mark.parametrize(("rule", "edit"), CASES, ids=[f"{r}-{e.__name__.lstrip('_')}" for r, e in CASES])
def test_gate_true_where_the_rule_fires(tmp_path, rule, edit):
    g = gang(pods=4, per_pod=1)
    edit(g)
    bundle = table_bundle(tmp_path / "b", g, minutes=30)
    found = analyze(bundle, only={rule}, threads=1, gates=False)
    assert [f for f in found["findings"] if f["rule"] == rule], found["skipped"]
    assert _gate_true(bundle, rule)


# ---- whole bundles: gates on and off, byte for byte --------------------------------------------

def _outputs(result: dict) -> tuple[str, str, str]:
    return render.to_json(result), render.to_text(result, color=False), render.to_markdown(result)


def _same_with_and_without_gates(bundles: dict[str, str], out: Path) -> None:
    analyse_all(bundles, out / "on", threads=1)
    analyse_all(bundles, out / "off", threads=1, ungated_every=1)
    assert not list((out / "on").glob("*.error")) and len(list((out / "on").iterdir())) == 3 * len(bundles)
    assert differing(out / "on", out / "off") == []


@pytest.mark.slow  # every sample bundle analysed twice (~40 s on 2 loaded cores)
def test_sample_bundles_same_with_and_without_gates(tmp_path):
    """The gated rules only (the others run the same SQL either way; the twins of test_viewplan compare
    whole analyses of every sample with gates on and off): JSON, text and Markdown byte for byte."""
    gated = {r.id for r in builtin_rules() if r.gate}
    names = sorted(p.name for p in SAMPLE_BUNDLES.iterdir() if (p / "manifest.json").is_file())
    fired = set()
    for name in names:
        bundle = Bundle.open(shutil.copytree(SAMPLE_BUNDLES / name, tmp_path / name))
        off = analyze(bundle, only=gated, threads=1, gates=False)
        assert _outputs(analyze(bundle, only=gated, threads=1)) == _outputs(off), name
        fired |= {f["rule"] for f in off["findings"]}
    assert fired == gated  # each gated rule fires on some sample: its gate was true there


SIMULATED = ("oom-crashloop", "pending-quota", "xid-79", "straggler-network")


def test_simulated_scenarios_same_with_and_without_gates(tmp_path):
    bundles = {}
    for seed, name in enumerate(SIMULATED):
        simulate(name, str(tmp_path / name), seed=seed, nodes=2, gpus_per_node=4, minutes=5)
        bundles[name] = str(tmp_path / name)
    _same_with_and_without_gates(bundles, tmp_path / "out")


def test_runner_keeps_the_views_a_gated_rule_requires(healthy):
    """A gated-out rule's required shared view still exists, so its skip check reads the same count."""
    rule = parse_rule(HEADER.replace("requires: pods", "requires: k10s_job_log").format(gate="-- gate: false\n", sql="SELECT 1 AS n"), "mine.sql")
    con = prepare(healthy, threads=1, rules=[rule])
    try:
        result = runner.run_rules(con, healthy, [rule])
    finally:
        con.close()
    assert result["skipped"] == [{"rule": "mine", "reason": runner.EMPTY_REASONS["k10s_job_log"]}]


def test_twins_prove_gates_on_a_fixed_spread_quarter():
    """The twins' second configuration runs a fixed quarter of the bundles ungated: the same names on
    every run (a hash of the name, not Python's), some of every kind the suite analyses."""
    assert [every for *_, every in CONFIGS] == [0, 4]
    samples = [f"sample-{p.name}" for p in sorted(SAMPLE_BUNDLES.iterdir()) if (p / "manifest.json").is_file()]
    corpus = [f"corpus-{p.name}" for p in sorted((Path(__file__).parent / "data" / "real-incidents").iterdir()) if p.is_dir()]
    for names in (samples, corpus):
        share = sum(ungated(n, 4) for n in names) / len(names)
        assert 0.1 < share < 0.45, share
    assert ungated("sample-xid-79", 4) and not ungated("sample-oom-crashloop", 4)
    assert all(ungated(n, 1) for n in samples) and not any(ungated(n, 0) for n in samples)
