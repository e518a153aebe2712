"""Throughput and peak memory of k10s pack, verify and redact (standard and strict).

Builds a bundle with the simulator (``healthy``, 128 nodes x 8 GPUs, 8 hours at 10 s: about
1.3 GB of zstd Parquet, ~20x that in text: dcgm-exporter scrapes, nvidia-smi XML, ss, logs)
unless ``--work`` already holds one, then runs each step in a fresh process and reports
MB/s of bundle bytes on disk, wall and per CPU-second (the machine is shared), and peak RSS
(ru_maxrss of the child).

    python benchmarks/bench_sharing.py --work /tmp/k10s-bench --out benchmarks/results/sharing.md
    python benchmarks/bench_sharing.py --nodes 8 --minutes 30          # a quick, small run
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEP = r"""
import json, resource, sys, time
import k10s_forensics.sharing.pack, k10s_forensics.sharing.verify, k10s_forensics.sharing.redact  # imports are not timed
from pathlib import Path
step, bundle, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
u0 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
if step == "pack":
    from k10s_forensics.sharing.pack import pack
    pack(bundle, work / "b.tar.gz")
elif step == "verify-dir":
    from k10s_forensics.sharing.verify import verify
    assert verify(bundle).ok
elif step == "verify-archive":
    from k10s_forensics.sharing.verify import verify
    assert verify(work / "b.tar.gz").ok
elif step == "redact-strict":
    from k10s_forensics.sharing.redact import redact
    redact(bundle, work / "red", level="strict", key_file=work / "k.key", rebuild_tables=False)
elif step == "redact-standard":
    from k10s_forensics.sharing.redact import redact
    redact(bundle, work / "std", level="standard", rebuild_tables=False)
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": time.perf_counter() - t, "cpu_seconds": u.ru_utime + u.ru_stime - u0.ru_utime - u0.ru_stime, "peak_rss_mb": u.ru_maxrss / 1024}))
"""


def build(path: Path, nodes: int, minutes: int, seed: int = 1) -> float:
    """Simulate the benchmark bundle into ``path`` (reused when it already exists); seconds taken."""
    if (path / "manifest.json").is_file():
        return 0.0
    from k10s_forensics.simulate import simulate

    t = time.perf_counter()
    simulate("healthy", path, seed=seed, nodes=nodes, gpus_per_node=8, minutes=minutes, interval_s=10,
             truth_path=path.parent / "truth.json")
    return time.perf_counter() - t


def text_bytes(bundle: Path) -> int:
    import pyarrow.parquet as pq

    total = 0
    for f in (bundle / "raw").glob("*.parquet"):
        meta = pq.ParquetFile(f).metadata
        total += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return total


def run_step(step: str, bundle: Path, work: Path) -> dict:
    env = {**os.environ, "K10S_CACHE_DIR": str(work / "cache")}
    shutil.rmtree(work / "cache", ignore_errors=True)
    done = subprocess.run([sys.executable, "-c", STEP, step, str(bundle), str(work)], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("--minutes", type=int, default=480)
    ap.add_argument("--steps", default="pack,verify-dir,verify-archive,redact-standard,redact-strict")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=None, help="keep the bundle here (reused by the next run)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="k10s-bench-sharing-"))
    work.mkdir(parents=True, exist_ok=True)
    bundle = work / "bundle"
    build_s = build(bundle, args.nodes, args.minutes)
    size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
    text = text_bytes(bundle)
    rows = []
    for step in args.steps.split(","):
        for old in ("b.tar.gz", "red", "std"):
            target = work / old
            if step.startswith("redact") and target.is_dir():
                shutil.rmtree(target)
        if step == "pack" and (work / "b.tar.gz").exists():
            (work / "b.tar.gz").unlink()
        r = run_step(step, bundle, work)
        rows.append((step, r["seconds"], size / 1e6 / r["seconds"], size / 1e6 / max(r["cpu_seconds"], 1e-9), r["peak_rss_mb"]))
        print(f"{step:16s} {r['seconds']:8.1f} s {rows[-1][2]:8.1f} MB/s  {rows[-1][3]:8.1f} MB/cpu-s  peak RSS {r['peak_rss_mb']:7.0f} MB", flush=True)
    archive = work / "b.tar.gz"
    archive_mb = archive.stat().st_size / 1e6 if archive.exists() else float("nan")
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    out = [
        "# Sharing benchmark (pack, verify, redact)",
        "",
        f"Machine: 2 cores shared with other jobs (load average {' '.join(load)} at the end), 24 GB RAM, "
        f"Python {sys.version.split()[0]}, pyarrow, duckdb 2.0.",
        f"Bundle: `k10s simulate healthy --nodes {args.nodes} --gpus-per-node 8 --minutes {args.minutes} --interval 10` "
        f"({args.nodes * 8 * args.minutes / 60:,.0f} GPU-hours): {size / 1e6:,.0f} MB of zstd Parquet holding "
        f"{text / 1e6:,.0f} MB of decoded data ({text / size:.0f}x){f', simulated in {build_s:.0f} s' if build_s else ''}.",
        f"Archive: {archive_mb:,.0f} MB. MB/s = bundle bytes on disk per wall second; MB/cpu-s = per CPU-second of the",
        "step's process (all its threads), which is what the code costs independent of the other jobs; peak RSS = ru_maxrss.",
        "",
        "| step | seconds | MB/s | MB/cpu-s | peak RSS (MB) |",
        "|---|---:|---:|---:|---:|",
    ]
    out += [f"| {s} | {sec:.1f} | {mbs:.1f} | {cpu:.1f} | {rss:.0f} |" for s, sec, mbs, cpu, rss in rows]
    out += ["", "Redaction runs with `rebuild_tables=False` (raw layer only; `k10s analyze` re-derives tables on first use).",
            f"Run: `python benchmarks/bench_sharing.py --nodes {args.nodes} --minutes {args.minutes} --out benchmarks/results/sharing.md`."]
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
