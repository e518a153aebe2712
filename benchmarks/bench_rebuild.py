"""Benchmark ``k10s rebuild`` on a simulated cluster, with a bare DuckDB floor in the same run.

    python benchmarks/bench_rebuild.py [--gpus 1024] [--minutes 60] [--interval 10] [--out DIR]

Simulates the healthy scenario (GPUs / 8 nodes x 8 GPUs), then times each parser of the
rebuild (raw MB/s per source) and, in the same process, a bare DuckDB scan + aggregate of the
resulting gpu_samples Parquet. Prints a Markdown table (also written to
benchmarks/results/rebuild.md).
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import time
from pathlib import Path

import duckdb

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.rebuild.run import rebuild

SOURCE_OF_PARSER = {
    "dcgm": ("scrapes", "dcgm-exporter"),
    "prometheus": ("scrapes", "prometheus-query"),
    "nvidia_smi_xml": ("exec", "nvidia-smi-xml"),
    "nvidia_smi_csv": ("exec", "nvidia-smi-csv"),
    "ss": ("exec", "ss"),
    "dmesg": ("exec", "dmesg"),
    "logs": ("logs", None),
}


def raw_bytes(bundle: Bundle) -> dict[tuple[str, str | None], int]:
    con = duckdb.connect()
    out: dict[tuple[str, str | None], int] = {}
    for name, col in (("scrapes", "body"), ("exec", "stdout"), ("logs", "body")):
        path = bundle.raw_path(name)
        if not path.is_file():
            continue
        if name == "logs":
            out[(name, None)] = con.sql(f"SELECT coalesce(sum(strlen({col})), 0) FROM read_parquet('{path}')").fetchall()[0][0]
        else:
            for source, n in con.sql(f"SELECT source, coalesce(sum(strlen({col})), 0) FROM read_parquet('{path}') GROUP BY 1").fetchall():
                out[(name, source)] = n
    return out


def floor_seconds(path: Path) -> float:
    con = duckdb.connect()
    started = time.perf_counter()
    con.sql(
        f"SELECT node, gpu_uuid, avg(power_w), avg(util_pct), max(temp_c), count(*) FROM read_parquet('{path}') GROUP BY ALL"
    ).fetchall()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpus", type=int, default=1024)
    parser.add_argument("--minutes", type=int, default=60)
    parser.add_argument("--interval", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out/rebuild"))
    parser.add_argument("--keep", action="store_true", help="keep the simulated bundle")
    args = parser.parse_args()

    from k10s_forensics.simulate import simulate

    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    simulate("healthy", args.out, seed=1, nodes=args.gpus // 8, gpus_per_node=8, minutes=args.minutes, interval_s=args.interval)
    simulate_s = time.perf_counter() - started

    bundle = Bundle.open(args.out)
    sizes = raw_bytes(bundle)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    rebuild(bundle, timings=timings)
    rebuild_s = time.perf_counter() - started
    floor_s = floor_seconds(bundle.table_path("gpu_samples"))
    rows = duckdb.sql(f"SELECT count(*) FROM read_parquet('{bundle.table_path('gpu_samples')}')").fetchall()[0][0]
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    lines = [
        f"## rebuild: {args.gpus} GPUs x {args.minutes} min at {args.interval} s (healthy scenario)",
        "",
        f"Machine: {platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}, duckdb {duckdb.__version__}.",
        f"Simulating took {simulate_s:.1f} s. gpu_samples rows: {rows:,}. Peak RSS of the process: {peak_mib:.0f} MiB.",
        "",
        "| parser | raw source | raw MB | seconds | MB/s |",
        "|---|---|---:|---:|---:|",
    ]
    for name, seconds in timings.items():
        key = SOURCE_OF_PARSER.get(name)
        mb = sizes.get(key, 0) / 1e6 if key else 0.0
        rate = f"{mb / seconds:.0f}" if key and seconds > 0 and mb > 0 else "—"
        lines.append(f"| {name} | {key[0] + ':' + (key[1] or '*') if key else '(tables)'} | {mb:.1f} | {seconds:.2f} | {rate} |")
    lines += [
        f"| **total rebuild** | | {sum(sizes.values()) / 1e6:.1f} | {rebuild_s:.2f} | {sum(sizes.values()) / 1e6 / rebuild_s:.0f} |",
        "",
        f"Floor, same run: bare DuckDB scan + per-GPU aggregate of gpu_samples.parquet: {floor_s:.3f} s.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    Path("benchmarks/results").mkdir(parents=True, exist_ok=True)
    Path("benchmarks/results/rebuild.md").write_text(text + "\n")
    if not args.keep:
        shutil.rmtree(args.out, ignore_errors=True)


if __name__ == "__main__":
    main()
