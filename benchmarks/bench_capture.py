"""Benchmark: one capture round of a simulated 1000-node, 8000-GPU cluster through ``k10s serve``.

What is captured: objects (start and end listings), nvidia-smi and a DCGM scrape per node,
ss and visible-devices per training pod (logs, dmesg and Prometheus are skipped: they are
not part of a sampling round). ``k10s serve`` injects 50 ms latency on every call.

Reported: wall time, the ideal (API calls x latency / concurrency), their ratio (target
<= 1.5x), the speed-up over concurrency 1 (target >= 30x) and the capture process's peak
memory (target <= 500 MB).

    python benchmarks/bench_capture.py                      # full run (about 5 minutes; 3 concurrent runs + 1 serial)
    python benchmarks/bench_capture.py --nodes 100 --skip-serial
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIP = ("logs", "dmesg", "prometheus")


def simulate(out: Path, nodes: int, gpus: int) -> float:
    from k10s_forensics.simulate import simulate as run_simulation

    started = time.monotonic()
    run_simulation("healthy", out, seed=1, nodes=nodes, gpus_per_node=gpus, minutes=1, interval_s=60, nproc_per_node=gpus)
    return time.monotonic() - started


def start_serve(bundle: Path, kubeconfig: Path, latency_ms: float) -> subprocess.Popen:
    proc = subprocess.Popen(["k10s", "serve", str(bundle), "--kubeconfig", str(kubeconfig), "--latency-ms", str(latency_ms)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        if kubeconfig.exists():
            server = next(line.split('"')[1] for line in kubeconfig.read_text().splitlines() if "server:" in line)
            try:
                urllib.request.urlopen(server + "/healthz", timeout=2).read()
                return proc
            except OSError:
                pass
        if proc.poll() is not None:
            raise SystemExit("k10s serve exited early")
        time.sleep(0.2)
    raise SystemExit("k10s serve did not come up")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    return os.getloadavg()[0]


def run_capture(kubeconfig: Path, out: Path, concurrency: int, job: str, serve_pid: int) -> dict:
    load_before = load_average()
    serve_cpu_before = cpu_seconds(serve_pid)
    cmd = ["k10s", "capture", "--kubeconfig", str(kubeconfig), "--job", job, "-o", str(out), "--quiet",
           "--concurrency", str(concurrency), "--deadline", "30m"] + [a for s in SKIP for a in ("--skip", s)]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, _, rusage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    serve_cpu = cpu_seconds(serve_pid) - serve_cpu_before
    err = proc.stderr.read().decode()
    manifest = json.loads((out / "manifest.json").read_text())
    cap = manifest["capture"]
    return {"concurrency": concurrency, "process_wall_s": wall, "capture_s": cap["elapsed_s"], "calls": cap["api_calls"],
            "retries": cap["retries"], "peak_rss_mb": rusage.ru_maxrss / 1024,
            "cpu_s": rusage.ru_utime + rusage.ru_stime, "user_s": rusage.ru_utime, "sys_s": rusage.ru_stime,
            "serve_cpu_s": serve_cpu, "load_before": load_before, "complete": manifest["complete"],
            "statuses": {c["name"]: c["status"] for c in manifest["collectors"]},
            "rows": {c["name"]: c["rows"] for c in manifest["collectors"]},
            "first_errors": {c["name"]: c["errors"][:2] for c in manifest["collectors"] if c["errors"]}, "stderr": err[-500:]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3, help="concurrent captures to run (the median is reported)")
    ap.add_argument("--skip-serial", action="store_true", help="do not run the concurrency-1 capture")
    ap.add_argument("--bundle", type=Path, help="reuse this simulated bundle (its <name>.truth.json beside it); else simulate")
    ap.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "capture.md")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="k10s-bench-capture-") as tmp:
        tmp_path = Path(tmp)
        if args.bundle:
            bundle, sim_s = args.bundle, 0.0
        else:
            bundle = tmp_path / "sim"
            sim_s = simulate(bundle, args.nodes, args.gpus_per_node)
        truth = json.loads((bundle.parent / f"{bundle.name}.truth.json").read_text())
        job = truth["job"]
        kubeconfig = tmp_path / "kc.yaml"
        serve = start_serve(bundle, kubeconfig, args.latency_ms)
        try:
            runs = [run_capture(kubeconfig, tmp_path / f"cap-fast-{i}", args.concurrency, job, serve.pid)
                    for i in range(args.repeat)]
            fast = sorted(runs, key=lambda r: r["capture_s"])[len(runs) // 2]  # the median run
            fast["all_capture_s"] = [round(r["capture_s"], 2) for r in runs]
            serial = None if args.skip_serial else run_capture(kubeconfig, tmp_path / "cap-serial", 1, job, serve.pid)
        finally:
            serve.terminate()
            serve.wait(10)
    ideal = fast["calls"] * args.latency_ms / 1000 / args.concurrency
    report = {"nodes": args.nodes, "gpus": args.nodes * args.gpus_per_node, "latency_ms": args.latency_ms,
              "simulate_s": sim_s, "fast": fast, "serial": serial, "ideal_s": ideal,
              "ratio": fast["capture_s"] / ideal,
              "speedup": (serial["capture_s"] / fast["capture_s"]) if serial else None}
    print(json.dumps(report, indent=2))
    write_results(args, report)


def write_results(args, r: dict) -> None:
    f, s = r["fast"], r["serial"]
    lines = [
        "# Capture benchmark",
        "",
        f"Machine: {os.cpu_count()} cores, 24 GB, Python {platform.python_version()}, shared with other work;",
        "`k10s serve` runs on the same machine (its CPU time competes with capture's).",
        "",
        f"Cluster: simulated `healthy`, {r['nodes']} nodes x {args.gpus_per_node} GPUs = {r['gpus']} GPUs, "
        f"one training job over all nodes (one pod per node, 8 GPUs each). `k10s serve --latency-ms {r['latency_ms']:g}` (every call)"
        + ".",
        f"Capture: `k10s capture --job {'<job>'} --skip logs --skip dmesg --skip prometheus` (one round: objects at start "
        "and end, nvidia-smi + DCGM scrape per node, ss + visible-devices per training pod).",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| API calls (incl. discovery, pages, retries) | {f['calls']} | |",
        f"| wall time, concurrency {f['concurrency']} (median of {len(f['all_capture_s'])}: {', '.join(map(str, f['all_capture_s']))}) "
        f"| {f['capture_s']:.2f} s (process {f['process_wall_s']:.2f} s) | |",
        f"| ideal = calls x latency / concurrency | {r['ideal_s']:.2f} s | |",
        f"| ratio wall / ideal | {r['ratio']:.2f}x | <= 1.5x |",
    ]
    if s:
        lines.append(f"| wall time, concurrency 1 | {s['capture_s']:.1f} s ({s['calls']} calls) | |")
        lines.append(f"| speed-up over concurrency 1 | {r['speedup']:.1f}x | >= 30x |")
    lines += [
        f"| peak memory (RSS) of the capture process | {f['peak_rss_mb']:.0f} MB | <= 500 MB |",
        f"| CPU of capture (whole process) / of serve, in that run | {f['cpu_s']:.2f} s / {f['serve_cpu_s']:.2f} s "
        f"({(f['cpu_s'] + f['serve_cpu_s']) / f['calls'] * 1000:.2f} ms per call) | |",
        f"| load average (1 min) before that run | {f['load_before']:.2f} | |",
        f"| bundle complete | {f['complete']} | |",
        "",
        "Rows per collector: " + ", ".join(f"{k} {v}" for k, v in f["rows"].items() if v),
        "",
        "Statuses: " + ", ".join(f"{k} {v}" for k, v in f["statuses"].items()),
        "",
        "Reproduce: `python benchmarks/bench_capture.py` (about 5 minutes; `--skip-serial` skips the concurrency-1 run).",
        "",
    ]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
