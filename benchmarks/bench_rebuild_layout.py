"""Rebuild throughput, this code against a baseline package, on one exec layout and the other.

    python benchmarks/bench_rebuild_layout.py --gpus 256 --minutes 60 --baseline /tmp/perf-base/pkg

Simulates the healthy scenario once (this code: ``raw/exec.parquet`` with one source per row
group), then writes a copy whose ``raw/exec.parquet`` holds the same rows in capture order in
mixed 2,000-row groups (the layout of bundles captured before; nothing else differs). Then,
alternating, ``--runs`` times, each in a fresh process (serial ``rebuild()``, tables removed
first):

* baseline / mixed   - the baseline package (``--baseline``: a copy of main's package, made
                       with ``git archive``), on the mixed layout, as bundles rebuild today;
* this / mixed       - this code on the mixed layout (the path for older bundles);
* this / per-source  - this code on the per-source layout (bundles captured from now on).

Reports wall and CPU seconds (the machine is shared: CPU time is the steadier figure), MB/s of
raw text on each, the per-parser seconds, and the load average. Writes
benchmarks/results/rebuild-layout.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rebuild import raw_bytes  # noqa: E402

CHILD = """
import json, resource, sys, time
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.rebuild.run import rebuild
t = {}
w = time.perf_counter()
rebuild(Bundle.open(sys.argv[1]), timings=t, say=lambda *a, **k: None)
wall = time.perf_counter() - w
cpu = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
print(json.dumps({"wall": wall, "cpu": cpu, "timings": t}))
"""


def mixed_copy(src: Path, dst: Path) -> None:
    """``dst``: ``src`` with raw/exec.parquet in capture order, mixed 2,000-row groups."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("tables"))
    path = dst / "raw" / "exec.parquet"
    table = pq.read_table(path)
    table = table.take(pc.sort_indices(table, [("captured_at", "ascending")]))
    pq.write_table(table, path, row_group_size=2000, compression="zstd")


def run_child(pythonpath: str | None, bundle: Path) -> dict:
    shutil.rmtree(bundle / "tables", ignore_errors=True)
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", CHILD, str(bundle)], env=env, check=True, capture_output=True, text=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--baseline", type=Path, help="a directory holding the old k10s_forensics package")
    ap.add_argument("--this", type=Path, help="a directory holding this code's package (default: this checkout)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/rebuild-layout"))
    ap.add_argument("--reuse", action="store_true", help="reuse the simulated bundles in --out")
    args = ap.parse_args(argv)
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.simulate import simulate

    new, old = args.out / "per-source", args.out / "mixed"
    if not args.reuse:
        shutil.rmtree(args.out, ignore_errors=True)
        args.out.mkdir(parents=True)
        simulate("healthy", new, seed=1, nodes=args.gpus // 8, gpus_per_node=8, minutes=args.minutes, interval_s=args.interval)
        mixed_copy(new, old)
    mb = sum(raw_bytes(Bundle.open(new)).values()) / 1e6
    here = str(args.this.resolve() if args.this else Path(__file__).resolve().parents[1])
    cases = ([("baseline / mixed", str(args.baseline.resolve()), old)] if args.baseline else []) + [
        ("this / mixed", here, old), ("this / per-source", here, new)]
    results: dict[str, list[dict]] = {name: [] for name, _, _ in cases}
    loads = []
    for _ in range(args.runs):
        for name, path, bundle in cases:
            loads.append(os.getloadavg()[0])
            results[name].append(run_child(path, bundle))
            print(name, json.dumps({k: round(v, 2) for k, v in results[name][-1].items() if k != "timings"}), flush=True)
    lines = [f"## rebuild: exec layout and parsers, {args.gpus} GPUs x {args.minutes} min at {args.interval} s (healthy)", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other agents, Python {platform.python_version()}; "
             f"load average (1 min) during the runs: {min(loads):.1f}–{max(loads):.1f}. {mb:.0f} MB of raw text. "
             f"`python benchmarks/bench_rebuild_layout.py --gpus {args.gpus} --minutes {args.minutes} --runs {args.runs}"
             f"{' --baseline DIR' if args.baseline else ''}` (median of {args.runs}, alternating, fresh processes).", "",
             "| code / exec layout | wall s | MB/s (wall) | CPU s | MB/s (CPU) |", "|---|---:|---:|---:|---:|"]
    med = {name: (statistics.median(r["wall"] for r in rs), statistics.median(r["cpu"] for r in rs)) for name, rs in results.items()}
    for name, (wall, cpu) in med.items():
        lines.append(f"| {name} | {wall:.1f} | {mb / wall:.0f} | {cpu:.1f} | {mb / cpu:.0f} |")
    parsers = list(results[cases[-1][0]][0]["timings"])
    lines += ["", "Per parser (wall s, median): " + ", ".join(name for name, _, _ in cases), "",
              "| parser | " + " | ".join(name for name, _, _ in cases) + " |", "|---|" + "---:|" * len(cases)]
    for p in parsers:
        vals = [statistics.median(r["timings"].get(p, 0.0) for r in results[name]) for name, _, _ in cases]
        lines.append(f"| {p} | " + " | ".join(f"{v:.2f}" for v in vals) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path("benchmarks/results").mkdir(parents=True, exist_ok=True)
    Path("benchmarks/results/rebuild-layout.md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
