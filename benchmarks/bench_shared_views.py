"""CPU per shared statement and per analysis of small bundles: these queries against a baseline's.

    python benchmarks/bench_shared_views.py LIST [--baseline REF] [--reps 3] [--rounds 2]
    python benchmarks/bench_shared_views.py LIST --statement k10s_incident --variant FILE.sql

LIST: bundle folders, one per line (e.g. imported incidents: benchmarks/same_output.py build).
REF: a git revision whose ``queries/`` (shared statements ``_*.sql`` and the rules' SQL) is
the baseline (default: where this branch left main, ``git merge-base HEAD main``). Both sets of queries run in this one process, with this code,
interleaved (old, new, new, old, ...), so that the load of a shared machine weighs on both alike.

Per statement: ``runner.analyze`` is run on each bundle; where it creates the planned shared
statements (``viewplan.create``), each statement is executed ``--reps`` times in each version
(CPU ``process_time`` of the ``execute``: binding, planning and running), its rows and column
types are compared (both versions must give the same rows in the same order), and the rules then
run on the new version's tables. A statement created empty (``-- empty-without``) is not timed.

Per analysis: ``--rounds`` times, each bundle is analysed (``analyze(threads=1)``) with the
baseline's queries and with these, order alternating; reported: CPU ms per analysis, of which
creating the shared statements and the rules' SELECTs (``engine.run_select``), and whether the
two results are equal.

``--statement NAME --variant FILE``: only that statement, this file's text against the
working tree's (a quick way to try a rewrite before editing queries/).
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from k10s_forensics.analyze import rules as rules_mod, runner, viewplan
from k10s_forensics.store.bundle import Bundle

ROOT = Path(__file__).resolve().parents[1]
CURRENT = viewplan.statements


class Queries:
    """One version of the query files: its shared statements and its rules."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        with self.active():
            self.statements = viewplan.statements.__wrapped__() if folder else CURRENT()
            self.rules = rules_mod.load_rules()

    def read(self, name: str) -> str:
        return (self.folder / name).read_text(encoding="utf-8")

    @contextmanager
    def active(self):
        """Analyses use these queries (``viewplan`` and the rule loader read them)."""
        saved = viewplan.read_text, rules_mod.read_text, viewplan.statements
        if self.folder:
            viewplan.read_text = rules_mod.read_text = self.read
            if hasattr(self, "statements"):
                viewplan.statements = lambda: self.statements
        try:
            yield
        finally:
            viewplan.read_text, rules_mod.read_text, viewplan.statements = saved


def baseline(ref: str, tmp: Path) -> Queries:
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "queries"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=tar, check=True)
    return Queries(tmp / "queries")


def _cpu(con, sql: str) -> float:
    t = time.process_time()
    con.execute(sql)
    return time.process_time() - t


def _snapshot(con, s) -> tuple:
    if re.search(r"TEMP\s+MACRO\s+" + s.name, s.sql, re.IGNORECASE):
        return ()
    return con.execute(f"DESCRIBE {s.name}").fetchall(), con.execute(f"SELECT * FROM {s.name}").fetchall()


def per_statement(paths: list[str], old: Queries, new: Queries, reps: int, only: str | None = None,
                  variant: str | None = None) -> None:
    cpu = {"old": collections.Counter(), "new": collections.Counter()}
    runs, differ = collections.Counter(), collections.Counter()
    old_sql = {s.name: s.sql for s in old.statements}
    current = {"bundle": None}

    def create(con, planned, counts=None):
        for s in planned:
            empty = s.empty_sql(counts)
            if empty or (only and s.name != only):
                con.execute(empty or s.sql)
                continue
            texts = {"old": old_sql.get(s.name, s.sql), "new": variant or s.sql}
            got = {}
            con.execute(texts["old"])  # untimed: the first run of a statement pays for creating its table
            for i in range(reps):
                for which in (("old", "new") if i % 2 else ("new", "old")):
                    cpu[which][s.name] += _cpu(con, texts[which])
                    got[which] = _snapshot(con, s)
            con.execute(texts["new"])
            runs[s.name] += reps
            if got["old"] != got["new"]:
                differ[s.name] += 1
                how = "order only" if sorted(map(repr, got["old"][1])) == sorted(map(repr, got["new"][1])) else "rows"
                print(f"{s.name} differs ({how}) on {current['bundle']}")

    saved = viewplan.create
    viewplan.create = create
    try:
        with new.active():
            for p in paths:
                current["bundle"] = p
                runner.analyze(Bundle.open(p), threads=1)
    finally:
        viewplan.create = saved
    n = len(paths)
    print(f"\nper statement, {n} bundles, {reps} reps each way: CPU ms per analysis (statement created empty: not counted)")
    print(f"{'statement':40} {'before':>8} {'after':>8} {'saved':>7}  {'runs':>4}  rows")
    order = sorted(runs, key=lambda k: -cpu["old"][k])
    for k in order:
        b, a = cpu["old"][k] / reps / n * 1000, cpu["new"][k] / reps / n * 1000
        print(f"{k:40} {b:8.1f} {a:8.1f} {b - a:7.1f}  {runs[k] // reps:4d}  {'SAME' if not differ[k] else f'DIFFER on {differ[k]}'}")
    tb, ta = (sum(cpu[w].values()) / reps / n * 1000 for w in ("old", "new"))
    print(f"{'all timed statements':40} {tb:8.1f} {ta:8.1f} {tb - ta:7.1f}")


def per_analysis(paths: list[str], old: Queries, new: Queries, rounds: int) -> None:
    parts = {"old": collections.Counter(), "new": collections.Counter()}
    same = 0
    current = {"part": None}
    real_create, real_select = viewplan.create, runner.run_select

    def timed(fn, part):
        def wrapper(*a, **k):
            t = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                current["part"][part] += time.process_time() - t
        return wrapper

    viewplan.create, runner.run_select = timed(real_create, "views"), timed(real_select, "rules_select")
    try:
        for r in range(rounds):
            for i, p in enumerate(paths):
                results = {}
                for which in (("old", "new") if (i + r) % 2 else ("new", "old")):
                    q = old if which == "old" else new
                    current["part"] = parts[which]
                    with q.active():
                        t = time.process_time()
                        results[which] = runner.analyze(Bundle.open(p), threads=1)
                        parts[which]["total"] += time.process_time() - t
                same += results["old"] == results["new"]
    finally:
        viewplan.create, runner.run_select = real_create, real_select
    n = len(paths) * rounds
    print(f"\nper analysis, {len(paths)} bundles x {rounds} rounds: CPU ms (analyze(threads=1), in-process)")
    print(f"{'':28} {'before':>8} {'after':>8} {'saved':>7}")
    for part in ("total", "views", "rules_select"):
        b, a = parts["old"][part] / n * 1000, parts["new"][part] / n * 1000
        print(f"{part:28} {b:8.1f} {a:8.1f} {b - a:7.1f}")
    print(f"results equal: {same} of {n}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("list", type=Path)
    ap.add_argument("--baseline", help="git revision of the baseline queries/ (default: git merge-base HEAD main)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--statement", help="only this statement (with --variant: against this file)")
    ap.add_argument("--variant", type=Path)
    ap.add_argument("--no-analysis", action="store_true", help="per statement only")
    args = ap.parse_args()
    paths = [line.strip() for line in args.list.read_text().splitlines() if line.strip()]
    new = Queries(None)
    for p in paths[:3]:  # warm-up: imports, first connections
        runner.analyze(Bundle.open(p), threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        if args.variant:
            old = new
            per_statement(paths, old, new, args.reps, args.statement, args.variant.read_text(encoding="utf-8"))
            return 0
        ref = args.baseline or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True,
                                              capture_output=True, text=True).stdout.strip()
        print("baseline queries/:", ref)
        old = baseline(ref, Path(tmp))
        per_statement(paths, old, new, args.reps, args.statement)
        if not args.no_analysis:
            per_analysis(paths, old, new, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
