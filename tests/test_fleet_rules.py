"""Fleet rules on simulated fleets (DuckDB): every planted recurrence found, nothing else.

Fleets are written as index rows (``simulate.fleet_rows``) so many seeds and sizes stay
fast; tests/test_fleet_index.py covers real bundles end to end.
"""

from __future__ import annotations

import pytest

from k10s_forensics.errors import QueryError
from k10s_forensics.fleet.analysis import analyze_fleet
from k10s_forensics.fleet.registry import FLEET_RULES, SETTINGS, fleet_rules, packaged_files, parse_fleet_rule, rule_file
from k10s_forensics.simulate.fleet import plan_fleet
from k10s_forensics.simulate.fleet_rows import write_rows
from tests.fleet_helpers import expected, found


def _fleet(tmp_path, seed: int, size: int, planted: bool = True):
    plan = plan_fleet(seed, size, planted=planted)
    write_rows(plan, tmp_path / "fleet", batch_size=97)
    return plan, analyze_fleet(str(tmp_path / "fleet"))


@pytest.mark.parametrize("seed,size", [(1, 150), (2, 300), (3, 600), (4, 1200), (11, 250), (12, 450)])
def test_planted_recurrences_found_and_nothing_else(tmp_path, seed, size):
    plan, result = _fleet(tmp_path, seed, size)
    assert found(result) == expected(plan.truth)
    assert result["fleet"]["bundles"] == size


@pytest.mark.parametrize("seed,size", [(5, 200), (6, 500), (7, 1000), (8, 350)])
def test_healthy_fleet_has_no_recurrence(tmp_path, seed, size):
    _, result = _fleet(tmp_path, seed, size, planted=False)
    assert found(result) == {rule: set() for rule in found(result)}


def test_gpu_identity_is_the_serial_even_where_a_bundle_lacked_it(tmp_path):
    plan, result = _fleet(tmp_path, 21, 200)
    row = next(r for r in result["results"] if r["rule"] == "recurring-gpu")["rows"][0]
    assert row["gpu_key"].startswith("serial:") and row["incidents"] == 4  # one of the 4 bundles had no serial
    moved = next(r for r in result["results"] if r["rule"] == "moved-gpu")["rows"][0]
    assert moved["nodes_failed_on"] == 2 and len(moved["nodes"].split(",")) == 2


def test_renamed_node_keeps_its_identity(tmp_path):
    plan, result = _fleet(tmp_path, 22, 200)
    row = next(r for r in result["results"] if r["rule"] == "recurring-node")["rows"][0]
    names = row["node_names"].split(",")
    assert len(names) == 2 and names[1] == names[0] + "-r"  # the same machine under two names
    assert row["gpus_involved"] == 4  # a different GPU each time: the node, not a board
    assert row["node_key"].startswith("system-uuid:")


def test_period_and_threshold_settings_change_what_recurs(tmp_path):
    plan = plan_fleet(23, 200)
    write_rows(plan, tmp_path / "fleet")
    tight = analyze_fleet(str(tmp_path / "fleet"), settings={"period_s": 3 * 86400})
    assert not found(tight)["recurring-gpu"]  # 4 incidents over 19 days never fall within 3 days
    strict = analyze_fleet(str(tmp_path / "fleet"), settings={"min_incidents": 5})
    assert not found(strict)["recurring-node"]
    loose = analyze_fleet(str(tmp_path / "fleet"), settings={"min_incidents": 2})
    assert found(loose)["recurring-gpu"] >= expected(plan.truth)["recurring-gpu"]


def test_summaries_count_and_cost(tmp_path):
    plan, result = _fleet(tmp_path, 24, 300)
    by = {r["rule"]: r for r in result["results"]}
    rates = by["model-driver-rate"]["rows"]
    assert rates and all(0 <= r["hang_rate"] <= 1 and r["hung_bundles"] <= r["bundles"] for r in rates)
    assert sum(r["bundles"] for r in rates) >= 300  # a bundle spanning two drivers counts in both
    cost = by["cost-by-cause"]["rows"]
    costed = [f for b in plan.bundles for f in b.findings if f.gpu_hours_lost]  # the plan's incidents: one finding each
    assert sum(r["gpu_hours_lost"] for r in cost) == pytest.approx(sum(f.gpu_hours_lost for f in costed), rel=1e-3)
    assert sum(r["incidents"] for r in cost) == len(costed) and sum(r["findings"] for r in cost) == len(costed)
    assert all(r["cost_usd"] > 0 and r["namespace"] in ("team-a", "team-b", "nlp", "vision") for r in cost)


def test_registry_lists_every_rule_file():
    files = {f for f in packaged_files() if not f.startswith("_")}
    assert files == {rule_file(r) for r in FLEET_RULES}
    rules = fleet_rules()
    assert [r.id for r in rules] == list(FLEET_RULES)
    for r in rules:
        assert r.rule.columns and r.rule.description
        assert set(r.settings) <= set(SETTINGS)
        if r.kind == "finding":
            assert r.recommendation
        if r.kind == "finding" and r.id != "driver-hangs":  # every recurrence names its incidents
            assert "bundle_ids" in [c.name for c in r.rule.columns]


def test_rule_header_errors_name_the_file():
    good = "-- id: x\n-- kind: finding\n-- title: t\n-- severity: info\n-- requires: fleet_bundles\n-- description: d\n-- columns:\n--   a BIGINT -- a\nSELECT 1 AS a\n"
    assert parse_fleet_rule(good, "x.sql").kind == "finding"
    with pytest.raises(QueryError, match="x.sql.*kind"):
        parse_fleet_rule(good.replace("kind: finding", "kind: maybe"), "x.sql")
    with pytest.raises(QueryError, match="x.sql.*settings"):
        parse_fleet_rule(good.replace("SELECT 1", "SELECT $min_incidents"), "x.sql")


def test_docs_reference_is_fresh_and_covers_other_engines():
    from k10s_forensics.fleet import docgen

    assert docgen.main(["--check"]) == 0, "run python -m k10s_forensics.fleet.docgen"
    text = docgen.DOC.read_text(encoding="utf-8")
    for word in ("spark-submit", "s3a://", "Trino", "Athena", "BigQuery", "cluster=<slug>/month=<YYYY-MM>"):
        assert word in text


def test_a_recaptured_event_is_one_incident(tmp_path):
    """Two bundles of the same node can carry the same old Xid line (the kernel log keeps it):
    the same event dated the same counts once, so it cannot make a recurrence by itself."""
    from k10s_forensics.analyze.prices import PriceTable
    from k10s_forensics.fleet.store import FleetStore
    from k10s_forensics.simulate.fleet_rows import bundle_rows

    plan = plan_fleet(25, 200)
    write_rows(plan, tmp_path / "fleet")
    key = plan.truth["recurring-gpu"][0]
    planted = [b for b in plan.bundles if any(f.gpu and f"serial:{f.gpu.serial}" == key for f in b.findings)]
    store = FleetStore(tmp_path / "fleet")
    for copy in range(3):  # each planted capture re-captured three more times
        for b in planted:
            store.write_batch(bundle_rows(plan, 10_000 + copy * 100 + plan.bundles.index(b), b, PriceTable.default()))
    result = analyze_fleet(str(tmp_path / "fleet"))
    row = next(r for r in result["results"] if r["rule"] == "recurring-gpu")["rows"][0]
    assert row["gpu_key"] == key and row["incidents"] == 4 and row["incidents_in_period"] == 4
    xid = next(r for r in result["results"] if r["rule"] == "xid-recurrence")["rows"]
    assert {(x["scope"], x["incidents"]) for x in xid if x["hw_key"] == key} == {("gpu", 4)}
    assert found(result) == expected(plan.truth)
