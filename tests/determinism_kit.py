"""Run analyze, report and rebuild over many bundles in one process, each output to a file
(tests/test_determinism.py compares two such runs).

Run as a script, once per configuration (``PYTHONHASHSEED`` and DuckDB threads differ)::

    PYTHONHASHSEED=1 python tests/determinism_kit.py PLAN.json OUT --threads 1

``PLAN.json``: ``{"analyze": {name: bundle}, "report": {name: bundle}, "rebuild": {name: bundle}}``.

- analyze: ``OUT/analyze/<name>.json``, ``.txt`` and ``.md`` (``--format json``, text, markdown);
- report: ``OUT/report/<name>.html`` (``SOURCE_DATE_EPOCH`` fixes the footer's time);
- rebuild: the bundle's manifest and raw/ copied to ``OUT/rebuilt/<name>`` and rebuilt there with
  ``--jobs`` = threads (1: in this process; more: in worker processes), its tables kept.

A bundle whose run fails gets ``<name>.error`` (one line), so a failure that depends on the
configuration is a difference too. One process for all the bundles: starting Python and
DuckDB once per bundle would cost more than the analyses.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path


def analyse_all(bundles: dict[str, str], out: Path, threads: int) -> None:
    from k10s_forensics.analyze import render
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.errors import K10sError

    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(bundles.items()):
        try:
            result = analyze(Bundle.open(path), threads=threads)
        except K10sError as exc:
            (out / f"{name}.error").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
            continue
        (out / f"{name}.json").write_text(render.to_json(result), encoding="utf-8")
        (out / f"{name}.txt").write_text(render.to_text(result, color=False), encoding="utf-8")
        (out / f"{name}.md").write_text(render.to_markdown(result), encoding="utf-8")


def report_all(bundles: dict[str, str], out: Path, threads: int) -> None:
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.errors import K10sError
    from k10s_forensics.reports import render_report

    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(bundles.items()):
        try:
            render_report(Bundle.open(path), None, out / f"{name}.html", threads=threads)
        except K10sError as exc:
            (out / f"{name}.error").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")


def rebuild_all(bundles: dict[str, str], out: Path, jobs: int) -> None:
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.errors import K10sError
    from k10s_forensics.rebuild.pool import rebuild_parallel

    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(bundles.items()):
        copy = out / name
        copy.mkdir()
        shutil.copy2(Path(path) / "manifest.json", copy / "manifest.json")
        shutil.copytree(Path(path) / "raw", copy / "raw")
        try:
            rebuild_parallel(Bundle.open(copy), jobs, say=None)
        except K10sError as exc:
            (out / f"{name}.error").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")


def outputs(root: Path) -> dict[str, Path]:
    """Every file under ``root`` by its relative path."""
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def differing(a: Path, b: Path, same=lambda rel, x, y: x.read_bytes() == y.read_bytes()) -> list[str]:
    """Relative paths of the files that differ between two output folders (or are in one only)."""
    left, right = outputs(a), outputs(b)
    return [rel for rel in sorted(set(left) | set(right))
            if rel not in left or rel not in right or not same(rel, left[rel], right[rel])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("plan", type=Path, help="JSON file: {analyze|report|rebuild: {name: bundle folder}}")
    parser.add_argument("out", type=Path)
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args(argv)
    plan = json.loads(args.plan.read_text(encoding="utf-8"))
    analyse_all(plan.get("analyze") or {}, args.out / "analyze", args.threads)
    report_all(plan.get("report") or {}, args.out / "report", args.threads)
    rebuild_all(plan.get("rebuild") or {}, args.out / "rebuilt", args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
