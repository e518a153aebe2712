"""Benchmark the text-heavy parser derivers alone: logs, ss, nvidia-smi XML (+ dcgm for scale).

    python benchmarks/bench_parsers.py [--nodes 16] [--minutes 30] [--log-mb 40] [--repeat 3]
                                       [--modules-from DIR] [--label after] [--out FILE]

Builds a realistic bundle with the simulator (``oom-crashloop``: NCCL init lines, step lines,
an OOM, restarts; ss every interval in every pod; nvidia-smi XML per node), plus a heavy
synthetic log set (``--log-mb`` of verbose logs: every rank prints progress, NCCL INFO,
noise; the generator of bench_logs_parse.py). Then, for each deriver, in the same process:

* floor: a bare DuckDB read of the same raw text column (``sum(strlen(...))``);
* deriver: ``derive(ctx)`` with a fresh DeriveContext, its output written to Parquet.

Reported: wall seconds, CPU seconds of the process (all threads; less sensitive to the other
jobs sharing the 2 cores), MB/s of raw text for both, best of ``--repeat``. ``--modules-from
DIR`` loads ``logs.py``/``ss.py``/``nvidia_smi_xml.py`` from DIR instead (e.g. a checkout of
an older version) to measure before/after in the same way. Results are appended to ``--out``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.parsers import ParseIssues
from k10s_forensics.rebuild.run import DeriveContext

#: deriver -> (raw file, text column, exec/scrape source or None, output table)
CASES = {
    "logs": ("logs", "body", None, "log_events"),
    "ss": ("exec", "stdout", "ss", "tcp_samples"),
    "nvidia_smi_xml": ("exec", "stdout", "nvidia-smi-xml", "gpu_samples"),
    "dcgm": ("scrapes", "body", "dcgm-exporter", "gpu_samples"),
}


def load_module(name: str, modules_from: Path | None):
    if modules_from is None:
        return importlib.import_module(f"k10s_forensics.parsers.{name}")
    spec = importlib.util.spec_from_file_location(f"bench_alt_{name}", modules_from / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def text_sql(bundle: Bundle, raw: str, column: str, source: str | None) -> str:
    where = f" WHERE source = '{source}'" if source else ""
    return f"SELECT coalesce(sum(strlen({column})), 0), count(*) FROM read_parquet('{bundle.raw_path(raw)}'){where}"


def run_deriver(module, bundle: Bundle, table: str) -> int:
    out = Path(tempfile.mkdtemp(prefix="k10s-bench-out-"))
    try:
        ctx = DeriveContext(bundle, out, ParseIssues())
        module.derive(ctx)
        ctx.finish()
        return ctx.table(table).num_rows
    finally:
        shutil.rmtree(out, ignore_errors=True)


def heavy_logs(root: Path, mb: float) -> Path:
    """A raw-only bundle of verbose container logs (bench_logs_parse.py's generator)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_logs_parse import T0, make_body  # noqa: E402

    import datetime as dt

    from k10s_forensics.store.bundle import new_manifest, write_json_atomic, write_raw_table

    (root / "raw").mkdir(parents=True)
    pods = 16
    rng = random.Random(11)
    rows = [
        dict(captured_at=T0 + dt.timedelta(hours=1), node=f"node-{p // 2}", namespace="team-a", pod=f"job-worker-{p}",
             pod_uid=f"uid-{p}", container="pytorch", previous=False, body=make_body(rng, p, int(mb * 1e6 / pods)), error=None)
        for p in range(pods)
    ]
    write_raw_table(root, "logs", rows)
    write_json_atomic(root / "manifest.json", new_manifest())
    return root


def measure(bundle: Bundle, name: str, module, repeat: int) -> dict:
    raw, column, source, table = CASES[name]
    con = duckdb.connect()
    nbytes, nrows, floor = 0, 0, []
    for _ in range(repeat):
        result: list = []
        floor.append(timed(lambda: result.append(con.sql(text_sql(bundle, raw, column, source)).fetchall()[0])))
        nbytes, nrows = result[0]
    con.close()
    runs, out_rows = [], 0
    for _ in range(repeat):
        box: list = []
        runs.append(timed(lambda: box.append(run_deriver(module, bundle, table))))
        out_rows = box[0]
    best = min(runs, key=lambda r: r[1])
    best_floor = min(floor, key=lambda r: r[1])
    return {"name": name, "mb": nbytes / 1e6, "raw_rows": nrows, "out_rows": out_rows, "wall": best[0], "cpu": best[1],
            "floor_wall": best_floor[0], "floor_cpu": best_floor[1], "all_cpu": [round(r[1], 2) for r in runs]}


def render(results: list[dict], args, load: tuple[float, float]) -> str:
    lines = [
        f"### {args.label}: {args.nodes} nodes x {args.gpus_per_node} GPUs, {args.minutes} min at {args.interval} s "
        f"+ {args.log_mb:g} MB verbose logs",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}, "
        f"duckdb {duckdb.__version__}; load average before/after: {load[0]:.1f}/{load[1]:.1f}. "
        f"Parsers: {args.modules_from or 'k10s_forensics.parsers (this tree)'}. Best of {args.repeat} (by CPU).",
        "",
        "| deriver | bundle | raw MB | rows in -> out | floor wall s (MB/s) | floor CPU s | deriver wall s (MB/s) | deriver CPU s (MB/s) | all CPU s |",
        "|---|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for r in results:
        mb = r["mb"]
        lines.append(
            f"| {r['name']} | {r['bundle']} | {mb:.1f} | {r['raw_rows']:,} -> {r['out_rows']:,} | "
            f"{r['floor_wall']:.2f} ({mb / max(r['floor_wall'], 1e-9):.0f}) | {r['floor_cpu']:.2f} | "
            f"{r['wall']:.2f} ({mb / max(r['wall'], 1e-9):.0f}) | {r['cpu']:.2f} ({mb / max(r['cpu'], 1e-9):.0f}) | {r['all_cpu']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--minutes", type=int, default=30)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--log-mb", type=float, default=40.0, help="size of the extra verbose-log bundle (0 = none)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modules-from", type=Path, default=None, help="load the deriver modules from this directory")
    ap.add_argument("--only", default="logs,ss,nvidia_smi_xml,dcgm")
    ap.add_argument("--label", default="after")
    ap.add_argument("--work", type=Path, default=None, help="reuse/keep the generated bundles here")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "parsers.md")
    args = ap.parse_args()

    from k10s_forensics.simulate import simulate

    work = args.work or Path(tempfile.mkdtemp(prefix="k10s-bench-parsers-"))
    sim_dir, logs_dir = work / f"sim-{args.nodes}x{args.gpus_per_node}-{args.minutes}m", work / f"logs-{args.log_mb:g}mb"
    if not (sim_dir / "manifest.json").exists():
        simulate("oom-crashloop", sim_dir, seed=1, nodes=args.nodes, gpus_per_node=args.gpus_per_node,
                 minutes=args.minutes, interval_s=args.interval)
    if args.log_mb > 0 and not (logs_dir / "manifest.json").exists():
        heavy_logs(logs_dir, args.log_mb)
    load0 = os.getloadavg()[0]
    results = []
    for name in [n.strip() for n in args.only.split(",") if n.strip()]:
        module = load_module(name, args.modules_from)
        bundles = [("simulated", sim_dir)] + ([("verbose logs", logs_dir)] if name == "logs" and args.log_mb > 0 else [])
        for label, path in bundles:
            r = measure(Bundle.open(path), name, module, args.repeat)
            r["bundle"] = label
            results.append(r)
            print(f"{name:16s} {label:13s} {r['mb']:7.1f} MB  wall {r['wall']:.2f}s  cpu {r['cpu']:.2f}s  "
                  f"({r['mb'] / max(r['cpu'], 1e-9):.0f} MB/s cpu)  floor cpu {r['floor_cpu']:.2f}s", flush=True)
    text = render(results, args, (load0, os.getloadavg()[0]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a", encoding="utf-8") as fh:
        fh.write(text + "\n")
    print(text)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
