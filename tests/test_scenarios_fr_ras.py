"""Simulator sweep for the Flight Recorder / RAS hang scenarios: simulate a raw bundle, rebuild
it with the real parsers, run the rules and the contract views on real DuckDB.

Checked: the rules' expected findings and no false alarm (the same comparison as
test_rules_scenarios), the views name exactly the planted culprit, and on the other
scenarios the views name no culprit at all.
"""

from __future__ import annotations

import pytest

from k10s_forensics.store.bundle import Bundle
from tests._analyze_kit import prepare_views
from tests.test_rules_scenarios import compare, simulate_and_analyze

SHAPES = ((3, 2, None), (4, 1, None), (2, 4, 4), (2, 8, 8))


def _views(path) -> list[dict]:
    con = prepare_views(Bundle.open(path), "k10s_hang_evidence_fr", "k10s_hang_evidence_ras")
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


class _Hostile:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("seed", [1, 2])
def test_a_hostile_and_an_oversized_dump_cost_only_themselves(tmp_path, seed):
    import base64
    import json
    import pickle
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    from k10s_forensics.simulate import simulate

    truth = simulate("hang-flight-recorder", tmp_path / "b", seed=seed, nodes=3, gpus_per_node=2, minutes=6, interval_s=30)
    culprit = truth["hang_evidence"][0]["culprit_ranks"][0]
    marker = tmp_path / "ran"
    path = tmp_path / "b" / "raw" / "exec.parquet"
    rows = pq.read_table(path).to_pylist()
    poisoned = None
    for r in rows:
        if r["source"] != "flight-recorder":
            continue
        env = json.loads(r["stdout"])
        for item in env["files"]:
            if poisoned is None and not item["path"].endswith(f"_{culprit}"):
                item["b64"] = base64.b64encode(pickle.dumps({"entries": [_Hostile(marker)]}, protocol=2)).decode()
                poisoned = item["path"]
        env["files"].append({"path": env["prefix"] + "77", "bytes": 900_000_000, "skipped": "over the size limit"})
        r["stdout"] = json.dumps(env)
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path, compression="zstd")
    proc = subprocess.run([sys.executable, "-m", "k10s_forensics", "rebuild", str(tmp_path / "b")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr + proc.stdout
    out = proc.stdout + proc.stderr
    assert "dump refused: refused pickle global" in out and "dump not read at capture: over the size limit" in out
    assert not marker.exists()
    rows = _views(tmp_path / "b")
    named = [r for r in rows if r["culprit_ranks"]]
    assert [(r["evidence"], r["culprit_ranks"]) for r in named] == [("flight-recorder", [culprit])], rows
    con = prepare_views(Bundle.open(tmp_path / "b"))  # the tables alone
    try:
        per_rank = dict(con.sql("SELECT rank, count(*) FROM flight_recorder GROUP BY rank").fetchall())
    finally:
        con.close()
    poisoned_rank = int(poisoned.rsplit("_", 1)[1])
    assert poisoned_rank not in per_rank and len(per_rank) >= 4  # every other dump is still read
