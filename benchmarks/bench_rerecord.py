"""Launcher readings on a fresh sample: re-record scenarios and score them as tests/test_torch_runs.py scores the fixtures.

A recorded run is one sample of its scenario's timing (which victim prints first, whether a SIGTERM lands before a
rank's own error); a user's run of the same scenario is another. This records the chosen scenarios again into a new
folder (tests/tools/record_torch.py ``-o``, with the given PyTorch) and reads each fresh run both ways (``k10s
import-logs`` with the node logs; the pod logs of a captured PyTorchJob), each in a bundle of its own, beside the
committed recording's standing (right, or NOT_YET in tests/test_torch_runs.py).

    python benchmarks/bench_rerecord.py --torch /path/to/venv/bin/python -k t38-,t42-
    python benchmarks/bench_rerecord.py --runs /tmp/rerec          # score a folder recorded before, no recording

Needs torch in the ``--torch`` interpreter only; not part of the test run. Prints one row per run and the totals.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
TOOLS = ROOT / "tests" / "tools"


def record(python: str, pattern: str, out: Path) -> None:
    """Record the scenarios whose names hold ``pattern`` (comma-separated) into ``out/<torch version>/``."""
    subprocess.run([python, "record_torch.py", "-k", pattern, "-o", str(out)], cwd=TOOLS, stdin=subprocess.DEVNULL, check=True)


def fresh_runs(folder: Path) -> list:
    from torch_runs_kit import Run

    return [Run(t.parent.parent.name, t.parent.name, t.parent, json.loads(t.read_text(encoding="utf-8")))
            for t in sorted(folder.glob("*/*/truth.json"))]


def readings(run, tmp: Path) -> dict[str, str | None]:
    """Why each way misses the run (None: right); a way with nothing to read (no console line) is ``no lines``."""
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.errors import InputError
    from torch_runs_kit import import_run, podlog_run, score_findings

    out: dict[str, str | None] = {}
    (tmp / "i").mkdir()
    try:
        out["import"] = score_findings(run, analyze(import_run(run, tmp / "i"))["findings"])
    except InputError:
        out["import"] = None if run.truth["control"] else "no lines"
    (tmp / "p").mkdir()
    out["podlog"] = score_findings(run, analyze(podlog_run(run, tmp / "p"))["findings"])
    return out


def committed(run_id: str, how: str) -> str:
    from test_torch_runs import NOT_YET

    return "NOT_YET" if run_id in NOT_YET[how] else "right"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torch", help="a Python with torch to record with")
    ap.add_argument("-k", default="", help="the scenarios to record (record_torch.py -k)")
    ap.add_argument("--runs", type=Path, help="the folder to record into, or to score as it is without --torch")
    args = ap.parse_args(argv)
    out = args.runs or Path(tempfile.mkdtemp(prefix="k10s-rerecord-"))
    if args.torch:
        record(args.torch, args.k, out)
    right = {"import": 0, "podlog": 0}
    runs = fresh_runs(out)
    print(f"{'run':<62} {'import':<8} {'podlog':<8} committed (import/podlog)")
    for run in runs:
        with tempfile.TemporaryDirectory() as tmp:
            got = readings(run, Path(tmp))
        for how, why in got.items():
            right[how] += why is None
        print(f"{run.id:<62} {'right' if got['import'] is None else 'MISS':<8} {'right' if got['podlog'] is None else 'MISS':<8} "
              f"{committed(run.id, 'import')}/{committed(run.id, 'podlog')}")
        for how, why in got.items():
            if why is not None:
                print(f"    {how}: {why}")
    n = len(runs)
    print(f"fresh sample: import {right['import']}/{n}, pod logs {right['podlog']}/{n} (folder {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
