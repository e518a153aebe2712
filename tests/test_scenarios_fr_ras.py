"""Simulator sweep for the Flight Recorder / RAS hang scenarios: simulate a raw bundle, rebuild
it with the real parsers, run the rules and the contract views on real DuckDB.

Checked: the rules' expected findings and no false alarm (the same comparison as
test_rules_scenarios), the views name exactly the planted culprit, and on the other
scenarios the views name no culprit at all.
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import prepare
from k10s_forensics.bundle import Bundle
from tests.test_rules_scenarios import compare, simulate_and_analyze

SHAPES = ((3, 2, None), (4, 1, None), (2, 4, 4), (2, 8, 8))


def _views(path) -> list[dict]:
    con = prepare(Bundle.open(path))
    try:
        rel = con.sql("SELECT * FROM k10s_hang_evidence_fr UNION ALL SELECT * FROM k10s_hang_evidence_ras")
        return [dict(zip(rel.columns, row)) for row in rel.fetchall()]
    finally:
        con.close()


CASES = [(s, seed, *SHAPES[(seed + i) % len(SHAPES)]) for i, s in enumerate(("hang-flight-recorder", "hang-ras-dead")) for seed in range(3)]


@pytest.mark.parametrize(("scenario", "seed", "nodes", "gpus", "nproc"), CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}x{c[3]}" for c in CASES])
def test_hang_evidence_scenarios(tmp_path, scenario, seed, nodes, gpus, nproc):
    truth, result = simulate_and_analyze(tmp_path, scenario, seed, nodes, gpus, 6, nproc)
    misses, alarms = compare(truth, result)
    assert not misses and not alarms, (misses, alarms)
    rows = _views(tmp_path / f"{scenario}-{seed}-{nodes}x{gpus}-{nproc}")
    (want,) = truth["hang_evidence"]
    named = [r for r in rows if r["culprit_ranks"]]
    assert [(r["evidence"], r["culprit_ranks"]) for r in named] == [(want["evidence"], want["culprit_ranks"])], rows
    assert named[0]["confidence"] in ("high", "medium")


@pytest.mark.parametrize("scenario", ["healthy", "nccl-hang", "oom-crashloop", "straggler-compute"])
def test_other_scenarios_get_no_culprit_from_fr_or_ras(tmp_path, scenario):
    simulate_and_analyze(tmp_path, scenario, 7, 3, 2, 6, None)
    rows = _views(tmp_path / f"{scenario}-7-3x2-None")
    assert not [r for r in rows if r["culprit_ranks"]], rows


SWEEP = [(s, seed, *SHAPES[seed % len(SHAPES)]) for s in ("hang-flight-recorder", "hang-ras-dead") for seed in range(10, 22)]


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "seed", "nodes", "gpus", "nproc"), SWEEP, ids=[f"{c[0]}-{c[1]}-{c[2]}x{c[3]}" for c in SWEEP])
def test_hang_evidence_sweep(tmp_path, scenario, seed, nodes, gpus, nproc):
    test_hang_evidence_scenarios(tmp_path, scenario, seed, nodes, gpus, nproc)
