"""Every batched input's findings at two batch sizes, compared (what changing bundle_batch.PER_ANALYSIS relies on).

    K10S_THREADS=1 python tests/tools/compare_batch_sizes.py 8 16 [--only corpus|torch]

For the real-incident corpus (routed and as one pod's log) and the launcher recordings (as pod logs and through
``import-logs``): each input is merged with its neighbours ``A`` at a time and ``B`` at a time, analysed in this
process, and its findings' gist (rule, severity, cause, ranks, times) compared. Prints each difference and the
counts; exits 1 on any difference. Not part of the test run (it analyses every input four times).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

from bundle_batch import findings_of, gist, merge  # noqa: E402
from incident_kit import incident_bundle, load_corpus  # noqa: E402
from torch_runs_kit import import_run, load_runs, plain, podlog_bundle  # noqa: E402

from k10s_forensics.analyze.runner import analyze  # noqa: E402


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _corpus(size: int, way: str, tmp: Path) -> dict[str, list]:
    how = {"api_timestamps": True, "one_log": True} if way == "one-pod" else {}
    out = {}
    for b, batch in enumerate(_chunks(load_corpus(TESTS / "data" / "real-incidents"), size)):
        t = tmp / f"{way}{size}-{b}"
        bundles = [incident_bundle(t / c.incident, c, (c.folder / c.incident / "log.txt").read_text(encoding="utf-8"),
                                   **how, derive=False) for c in batch]
        findings = analyze(merge(bundles, t / "merged"))["findings"]
        out |= {c.incident: gist(findings_of(findings, i)) for i, c in enumerate(batch)}
    return out


def _torch(size: int, way: str, tmp: Path) -> dict[str, list]:
    runs = load_runs()
    if way == "import":
        runs = [r for r in runs if any(plain(t).strip() for t in r.stamped())]
    out = {}
    for b, batch in enumerate(_chunks(runs, size)):
        t = tmp / f"{way}{size}-{b}"
        if way == "podlog":
            bundle = podlog_bundle(batch, t)
        else:
            parts = []
            for i, run in enumerate(batch):
                (t / str(i)).mkdir(parents=True)
                parts.append(import_run(run, t / str(i), derive=False))
            bundle = merge(parts, t / "merged")
        findings = analyze(bundle)["findings"]
        out |= {r.id: gist(findings_of(findings, i)) for i, r in enumerate(batch)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("a", type=int)
    ap.add_argument("b", type=int)
    ap.add_argument("--only", choices=("corpus", "torch"))
    args = ap.parse_args()
    kinds = [(k, w, fn) for k, fn, ways in (("corpus", _corpus, ("routed", "one-pod")), ("torch", _torch, ("podlog", "import")))
             for w in ways if args.only in (None, k)]
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind, way, fn in kinds:
            left, right = fn(args.a, way, Path(tmp)), fn(args.b, way, Path(tmp))
            diff = sorted(k for k in left if left[k] != right.get(k))
            differ += len(diff)
            for k in diff:
                print(f"{kind} {way} {k}:\n  {args.a}: {left[k]}\n  {args.b}: {right.get(k)}")
            print(f"{kind} {way}: {len(left)} inputs, {len(diff)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
