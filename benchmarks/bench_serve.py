"""Benchmark: ``k10s serve`` under capture-like load (concurrency 64, 50 ms injected latency).

A simulated bundle of N nodes is served by ``k10s serve`` in its own process; 64 client
threads then make one capture round's calls: paged pod lists (limit 500), a GET per node,
``nvidia-smi -q -x`` exec per driver pod (websocket) and a dcgm-exporter scrape per node.

Reported: server load time, wall time of the round, the ideal (calls x latency /
concurrency), their ratio (target <= 1.5x: latency must overlap, not serialise), client-side
p50/p99 per call, and the server's peak RSS.

    python benchmarks/bench_serve.py                 # 1000 nodes
    python benchmarks/bench_serve.py --nodes 200
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode


def wait_ready(kubeconfig: Path, proc: subprocess.Popen) -> str:
    for _ in range(1200):
        if kubeconfig.exists():
            url = next(line.split('"')[1] for line in kubeconfig.read_text().splitlines() if "server:" in line)
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2).read()
                return url
            except OSError:
                pass
        if proc.poll() is not None:
            raise SystemExit("k10s serve exited early")
        time.sleep(0.1)
    raise SystemExit("k10s serve did not come up")


def get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:
            return resp.read()
    except urllib.error.HTTPError as err:  # replayed failures (e.g. a scrape recorded as failed) count as answers
        return err.read()


def exec_ws(base: str, ns: str, pod: str, container: str, command: str) -> int:
    import websocket

    query = urlencode([("command", c) for c in command.split()] + [("container", container), ("stdout", "true")])
    ws = websocket.create_connection(f"{base.replace('http', 'ws', 1)}/api/v1/namespaces/{ns}/pods/{pod}/exec?{query}",
                                     subprotocols=["v5.channel.k8s.io"], timeout=60)
    size = 0
    try:
        while True:
            opcode, data = ws.recv_data()
            if opcode == websocket.ABNF.OPCODE_CLOSE or not data:
                return size
            size += len(data)
    finally:
        ws.close()


def timed(fn, *args) -> float:
    started = time.monotonic()
    fn(*args)
    return time.monotonic() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args()
    from k10s_forensics.simulate import simulate

    with tempfile.TemporaryDirectory() as tmp:
        bundle, kubeconfig = Path(tmp) / "bundle", Path(tmp) / "kubeconfig"
        t0 = time.monotonic()
        simulate("healthy", bundle, seed=1, nodes=args.nodes, gpus_per_node=8, minutes=1, interval_s=60)
        sim_s = time.monotonic() - t0
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "serve", str(bundle),
                                 "--kubeconfig", str(kubeconfig), "--latency-ms", str(args.latency_ms)],
                                stdout=subprocess.DEVNULL, stderr=open(Path(tmp) / "serve.err", "w"))
        try:
            base = wait_ready(kubeconfig, proc)
        except BaseException:
            proc.kill()
            raise
        load_s = time.monotonic() - t0
        pods = json.loads(get(base + "/api/v1/pods"))["items"]
        nodes = [n["metadata"]["name"] for n in json.loads(get(base + "/api/v1/nodes"))["items"]]
        drivers = [p for p in pods if p["metadata"].get("labels", {}).get("app") == "nvidia-driver-daemonset"]
        exporters = [p for p in pods if "dcgm-exporter" in p["metadata"]["name"]]
        calls = [(get, base + "/api/v1/pods?limit=500&continue=") for _ in range(max(1, len(pods) // 500))]
        calls += [(get, base + f"/api/v1/nodes/{n}") for n in nodes]
        calls += [(exec_ws, base, p["metadata"]["namespace"], p["metadata"]["name"], p["spec"]["containers"][0]["name"],
                   "nvidia-smi -q -x") for p in drivers]
        calls += [(get, base + f"/api/v1/namespaces/{p['metadata']['namespace']}/pods/{p['metadata']['name']}:9400/proxy/metrics")
                  for p in exporters]
        started = time.monotonic()
        try:
            with cf.ThreadPoolExecutor(args.concurrency) as pool:
                durations = sorted(pool.map(lambda c: timed(*c), calls))
            wall = time.monotonic() - started
        finally:
            if proc.returncode is None and proc.poll() is None:
                proc.terminate()
                _, _, rusage = os.wait4(proc.pid, 0)
            else:
                raise SystemExit(f"k10s serve died ({proc.returncode}): {(Path(tmp) / 'serve.err').read_text()[-2000:]}")
        peak_mb = rusage.ru_maxrss / 1024
    ideal = len(calls) * args.latency_ms / 1000 / args.concurrency
    result = {
        "nodes": args.nodes, "pods": len(pods), "calls": len(calls), "simulate_s": round(sim_s, 1),
        "serve_load_s": round(load_s, 2), "round_wall_s": round(wall, 2), "ideal_s": round(ideal, 2),
        "ratio": round(wall / ideal, 2), "p50_ms": round(durations[len(durations) // 2] * 1000, 1),
        "p99_ms": round(durations[int(len(durations) * 0.99)] * 1000, 1), "serve_peak_rss_mb": round(peak_mb, 1),
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
