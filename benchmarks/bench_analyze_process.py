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


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="k10s-analyze-proc-") as tmp:
        bundle = Path(tmp) / "bundle"
        generate(bundle, args.gpus, args.minutes, args.interval)
        floor_cmd = [sys.executable, "-c", FLOOR, str(bundle)]
        analyze_cmd = [sys.executable, "-m", "k10s_forensics", "analyze", str(bundle)]
        timed(floor_cmd), timed(analyze_cmd)  # warm the page cache both ways
        floors, analyses = [], []
        for _ in range(args.runs):
            floors.append(timed(floor_cmd))
            analyses.append(timed(analyze_cmd))
        floor, analyze = statistics.median(floors), statistics.median(analyses)
        load = os.getloadavg()
        print(f"{args.gpus} GPUs x {args.minutes} min @ {args.interval} s, {args.runs} runs each, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
        print("| process | median wall s | all runs |")
        print("|---|---:|---|")
        print(f"| floor (duckdb reads every column of every table) | {floor:.2f} | {', '.join(f'{t:.2f}' for t in floors)} |")
        print(f"| `k10s analyze` | {analyze:.2f} | {', '.join(f'{t:.2f}' for t in analyses)} |")
        print(f"\nanalyze / floor = **{analyze / floor:.1f}x** (target <= 5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
