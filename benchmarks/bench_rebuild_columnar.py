"""Rebuild CPU time, this code against a baseline package, with CPU seconds per parser.

    python benchmarks/bench_rebuild_columnar.py --baseline /tmp/base [--bundle DIR | --gpus 1024 --minutes 60] [--runs 2]

``--baseline``: a directory holding main's ``k10s_forensics`` (``git archive main k10s_forensics
| tar -x -C DIR``). Simulates the healthy scenario once (or uses ``--bundle``), then, alternating,
``--runs`` times each, rebuilds it serially in a fresh process (tables removed first). The
machine is shared, so CPU seconds (user + system, every thread of the process) are the figure
to compare; wall seconds and the load average are given beside them. Per parser: CPU seconds
(the rebuild's per-parser timer reads the process's CPU clock instead of the wall clock) and
MB/s of its raw text. The baseline child runs without this code's ``MIMALLOC_PURGE_DELAY``
default (unless it was set before this script started), as main's code would.
Writes benchmarks/results/rebuild-columnar.md.
"""

from __future__ import annotations

import os

USER_PURGE = os.environ.get("MIMALLOC_PURGE_DELAY")  # before k10s_forensics sets its default

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rebuild import SOURCE_OF_PARSER, raw_bytes  # noqa: E402

CHILD = """
import json, resource, sys, time, types
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
from k10s_forensics.store.bundle import Bundle
import k10s_forensics.rebuild.run as run
run.time = types.SimpleNamespace(perf_counter=cpu, sleep=time.sleep)  # per-parser timings in CPU seconds
t = {}
w, c = time.perf_counter(), cpu()
run.rebuild(Bundle.open(sys.argv[1]), timings=t, say=lambda *a, **k: None)
r = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - w, "cpu": cpu() - c, "user": r.ru_utime, "sys": r.ru_stime, "timings": t}))
"""


def run_child(pythonpath: str, bundle: Path, baseline: bool) -> dict:
    shutil.rmtree(bundle / "tables", ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=pythonpath)
    if baseline and USER_PURGE is None:
        env.pop("MIMALLOC_PURGE_DELAY", None)
    elif USER_PURGE is not None:
        env["MIMALLOC_PURGE_DELAY"] = USER_PURGE
    out = subprocess.run([sys.executable, "-c", CHILD, str(bundle)], env=env, check=True, capture_output=True, text=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="a directory holding main's k10s_forensics package")
    ap.add_argument("--bundle", type=Path, help="an existing bundle (default: simulate one into --out)")
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/rebuild-columnar"))
    args = ap.parse_args(argv)
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.simulate import simulate

    bundle = args.bundle
    if bundle is None:
        bundle = args.out / "healthy"
        shutil.rmtree(args.out, ignore_errors=True)
        args.out.mkdir(parents=True)
        simulate("healthy", bundle, seed=1, nodes=args.gpus // 8, gpus_per_node=8, minutes=args.minutes, interval_s=10)
    sizes = raw_bytes(Bundle.open(bundle))
    mb = sum(sizes.values()) / 1e6
    here = str(Path(__file__).resolve().parents[1])
    cases = [("main", str(args.baseline.resolve()), True), ("this", here, False)]
    results: dict[str, list[dict]] = {name: [] for name, _, _ in cases}
    loads = []
    for _ in range(args.runs):
        for name, path, baseline in cases:
            loads.append(os.getloadavg()[0])
            results[name].append(run_child(path, bundle, baseline))
            print(name, json.dumps({k: round(v, 2) for k, v in results[name][-1].items() if k != "timings"}), flush=True)
    text = report(args, results, loads, mb, sizes)
    print(text)
    Path("benchmarks/results").mkdir(parents=True, exist_ok=True)
    Path("benchmarks/results/rebuild-columnar.md").write_text(text)
    return 0


def report(args, results: dict[str, list[dict]], loads: list[float], mb: float, sizes: dict) -> str:
    med = {name: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu")} for name, rs in results.items()}
    runs = {name: ", ".join(f"{r['cpu']:.1f}" for r in rs) for name, rs in results.items()}
    lines = [f"## rebuild CPU time: main against this branch, {args.gpus} GPUs x {args.minutes} min at 10 s (healthy)", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other agents, Python {platform.python_version()}; "
             f"load average (1 min) at the start of each run: {min(loads):.1f}–{max(loads):.1f}. {mb:.0f} MB of raw text. "
             f"`python benchmarks/bench_rebuild_columnar.py --baseline DIR --runs {args.runs}` (median of {args.runs}, "
             "alternating, fresh processes, serial rebuild).", "",
             "| code | CPU s (user + sys) | MB/s (CPU) | CPU s of each run | wall s | MB/s (wall) |", "|---|---:|---:|---|---:|---:|"]
    for name, m in med.items():
        lines.append(f"| {name} | {m['cpu']:.1f} | {mb / m['cpu']:.0f} | {runs[name]} | {m['wall']:.1f} | {mb / m['wall']:.0f} |")
    parsers = [p for p in results["this"][0]["timings"] if max(statistics.median(r["timings"].get(p, 0.0) for r in rs) for rs in results.values()) >= 0.05]
    lines += ["", "Per parser: CPU seconds (median) and MB/s of its raw text on CPU time", "",
              "| parser | raw MB | main CPU s | this CPU s | main MB/s | this MB/s |", "|---|---:|---:|---:|---:|---:|"]
    for p in parsers:
        cpu = [statistics.median(r["timings"].get(p, 0.0) for r in results[name]) for name in ("main", "this")]
        raw = sizes.get(SOURCE_OF_PARSER[p], 0) / 1e6 if p in SOURCE_OF_PARSER else 0
        rate = [f"{raw / c:.0f}" if raw and c else "" for c in cpu]
        lines.append(f"| {p} | {raw:.0f} | {cpu[0]:.2f} | {cpu[1]:.2f} | {rate[0]} | {rate[1]} |" if raw else
                     f"| {p} |  | {cpu[0]:.2f} | {cpu[1]:.2f} |  |  |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
