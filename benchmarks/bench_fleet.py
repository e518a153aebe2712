"""Benchmark: fleet index throughput and fleet analyze time, DuckDB vs Spark side by side.

1. index (real bundles): ``k10s fleet index`` on tiny simulated bundles (Node objects,
   nvidia-smi XML, kernel log; each one analysed by the real rules) and on the 11 full
   sample bundles: bundles/s and raw MB/s, then a re-index (everything skipped).
2. fleets of 1,000 and 10,000 bundles written as index rows through the same writer
   (``simulate.fleet_rows``; generating 10,000 real bundles is out of reach on 2 cores),
   then ``fleet analyze`` on DuckDB and on Spark local[2], each in a fresh child process
   (peak RSS of the child; for Spark also the JVM's VmHWM).

    python benchmarks/bench_fleet.py                    # writes benchmarks/results/fleet.md
    python benchmarks/bench_fleet.py --sizes 1000 --tiny 100 --no-spark
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(engine: str, path: str) -> None:
    """Run in a fresh process: analyze once, print timings and peak memory as JSON."""
    from k10s_forensics.fleet.analysis import analyze_fleet

    options, jvm_peak, start_s = {}, None, 0.0
    if engine == "spark":
        from k10s_forensics.fleet.engines import local_spark

        t = time.perf_counter()
        options["spark"] = spark = local_spark("k10s-bench", master="local[2]")
        start_s = time.perf_counter() - t
    t = time.perf_counter()
    result = analyze_fleet(path, engine=engine, engine_options=options)
    seconds = time.perf_counter() - t
    if engine == "spark":
        pid = spark.sparkContext._gateway.proc.pid
        status = Path(f"/proc/{pid}/status").read_text()
        jvm_peak = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024
        spark.stop()
    found = {r["rule"]: len(r.get("rows", [])) for r in result["results"]}
    print(json.dumps({"seconds": seconds, "start_s": start_s, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "jvm_peak_mib": jvm_peak, "found": found}))


def run_child(engine: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", engine, str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def bench_index(work: Path, tiny: int) -> list[str]:
    from k10s_forensics.fleet.index import index_fleet
    from k10s_forensics.simulate.fleet import plan_fleet
    from k10s_forensics.simulate.fleet_bundles import write_bundles

    write_bundles(plan_fleet(5, tiny), work / "tiny")
    rows = ["| input | bundles | raw MB | seconds | bundles/s | MB/s | re-index (all skipped) s |", "|---|---:|---:|---:|---:|---:|---:|"]
    for label, source in ((f"{tiny} tiny simulated bundles", work / "tiny"), ("11 sample bundles (full simulated)", ROOT / "sample-bundles")):
        copy = work / f"src-{len(rows)}"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("tables", "*.truth.json", "README.md"))
        fleet = work / f"fleet-{len(rows)}"
        t = time.perf_counter()
        result = index_fleet([str(copy)], fleet, jobs=2)
        seconds = time.perf_counter() - t
        t = time.perf_counter()
        again = index_fleet([str(copy)], fleet, jobs=2)
        re_s = time.perf_counter() - t
        assert not result.failed and again.skipped == len(result.indexed)
        mb = result.raw_bytes / 1e6
        n = len(result.indexed)
        rows.append(f"| {label} | {n} | {mb:.1f} | {seconds:.1f} | {n / seconds:.2f} | {mb / seconds:.2f} | {re_s:.1f} |")
    return rows


def bench_sizes(work: Path, sizes: list[int], spark: bool) -> list[str]:
    from k10s_forensics.simulate.fleet import plan_fleet
    from k10s_forensics.simulate.fleet_rows import write_rows

    rows = ["| bundles | write rows s (bundles/s) | fleet MB | DuckDB analyze s | DuckDB peak MiB | Spark start s | Spark analyze s | Spark driver / JVM peak MiB | Spark ÷ DuckDB | same findings |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for size in sizes:
        fleet = work / f"rows-{size}"
        plan = plan_fleet(9, size)
        t = time.perf_counter()
        write_rows(plan, fleet, batch_size=1000)
        write_s = time.perf_counter() - t
        duck = run_child("duckdb", fleet)
        sp = run_child("spark", fleet) if spark else None
        if sp:
            cells = (f"{sp['start_s']:.1f} | {sp['seconds']:.1f} | {sp['peak_mib']:.0f} / {sp['jvm_peak_mib']:.0f} | "
                     f"{sp['seconds'] / duck['seconds']:.0f}x | {'yes' if sp['found'] == duck['found'] else 'NO'}")
        else:
            cells = "— | — | — | — | —"
        rows.append(f"| {size:,} | {write_s:.1f} ({size / write_s:.0f}) | {du_mb(fleet):.1f} | {duck['seconds']:.2f} | {duck['peak_mib']:.0f} | {cells} |")
        print(rows[-1], flush=True)
    return rows


def bench_files(work: Path, size: int, batch: int) -> list[str]:
    """Many incremental runs: ``size`` bundles in batches of ``batch``, before and after compact."""
    from k10s_forensics.fleet.compact import compact
    from k10s_forensics.fleet.store import FleetStore
    from k10s_forensics.simulate.fleet import plan_fleet
    from k10s_forensics.simulate.fleet_rows import write_rows

    fleet = work / f"files-{size}"
    write_rows(plan_fleet(9, size), fleet, batch_size=batch)
    files = len(list(fleet.rglob("*.parquet")))
    many = run_child("duckdb", fleet)
    t = time.perf_counter()
    compact(FleetStore.open(fleet))
    compact_s = time.perf_counter() - t
    one = run_child("duckdb", fleet)
    return ["| bundles | batches | files | DuckDB analyze s | compact s | files after | DuckDB analyze s after | same findings |",
            "|---:|---:|---:|---:|---:|---:|---:|---|",
            f"| {size:,} | {size // batch} | {files:,} | {many['seconds']:.1f} | {compact_s:.1f} | {len(list(fleet.rglob('*.parquet')))} | "
            f"{one['seconds']:.2f} | {'yes' if one['found'] == many['found'] else 'NO'} |"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "FLEET"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--tiny", type=int, default=200)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "fleet.md"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    import duckdb
    import pyarrow

    load = open("/proc/loadavg").read().split()[:3]
    with tempfile.TemporaryDirectory(prefix="k10s-bench-fleet-") as tmp:
        work = Path(tmp)
        index_rows = bench_index(work, args.tiny)
        print("\n".join(index_rows), flush=True)
        size_rows = bench_sizes(work, args.sizes, not args.no_spark)
        file_rows = bench_files(work, 2000, 5)
        print("\n".join(file_rows), flush=True)
    try:
        import pyspark
        spark_version = pyspark.__version__
    except ImportError:
        spark_version = "absent"
    text = [
        "## fleet: index throughput, fleet analyze on DuckDB and Spark",
        "",
        f"Machine: {platform.machine()}, 2 cores (shared with other work; load average at start {' '.join(load)}), "
        f"Python {platform.python_version()}, duckdb {duckdb.__version__}, pyarrow {pyarrow.__version__}, pyspark {spark_version} "
        f"(local[2], OpenJDK 17). Script: `python benchmarks/bench_fleet.py`.",
        "",
        "### index (`k10s fleet index`, 2 worker processes)",
        "",
        "Each bundle is opened, its tables rebuilt, every bundle rule run, its inventory read and its rows written;",
        "the tiny bundles are mostly process and rule overhead, the sample bundles show MB/s on real-sized raw layers.",
        "",
        *index_rows,
        "",
        "### fleet analyze at 1,000 and 10,000 bundles",
        "",
        "Fleets written as index rows (the simulator's planted recurrences + noise, ~16 GPUs and ~1 finding per bundle)",
        "through `FleetStore.write_batch`, the writer `fleet index` uses: the write column is that writer's throughput,",
        "not bundle analysis. Each analyze runs in a fresh process (peak RSS of that process; Spark: the Python driver",
        "and the JVM's VmHWM). Spark start is the local session start-up, not counted in its analyze time.",
        "",
        *size_rows,
        "",
        "### many incremental runs, then `k10s fleet compact`",
        "",
        "2,000 bundles written in batches of 5 (as 400 small `fleet index` runs would), analysed on DuckDB, compacted,",
        "analysed again.",
        "",
        *file_rows,
        "",
    ]
    Path(args.out).write_text("\n".join(text))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
