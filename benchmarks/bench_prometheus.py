"""Benchmark: Prometheus history of many GPUs fetched from a real Prometheus by ``k10s capture``.

A synthetic DCGM history (kube-prometheus labels: ``exported_*``, exporter pod in ``pod``,
``instance`` = its IP) of ``--gpus`` GPUs over ``--hours`` at ``--interval`` seconds is
backfilled with promtool into a real ``prometheus``; a small simulated cluster is served by
``k10s serve``; ``k10s capture -A --prometheus URL --from --to`` (only the collectors it
needs) fetches it all. Reported side by side from one run: requests, bytes, the wall time
of capture and of its prometheus collector (manifest start/finish) at the collector's
concurrency and at 1 request at a time, the time Prometheus itself spent answering (the growth of its own
``prometheus_http_request_duration_seconds_sum`` for the query, series and query_range
handlers), their ratio, samples fetched, rebuild (parse) time and rows.

    python benchmarks/bench_prometheus.py                      # 1024 GPUs x 6 h at 15 s, 4 metrics
    python benchmarks/bench_prometheus.py --gpus 64 --hours 1  # quick
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
METRICS = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_SM_CLOCK",
           "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE")
HANDLERS = ("/api/v1/query", "/api/v1/query_range", "/api/v1/series")
KEEP = ("namespaces", "pods", "nodes", "gpu-operator", "prometheus")


def write_history(path: Path, gpus: int, hours: float, interval: float, metrics: int, start: float) -> int:
    """Stream the OpenMetrics file; returns the number of samples."""
    per_node = 8
    steps = int(hours * 3600 / interval)
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for metric in METRICS[:metrics]:
            fh.write(f"# TYPE {metric} gauge\n")
            for g in range(gpus):
                node, local = divmod(g, per_node)
                labels = (f'{metric}{{UUID="GPU-{g:08d}-0000-4000-8000-000000000000",gpu="{local}",Hostname="nvidia-dcgm-exporter-{node:05d}",'
                          f'exported_namespace="team-a",exported_pod="llm-worker-{node}",exported_container="pytorch",'
                          f'pod="nvidia-dcgm-exporter-{node:05d}",namespace="gpu-operator",instance="10.{node // 250}.{node % 250}.2:9400"}} ')
                base = 40 + (g % 50)
                fh.writelines(f"{labels}{base + (k % 7)} {start + k * interval + (g % 5) * 0.1:.1f}\n" for k in range(steps))
                n += steps
        fh.write("# EOF\n")
    return n


def server_seconds(url: str) -> float:
    text = urllib.request.urlopen(f"{url}/metrics", timeout=30).read().decode()
    total = 0.0
    for m in re.finditer(r'^prometheus_http_request_duration_seconds_sum\{handler="([^"]+)"\} (\S+)$', text, re.M):
        if m.group(1) in HANDLERS:
            total += float(m.group(2))
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=1024)
    ap.add_argument("--hours", type=float, default=6.0)
    ap.add_argument("--interval", type=float, default=15.0)
    ap.add_argument("--metrics", type=int, default=4, help=f"DCGM metrics in the history (max {len(METRICS)})")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args(argv)

    from prom_helpers import prometheus_with

    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.capture import CaptureOptions, capture
    from k10s_forensics.collectors import COLLECTORS
    from k10s_forensics.collectors import prometheus as prom_collector
    from k10s_forensics.rebuild.run import rebuild
    from k10s_forensics.serve import start_server
    from k10s_forensics.simulate import simulate

    work = args.workdir or Path(tempfile.mkdtemp(prefix="k10s-bench-prom-"))
    work.mkdir(parents=True, exist_ok=True)
    start = 1_778_000_000.0
    end = start + args.hours * 3600
    t = time.monotonic()
    samples = write_history(work / "history.om", args.gpus, args.hours, args.interval, args.metrics, start)
    gen_s = time.monotonic() - t
    simulate("healthy", work / "cluster", seed=1, nodes=2, gpus_per_node=1, minutes=1, interval_s=30)
    t = time.monotonic()
    with prometheus_with(work / "history.om", work / "prom") as url:
        load_s = time.monotonic() - t
        srv = start_server(work / "cluster")
        runs = {}
        try:
            kc = srv.write_kubeconfig(work / "kc")
            for concurrency in (prom_collector.PROM_CONCURRENCY, 1):  # side by side against the same server
                prom_collector.PROM_CONCURRENCY = concurrency
                before = server_seconds(url)
                options = CaptureOptions(timeout_s=120, prometheus=url, history_from=str(start), history_to=str(end),
                                         skip=frozenset(c.name for c in COLLECTORS if c.name not in KEEP))
                t = time.monotonic()
                capture(work / f"captured-c{concurrency}", kubeconfig=str(kc), all_namespaces=True, options=options)
                runs[concurrency] = (time.monotonic() - t, server_seconds(url) - before)
        finally:
            srv.stop()
    (work / f"captured-c{max(runs)}").rename(work / "captured")
    bundle = Bundle.open(work / "captured")
    history = bundle.manifest["history"]
    entry = next(c for c in bundle.manifest["collectors"] if c["name"] == "prometheus")
    from k10s_forensics.store.bundle import parse_iso

    def collector_s(path: Path) -> float:
        e = next(c for c in Bundle.open(path).manifest["collectors"] if c["name"] == "prometheus")
        return (parse_iso(e["finished_at"]) - parse_iso(e["started_at"])).total_seconds()

    per_run = {c: {"capture_wall_s": round(w, 2), "prometheus_collector_wall_s": round(collector_s(work / ("captured" if c == max(runs) else f"captured-c{c}")), 2),
                   "prometheus_answer_s": round(served, 2)} for c, (w, served) in runs.items()}
    for r in per_run.values():
        r["ratio_collector_to_prometheus"] = round(r["prometheus_collector_wall_s"] / r["prometheus_answer_s"], 2) if r["prometheus_answer_s"] else None
    t, cpu = time.monotonic(), time.process_time()
    rebuild(bundle)
    rebuild_s, rebuild_cpu_s = time.monotonic() - t, time.process_time() - cpu
    import pyarrow.parquet as pq

    rows = pq.ParquetFile(work / "captured" / "tables" / "gpu_samples.parquet").metadata.num_rows
    report = {
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs (shared with other work)",
        "history": f"{args.gpus} GPUs x {args.hours:g} h at {args.interval:g} s, {args.metrics} metrics = {samples:,} samples",
        "generate_s": round(gen_s, 1), "promtool_load_and_start_s": round(load_s, 1),
        "prometheus_collector_status": entry["status"], "requests": history["requests"], "bytes": history["bytes"],
        **{f"concurrency_{c}": r for c, r in sorted(per_run.items(), reverse=True)},
        "interval_s": history.get("interval_s"), "not_fetched": len(history["not_fetched"]),
        "rebuild_s": round(rebuild_s, 1), "rebuild_cpu_s": round(rebuild_cpu_s, 1), "gpu_samples_rows": rows,
        "load_average": os.getloadavg(),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
