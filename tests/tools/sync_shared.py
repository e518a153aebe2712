"""Bring new real samples from ../shared/real-samples into tests/data/real-samples.

The tests read only tests/data/real-samples (the repo is whole without ../shared); ../shared is
where new samples arrive. This copies the files that are new there, and reports the files that
differ or that exist on one side only. A changed file is only overwritten with ``--update``
(a sample's expectations in the tests were written against its old bytes).

    python tests/tools/sync_shared.py              # copy new files, report the rest
    python tests/tools/sync_shared.py --dry-run    # only report
    python tests/tools/sync_shared.py --update     # also overwrite changed files
    python tests/tools/sync_shared.py --source /path/to/real-samples

Exit status: 0 when both sides now hold the same files, 1 when differences remain, 2 on a bad
source folder.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SOURCE = REPO.parent / "shared" / "real-samples"
TARGET = REPO / "tests" / "data" / "real-samples"


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def sync(source: Path, target: Path, dry_run: bool = False, update: bool = False) -> dict[str, list[str]]:
    """Compare ``source`` with ``target``; copy new files (and changed ones with ``update``)."""
    theirs, ours = _files(source), _files(target) if target.is_dir() else set()
    new = sorted(theirs - ours)
    changed = sorted(rel for rel in theirs & ours if not filecmp.cmp(source / rel, target / rel, shallow=False))
    only_here = sorted(ours - theirs)
    for rel in new + (changed if update else []):
        if not dry_run:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / rel, target / rel)
    return {"new": new, "changed": changed, "only_in_tests": only_here}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help=f"where new samples arrive (default {DEFAULT_SOURCE})")
    ap.add_argument("--dry-run", action="store_true", help="report only, copy nothing")
    ap.add_argument("--update", action="store_true", help="also overwrite files whose bytes changed")
    args = ap.parse_args(argv)
    if not args.source.is_dir():
        print(f"sync_shared: no samples folder at {args.source}", file=sys.stderr)
        return 2
    report = sync(args.source, TARGET, args.dry_run, args.update)
    verb = "would copy" if args.dry_run else "copied"
    for rel in report["new"]:
        print(f"new      {rel} ({verb})")
    for rel in report["changed"]:
        print(f"changed  {rel} ({verb if args.update else 'kept ours: --update to overwrite'})")
    for rel in report["only_in_tests"]:
        print(f"only in tests/data: {rel}")
    left = (report["changed"] and not args.update) or report["only_in_tests"] or (report["new"] and args.dry_run)
    print(f"sync_shared: {len(report['new'])} new, {len(report['changed'])} changed, {len(report['only_in_tests'])} only in tests/data")
    if report["new"]:
        print("next: write the new samples' expectations (tests/test_parsers_logs_real.py, incidents/expected.json, ...)")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
