"""End to end at scale: simulate -> rebuild -> analyze -> report, each a real ``k10s`` process.

    python benchmarks/bench_scale.py                       # 10,240 GPUs (1280 x 8), 30 min @ 15 s
    python benchmarks/bench_scale.py --nodes 128 --minutes 60 --interval 10 --keep /tmp/s1024

Each step runs as its own process; a sampler adds up the RSS of that process and all of its
descendants (the rebuild's worker processes included) every 0.2 s, so "peak" is the whole
step's. Also measured: rebuild with ``--jobs 1`` when ``--serial`` is given (same bundle,
side by side), the report's size and its load + draw time in headless Chromium, and whether
``analyze`` names the planted culprit of the truth file. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_rss(root_pid: int) -> int:
    """Bytes of RSS of ``root_pid`` and every descendant (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * PAGE
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def run_step(argv: list[str], env: dict[str, str] | None = None) -> dict:
    """Run one command; wall seconds, peak tree RSS (MiB), CPU seconds (of the process and the
    children it waited for: not the rebuild's pool workers), exit code."""
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"argv": argv, "wall_s": time.perf_counter() - started, "peak_mib": peak / 2**20, "cpu_s": cpu,
            "rc": proc.returncode, "stdout": out, "stderr": err[-2000:]}


def k10s(*args: str) -> list[str]:
    return [sys.executable, "-m", "k10s_forensics", *args]


def culprit_found(analysis: dict, truth: dict) -> bool:
    """Every expected finding of the truth file appears with its rule, cause and ranks."""
    expected = truth.get("expected") or truth.get("findings") or []
    for want in expected:
        ok = any(f["rule"] == want.get("rule") and (want.get("cause") in (None, f.get("cause")))
                 and set(want.get("ranks") or []) <= set(f.get("ranks") or []) for f in analysis.get("findings", []))
        if not ok:
            return False
    return bool(expected)


def chromium_load_s(report: Path) -> float | None:
    from k10s_forensics.reports.browser import Chromium, available

    if not available():
        return None
    with Chromium(timeout_s=300) as browser:
        return browser.open_page(report).ready_ms / 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1280)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--interval", type=float, default=15)
    ap.add_argument("--scenario", default="straggler-compute")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=0, help="rebuild processes (0: every core)")
    ap.add_argument("--serial", action="store_true", help="also rebuild with --jobs 1 (same bundle) for the ratio")
    ap.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    args = ap.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="k10s-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    bundle, truth_path = root / "bundle", root / "bundle.truth.json"
    gpus = args.nodes * args.gpus_per_node
    steps: dict[str, dict] = {}
    try:
        if not (bundle / "manifest.json").is_file():
            steps["simulate"] = run_step(k10s("simulate", args.scenario, "-o", str(bundle), "--seed", str(args.seed), "--nodes", str(args.nodes),
                                              "--gpus-per-node", str(args.gpus_per_node), "--minutes", str(args.minutes),
                                              "--interval", str(args.interval), "--nproc-per-node", str(args.gpus_per_node)))
        raw_mb = sum(p.stat().st_size for p in (bundle / "raw").glob("*.parquet")) / 1e6
        if args.serial:
            steps["rebuild --jobs 1"] = run_step(k10s("rebuild", "-q", "--jobs", "1", str(bundle)))
        steps[f"rebuild --jobs {args.jobs or os.cpu_count()}"] = run_step(k10s("rebuild", "-q", "--jobs", str(args.jobs or os.cpu_count()), str(bundle)))
        steps["analyze"] = run_step(k10s("analyze", str(bundle), "--format", "json", "-o", str(root / "analysis.json")))
        steps["report"] = run_step(k10s("report", str(bundle), "-o", str(root / "report.html")))
        analysis = json.loads((root / "analysis.json").read_text())
        truth = json.loads(truth_path.read_text()) if truth_path.is_file() else {}
        report = root / "report.html"
        load_s = chromium_load_s(report) if report.is_file() else None
        load = os.getloadavg()
        print(f"\n{gpus:,} GPUs ({args.nodes} nodes x {args.gpus_per_node}), {args.minutes:g} min @ {args.interval:g} s, scenario {args.scenario} seed {args.seed}; "
              f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; "
              f"raw layer {raw_mb:.0f} MB of Parquet\n")
        print("| step | wall s | peak RSS MiB (all processes) | exit |")
        print("|---|---:|---:|---:|")
        for name, s in steps.items():
            print(f"| `k10s {name}` | {s['wall_s']:.1f} | {s['peak_mib']:.0f} | {s['rc']} |")
            if s["rc"]:
                print(f"\n{name} failed: {s['stderr']}\n", file=sys.stderr)
        size = report.stat().st_size / 1e6 if report.is_file() else float("nan")
        print(f"\nreport: {size:.1f} MB; Chromium load + draw: {'---' if load_s is None else f'{load_s:.1f} s'}; "
              f"findings: {sorted({(f['rule'], f.get('cause'), tuple(f['ranks'][:3])) for f in analysis.get('findings', [])})}; "
              f"planted culprit found: {culprit_found(analysis, truth)} (truth: {truth.get('expected') or truth.get('findings')})")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
