"""Benchmark: ``k10s view`` on a 1024-GPU x 60 min bundle.

A child process writes the synthetic bundle of bench_analyze.py (healthy gang, one
throttled rank, one bad NIC, an OOM cascade). Then, per run, a fresh process started by
this one imports the CLI as ``k10s view`` does, opens the bundle and runs the real app
headless (Textual's ``run_test``, same workers and widgets as in a terminal) and reports:

- **fleet**: seconds from the process being spawned to the first frame painted with
  Fleet's rows (target 1.5 s), and the process' CPU seconds until then;
- **ready**: seconds until the background precompute (analysis, jobs, queue, events,
  logs, timeline, ranks of every job, each view's rows) has finished;
- **switch/drill**: after that, seconds from the key to the first frame painted with
  its answer, for each view, the drill-downs (node → GPUs, rank → timeline), ``y`` and,
  on Jobs, Ctrl+End/Ctrl+Home, sort and a filter keystroke (target 100 ms each); as wall time and
  as CPU time of the process (what a loaded, shared machine distorts least). A frame
  counts once the compositor has rendered it and it has been turned into terminal bytes
  (headless Textual renders frames but writes nothing). ``pilot_s`` is the older
  measure, until Textual's Pilot judges the app idle: it adds at least 2 × 20 ms of
  Pilot's own idle detection, and waits while any thread of the process still works;
- **peak RSS** of that process (target 500 MB).

    python benchmarks/bench_view.py                   # 1024 GPUs x 60 min at 10 s
    python benchmarks/bench_view.py --gpus 256 --minutes 10
    python benchmarks/bench_view.py --bundle DIR      # an existing bundle (compare two versions on one)
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
    # "painted": the first frame the compositor renders once ``want()`` holds, turned into
    # the bytes a terminal would be sent (headless Textual renders frames but skips that)
    paint: dict = {"want": None, "at": None, "cpu": None}
    display = app._display

    def painted(screen, renderable) -> None:
        display(screen, renderable)
        if renderable is None:
            return
        if hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)
        if paint["want"] is not None and paint["at"] is None and paint["want"]():
            paint["at"], paint["cpu"] = time.perf_counter(), time.process_time()

    app._display = painted

    def is_loaded(name: str):
        return lambda: type(app.screen).__name__ == name and getattr(app.screen, "loaded", True) and \
            (name != "DiagnoseScreen" or app.screen.diagnosis is not None)

    async def until_painted(timeout_s: float = 60.0) -> None:
        end = time.perf_counter() + timeout_s
        while paint["at"] is None and time.perf_counter() < end:
            await asyncio.sleep(0.001)

    paint["want"] = is_loaded("FleetScreen")
    async with app.run_test(size=(200, 50)) as pilot:
        await until_painted()
        out["fleet_s"] = time.time() - (time.perf_counter() - paint["at"]) - t_spawn
        out["fleet_cpu_s"] = paint["cpu"]  # CPU of this process (all threads) until then
        out["fleet_rows"] = len(app.screen.rows)
        while any(w.is_running for w in app.workers):
            await asyncio.sleep(0.02)
        out["ready_s"] = time.time() - t_spawn
        await pilot.pause()
        painted_s, cpu, pilot_s = {}, {}, {}

        async def timed(label: str, pre: list[str], keys: list[str], want) -> None:
            """Press ``pre`` (untimed), then ``keys``: seconds until the frame where ``want()``
            holds is painted, CPU seconds of the process meanwhile, and seconds until Pilot
            thinks the app idle (what this benchmark measured before: at least 2 × 20 ms of
            Pilot's idle detection more)."""
            await pilot.press(*pre)
            paint["want"], paint["at"] = want, None
            t, c = time.perf_counter(), time.process_time()
            await pilot.press(*keys)
            await until_painted()
            if paint["at"] is None:  # never answered: say so, do not wait for ever
                painted_s[label] = cpu[label] = pilot_s[label] = None
                return
            await pilot.pause()
            pilot_s[label] = time.perf_counter() - t
            painted_s[label], cpu[label] = paint["at"] - t, paint["cpu"] - c

        screen = lambda: app.screen
        await timed("jobs", ["colon", *"jobs"], ["enter"], is_loaded("JobsScreen"))
        out["jobs_rows"] = len(screen().rows)
        await timed("jobs: Ctrl+End (last row)", [], ["ctrl+end"], lambda: screen().selected() is screen().shown[-1])
        await timed("jobs: Ctrl+Home (1st row)", [], ["ctrl+home"], lambda: screen().selected() is screen().shown[0])
        await timed("jobs: > sort all rows", [], ["greater_than_sign"], lambda: screen().sort_col == 0)
        await timed("jobs: ! reverse", [], ["exclamation_mark"], lambda: screen().sort_desc)
        await timed("jobs: / filter, 1st key", ["slash"], ["9"], lambda: screen().filter_text == "9")
        await pilot.press("escape", "escape")
        for name, cls in (("queue", "QueueScreen"), ("findings", "FindingsScreen"), ("events", "EventsScreen"),
                          ("logs", "LogsScreen"), ("fleet", "FleetScreen")):
            await timed(name, ["colon", *name], ["enter"], is_loaded(cls))
        await timed("fleet: node → GPUs", [], ["enter"], is_loaded("NodeScreen"))
        await timed("GPU → rank timeline", [], ["enter"], is_loaded("RankScreen"))
        await timed("y on the rank", [], ["y"], is_loaded("DiagnoseScreen"))
        out["switch_s"], out["switch_cpu_s"], out["pilot_s"] = painted_s, cpu, pilot_s
    data.close()
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bundle", type=Path, help="reuse this bundle (written by bench_analyze.py --generate) instead of a new one")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(asyncio.run(_drive(args.child, args.spawned))))
        return
    with tempfile.TemporaryDirectory(prefix="k10s-bench-view-") as tmp:
        bundle = args.bundle or Path(tmp) / "bundle"
        if args.bundle is None:
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
