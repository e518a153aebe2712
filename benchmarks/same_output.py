"""Proof that a change to the queries leaves ``k10s analyze`` byte for byte as it was.

    python benchmarks/same_output.py build DIR [--every N]     # DIR/bundles: the inputs (once)
    python benchmarks/same_output.py record DIR/bundles OUT    # before the change
    python benchmarks/same_output.py record DIR/bundles OUT2   # after it
    python benchmarks/same_output.py compare OUT OUT2          # exit 1 on any difference

``build`` makes the inputs in DIR/bundles: a copy of every sample bundle (sample-bundles/*),
every ``--every``-th run of tests/data/torch-runs imported both ways the tests do
(``k10s import-logs`` on the plain node logs, and a captured PyTorchJob with the API's
timestamps: tests/torch_runs_kit.py), and every ``--every``-th incident of the real-incident
corpus (tests/data/real-incidents) imported as the corpus tests do (tests/incident_kit.py).
``--extra LIST``: also copy the bundles named one per line in LIST.

``record`` runs ``k10s analyze --format json|text|markdown -o FILE`` (the command line itself,
in-process) on each bundle and writes the outputs under OUT; ``compare`` lists every file that
differs or is missing on either side.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("json", "text", "markdown")


def build(out: Path, every: int, extra: Path | None) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from incident_kit import incident_bundle, load_corpus
    from torch_runs_kit import import_run, load_runs, podlog_run

    from k10s_forensics.errors import InputError

    bundles = out / "bundles"
    bundles.mkdir(parents=True, exist_ok=True)
    for src in sorted(p for p in (ROOT / "sample-bundles").iterdir() if p.is_dir()):
        shutil.copytree(src, bundles / f"sample-{src.name}", dirs_exist_ok=True)
    for line in extra.read_text().split() if extra else []:
        shutil.copytree(line, bundles / f"extra-{Path(line).name}", dirs_exist_ok=True)
    for run in load_runs()[::every]:
        for how, make in (("import", import_run), ("podlog", podlog_run)):
            with tempfile.TemporaryDirectory() as tmp:
                bundle = make(run, Path(tmp))
                shutil.copytree(bundle.path, bundles / f"torch-{how}-{run.version}-{run.name}")
    corpus = ROOT / "tests" / "data" / "real-incidents"
    for case in load_corpus(corpus)[::every]:
        text = (corpus / case.incident / "log.txt").read_text(encoding="utf-8")
        try:
            incident_bundle(bundles / f"corpus-{case.incident}", case, text)
        except InputError:  # an incident the importer refuses (a NOT_YET case): no bundle to compare
            continue
    print(len(list(bundles.iterdir())), "bundles in", bundles)


def record(bundles: Path, out: Path) -> None:
    from click.testing import CliRunner

    from k10s_forensics.cli import cli as main

    out.mkdir(parents=True, exist_ok=True)
    runner = CliRunner()
    for bundle in sorted(p for p in bundles.iterdir() if p.is_dir()):
        for fmt in FORMATS:
            target = out / f"{bundle.name}.{fmt}"
            res = runner.invoke(main, ["analyze", str(bundle), "--format", fmt, "-o", str(target)])
            if res.exit_code != 0:
                target.write_text(f"exit {res.exit_code}\n{res.output}\n{res.exception!r}\n")
    print(len(list(out.iterdir())), "outputs in", out)


def compare(a: Path, b: Path) -> int:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    bad = [n for n in names if not ((a / n).is_file() and (b / n).is_file() and filecmp.cmp(a / n, b / n, shallow=False))]
    for n in bad:
        print("differs:", n)
    print(f"{len(names) - len(bad)} of {len(names)} outputs identical")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("dir", type=Path)
    b.add_argument("--every", type=int, default=8)
    b.add_argument("--extra", type=Path)
    r = sub.add_parser("record")
    r.add_argument("bundles", type=Path)
    r.add_argument("out", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.dir, args.every, args.extra)
    elif args.cmd == "record":
        record(args.bundles, args.out)
    else:
        return compare(args.a, args.b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
