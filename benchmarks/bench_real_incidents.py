"""Accuracy on real incidents: the culprit rank (and cause) named from real logs, per corpus and batch.

Each incident log (tests/data/real-samples/incidents and tests/data/real-incidents) is turned into
a bundle by ``k10s import-logs`` (through tests/incident_kit.py), analyzed, and scored as the
corpus tests score it (tests/incident_kit.misses; an input the importer refuses, an InputError, is a miss
with its one-line reason, counted, not fatal): *rank* — a critical/warning finding names
exactly the culprit ranks and none names only other ranks (a control: none names any rank);
*rank+cause* — the same with the expected cause; *controls named* — controls where a critical or warning finding names
a rank, and in brackets those where a critical one does (a confident culprit: issue 18 allows none). Two ways of bringing the log: routed (one pod
per node, lines by rank prefix) and one pod with API timestamps.

    python benchmarks/bench_real_incidents.py            # a table per corpus and batch
    python benchmarks/bench_real_incidents.py -v         # and every miss
    python benchmarks/bench_real_incidents.py --batch 6  # one batch of tests/data/real-incidents
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

VARIANTS = {"routed": {}, "one pod + API timestamps": {"one_log": True, "api_timestamps": True}}


def corpora():
    from incident_kit import REAL_SAMPLES_DIR, load_cases, load_corpus

    out = []
    if REAL_SAMPLES_DIR.is_dir():
        out += [("tests/data/real-samples/incidents", c) for c in load_cases(REAL_SAMPLES_DIR)]
    for c in load_corpus(ROOT / "tests" / "data" / "real-incidents"):
        out.append((f"tests/data/real-incidents batch {c.extra.get('batch', '?')}", c))
    return out


def scored(case, how: dict) -> tuple[str | None, str | None, str | None]:
    """Why the case is missed (with its cause, then by rank only; None: met), and for a control, the
    severity of the most severe finding that names a rank (None: none does). An input the importer
    refuses (InputError: a one-line reason) is a miss both ways, counted: a user would get no verdict."""
    from incident_kit import analyze_incident, misses, naming_findings
    from k10s_forensics.errors import InputError

    with tempfile.TemporaryDirectory() as tmp:
        try:
            findings = analyze_incident(Path(tmp), case, **how)
        except InputError as exc:
            why = f"refused by the importer: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            return why, why, None
    named = {f["severity"] for f in naming_findings(findings)} if case.control else set()
    worst = "critical" if "critical" in named else ("warning" if named else None)
    return misses(case, findings), misses(case, findings, check_cause=False), worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--batch", type=int, action="append", help="only this batch of tests/data/real-incidents (repeatable)")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")

    # incidents, rank right, rank and cause right, controls, controls named, controls named by a critical finding
    score: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for group, case in corpora():
        if args.batch and case.extra.get("batch") not in args.batch:
            continue
        for variant, how in VARIANTS.items():
            full, rank, worst = scored(case, how)
            for key in ((group, variant), ("all", variant)):
                s = score[key]
                s[0] += 1
                s[1] += rank is None
                s[2] += full is None
                s[3] += case.control
                s[4] += worst is not None
                s[5] += worst == "critical"
            if args.verbose and full is not None:
                print(f"  {variant:26} {case.incident}: {full}")
    print("| corpus | incidents | way | culprit rank right | rank and cause right | controls named (critical) |")
    print("|---|---|---|---|---|---|")
    for (group, variant), (n, rank, full, ctl, named, crit) in sorted(score.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        print(f"| {group} | {n} | {variant} | {rank}/{n} ({100 * rank / n:.1f} %) | {full}/{n} ({100 * full / n:.1f} %) "
              f"| {named} of {ctl} ({crit}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
