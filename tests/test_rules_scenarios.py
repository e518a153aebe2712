"""Every rule on the simulator's scenarios: the planted culprit and cause, no false alarm.

Each case simulates a raw bundle (small sizes), rebuilds it with the real parsers, runs
``analyze`` and compares with the truth file: every expected finding must be present with
the same rule, cause, ranks, pods, nodes and GPUs; forbidden rules must report nothing at
critical/warning. The sweep over more seeds and sizes is marked slow; the accuracy table
in benchmarks/results/analyze.md comes from ``python tests/test_rules_scenarios.py``.

The tests analyse through ``twins`` (conftest.py): once with PYTHONHASHSEED=1 and one DuckDB
thread, once with seed 2 and 4 threads, the outputs byte-identical — tests/test_determinism.py's
sweep for these scenarios (a difference raises DeterminismError).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

simulate_mod = pytest.importorskip("k10s_forensics.simulate")
if not hasattr(simulate_mod, "simulate"):
    pytest.skip("k10s simulate is not available", allow_module_level=True)

from k10s_forensics.analyze.runner import analyze  # noqa: E402
from k10s_forensics.store.bundle import Bundle  # noqa: E402

SCENARIOS = ("healthy", "straggler-compute", "straggler-input", "straggler-network", "oom-crashloop", "nccl-hang",
             "idle-gpus", "pending-taint", "pending-capacity", "pending-quota", "xid-79", "node-lost", "pod-disrupted",
             "rank-host-oom", "rank-segfault", "rank-exception", "rank-cuda-error",
             "nccl-size-mismatch", "nccl-desync-report", "collective-mismatch", "nccl-stall-all",
             "hang-flight-recorder", "hang-ras-dead")
CULPRIT_KEYS = ("ranks", "pods", "nodes", "gpus")


def simulate_and_analyze(root: Path, scenario: str, seed: int, nodes: int, gpus: int, minutes: float, nproc: int | None = None) -> tuple[dict, dict]:
    out = root / f"{scenario}-{seed}-{nodes}x{gpus}-{nproc}"
    truth = simulate_mod.simulate(scenario, out, seed=seed, nodes=nodes, gpus_per_node=gpus, minutes=minutes, interval_s=10, nproc_per_node=nproc)
    return truth, analyze(Bundle.open(out))


def compare(truth: dict[str, Any], result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(misses, false alarms) as readable strings; both empty = correct."""
    misses = []
    for exp in truth["expected"]:
        cands = [f for f in result["findings"] if f["rule"] == exp["rule"]]
        ok = [f for f in cands if (not exp.get("cause") or f["cause"] == exp["cause"])
              and all(sorted(f[k]) == sorted(exp.get(k) or []) for k in CULPRIT_KEYS if exp.get(k))]
        if not ok:
            got = [(f["cause"], f["ranks"][:8], f["pods"][:3], f["nodes"][:3]) for f in cands]
            misses.append(f"{exp['rule']}/{exp.get('cause')} ranks={exp.get('ranks')} pods={exp.get('pods')} nodes={exp.get('nodes')} -> got {got}")
    forbidden = set(truth.get("forbidden_rules") or [])
    alarms = [f"{f['rule']}/{f['cause']} {f['severity']} ranks={f['ranks'][:8]} pods={f['pods'][:3]}: {f['title']}"
              for f in result["findings"] if f["rule"] in forbidden and f["severity"] in ("critical", "warning")]
    errors = [f"{s['rule']} errored: {s['reason']}" for s in result["skipped"] if s.get("error")]
    return misses + errors, alarms


_CACHE: dict[tuple, tuple[dict, dict]] = {}


@pytest.fixture(scope="module")
def sim_root(tmp_path_factory):
    return tmp_path_factory.mktemp("scenarios")


def _case(sim_root, twins, *key):
    """Simulated, rebuilt, and analysed in both configurations of the determinism check (``twins``)."""
    if key not in _CACHE:
        from k10s_forensics.rebuild.pool import ensure_tables

        scenario, seed, nodes, gpus, minutes = key
        out = sim_root / f"{scenario}-{seed}-{nodes}x{gpus}-None"
        truth = simulate_mod.simulate(scenario, out, seed=seed, nodes=nodes, gpus_per_node=gpus, minutes=minutes, interval_s=10)
        ensure_tables(Bundle.open(out))  # once here, not once in each configuration's process
        _CACHE[key] = truth, twins.findings(f"sim-{out.name}", out, sim_root / "runs" / out.name)
    return _CACHE[key]


# one small case per scenario, seeds and shapes varied across scenarios
FAST = [(s, i, 3 + i % 2, 2 + 2 * (i % 2), 6) for i, s in enumerate(SCENARIOS)]


@pytest.mark.parametrize(("scenario", "seed", "nodes", "gpus", "minutes"), FAST, ids=[c[0] for c in FAST])
def test_scenario_culprit_and_no_false_alarm(sim_root, twins, scenario, seed, nodes, gpus, minutes):
    truth, result = _case(sim_root, twins, scenario, seed, nodes, gpus, minutes)
    misses, alarms = compare(truth, result)
    assert not misses, misses
    assert not alarms, alarms
    if scenario != "healthy":
        assert truth["expected"], "a fault scenario plants at least one expected finding"


SWEEP = [(s, seed, nodes, gpus, 8) for s in SCENARIOS for seed, (nodes, gpus) in zip(range(20, 23), ((4, 8), (6, 1), (3, 4)))]


_SWEEP_TALLY: dict[str, list[int]] = {}


@pytest.fixture(scope="module")
def sweep_table():
    """Prints the scenario x (runs, hits, misses, false alarms) table after the sweep (``-s``); ``K10S_SWEEP_TABLE=path`` also writes it."""
    yield _SWEEP_TALLY
    if _SWEEP_TALLY:
        import os

        lines = ["| scenario | runs | hits | misses | false alarms |", "|---|---|---|---|---|"]
        lines += [f"| {s} | {r} | {h} | {m} | {a} |" for s, (r, h, m, a) in _SWEEP_TALLY.items()]
        print("\n" + "\n".join(lines))
        if os.environ.get("K10S_SWEEP_TABLE"):
            Path(os.environ["K10S_SWEEP_TABLE"]).write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "seed", "nodes", "gpus", "minutes"), SWEEP, ids=[f"{c[0]}-{c[1]}-{c[2]}x{c[3]}" for c in SWEEP])
def test_scenario_sweep(sim_root, sweep_table, twins, scenario, seed, nodes, gpus, minutes):
    truth, result = _case(sim_root, twins, scenario, seed, nodes, gpus, minutes)
    misses, alarms = compare(truth, result)
    tally = sweep_table.setdefault(scenario, [0, 0, 0, 0])
    tally[0] += 1
    tally[1] += len(truth["expected"]) - len([m for m in misses if "errored" not in m])
    tally[2] += len(misses)
    tally[3] += len(alarms)
    assert not misses and not alarms, (misses, alarms)


def _accuracy(seeds: range, shapes: list[tuple[int, int, int | None]], root: Path) -> None:
    """Print a scenario x (hits, misses, false alarms) table in Markdown."""
    print("| scenario | runs | hits | misses | false alarms |\n|---|---|---|---|---|")
    for s in SCENARIOS:
        hits = misses = alarms = runs = 0
        notes = []
        for seed in seeds:
            nodes, gpus, nproc = shapes[seed % len(shapes)]
            truth, result = simulate_and_analyze(root, s, seed, nodes, gpus, 8, nproc)
            m, a = compare(truth, result)
            runs += 1
            misses += len(m)
            hits += len(truth["expected"]) - len([x for x in m if "errored" not in x])
            alarms += len(a)
            notes += [f"seed {seed} {nodes}x{gpus}: {x}" for x in m + a]
        print(f"| {s} | {runs} | {hits} | {misses} | {alarms} |", flush=True)
        for n in notes[:6]:
            print(f"    {n}", file=sys.stderr)


if __name__ == "__main__":
    import tempfile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as d:
        _accuracy(range(100, 100 + n), [(4, 8, None), (6, 1, None), (3, 4, 1), (5, 2, None), (2, 8, 8)], Path(d))
