"""Whole-process ``k10s analyze`` against a whole-process floor, side by side.

    python benchmarks/bench_analyze_process.py              # 1024 GPUs x 60 min @ 10 s
    python benchmarks/bench_analyze_process.py --gpus 4096 --runs 3

The bundle's derived tables are written directly (``bench_analyze.generate``: a throttled
rank, a bad NIC, an OOM cascade). Then, alternating, ``--runs`` times each:

* floor   - a fresh ``python`` that imports duckdb and reads every column of every derived
            table once into Arrow (what any analysis must at least do, start-up included);
* analyze - a fresh ``k10s analyze BUNDLE`` (CLI start-up, rules, text rendering).

Reports the median wall time of each, the ratio (target <= 5x), and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_analyze import generate  # noqa: E402

FLOOR = """
import sys, duckdb
from pathlib import Path
con = duckdb.connect()
rows = 0
for path in sorted(Path(sys.argv[1], "tables").glob("*.parquet")):
    for batch in con.sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_reader(1 << 17):
        rows += batch.num_rows
print(rows)
"""


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, all threads) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, cwd="/" if env else None)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _row(name: str, runs: list[tuple[float, float]]) -> tuple[str, float, float]:
    wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
    return f"| {name} | {wall:.2f} | {cpu:.2f} | {', '.join(f'{w:.2f}/{c:.2f}' for w, c in runs)} |", wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bundle", type=Path, help="measure this bundle (tables current) instead of generating one")
    ap.add_argument("--baseline", type=Path, help="a directory holding the old k10s_forensics package: also run its analyze, alternating")
    ap.add_argument("--analyze-args", default="", help="extra arguments of k10s analyze, e.g. '--rule network'")
    ap.add_argument("--duckdb", type=Path, help="a directory holding another duckdb (pip install --target DIR): also run the floor and this analyze with it")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="k10s-analyze-proc-") as tmp:
        bundle = args.bundle or Path(tmp) / "bundle"
        if not args.bundle:
            generate(bundle, args.gpus, args.minutes, args.interval)
        cases = [("floor (duckdb reads every column of every table)", [sys.executable, "-c", FLOOR, str(bundle)], None),
                 ("`k10s analyze` (this code)", [sys.executable, "-m", "k10s_forensics", "analyze", str(bundle.resolve()), *shlex.split(args.analyze_args)], None)]
        if args.baseline:
            env = {**os.environ, "PYTHONPATH": str(args.baseline.resolve())}
            cases.append(("`k10s analyze` (baseline)", cases[1][1], env))
        if args.duckdb:
            other = subprocess.run([sys.executable, "-c", "import duckdb; print(duckdb.__version__)"], env={**os.environ, "PYTHONPATH": str(args.duckdb.resolve())},
                                   capture_output=True, text=True, check=True).stdout.strip()
            env = {**os.environ, "PYTHONPATH": str(args.duckdb.resolve())}
            cases += [(f"floor, duckdb {other}", cases[0][1], env), (f"`k10s analyze` (this code), duckdb {other}", cases[1][1], env)]
        for _, cmd, env in cases:
            timed(cmd, env)  # warm the page cache
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
        loads = []
        for _ in range(args.runs):
            for name, cmd, env in cases:
                loads.append(os.getloadavg()[0])
                runs[name].append(timed(cmd, env))
        import duckdb
        what = (str(args.bundle) if args.bundle else f"{args.gpus} GPUs x {args.minutes} min @ {args.interval} s") + (f" `{args.analyze_args}`" if args.analyze_args else "")
        print(f"{what}, duckdb {duckdb.__version__}, {args.runs} runs each alternating, load average (1 min) {min(loads):.1f}-{max(loads):.1f}")
        print("| process | median wall s | median CPU s | all runs (wall/CPU) |")
        print("|---|---:|---:|---|")
        rows = {name: _row(name, r) for name, r in runs.items()}
        for line, _, _ in rows.values():
            print(line)
        for name, _, _ in cases[1:]:
            if name.startswith("floor"):
                continue
            _, fw, fc = rows[next(n for n, _, _ in cases if n.startswith("floor") and n.split("duckdb ")[-1] == name.split("duckdb ")[-1])] if "duckdb " in name else rows[cases[0][0]]
            _, w, c = rows[name]
            print(f"\n{name} / floor = **{w / fw:.1f}x** wall, **{c / fc:.1f}x** CPU (target <= 5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
