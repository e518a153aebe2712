"""The same bundle gives the same bytes, whatever the hash seed and the number of DuckDB threads.

Every sample bundle, every real incident of our corpus (tests/data/real-incidents, imported as a
user would), the shared real incidents, and every simulated scenario (the 4 seeds x shapes of
tests/test_rules_scenarios.py) are analysed twice: once with PYTHONHASHSEED=1 and one DuckDB
thread, once with PYTHONHASHSEED=2, 4 threads and, for a fixed quarter of the bundles (by a hash
of their names), the rule gates off (every rule's SQL runs: ``analyze(gates=False)``).
``analyze`` as JSON, text and markdown must be
byte-identical, and so must ``k10s report`` of two sample bundles and the tables ``k10s rebuild``
derives from one (serial vs two worker processes).

Where: the reports and the rebuild here, one subprocess per configuration (tests/determinism_kit.py),
the two side by side; the scenarios no other test simulates here too. The sample bundles, the real
incidents and the other scenarios are compared where their tests analyse them anyway
(test_viewplan, test_real_incidents_corpus, test_real_incidents, test_rules_scenarios): those
tests analyse through the ``twins`` fixture (conftest.py, ``determinism_kit.Twins``: two analysis
servers, one per configuration), which raises ``DeterminismError`` when the two outputs differ, and
read their findings from the output. docs/rules.md, "Determinism", says how ties are broken.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import test_real_incidents
import test_real_incidents_corpus
import test_rules_scenarios
import test_viewplan
from determinism_kit import CONFIGS, EPOCH, check_same, kit_args
from incident_kit import load_cases, load_corpus
from k10s_forensics.rebuild.pool import rebuild_parallel
from k10s_forensics.simulate import simulate
from k10s_forensics.simulate.constants import SCENARIOS
from k10s_forensics.store.bundle import Bundle

HERE = Path(__file__).resolve().parent
KIT = HERE / "determinism_kit.py"
SAMPLES = HERE.parent / "sample-bundles"
CORPUS = HERE / "data" / "real-incidents"
REPORTS = ("nccl-desync-report", "straggler-network")
REBUILDS = ("oom-crashloop",)
#: Scenarios test_rules_scenarios does not simulate (their own tests assert on other things):
#: simulated here, 2 seeds x 2 shapes (nodes x GPUs per node), in OTHER_SHARDS tests.
SEEDS = (1, 2)
SHAPES = {"2x4": (2, 4), "3x2": (3, 2)}
OTHER_SHARDS = 2


def _other_scenarios() -> list[tuple[str, str, int, str]]:
    """(name, scenario, seed, shape) of every simulation this module makes itself."""
    covered = set(test_rules_scenarios.SCENARIOS)
    return [(f"sim-{sc}-s{seed}-{shape}", sc, seed, shape) for sc in SCENARIOS if sc not in covered for seed in SEEDS for shape in SHAPES]


def _samples() -> list[str]:
    return [p.name for p in sorted(SAMPLES.iterdir()) if (p / "manifest.json").is_file()]


def _run_both(tmp_path: Path, plan: dict[str, dict[str, str]]) -> tuple[Path, Path]:
    """Run the kit once per configuration, side by side; the two output folders."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    procs = []
    for name, seed, threads, every in CONFIGS:
        env = {**os.environ, "PYTHONHASHSEED": seed, "SOURCE_DATE_EPOCH": EPOCH}
        cmd = [sys.executable, str(KIT), str(tmp_path / "plan.json"), str(tmp_path / name), *kit_args(threads, every)]
        procs.append(subprocess.Popen(cmd, env=env, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for proc in procs:
        out, _ = proc.communicate(timeout=3600)
        assert proc.returncode == 0, out[-3000:]
    return tmp_path / CONFIGS[0][0], tmp_path / CONFIGS[1][0]


def _param_ids(test) -> list:
    """The values of a test function's parameter (its first ``parametrize``, one name, a list)."""
    mark = next(m for m in getattr(test, "pytestmark", []) if m.name == "parametrize")
    return [p.values[0] if hasattr(p, "values") else p for p in mark.args[1]]


def test_the_sweep_covers_every_sample_incident_and_scenario():
    """Every sample bundle, every corpus and shared incident and every scenario (4 cases each)
    is analysed by a test that compares both configurations through ``twins``."""
    assert len(_samples()) == len(SCENARIOS) and set(_samples()) == set(SCENARIOS)
    assert _param_ids(test_viewplan.test_findings_identical_with_and_without_view_planning) == _samples()
    corpus = [p.values[0].incident for p in test_real_incidents_corpus._params()]
    assert corpus == [c.incident for c in load_corpus(CORPUS)]
    shared = [p.values[0].incident for p in test_real_incidents._params("as-pasted")]
    assert shared == [c.incident for c in load_cases(HERE / "data" / "real-samples")] and shared
    scenarios = [c[0] for c in test_rules_scenarios.FAST + test_rules_scenarios.SWEEP] + [o[1] for o in _other_scenarios()]
    assert {s: scenarios.count(s) for s in SCENARIOS} == {s: 4 for s in SCENARIOS}
    for test in (test_viewplan.test_findings_identical_with_and_without_view_planning, test_real_incidents_corpus.test_corpus_incident,
                 test_real_incidents.test_real_incident, test_rules_scenarios.test_scenario_culprit_and_no_false_alarm,
                 test_rules_scenarios.test_scenario_sweep, test_same_output_for_the_other_scenarios):
        assert "twins" in test.__code__.co_varnames[:test.__code__.co_argcount], test.__name__


@pytest.mark.slow
def test_same_report_and_rebuild_whatever_the_seed_and_threads(tmp_path):
    """Two sample reports and a sample's rebuild (serial against two worker processes)."""
    plan = {"report": {f"sample-{n}": str(shutil.copytree(SAMPLES / n, tmp_path / "report" / n)) for n in REPORTS},
            "rebuild": {f"sample-{n}": str(SAMPLES / n) for n in REBUILDS}}
    a, b = _run_both(tmp_path / "runs", plan)
    check_same(a, b, len(REPORTS) + len(REBUILDS))
    tables = sorted(p.name for p in (a / "rebuilt" / f"sample-{REBUILDS[0]}" / "tables").glob("*.parquet"))
    assert "log_events.parquet" in tables and "ranks.parquet" in tables, tables
    html = (a / "report" / f"sample-{REPORTS[0]}.html").read_text(encoding="utf-8")
    assert "2026-11-18" in html  # SOURCE_DATE_EPOCH sets the footer's time


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(OTHER_SHARDS))
def test_same_output_for_the_other_scenarios(tmp_path, twins, shard):
    """The scenarios no other test simulates, built here and compared through ``twins``."""
    bundles = {}
    for name, scenario, seed, shape in _other_scenarios()[shard::OTHER_SHARDS]:
        nodes, gpus = SHAPES[shape]
        path = tmp_path / name
        simulate(scenario, path, seed=seed, nodes=nodes, gpus_per_node=gpus, minutes=5, truth_path=tmp_path / f"{name}.truth.json")
        rebuild_parallel(Bundle.open(path), 1, say=None)
        bundles[name] = str(path)
    assert bundles
    twins.analyze(bundles, tmp_path / "runs")


def test_report_nonce_comes_from_the_page():
    from k10s_forensics.reports import content_nonce

    page = '<script nonce="P1">x</script><p>cluster text</p><script nonce="P1">y</script>'
    first = content_nonce(page, "P1")
    assert first == content_nonce(page.replace("P1", "P2"), "P2")  # the placeholder never shows
    nonce = re.search(r'nonce="([^"]+)"', first).group(1)
    assert re.fullmatch(r"[A-Za-z0-9_-]{24}", nonce) and first.count(nonce) == 2
    assert content_nonce(page.replace("cluster text", "other text"), "P1") != first


#: SQL whose result picks rows: every file of queries/, reports/sql, view/sql, fleet/rules and diff/sql.
SQL_DIRS = (HERE.parent / "queries", HERE.parent / "reports" / "sql", HERE.parent / "k10s_forensics" / "view" / "sql",
            HERE.parent / "k10s_forensics" / "fleet" / "rules", HERE.parent / "k10s_forensics" / "diff" / "sql")


def _spans(sql: str, name: str):
    """(start, end) of every call of ``name(`` in ``sql``, the closing parenthesis included."""
    for m in re.finditer(rf"\b{name}\(", sql, flags=re.IGNORECASE):
        depth, i = 1, m.end()
        while depth and i < len(sql):
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            i += 1
        yield m.start(), i


def _calls(sql: str, name: str):
    """The argument text of every call of ``name(`` in ``sql`` (up to its closing parenthesis)."""
    for start, end in _spans(sql, name):
        yield sql[start + len(name) + 1: end - 1]


def test_sql_picks_one_row_by_a_total_order():
    """No aggregate or window whose answer depends on the order rows arrive in (docs/rules.md, "Determinism")."""
    files = [p for d in SQL_DIRS for p in sorted(d.glob("*.sql"))]
    assert len(files) >= 40
    bad = []
    for path in files:
        sql = "\n".join(line.split("--", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
        rel = path.relative_to(HERE.parent).as_posix()
        if re.search(r"\bany_value\(", sql, flags=re.IGNORECASE):
            bad.append(f"{rel}: any_value (use min/max, arg_max(x, (time, tie-breaks)) or an ordered first)")
        if re.search(r"OVER\s*\(\s*\)", sql, flags=re.IGNORECASE):
            bad.append(f"{rel}: a window OVER () numbers rows in scan order")
        for name in ("string_agg", "mode", "first", "last", "array_agg", "group_concat", "listagg"):
            for args in _calls(sql, name):
                if name == "mode" and not args.strip():
                    continue  # mode() WITHIN GROUP (ORDER BY ...): ties go to the first in that order
                if "ORDER BY" not in args.upper():
                    bad.append(f"{rel}: {name}({args.strip()[:40]}...) without ORDER BY")
    assert not bad, "\n".join(bad)


#: Calls whose answer does not depend on the order of the list they are given.
ORDER_FREE = ("list_sort", "array_sort", "list_reverse_sort", "len", "length", "array_length", "unnest", "list_contains",
              "list_has_any", "list_has_all", "list_unique", "list_count", "list_max", "list_min", "list_sum",
              "list_bool_or", "list_bool_and")


def test_sql_lists_have_an_order():
    """A ``list()`` aggregate without ORDER BY, or a ``list_distinct`` (hash order), reaches an output only
    through list_sort or an order-free use (len, unnest, list_contains, ...); a window's list has its OVER's order."""
    bad = []
    for path in [p for d in SQL_DIRS for p in sorted(d.glob("*.sql"))]:
        sql = "\n".join(line.split("--", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
        safe = [span for name in ORDER_FREE for span in _spans(sql, name)]
        for name in ("list", "list_distinct", "array_agg", "histogram"):
            for start, end in _spans(sql, name):
                args = sql[start:end]
                if name != "list_distinct" and "ORDER BY" in args.upper():
                    continue
                if re.match(r"\s*OVER\s*\([^)]*ORDER BY", sql[end:], flags=re.IGNORECASE):
                    continue
                if any(s < start and end <= e for s, e in safe):
                    continue
                bad.append(f"{path.relative_to(HERE.parent).as_posix()}:{sql[:start].count(chr(10)) + 1}: {args[:60]}")
    assert not bad, "unordered lists:\n" + "\n".join(bad)


def test_cli_threads_change_nothing_but_speed(capsys):
    """``k10s analyze --threads N``: the sample whose nccl-hang summary and start flipped on main."""
    from k10s_forensics.cli import main

    outs = []
    for threads in ("1", "4"):
        with pytest.raises(SystemExit) as exc:
            main(["analyze", str(SAMPLES / "nccl-desync-report"), "--format", "json", "--threads", threads])
        assert exc.value.code == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    hang = [f for f in json.loads(outs[0])["findings"] if f["rule"] == "nccl-hang"][0]
    assert "3 ranks hit NCCL watchdog timeout (5m) on SeqNum 43459 (ALLREDUCE)" in hang["summary"], hang["summary"]
    assert hang["started_at"] == "2026-08-30T14:46:47.357174Z"
    with pytest.raises(SystemExit) as exc:
        main(["analyze", str(SAMPLES / "nccl-desync-report"), "--threads", "0"])
    assert exc.value.code == 2
