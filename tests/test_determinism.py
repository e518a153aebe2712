"""The same bundle gives the same bytes, whatever the hash seed and the number of DuckDB threads.

Every sample bundle, every real incident of our corpus (tests/data/real-incidents, imported as a
user would), the shared real incidents, and every simulated scenario (2 seeds x 2 small shapes)
are analysed twice: once with PYTHONHASHSEED=1 and one DuckDB thread, once with PYTHONHASHSEED=2
and 4 threads. ``analyze`` as JSON, text and markdown must be byte-identical, and so must
``k10s report`` of two sample bundles and the tables ``k10s rebuild`` derives from one (serial vs
two worker processes). One subprocess per configuration analyses all the bundles in a loop
(tests/determinism_kit.py); the two run side by side. The sweep is cut into SHARDS tests that
pytest-xdist spreads over its workers; each builds its own bundles. docs/rules.md,
"Determinism", says how ties are broken.
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

from determinism_kit import differing
from incident_kit import incident_bundle, load_cases, load_corpus
from k10s_forensics.rebuild.pool import rebuild_parallel
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.simulate import simulate
from k10s_forensics.simulate.constants import SCENARIOS

HERE = Path(__file__).resolve().parent
KIT = HERE / "determinism_kit.py"
SAMPLES = HERE.parent / "sample-bundles"
CORPUS = HERE / "data" / "real-incidents"
CONFIGS = (("threads-1", "1", 1), ("threads-4", "2", 4))  # name, PYTHONHASHSEED, DuckDB threads
SEEDS = (1, 2)
SHAPES = {"2x4": (2, 4), "3x2": (3, 2)}  # nodes x GPUs per node
REPORTS = ("nccl-desync-report", "straggler-network")
REBUILDS = ("oom-crashloop",)
EPOCH = "1795000000"
#: The sweep is cut into shards that pytest-xdist runs side by side (each builds its own bundles).
SHARDS = 6


def _recipes() -> list[tuple[str, object]]:
    """Every bundle of the sweep, as (name, how to make it), in a fixed order."""
    out: list[tuple[str, object]] = [(f"sample-{p.name}", p) for p in sorted(SAMPLES.iterdir()) if (p / "manifest.json").is_file()]
    out += [(f"corpus-{c.incident}", c) for c in load_corpus(CORPUS)]
    out += [(f"sim-{sc}-s{seed}-{shape}", (sc, seed, shape)) for sc in SCENARIOS for seed in SEEDS for shape in SHAPES]
    return out


def _make(root: Path, name: str, how) -> str:
    """One bundle of the sweep under ``root``, its tables built (a sample bundle is copied)."""
    if isinstance(how, Path):
        return str(shutil.copytree(how, root / name))
    if isinstance(how, tuple):
        scenario, seed, shape = how
        nodes, gpus = SHAPES[shape]
        simulate(scenario, root / name, seed=seed, nodes=nodes, gpus_per_node=gpus, minutes=5, truth_path=root / f"{name}.truth.json")
        rebuild_parallel(Bundle.open(root / name), 1, say=None)
        return str(root / name)
    text = (how.folder / how.incident / "log.txt").read_text(encoding="utf-8")
    return str(incident_bundle(root / name, how, text).path)


def _run_both(tmp_path: Path, plan: dict[str, dict[str, str]]) -> tuple[Path, Path]:
    """Run the kit once per configuration, side by side; the two output folders."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    procs = []
    for name, seed, threads in CONFIGS:
        env = {**os.environ, "PYTHONHASHSEED": seed, "SOURCE_DATE_EPOCH": EPOCH}
        cmd = [sys.executable, str(KIT), str(tmp_path / "plan.json"), str(tmp_path / name), "--threads", str(threads)]
        procs.append(subprocess.Popen(cmd, env=env, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for proc in procs:
        out, _ = proc.communicate(timeout=3600)
        assert proc.returncode == 0, out[-3000:]
    return tmp_path / CONFIGS[0][0], tmp_path / CONFIGS[1][0]


def _same(rel: str, a: Path, b: Path) -> bool:
    """Byte equality; a rebuilt layer's record may differ only in when it was built."""
    if not rel.endswith("tables/derived.json"):
        return a.read_bytes() == b.read_bytes()
    drop = re.compile(r'"built_at": "[^"]*"')
    return drop.sub("", a.read_text(encoding="utf-8")) == drop.sub("", b.read_text(encoding="utf-8"))


def _assert_same(a: Path, b: Path, expected_files: int) -> None:
    diff = differing(a, b, _same)
    names = sorted({rel.split("/")[1].rsplit(".", 1)[0] for rel in diff})
    assert not diff, f"{len(names)} bundle(s) give different output across configurations: {names}; files: {diff[:20]}"
    errors = sorted(rel for rel in (p.relative_to(a).as_posix() for p in a.rglob("*.error")))
    assert not errors, f"runs failed: {errors}"
    assert sum(1 for p in a.rglob("*") if p.is_file()) >= expected_files


def test_the_sweep_covers_every_sample_incident_and_scenario():
    kinds = [name.split("-", 1)[0] for name, _ in _recipes()]
    assert (kinds.count("sample"), kinds.count("corpus"), kinds.count("sim")) == (
        sum(1 for p in SAMPLES.iterdir() if (p / "manifest.json").is_file()), len(load_corpus(CORPUS)), 4 * len(SCENARIOS))
    assert len({name for name, _ in _recipes()}) == len(kinds)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_same_output_whatever_the_seed_and_threads(tmp_path, shard):
    """Shard ``shard`` of the sweep (every SHARDS-th bundle; shard 0 also a report and a rebuild)."""
    bundles = {name: _make(tmp_path / "bundles", name, how) for name, how in _recipes()[shard::SHARDS]}
    plan = {"analyze": bundles}
    if shard == 0:
        plan["report"] = {f"sample-{n}": str(shutil.copytree(SAMPLES / n, tmp_path / "report" / n)) for n in REPORTS}
        plan["rebuild"] = {f"sample-{n}": str(SAMPLES / n) for n in REBUILDS}
    a, b = _run_both(tmp_path / "runs", plan)
    _assert_same(a, b, 3 * len(bundles) + sum(len(plan.get(k, {})) for k in ("report", "rebuild")))
    if shard == 0:
        tables = sorted(p.name for p in (a / "rebuilt" / f"sample-{REBUILDS[0]}" / "tables").glob("*.parquet"))
        assert "log_events.parquet" in tables and "ranks.parquet" in tables, tables
        html = (a / "report" / f"sample-{REPORTS[0]}.html").read_text(encoding="utf-8")
        assert "2026-11-18" in html  # SOURCE_DATE_EPOCH sets the footer's time


@pytest.mark.slow
def test_same_output_for_the_shared_real_incidents(tmp_path, real_samples):
    bundles = {f"shared-{c.incident}": _make(tmp_path / "bundles", f"shared-{c.incident}", c) for c in load_cases(real_samples)}
    a, b = _run_both(tmp_path / "runs", {"analyze": bundles})
    _assert_same(a, b, 3 * len(bundles))


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


def _calls(sql: str, name: str):
    """The argument text of every call of ``name(`` in ``sql`` (up to its closing parenthesis)."""
    for m in re.finditer(rf"\b{name}\(", sql, flags=re.IGNORECASE):
        depth, i = 1, m.end()
        while depth and i < len(sql):
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            i += 1
        yield sql[m.end(): i - 1]


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


def _spans(sql: str, name: str):
    """(start, end) of every call of ``name(`` in ``sql``, the closing parenthesis included."""
    for m in re.finditer(rf"\b{name}\(", sql, flags=re.IGNORECASE):
        depth, i = 1, m.end()
        while depth and i < len(sql):
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            i += 1
        yield m.start(), i


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
