"""``k10s rebuild --jobs 1`` against ``--jobs N`` on the same bundle, side by side.

    python benchmarks/bench_rebuild_jobs.py                          # simulate 1024 GPUs x 60 min @ 10 s
    python benchmarks/bench_rebuild_jobs.py --bundle B --runs 2      # an existing bundle (raw/ is only read)
    python benchmarks/bench_rebuild_jobs.py --bundle B --baseline DIR  # also an older k10s_forensics, same run

``--baseline DIR``: DIR holds an older ``k10s_forensics`` package (``git archive COMMIT
k10s_forensics | tar -x -C DIR``); its ``--jobs 1`` and ``--jobs N`` run alternately with
this tree's, on their own copies of the bundle, and its tables are compared with this tree's.

Runs whole ``k10s rebuild`` processes, alternating ``--jobs 1`` and ``--jobs N`` (default:
every core), and reports the median wall time, MB/s of raw text (command outputs, scrape
bodies and log text, as ``bench_rebuild.py`` counts them), the peak RSS of the process tree
(workers included) and whether both wrote the same tables. The load average is printed
beside the figures: on a shared machine only the side-by-side ratio is comparable.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rebuild import raw_bytes  # noqa: E402
from bench_scale import k10s, run_step  # noqa: E402

from k10s_forensics.store.bundle import Bundle  # noqa: E402


def same_tables(a: Path, b: Path) -> bool:
    names = sorted(p.name for p in (a / "tables").glob("*.parquet"))
    if names != sorted(p.name for p in (b / "tables").glob("*.parquet")):
        return False
    return all(pq.read_table(a / "tables" / n).equals(pq.read_table(b / "tables" / n)) for n in names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", type=Path, default=None)
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--baseline", type=Path, default=None, help="folder holding an older k10s_forensics package")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="k10s-rebuild-jobs-") as tmp:
        serial, parallel = Path(tmp) / "serial", Path(tmp) / "parallel"
        if args.bundle is None:
            step = run_step(k10s("simulate", "healthy", "-o", str(serial), "--seed", "3", "--nodes", str(args.nodes),
                                 "--minutes", str(args.minutes), "--interval", str(args.interval)))
            assert step["rc"] == 0, step["stderr"]
        else:
            shutil.copytree(args.bundle, serial, ignore=shutil.ignore_patterns("tables", "tables.tmp"))
        shutil.copytree(serial, parallel)
        text_mb = sum(raw_bytes(Bundle.open(serial)).values()) / 1e6
        n = str(args.jobs)
        runs: dict[str, list[dict]] = {"1": [], n: []}
        copies = {"1": serial, n: parallel}
        base_env = None
        if args.baseline is not None:
            base_env = {**os.environ, "PYTHONPATH": str(args.baseline.resolve())}
            for jobs in ("1", n):
                runs[f"baseline {jobs}"] = []
                copies[f"baseline {jobs}"] = Path(tmp) / f"baseline-{jobs}"
                shutil.copytree(serial, copies[f"baseline {jobs}"])
        load0 = os.getloadavg()
        for _ in range(args.runs):
            for label in runs:
                jobs = label.split()[-1]
                argv = k10s("rebuild", "-q", "--jobs", jobs, str(copies[label]))
                if label.startswith("baseline"):  # -P: not this tree from the working directory
                    argv.insert(1, "-P")
                runs[label].append(run_step(argv, env=base_env if label.startswith("baseline") else None))
        load = os.getloadavg()
        print(f"load average before the runs {load0[0]:.1f} / {load0[1]:.1f} / {load0[2]:.1f}")
        print(f"{text_mb:,.0f} MB of raw text; {os.cpu_count()} cores; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}\n")
        print("| `k10s rebuild` | median wall s | MB/s of raw text | peak RSS MiB (all processes) | runs |")
        print("|---|---:|---:|---:|---|")
        medians = {}
        for label, steps in runs.items():
            assert all(s["rc"] == 0 for s in steps), [s["stderr"] for s in steps]
            medians[label] = wall = statistics.median(s["wall_s"] for s in steps)
            name = f"baseline `--jobs {label.split()[-1]}`" if label.startswith("baseline") else f"`--jobs {label}`"
            print(f"| {name} | {wall:.1f} | {text_mb / wall:.0f} | {max(s['peak_mib'] for s in steps):.0f} | "
                  + ", ".join(f"{s['wall_s']:.1f}" for s in steps) + " |")
        print(f"\nspeed-up {medians['1'] / medians[n]:.2f}x; identical tables: {same_tables(serial, parallel)}")
        if args.baseline is not None:
            print(f"this tree vs baseline: --jobs 1 {medians['baseline 1'] / medians['1']:.2f}x, --jobs {n} "
                  f"{medians['baseline ' + n] / medians[n]:.2f}x faster; tables identical to the baseline's: "
                  f"{same_tables(serial, copies['baseline 1']) and same_tables(parallel, copies['baseline ' + n])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
