"""A huge pod log full of handled tracebacks: ``k10s_failure_line``'s ``rank_went_on`` (an exception followed by the
same rank's progress lines in the same attempt is handled: docs/rules.md, "Session 61: a handled traceback is not the
rank's end") at 50k to 200k lines, this code against a baseline.

    python benchmarks/bench_handled_tracebacks.py --baseline DIR [--lines 50000,100000,200000] [--unstamped]

Input (generated, seeded): one node's pod log (``kubectl logs --timestamps``: the API timestamp on every line; with
``--unstamped`` a plain paste, every progress line kept by the parse's thinning) of ``torchrun --nproc-per-node 8
--tee 3``: every rank's progress line each second behind its ``[defaultN]:`` prefix, some noise, and one handled
traceback (``logging.exception``: the record, the traceback, untagged) per 100 lines, each followed by the same rank's
progress; at the end rank 3's uncaught ``[rank3]:`` KeyError, the others torn down by gloo, the agent's report and
failure table. Each size is imported once (``import_logs``, this code); then one fresh process per code and size
analyses it (``analyze(threads=1)``: CPU and wall around the analysis alone, the CPU of each shared view file as
analyze plans it (``_failure_line.sql`` holds ``rank_went_on``), the process's peak RSS after it). The ranks and causes named
must be the same both ways: rank 3, ``python-exception``; no rank whose traceback was handled.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
T0 = dt.datetime(2026, 12, 6, 4, 0, tzinfo=dt.timezone.utc)
RANKS = 8
AGENT_PID = 27166

CHILD = r"""
import json, resource, sys, time
from k10s_forensics.analyze import runner, viewplan
from k10s_forensics.store.bundle import Bundle
files = {}
run_file = viewplan._run
def timed(con, script, file):  # each view file's statements as analyze plans and runs them
    t = time.process_time()
    run_file(con, script, file)
    files[file] = files.get(file, 0.0) + time.process_time() - t
viewplan._run = timed
bundle = Bundle.open(sys.argv[1])
cpu, wall = time.process_time(), time.perf_counter()
result = runner.analyze(bundle, threads=1)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
con = runner.prepare(bundle, None, 1)
steps, went_on = con.sql("SELECT count(*) FILTER (WHERE kind = 'training_step'), "
                         "count(*) FILTER (WHERE kind IN ('python_exception', 'python_traceback')) FROM k10s_log").fetchall()[0]
handled = con.sql("SELECT count(*) FILTER (WHERE rank_went_on), count(*) FROM k10s_failure_line").fetchall()[0]
con.close()
named = sorted({(f["rule"], f["severity"], f.get("cause"), tuple(f.get("ranks") or ())) for f in result["findings"]
                if f["severity"] in ("warning", "critical") and f.get("ranks")})
print(json.dumps({"cpu": cpu, "wall": wall, "rss": rss, "files": files, "steps": steps, "exceptions": went_on,
                  "handled": handled[0], "failure_lines": handled[1], "named": named}))
"""


def _ts(sec: float) -> str:
    return (T0 + dt.timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def make_log(lines: int, stamped: bool, seed: int = 62) -> str:
    """One node's pod log of about ``lines`` lines (see the module doc)."""
    rng = random.Random(seed)
    out: list[tuple[float, str]] = []
    tick, step = 0, 0
    while len(out) < lines - 40:
        for r in range(RANKS):
            sec = tick + r / 100
            out.append((sec, f"[default{r}]:rank {r} step {step} loss {rng.uniform(1.5, 2.5):.4f} lr 3.0e-04"))
            if rng.random() < 0.1:
                out.append((sec + 0.001, f"[default{r}]:wandb: logging metrics at {step}; throughput 412.5 samples/s"))
            if rng.random() < 0.0116:  # ~1 in 100 lines: a caught, logged ValueError, the rank's progress goes on
                t = sec + 0.002
                out += [(t, f"[default{r}]:{_ts(t)[:10]} {_ts(t)[11:19]},100 ERROR [rank{r}] train: eval batch failed, skipping"),
                        (t, f"[default{r}]:Traceback (most recent call last):"),
                        (t, f'[default{r}]:  File "/workspace/train.py", line 77, in _eval'),
                        (t, f'[default{r}]:  File "/workspace/data.py", line 31, in collate'),
                        (t, f"[default{r}]:ValueError: eval batch {step}: expected 4 samples, got 3")]
        tick, step = tick + 1, step + 1
    t = tick + 0.5
    glog = _ts(t)[5:7] + _ts(t)[8:10] + " " + _ts(t)[11:26]
    out += [(t, "[default3]:[rank3]: Traceback (most recent call last):"),
            (t, '[default3]:[rank3]:   File "/workspace/train.py", line 142, in main'),
            (t, "[default3]:[rank3]: KeyError: 'num_tokens'")]
    for r in range(RANKS):
        if r != 3:
            out.append((t + 0.2, f"[default{r}]:[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
                                 f"pair.cc:553] Connection closed by peer [127.0.0.1]:20687. This is typically caused by a remote worker crashing."))
    t += 0.5
    for r in range(RANKS):
        if r != 3:
            out.append((t, f"W{glog} {AGENT_PID} torch/distributed/elastic/multiprocessing/api.py:1028] Sending process "
                           f"{AGENT_PID + 10 + r} closing signal SIGTERM"))
    out.append((t, f"E{glog} {AGENT_PID} torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 3 "
                   f"(pid: {AGENT_PID + 13}) of binary: /opt/venv/bin/python3"))
    table = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "Failures:", "  <NO_OTHER_FAILURES>",
             "Root Cause (first observed failure):", "[0]:", f"  time      : {_ts(t)[:10]}_{_ts(t)[11:19]}", "  host      : localhost",
             "  rank      : 3 (local_rank: 3)", f"  exitcode  : 1 (pid: {AGENT_PID + 13})", "  error_file: <N/A>"]
    out += [(t, line) for line in table]
    out.sort(key=lambda x: x[0])
    return "".join((f"{_ts(sec)} {line}\n" if stamped else f"{line}\n") for sec, line in out)


def build(tmp: Path, lines: int, stamped: bool) -> Path:
    from k10s_forensics.logimport import LogSource, import_logs
    out = tmp / f"handled-{lines}"
    import_logs([LogSource("pod.log", make_log(lines, stamped))], out, nproc_per_node=RANKS, world_size=RANKS, nodes=1,
                job="handled", namespace="team-a", now=T0 + dt.timedelta(days=1))
    return out


def run(bundle: Path, code: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code), "K10S_THREADS": "1"}
    # cwd: the bundle's folder, so that ``-c``'s sys.path[0] (the cwd) holds no k10s_forensics of another code
    done = subprocess.run([sys.executable, "-c", CHILD, str(bundle)], env=env, capture_output=True, text=True, cwd=bundle.parent)
    if done.returncode:
        raise SystemExit(f"{code}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="a checkout of the old code (its k10s_forensics/ and queries/)")
    ap.add_argument("--lines", default="50000,100000,200000")
    ap.add_argument("--unstamped", action="store_true", help="a plain paste: no API timestamps (every progress line kept)")
    ap.add_argument("--bundles", type=Path, help="keep the imported bundles here and reuse them (default: a temporary folder)")
    args = ap.parse_args(argv)
    codes = [("this code", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    print("| lines | code | k10s_log steps / exceptions | handled | analyze CPU s | analyze wall s | `_failure_line.sql` CPU s "
          "| peak RSS MiB | named (warning/critical) |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.lines.split(",")):
            where = args.bundles / ("unstamped" if args.unstamped else "stamped") if args.bundles else Path(tmp)
            where.mkdir(parents=True, exist_ok=True)
            bundle = where / f"handled-{n}" if (where / f"handled-{n}" / "manifest.json").is_file() else build(where, n, not args.unstamped)
            named = set()
            for label, code in codes:
                r = run(bundle, code)
                named.add(json.dumps(r["named"]))
                print(f"| {n:,} | {label} | {r['steps']:,} / {r['exceptions']:,} | {r['handled']:,} | {r['cpu']:.2f} | {r['wall']:.2f} "
                      f"| {r['files']['_failure_line.sql']:.2f} | {r['rss']:.0f} | {r['named']} |", flush=True)
            if len(named) > 1:
                print(f"| {n:,} | **the codes name different ranks** | | | | | | | |", flush=True)


if __name__ == "__main__":
    main()
