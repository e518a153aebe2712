"""Analyse many bundles in one process and write each output to a folder (tests/test_determinism.py).

Run as a script, once per configuration (``PYTHONHASHSEED`` and DuckDB threads differ)::

    PYTHONHASHSEED=1 python tests/determinism_kit.py LIST.json OUT --threads 1

``LIST.json`` maps a name to a bundle folder. For every bundle, ``OUT/<name>.json``,
``<name>.txt`` and ``<name>.md`` hold ``analyze`` rendered as ``--format json``, text and
markdown; a bundle whose analysis fails gets ``<name>.error`` (its one-line error), so a
failure that depends on the configuration is a difference too. One process for all the
bundles: starting Python and DuckDB once per bundle would cost more than the analyses.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def analyse_all(bundles: dict[str, str], out: Path, threads: int) -> None:
    from k10s_forensics.analyze import render
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.bundle import Bundle
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


def differing(a: Path, b: Path) -> list[str]:
    """Names of the files that differ between two output folders (or are in one only)."""
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    return [n for n in names if not (a / n).is_file() or not (b / n).is_file() or (a / n).read_bytes() != (b / n).read_bytes()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundles", type=Path, help="JSON file: {name: bundle folder}")
    parser.add_argument("out", type=Path)
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args(argv)
    analyse_all(json.loads(args.bundles.read_text(encoding="utf-8")), args.out, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
