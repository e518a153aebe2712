"""The fixed cost of one small ``analyze`` (the test suite's main cost), this code against a baseline.

    python benchmarks/bench_analyze_small.py --baseline DIR            # DIR: an old k10s_forensics package
    python benchmarks/bench_analyze_small.py --baseline DIR --every 5 --rounds 5
    python benchmarks/bench_analyze_small.py --every 5 --samples --codes gated,ungated   # rule gates on vs off
    python benchmarks/bench_analyze_small.py --every 5 --codes gated,jemalloc --rounds 5  # the test loop's allocator

Inputs (built once, in a temporary folder): every ``--every``-th incident of the real-incident
corpus (tests/data/real-incidents) imported with ``k10s import-logs`` as the corpus tests do, and
three small simulated jobs (2 nodes x 4 GPUs x 5 min: nccl-hang, pending-quota, startup-shm),
rebuilt. Then, alternating, ``--rounds`` times, one fresh process per code:

* this code          - ``analyze`` as shipped (small bundles planned without DuckDB's optimizer);
* this code, optimised - the same with ``prepare(light=False)`` (DuckDB's optimizer always on);
* this code, gates off - ``analyze(gates=False)``: every rule's SQL runs whatever its gate says;
* baseline           - the package in ``--baseline`` (``PYTHONPATH``), e.g. ``git archive`` of main;
* jemalloc           - this code with jemalloc preloaded (``LD_PRELOAD``, as ``./dev.sh test`` runs the
  suite; ``--malloc PATH``, default the ``libjemalloc.so.2`` the dynamic linker knows).

``--codes`` picks some of them (gated, optimised, ungated, baseline); ``--samples`` adds every
sample bundle (copied). CPU per analysis is also reported per kind of input (corpus, simulated,
sample).

Each process analyses every input once to warm up, then once more measured (``process_time``
and wall around the analyses alone: imports and start-up are left out), and writes the JSON, text
and Markdown of each analysis; the outputs of the three are compared byte for byte. Last, the
whole ``k10s analyze --format json`` process on one input (start-up included), median of the
rounds, this code against the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ("nccl-hang", "pending-quota", "startup-shm")

CHILD = r"""
import json, sys, time
from pathlib import Path
from k10s_forensics.analyze import render
from k10s_forensics.analyze.rules import load_rules
from k10s_forensics.analyze import runner
from k10s_forensics.store.bundle import Bundle
mode, out, bundles = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]

def one(path):
    bundle = Bundle.open(path)
    if mode != "optimised":
        return runner.analyze(bundle, threads=1, gates=mode != "ungated")
    rules = load_rules(())
    con = runner.prepare(bundle, None, 1, rules=rules, light=False)
    try:
        return runner.run_rules(con, bundle, rules)
    finally:
        con.close()

for path in bundles:
    one(path)
cpu0, wall0 = time.process_time(), time.perf_counter()
results, kinds = [], {}
for path in bundles:
    t = time.process_time()
    results.append(one(path))
    kinds.setdefault(Path(path).name.split("-", 1)[0] if Path(path).name.startswith(("sim-", "sample-")) else "corpus", []).append(time.process_time() - t)
cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
out.mkdir(parents=True, exist_ok=True)
for path, result in zip(bundles, results):
    name = Path(path).name
    (out / f"{name}.json").write_text(render.to_json(result))
    (out / f"{name}.txt").write_text(render.to_text(result, color=False))
    (out / f"{name}.md").write_text(render.to_markdown(result))
print(json.dumps({"cpu_s": cpu / len(bundles), "wall_s": wall / len(bundles), "kinds": {k: sum(v) / len(v) for k, v in kinds.items()}}))
"""


def build_inputs(folder: Path, every: int, with_samples: bool = False) -> list[Path]:
    """Corpus incidents imported as the corpus tests do, and small simulated jobs, all rebuilt."""
    sys.path.insert(0, str(ROOT / "tests"))
    from incident_kit import incident_bundle, load_corpus

    from k10s_forensics.errors import InputError

    from k10s_forensics.rebuild.pool import ensure_tables
    from k10s_forensics.store.bundle import Bundle

    corpus = ROOT / "tests" / "data" / "real-incidents"
    paths = []
    for case in sorted(load_corpus(corpus), key=lambda c: c.incident)[::every]:
        try:
            bundle = incident_bundle(folder / case.incident, case, (corpus / case.incident / "log.txt").read_text(encoding="utf-8"))
        except InputError:  # an incident the importer refuses (a NOT_YET case): no bundle to time
            continue
        ensure_tables(bundle)
        paths.append(bundle.path)
    k10s = [sys.executable, "-m", "k10s_forensics"]
    for scenario in SCENARIOS:
        path = folder / f"sim-{scenario}"
        subprocess.run([*k10s, "simulate", scenario, "-o", str(path), "--nodes", "2", "--gpus-per-node", "4", "--minutes", "5"],
                       check=True, stdout=subprocess.DEVNULL)
        ensure_tables(Bundle.open(path))
        paths.append(path)
    if with_samples:
        import shutil

        for sample in sorted(p for p in (ROOT / "sample-bundles").iterdir() if (p / "manifest.json").is_file()):
            paths.append(Path(shutil.copytree(sample, folder / f"sample-{sample.name}")))
            ensure_tables(Bundle.open(paths[-1]))
    return paths


def child_cpu(mode: str, out: Path, bundles: list[Path], env: dict[str, str] | None) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(out), *map(str, bundles)], check=True,
                          capture_output=True, text=True, env=env, cwd="/" if env else None)
    return json.loads(done.stdout.strip().splitlines()[-1])


def whole_process(bundle: Path, env: dict[str, str] | None) -> float:
    """CPU seconds (user + system) of one fresh ``k10s analyze --format json``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "k10s_forensics", "analyze", str(bundle), "--format", "json"], check=True,
                   stdout=subprocess.DEVNULL, env=env, cwd="/" if env else None)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def same_outputs(a: Path, b: Path) -> str:
    names = sorted(p.name for p in a.iterdir())
    differ = [n for n in names if not (b / n).is_file() or (a / n).read_bytes() != (b / n).read_bytes()]
    return "identical" if not differ and len(names) == len(list(b.iterdir())) else f"differ: {', '.join(differ[:5])}"


CODES = {"gated": ("this code", "light"), "optimised": ("this code, optimised", "optimised"),
         "ungated": ("this code, gates off", "ungated"), "baseline": ("baseline", "light"),
         "jemalloc": ("this code, jemalloc preloaded", "light")}


def find_jemalloc() -> str | None:
    """The path of the libjemalloc.so.2 the dynamic linker knows (``ldconfig -p``), or None."""
    try:
        listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    for line in listing.splitlines():
        parts = line.split()
        if parts and parts[0] == "libjemalloc.so.2" and "=>" in parts:
            return parts[-1]
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="a directory holding the old k10s_forensics package")
    ap.add_argument("--every", type=int, default=10, help="every N-th corpus incident (default 10)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", action="store_true", help="add every sample bundle to the inputs")
    ap.add_argument("--codes", default="gated,optimised,ungated,baseline", help="comma-separated: gated, optimised, ungated, baseline, jemalloc")
    ap.add_argument("--malloc", help="the allocator library the jemalloc code preloads (default: libjemalloc.so.2 from ldconfig)")
    args = ap.parse_args(argv)
    picked = [c.strip() for c in args.codes.split(",") if c.strip()]
    if "baseline" in picked and args.baseline is None:
        ap.error("--codes baseline needs --baseline DIR")
    malloc = args.malloc or find_jemalloc()
    if "jemalloc" in picked and not malloc:
        ap.error("--codes jemalloc needs libjemalloc.so.2 (Debian: apt-get install libjemalloc2) or --malloc PATH")
    base_env = {**os.environ, "PYTHONPATH": str(args.baseline.resolve())} if args.baseline else None
    envs = {"baseline": base_env, "jemalloc": {**os.environ, "LD_PRELOAD": malloc} if malloc else None}
    codes = [(CODES[c][0], CODES[c][1], envs.get(c)) for c in picked]
    ref = codes[-1][0] if "baseline" in picked else codes[0][0]
    with tempfile.TemporaryDirectory(prefix="k10s-small-") as tmp:
        bundles = build_inputs(Path(tmp) / "in", args.every, args.samples)
        runs: dict[str, list[dict]] = {name: [] for name, _, _ in codes}
        outs: dict[str, Path] = {}
        for r in range(args.rounds):
            for i, (name, mode, env) in enumerate(codes):
                folder = Path(tmp) / "out" / f"{r}-{i}"
                outs.setdefault(name, folder)
                runs[name].append(child_cpu(mode, folder, bundles, env))
        samples = sum(1 for b in bundles if b.name.startswith("sample-"))
        print(f"{len(bundles)} small inputs ({len(bundles) - len(SCENARIOS) - samples} corpus incidents, {len(SCENARIOS)} simulated jobs, "
              f"{samples} sample bundles), {args.rounds} rounds, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
        kinds = sorted(runs[codes[0][0]][0]["kinds"])
        print(f"| code | median CPU s per analysis | {' | '.join(f'{k} (CPU s)' for k in kinds)} | median wall s | all rounds (CPU) | ÷ {ref} (CPU) |")
        print("|---|---:|" + "---:|" * len(kinds) + "---:|---|---:|")
        ref_cpu = statistics.median(x["cpu_s"] for x in runs[ref])
        for name, _, _ in codes:
            cpu = statistics.median(x["cpu_s"] for x in runs[name])
            wall = statistics.median(x["wall_s"] for x in runs[name])
            per_kind = " | ".join(f"{statistics.median(x['kinds'][k] for x in runs[name]):.3f}" for k in kinds)
            rounds = ", ".join(f"{x['cpu_s']:.3f}" for x in runs[name])
            print(f"| {name} | {cpu:.3f} | {per_kind} | {wall:.3f} | {rounds} | {cpu / ref_cpu:.2f} |")
        first = codes[0][0]
        print(f"\nOutputs (JSON, text, Markdown of {len(bundles)} analyses), {first} vs: "
              + "; ".join(f"{name} {same_outputs(outs[first], outs[name])}" for name, _, _ in codes[1:]))
        if base_env is not None:
            procs: dict[str, list[float]] = {"this code": [], "baseline": []}
            for _ in range(args.rounds):
                procs["this code"].append(whole_process(bundles[0], None))
                procs["baseline"].append(whole_process(bundles[0], base_env))
            this, base = statistics.median(procs["this code"]), statistics.median(procs["baseline"])
            print(f"\nWhole `k10s analyze --format json` process on {bundles[0].name}: this code {this:.2f} CPU s, baseline {base:.2f} "
                  f"(all: {', '.join(f'{x:.2f}' for x in procs['this code'])} / {', '.join(f'{x:.2f}' for x in procs['baseline'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
