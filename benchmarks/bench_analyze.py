"""Benchmark: all analyze rules on a large bundle vs the DuckDB floor.

For each size (default 1024 and 4096 GPUs x 60 min at 10 s) a child process writes the
derived tables of a synthetic bundle directly (vectorised numpy/pyarrow: a healthy gang
with one throttled rank, one degraded NIC, an OOM cascade in the logs). This process
then, in the same DuckDB process:

1. floor   - reads every column of every derived table of that bundle once;
2. analyze - prepares the views and runs every rule (``k10s analyze`` minus rendering);

and prints analyze / floor and the peak RSS of this process (targets: <= 10x, <= 2 GB).

    python benchmarks/bench_analyze.py                 # 1024 and 4096 GPUs
    python benchmarks/bench_analyze.py --gpus 256 --minutes 10
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

GPUS_PER_NODE = 8


def generate(out: Path, gpus: int, minutes: int, interval_s: int) -> None:
    """Write manifest + tables/ of a synthetic bundle (no raw layer needed for analyze)."""
    from k10s_forensics.store.bundle import new_manifest, write_json_atomic
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.store.derived import mark_current
    from k10s_forensics.store.tables import TABLE_NAMES, TABLES_BY_NAME, conform

    rng = np.random.default_rng(7)
    t0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)
    nodes = gpus // GPUS_PER_NODE
    ns, job = "team-a", "big-train"
    tables: dict[str, pa.Table] = {}
    node_names = [f"gpu-node-{i:04d}" for i in range(nodes)]
    pod_names = [f"{job}-worker-{i}" for i in range(nodes)]
    pod_ips = [f"10.{1 + i // 250}.{i % 250}.5" for i in range(nodes)]
    tables["nodes"] = pa.table({"node": node_names, "ready": [True] * nodes, "unschedulable": [False] * nodes,
                                "gpu_product": ["NVIDIA H100 80GB HBM3"] * nodes, "gpu_capacity": [8] * nodes, "gpu_allocatable": [8] * nodes,
                                "internal_ip": [f"192.168.{i // 250}.{i % 250}" for i in range(nodes)]})
    start = t0 - dt.timedelta(minutes=30)
    tables["pods"] = pa.table({"namespace": [ns] * nodes, "pod": pod_names, "pod_uid": [f"uid-{p}" for p in pod_names], "node": node_names,
                               "phase": ["Running"] * nodes, "pod_ip": pod_ips, "pod_ips": [[ip] for ip in pod_ips],
                               "created_at": [start] * nodes, "started_at": [start] * nodes, "gpu_request": [8] * nodes,
                               "job": [job] * nodes, "job_kind": ["PyTorchJob"] * nodes, "scheduled": [True] * nodes})
    ranks = np.arange(gpus)
    uuids = np.array([f"GPU-{r:08x}-0000-0000-0000-000000000000" for r in ranks])
    node_of = ranks // GPUS_PER_NODE
    tables["ranks"] = pa.table({"namespace": [ns] * gpus, "job": [job] * gpus, "rank": ranks, "node_rank": node_of, "local_rank": ranks % 8,
                                "pod": np.array(pod_names)[node_of], "pod_uid": np.array([f"uid-{p}" for p in pod_names])[node_of],
                                "node": np.array(node_names)[node_of], "gpu_uuid": uuids, "world_size": [gpus] * gpus, "nproc_per_node": [8] * gpus,
                                "started_at": [start] * gpus})
    tables["gpus"] = pa.table({"node": np.array(node_names)[node_of], "gpu_uuid": uuids, "gpu_index": (ranks % 8).astype("int32"),
                               "product": ["NVIDIA H100 80GB HBM3"] * gpus, "memory_total_mib": [81559] * gpus})
    tables["jobs"] = pa.table({"namespace": [ns], "job": [job], "kind": ["PyTorchJob"], "uid": ["uid-job"], "world_size": [gpus]})
    # GPU samples: written in time slices to keep generator memory flat
    steps = minutes * 60 // interval_s
    straggler = gpus // 3
    writer = None
    out_tables = out / "tables"
    out_tables.mkdir(parents=True, exist_ok=True)
    schema = TABLES_BY_NAME["gpu_samples"].schema
    for k in range(steps):
        ts = t0 + dt.timedelta(seconds=k * interval_s)
        tensor = rng.normal(0.4, 0.03, gpus)
        power = rng.normal(520, 15, gpus)
        clock = rng.normal(1980, 5, gpus)
        temp = rng.normal(62, 2, gpus)
        throttle = np.zeros(gpus, dtype="int64")
        tensor[straggler], power[straggler], clock[straggler], temp[straggler], throttle[straggler] = 0.75, 640, 1350, 89, 0x40
        batch = pa.table({"ts": pa.array([ts] * gpus, pa.timestamp("us", tz="UTC")), "node": np.array(node_names)[node_of], "gpu_uuid": uuids,
                          "source": ["dcgm-exporter"] * gpus, "util_pct": np.full(gpus, 100.0), "tensor_active": tensor, "power_w": power,
                          "fb_used_mib": rng.normal(60000, 200, gpus), "fb_total_mib": np.full(gpus, 81559.0), "temp_c": temp,
                          "sm_clock_mhz": clock, "throttle_reasons": throttle, "xid": np.zeros(gpus, dtype="int64"),
                          "namespace": [ns] * gpus, "pod": np.array(pod_names)[node_of], "power_limit_w": np.full(gpus, 700.0),
                          "model_name": ["NVIDIA H100 80GB HBM3"] * gpus})
        batch = conform("gpu_samples", batch)
        if writer is None:
            writer = pq.ParquetWriter(out_tables / "gpu_samples.parquet", schema, compression="zstd")
        writer.write_table(batch)
    writer.close()
    # TCP samples: each pod has NCCL sockets to 4 ring neighbours (2 flows each), ss every minute
    bad = nodes // 2
    rows = {c: [] for c in ("ts", "namespace", "pod", "node", "local_addr", "local_port", "peer_addr", "peer_port", "rtt_ms", "minrtt_ms",
                            "retrans_total", "bytes_sent", "bytes_retrans", "state")}
    for m in range(minutes):
        ts = t0 + dt.timedelta(minutes=m)
        for i in range(nodes):
            for d in (-2, -1, 1, 2):
                j = (i + d) % nodes
                if j == i:
                    continue
                for f in range(2):
                    worse = bad in (i, j)
                    rows["ts"].append(ts); rows["namespace"].append(ns); rows["pod"].append(pod_names[i]); rows["node"].append(node_names[i])
                    rows["local_addr"].append(pod_ips[i]); rows["local_port"].append(40000 + f + 4 * (d + 2)); rows["peer_addr"].append(pod_ips[j])
                    rows["peer_port"].append(50000 + f); rows["rtt_ms"].append((3.5 if worse else 0.3) + 0.05 * rng.random()); rows["minrtt_ms"].append(0.2)
                    rows["retrans_total"].append(m * (300 if worse else 1)); rows["bytes_sent"].append(m * 50_000_000)
                    rows["bytes_retrans"].append(m * (400_000 if worse else 30)); rows["state"].append("ESTAB")
    tables["tcp_samples"] = pa.table(rows)
    # Logs: an OOM on one rank, watchdog timeouts on the others
    oom_rank = gpus - 5
    lt = t0 + dt.timedelta(minutes=minutes - 15)
    n = gpus
    tables["log_events"] = pa.table({
        "ts": [lt] + [lt + dt.timedelta(minutes=10, seconds=1)] * (n - 1),
        "namespace": [ns] * n, "pod": [pod_names[r // 8] for r in [oom_rank] + [r for r in range(n) if r != oom_rank]],
        "pod_uid": [f"uid-{pod_names[r // 8]}" for r in [oom_rank] + [r for r in range(n) if r != oom_rank]],
        "rank": [oom_rank] + [r for r in range(n) if r != oom_rank],
        "kind": ["cuda_oom"] + ["nccl_watchdog_timeout"] * (n - 1),
        "line": ["torch.OutOfMemoryError: CUDA out of memory."] + ["Watchdog caught collective operation timeout"] * (n - 1),
        "seq_num": [None] + [4242] * (n - 1), "op_type": [None] + ["ALLREDUCE"] * (n - 1), "timeout_ms": [None] + [600000] * (n - 1),
        "oom_total_mib": [79.1 * 1024] + [None] * (n - 1), "oom_in_use_mib": [78.9 * 1024] + [None] * (n - 1),
    })
    for name in TABLE_NAMES:
        if name == "gpu_samples":
            continue
        table = conform(name, tables[name]) if name in tables else TABLES_BY_NAME[name].empty()
        pq.write_table(table, out_tables / f"{name}.parquet", compression="zstd")
    manifest = new_manifest(window_start=t0, window_end=t0 + dt.timedelta(minutes=minutes))
    write_json_atomic(out / "manifest.json", manifest)
    mark_current(Bundle.open(out))  # the hand-built tables are the derived layer


def floor_seconds(bundle) -> tuple[float, int]:
    """DuckDB reading every column of every derived table once."""
    from k10s_forensics.engine import connect
    from k10s_forensics.store.tables import TABLE_NAMES

    con = connect(bundle, rebuild_if_needed=False)
    t = time.perf_counter()
    rows = 0
    for name in TABLE_NAMES:
        reader = con.sql(f"SELECT * FROM {name}").to_arrow_reader(1 << 17)
        for batch in reader:
            rows += batch.num_rows
    elapsed = time.perf_counter() - t
    con.close()
    return elapsed, rows


def analyze_seconds(bundle) -> tuple[float, dict]:
    from k10s_forensics.analyze.runner import analyze

    t = time.perf_counter()
    result = analyze(bundle)
    return time.perf_counter() - t, result


def measure(path: Path, gpus: int, minutes: int, interval_s: int) -> dict:
    from k10s_forensics.store.bundle import Bundle

    bundle = Bundle.open(path)
    floor, rows = floor_seconds(bundle)
    took, result = analyze_seconds(bundle)
    floor2, _ = floor_seconds(bundle)  # warm cache both ways: report the smaller floor
    floor = min(floor, floor2)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    found = sorted({(f["rule"], f["cause"], tuple(f["ranks"][:3])) for f in result["findings"]})
    return {"gpus": gpus, "minutes": minutes, "interval_s": interval_s, "rows": rows, "floor_s": round(floor, 3),
            "analyze_s": round(took, 3), "ratio": round(took / floor, 2), "peak_rss_mib": round(peak_mib), "findings": found}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpus", type=int, action="append", help="GPU count (repeatable; default 1024 and 4096)")
    ap.add_argument("--minutes", type=int, default=60)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--measure", type=Path, help="measure an existing rebuilt bundle (e.g. simulated: see BENCHMARKS.md) instead of generating one")
    args = ap.parse_args(argv)
    if args.generate:
        generate(args.generate, args.gpus[0], args.minutes, args.interval)
        return
    if args.measure:
        print(json.dumps(measure(args.measure, args.gpus[0], args.minutes, args.interval)))
        return
    for gpus in args.gpus or [1024, 4096]:
        tmp = Path(tempfile.mkdtemp(prefix=f"k10s-bench-{gpus}-"))
        try:
            common = ["--gpus", str(gpus), "--minutes", str(args.minutes), "--interval", str(args.interval)]
            t = time.perf_counter()
            subprocess.run([sys.executable, __file__, "--generate", str(tmp / "bundle"), *common], check=True)
            gen = time.perf_counter() - t
            # measure in a fresh process so peak RSS is the analysis's alone
            out = subprocess.run([sys.executable, __file__, "--measure", str(tmp / "bundle"), *common], check=True, capture_output=True, text=True)
            res = json.loads(out.stdout.strip().splitlines()[-1])
            ok = "ok" if res["ratio"] <= 10 and res["peak_rss_mib"] <= 2048 else "OVER TARGET"
            print(f"{gpus} GPUs x {args.minutes} min @ {args.interval}s: {res['rows']:,} rows (generated in {gen:.0f}s); "
                  f"floor {res['floor_s']}s, analyze {res['analyze_s']}s, ratio {res['ratio']}x, peak RSS {res['peak_rss_mib']} MiB [{ok}]")
            print(f"  findings: {res['findings']}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
