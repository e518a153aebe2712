"""Benchmark: ``k10s diff`` of a 1024-GPU x 60-min bundle against itself and a changed copy.

The two bundles are simulated once (``healthy``, seed 5, 128 nodes x 8 GPUs, 60 min at 10 s;
the copy adds the variants ``later``, ``driver-node``, ``nccl-env`` and ``power-cap``) and
their tables derived once (``k10s rebuild``); both are kept in ``--workdir`` and reused.
Each measured diff then runs in a fresh child process (tables current, so no rebuild),
which reports its wall time, CPU time (user + system, all threads: on a shared, loaded
machine the better measure of the work) and peak RSS. Target: <= 5 s and <= 1 GB.

    python benchmarks/bench_diff.py                       # 1024 GPUs x 60 min
    python benchmarks/bench_diff.py --nodes 16 --minutes 10 --workdir /tmp/small
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

VARIANTS = ("later", "driver-node", "nccl-env", "power-cap")

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.diff import diff
base, cur, findings = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
result = diff([Bundle.open(base)], Bundle.open(cur), baseline_given=base, bundle_given=cur, use_findings=findings)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "changes": len(result["changes"]), "first": result["changes"][0]["attribute"] if result["changes"] else None,
                  "unchanged": sum(c["unchanged"] for c in result["unchanged"].values())}))
"""


def build(workdir: Path, nodes: int, gpus_per_node: int, minutes: int) -> tuple[Path, Path]:
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.rebuild.pool import ensure_tables
    from k10s_forensics.simulate import simulate

    out = []
    for name, variants in (("base", ()), ("changed", VARIANTS)):
        path = workdir / f"{name}-{nodes}x{gpus_per_node}-{minutes}m"
        if not (path / "manifest.json").is_file():
            t = time.perf_counter()
            simulate("healthy", path, seed=5, nodes=nodes, gpus_per_node=gpus_per_node, minutes=minutes, interval_s=10, variants=variants)
            print(f"simulated {path} in {time.perf_counter() - t:.0f} s", flush=True)
        t = time.perf_counter()
        ensure_tables(Bundle.open(path))
        print(f"tables of {path.name} current ({time.perf_counter() - t:.1f} s)", flush=True)
        out.append(path)
    return out[0], out[1]


def measure(base: Path, cur: Path, findings: bool, repeats: int) -> dict:
    runs = []
    for _ in range(repeats):
        proc = subprocess.run([sys.executable, "-c", CHILD, str(base), str(cur), "1" if findings else "0"],
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {"wall_s": statistics.median(r["wall_s"] for r in runs), "cpu_s": statistics.median(r["cpu_s"] for r in runs), "wall_s_all": [round(r["wall_s"], 2) for r in runs],
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs), "changes": runs[0]["changes"], "first": runs[0]["first"],
            "unchanged": runs[0]["unchanged"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/k10s-bench-diff"))
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    base, changed = build(args.workdir, args.nodes, args.gpus_per_node, args.minutes)
    gpus = args.nodes * args.gpus_per_node
    print(f"\nk10s diff, {gpus} GPUs x {args.minutes} min (median of {args.repeats} fresh processes)")
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'pair':<20} {'findings':<9} {'wall s':>7} {'CPU s':>6} {'peak RSS MB':>12} {'changes':>8} {'unchanged':>10}  first change")
    for label, cur in (("itself", base), ("changed copy", changed)):
        for findings in (False, True):
            r = measure(base, cur, findings, args.repeats)
            print(f"{label:<20} {'yes' if findings else 'no':<9} {r['wall_s']:>7.2f} {r['cpu_s']:>6.2f} {r['peak_rss_mb']:>12.0f} {r['changes']:>8} "
                  f"{r['unchanged']:>10}  {r['first']}  (runs {r['wall_s_all']})", flush=True)


if __name__ == "__main__":
    main()
