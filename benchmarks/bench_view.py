"""Benchmark: ``k10s view`` on a 1024-GPU x 60 min bundle.

A child process writes the synthetic bundle of bench_analyze.py (healthy gang, one
throttled rank, one bad NIC, an OOM cascade). Then, per run, a fresh process started by
this one imports the CLI as ``k10s view`` does, opens the bundle and runs the real app
headless (Textual's ``run_test``, same workers and widgets as in a terminal) and reports:

- **fleet**: seconds from the process being spawned to Fleet's rows on screen (target 1.5 s);
- **ready**: seconds until the background precompute (analysis, jobs, queue, events,
  logs, timeline, ranks of every job) has finished;
- **switch/drill**: after that, seconds from Enter to each view's rows on screen, and
  for the drill-downs (node → GPUs, rank → timeline) and ``y`` (target 100 ms each), as
  wall time and as CPU time of the process (what a loaded, shared machine distorts least);
- **peak RSS** of that process (target 500 MB).

    python benchmarks/bench_view.py                   # 1024 GPUs x 60 min at 10 s
    python benchmarks/bench_view.py --gpus 256 --minutes 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


async def _drive(bundle: Path, t_spawn: float) -> dict:
    from k10s_forensics.cli import cli  # noqa: F401  (what `k10s view` imports first)
    from k10s_forensics.view.app import K10sApp
    from k10s_forensics.view.data import ViewData

    out: dict = {}
    data = ViewData.open(bundle)
    app = K10sApp(data, open_browser=False)
    async with app.run_test(size=(200, 50)) as pilot:
        while not getattr(app.screen, "loaded", False):
            await asyncio.sleep(0.005)
        await pilot.pause()
        out["fleet_s"] = time.time() - t_spawn
        out["fleet_cpu_s"] = time.process_time()  # CPU of this process (all threads) until then
        out["fleet_rows"] = len(app.screen.rows)
        while any(w.is_running for w in app.workers):
            await asyncio.sleep(0.02)
        out["ready_s"] = time.time() - t_spawn

        async def timed(keys: list[str], then: list[str], screen_name: str) -> float:
            await pilot.press(*keys)
            t, c = time.perf_counter(), time.process_time()
            await pilot.press(*then)
            while type(app.screen).__name__ != screen_name or not getattr(app.screen, "loaded", True) or \
                    (screen_name == "DiagnoseScreen" and app.screen.diagnosis is None):
                await asyncio.sleep(0.001)
            await pilot.pause()
            cpu[name_of(screen_name)] = time.process_time() - c
            return time.perf_counter() - t

        cpu: dict = {}
        out["switch_cpu_s"] = cpu

        labels = iter(["jobs", "queue", "findings", "events", "logs", "fleet", "fleet: node → GPUs", "GPU → rank timeline", "y on the rank"])

        def name_of(_screen: str) -> str:
            return next(labels)

        switch = {}
        for name, cls in (("jobs", "JobsScreen"), ("queue", "QueueScreen"), ("findings", "FindingsScreen"),
                          ("events", "EventsScreen"), ("logs", "LogsScreen"), ("fleet", "FleetScreen")):
            switch[name] = await timed(["colon", *name], ["enter"], cls)
        switch["fleet: node → GPUs"] = await timed([], ["enter"], "NodeScreen")
        switch["GPU → rank timeline"] = await timed([], ["enter"], "RankScreen")
        switch["y on the rank"] = await timed([], ["y"], "DiagnoseScreen")
        out["switch_s"] = switch
    data.close()
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(asyncio.run(_drive(args.child, args.spawned))))
        return
    with tempfile.TemporaryDirectory(prefix="k10s-bench-view-") as tmp:
        bundle = Path(tmp) / "bundle"
        subprocess.run([sys.executable, str(HERE / "bench_analyze.py"), "--generate", str(bundle), "--gpus", str(args.gpus),
                        "--minutes", str(args.minutes), "--interval", str(args.interval)], check=True)
        results = []
        for _ in range(args.runs):
            t = time.time()
            res = subprocess.run([sys.executable, __file__, "--child", str(bundle), "--spawned", str(t)], check=True,
                                 capture_output=True, text=True)
            results.append(json.loads(res.stdout.strip().splitlines()[-1]))
        print(json.dumps({"gpus": args.gpus, "minutes": args.minutes, "runs": results}, indent=1))


if __name__ == "__main__":
    main()
