"""Benchmark of the HTML report: build time, file size and headless-Chromium load time.

A synthetic bundle per size (derived tables written directly, so the parsers are not
what is measured): one PyTorch job of N ranks on N/8 nodes for 60 minutes, GPU samples
every 15 s (DCGM shape), ss samples per pod, a thermal straggler, an OOM on one rank
followed by NCCL watchdog timeouts on every other rank. The analysis is run once
(timed separately), then the report is built from it and loaded in a fresh headless
Chromium until every plot is drawn.

    python benchmarks/bench_report.py                 # 64, 1024, 4096 ranks
    python benchmarks/bench_report.py --ranks 1024 --keep /tmp/r1024
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic
from k10s_forensics.store.derived import mark_current
from k10s_forensics.reports import render_report, run_analysis
from k10s_forensics.reports.browser import Chromium, available
from k10s_forensics.store.tables import TABLE_NAMES, conform, from_rows

T0 = dt.datetime(2026, 11, 21, 9, 0, tzinfo=dt.timezone.utc)
NS, JOB, PER_NODE = "team-a", "llama-70b", 8


def _ts(seconds: np.ndarray) -> pa.Array:
    micros = (T0.timestamp() * 1e6 + seconds * 1e6).astype("int64")
    return pa.array(micros, type=pa.timestamp("us", tz="UTC"))


def build_bundle(path: Path, ranks: int, minutes: int = 60, interval_s: int = 15, seed: int = 0) -> tuple[Bundle, int]:
    """Write the synthetic bundle; returns it and the culprit rank."""
    rng = np.random.default_rng(seed)
    nodes = ranks // PER_NODE
    culprit = int(rng.integers(0, ranks))
    straggler = (culprit + ranks // 2) % ranks
    tables: dict[str, pa.Table] = {}
    node_names = [f"gpu-node-{i:04d}" for i in range(nodes)]
    pod_names = [f"{JOB}-worker-{i}" for i in range(nodes)]
    uuids = [f"GPU-{r:08x}-0000-0000-0000-{seed:012x}" for r in range(ranks)]
    t_start = T0 - dt.timedelta(minutes=5)
    tables["nodes"] = from_rows("nodes", [{"node": n, "ready": True, "unschedulable": False, "gpu_product": "NVIDIA H100 80GB HBM3",
                                           "gpu_capacity": PER_NODE, "gpu_allocatable": PER_NODE, "internal_ip": f"10.0.{i // 250}.{i % 250}",
                                           "taints": []} for i, n in enumerate(node_names)])
    tables["gpus"] = from_rows("gpus", [{"node": node_names[r // PER_NODE], "gpu_uuid": uuids[r], "gpu_index": r % PER_NODE,
                                         "pci_bus_id": f"0000:{16 + r % PER_NODE:02x}:00.0", "product": "NVIDIA H100 80GB HBM3",
                                         "memory_total_mib": 81559} for r in range(ranks)])
    tables["pods"] = from_rows("pods", [{"namespace": NS, "pod": p, "pod_uid": f"uid-{p}", "node": node_names[i], "phase": "Running",
                                         "pod_ip": f"10.1.{i // 250}.{i % 250}", "created_at": t_start, "started_at": t_start,
                                         "gpu_request": PER_NODE, "job": JOB, "job_kind": "PyTorchJob", "scheduled": True}
                                        for i, p in enumerate(pod_names)])
    tables["jobs"] = from_rows("jobs", [{"namespace": NS, "job": JOB, "kind": "PyTorchJob", "uid": "uid-job", "created_at": t_start,
                                         "state": "Running", "world_size": ranks, "replicas": nodes, "nproc_per_node": PER_NODE}])
    tables["ranks"] = from_rows("ranks", [{"namespace": NS, "job": JOB, "rank": r, "node_rank": r // PER_NODE, "local_rank": r % PER_NODE,
                                           "pod": pod_names[r // PER_NODE], "pod_uid": f"uid-{pod_names[r // PER_NODE]}",
                                           "node": node_names[r // PER_NODE], "gpu_uuid": uuids[r], "job_kind": "PyTorchJob",
                                           "world_size": ranks, "nproc_per_node": PER_NODE, "started_at": t_start} for r in range(ranks)])
    steps = minutes * 60 // interval_s
    t = np.tile(np.arange(steps) * interval_s, ranks).astype(float)
    r = np.repeat(np.arange(ranks), steps)
    n = t.size
    oom_at = minutes * 60 * 2 // 3
    alive = t < oom_at
    tensor = np.where(alive, 0.45 + rng.normal(0, 0.03, n), 0.0)
    tensor[(r == straggler) & alive] = 0.62
    clock = np.where(r == straggler, 1250.0, 1980.0) + rng.normal(0, 5, n)
    tables["gpu_samples"] = conform("gpu_samples", pa.table({
        "ts": _ts(t), "node": pa.array([node_names[i // PER_NODE] for i in r]), "gpu_uuid": pa.array([uuids[i] for i in r]),
        "source": pa.array(["dcgm-exporter"] * n), "util_pct": np.where(alive, 100.0, 0.0), "sm_active": np.clip(tensor + 0.15, 0, 1),
        "tensor_active": np.clip(tensor, 0, 1), "power_w": np.where(alive, 520 + rng.normal(0, 15, n), 90.0),
        "fb_used_mib": np.where(r == culprit, np.minimum(60000 + t * 8, 81000), 60000 + rng.normal(0, 200, n)),
        "fb_total_mib": np.full(n, 81559.0), "temp_c": np.where(r == straggler, 88.0, 62 + rng.normal(0, 2, n)),
        "sm_clock_mhz": clock, "throttle_reasons": np.where(r == straggler, 0x40, 0).astype("int64"), "xid": np.zeros(n, "int64"),
        "namespace": pa.array([NS] * n), "pod": pa.array([pod_names[i // PER_NODE] for i in r]), "power_limit_w": np.full(n, 700.0),
        "model_name": pa.array(["NVIDIA H100 80GB HBM3"] * n),
    }))
    peers = 4
    tp = np.tile(np.arange(steps) * interval_s, nodes * peers).astype(float)
    pi = np.repeat(np.arange(nodes * peers), steps)
    pod_i = pi // peers
    m = tp.size
    tables["tcp_samples"] = conform("tcp_samples", pa.table({
        "ts": _ts(tp), "namespace": pa.array([NS] * m), "pod": pa.array([pod_names[i] for i in pod_i]),
        "node": pa.array([node_names[i] for i in pod_i]), "local_addr": pa.array([f"10.1.{i // 250}.{i % 250}" for i in pod_i]),
        "peer_addr": pa.array([f"10.1.9.{(i * 7 + k) % 250}" for i, k in zip(pod_i, pi % peers)]),
        "rtt_ms": 0.2 + rng.gamma(2, 0.05, m), "minrtt_ms": np.full(m, 0.05), "retrans_total": (tp // 600).astype("int64"),
        "local_port": pa.array(np.full(m, 40000) + pi % peers, pa.int32()), "peer_port": pa.array(np.full(m, 43000), pa.int32()),
        "state": pa.array(["ESTAB"] * m),
    }))
    oom_ts = T0 + dt.timedelta(seconds=oom_at)
    events = [{"ts": oom_ts, "namespace": NS, "pod": pod_names[culprit // PER_NODE], "pod_uid": f"uid-{pod_names[culprit // PER_NODE]}",
               "container": "trainer", "rank": culprit, "kind": "cuda_oom",
               "line": f"[rank{culprit}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"}]
    events += [{"ts": oom_ts + dt.timedelta(minutes=10, seconds=float(rng.uniform(0, 5))), "namespace": NS, "pod": pod_names[k // PER_NODE],
                "pod_uid": f"uid-{pod_names[k // PER_NODE]}", "container": "trainer", "rank": k, "kind": "nccl_watchdog_timeout",
                "line": f"[rank{k}]:[E] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, OpType=ALLREDUCE) ran for 600000 milliseconds"}
               for k in range(ranks) if k != culprit]
    tables["log_events"] = conform("log_events", pa.Table.from_pylist(events))
    path.mkdir(parents=True, exist_ok=True)
    (path / "tables").mkdir(exist_ok=True)
    for name in TABLE_NAMES:
        pq.write_table(tables.get(name, from_rows(name, [])), path / "tables" / f"{name}.parquet", compression="zstd")
    manifest = new_manifest(cluster={"context": f"bench-{ranks}", "server": "https://bench.invalid", "kubernetes_version": "v1.31.2"},
                            scope={"namespaces": [NS], "jobs": [f"{NS}/{JOB}"]}, window_start=T0, window_end=T0 + dt.timedelta(minutes=minutes))
    write_json_atomic(path / "manifest.json", manifest)
    bundle = Bundle.open(path)
    bundle.refresh_checksums()
    bundle.save_manifest()
    mark_current(bundle)  # the hand-built tables are the derived layer
    return bundle, culprit


def measure(ranks: int, root: Path) -> dict:
    """Build the bundle and report for ``ranks``; time each step."""
    t = time.perf_counter()
    bundle, culprit = build_bundle(root / f"b{ranks}", ranks)
    t_bundle = time.perf_counter() - t
    t = time.perf_counter()
    analysis = run_analysis(bundle)
    t_analysis = time.perf_counter() - t
    t = time.perf_counter()
    out = render_report(bundle, analysis, root / f"report-{ranks}.html")
    t_report = time.perf_counter() - t
    row = {"ranks": ranks, "gpu_samples": pq.read_metadata(bundle.table_path("gpu_samples")).num_rows, "bundle_s": t_bundle,
           "analysis_s": t_analysis, "report_s": t_report, "size_mb": out.stat().st_size / 1e6, "findings": len(analysis.get("findings", [])),
           "culprit": culprit}
    if available():
        with Chromium(timeout_s=180) as browser:
            visit = browser.open_page(out)
            timing = browser.evaluate("window.__k10sTiming")
            row.update(load_ms=visit.ready_ms, plotly_parse_ms=timing["scripts_ms"], plots_ms=timing["plots_ms"],
                       console_errors=len(visit.console_errors), requests=len(visit.external_requests))
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="*", default=[64, 1024, 4096])
    parser.add_argument("--keep", type=Path, default=None, help="keep bundles and reports in this folder")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="k10s-bench-report-"))
    root.mkdir(parents=True, exist_ok=True)
    print("| ranks | GPU samples | analysis s | report build s | file MB | Chromium load+draw s | plotly.js parse s | plots drawn s | console errors | requests |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ranks in args.ranks:
        r = measure(ranks, root)
        print(f"| {r['ranks']} | {r['gpu_samples']:,} | {r['analysis_s']:.1f} | {r['report_s']:.1f} | {r['size_mb']:.2f} | "
              f"{r.get('load_ms', float('nan')) / 1000:.1f} | {r.get('plotly_parse_ms', float('nan')) / 1000:.1f} | "
              f"{r.get('plots_ms', float('nan')) / 1000:.1f} | {r.get('console_errors', '---')} | {r.get('requests', '---')} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
