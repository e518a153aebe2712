"""Benchmark ``k10s simulate`` at scale: wall time, peak RSS, bundle size, dcgm text volume.

Usage: python benchmarks/bench_simulate.py --nodes 128 --gpus-per-node 8 --minutes 60 --interval 10 [--out DIR]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.simulate import simulate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="straggler-compute")
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    root = Path(args.out or tempfile.mkdtemp(prefix="k10s-sim-bench-"))
    out = root / "bundle"
    if out.exists():
        shutil.rmtree(out)
    t0 = time.perf_counter()
    simulate(args.scenario, out, seed=args.seed, nodes=args.nodes, gpus_per_node=args.gpus_per_node, minutes=args.minutes,
             interval_s=args.interval, nproc_per_node=args.gpus_per_node)
    wall = time.perf_counter() - t0
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sizes = {p.name: p.stat().st_size for p in (out / "raw").glob("*.parquet")}
    dcgm_bytes = 0
    pf = pq.ParquetFile(out / "raw" / "scrapes.parquet")
    for batch in pf.iter_batches(batch_size=256, columns=["body"]):
        dcgm_bytes += pc.sum(pc.binary_length(batch.column(0))).as_py() or 0
    print(f"scenario={args.scenario} gpus={args.nodes * args.gpus_per_node} minutes={args.minutes:g} interval={args.interval:g}s")
    print(f"wall_s={wall:.1f} peak_rss_mib={peak_mib:.0f} dcgm_text_mib={dcgm_bytes / 2**20:.0f}")
    print("raw files (MiB): " + ", ".join(f"{k}={v / 2**20:.1f}" for k, v in sorted(sizes.items())))
    if not args.out:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
