"""Throughput and peak memory of k10s pack, verify and strict redact.

Builds a synthetic bundle of about ``--size-mb`` MB of Parquet (default 1000): dcgm-exporter
scrapes and container logs with NCCL lines, names and IPs in them (random numbers keep zstd
from compressing it away), then runs each step in a fresh process and reports MB/s of
bundle bytes and peak RSS (ru_maxrss of the child).

    python benchmarks/bench_sharing.py --size-mb 1000 --out benchmarks/results/sharing.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEP = r"""
import json, resource, sys, time
from pathlib import Path
step, bundle, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
t = time.perf_counter()
if step == "pack":
    from k10s_forensics.sharing.pack import pack
    pack(bundle, work / "b.tar.gz")
elif step == "verify-dir":
    from k10s_forensics.sharing.verify import verify
    assert verify(bundle).ok
elif step == "verify-archive":
    from k10s_forensics.sharing.verify import verify
    assert verify(work / "b.tar.gz").ok
elif step == "redact-strict":
    from k10s_forensics.sharing.redact import redact
    redact(bundle, work / "red", level="strict", key_file=work / "k.key", rebuild_tables=False)
elif step == "redact-standard":
    from k10s_forensics.sharing.redact import redact
    redact(bundle, work / "std", level="standard", rebuild_tables=False)
print(json.dumps({"seconds": time.perf_counter() - t, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build(path: Path, size_mb: int, seed: int = 0) -> None:
    from k10s_forensics.bundle import BundleWriter, new_manifest

    rng = random.Random(seed)
    t0 = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
    w = BundleWriter(path, new_manifest(window_start=t0, window_end=t0 + dt.timedelta(hours=1)))
    nodes = [f"ip-10-0-{i // 200}-{i % 200 + 10}.ec2.internal" for i in range(64)]
    pods = [f"llama-ft-worker-{i}" for i in range(64)]
    for i, (node, pod) in enumerate(zip(nodes, pods)):
        body = {"kind": "Pod", "metadata": {"name": pod, "namespace": "team-a", "labels": {"training.kubeflow.org/job-name": "llama-ft",
                "training.kubeflow.org/replica-index": str(i)}}, "spec": {"nodeName": node, "containers": [{"name": "pytorch",
                "image": "registry.acme.io/ml/trainer:v1", "env": [{"name": "HF_TOKEN", "value": f"hf_{rng.getrandbits(160):040x}"}]}]},
                "status": {"podIP": f"10.1.{i // 200}.{i % 200 + 10}"}}
        w.add("objects", {"captured_at": t0, "api_version": "v1", "kind": "Pod", "namespace": "team-a", "name": pod, "uid": f"{i:08x}-0000",
                          "body": json.dumps(body)})
    step = 0
    while (path / "raw").exists() and sum(p.stat().st_size for p in (path / "raw").glob("*.parquet")) < size_mb * 1e6:
        for _ in range(64):
            node, pod = rng.choice(list(zip(nodes, pods)))
            lines = [
                f'DCGM_FI_DEV_GPU_UTIL{{gpu="{g}",UUID="GPU-{rng.getrandbits(64):016x}",Hostname="{node}",namespace="team-a",pod="{pod}"}} {rng.randint(0, 100)}'
                for g in range(8) for _k in range(6)
            ]
            w.add("scrapes", {"captured_at": t0, "source": "dcgm-exporter", "node": node, "url": f"http://{node}:9400/metrics", "status": 200,
                              "body": "\n".join(lines)})
            log = "".join(
                f"2026-03-01T10:{step % 60:02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}Z "
                + rng.choice([
                    f"{pod}:{rng.randint(100, 9999)}:{rng.randint(100, 9999)} [{rng.randint(0, 7)}] NCCL INFO Channel {rng.randint(0, 31):02d} : {rng.randint(0, 63)} -> {rng.randint(0, 63)} via NET/IB/0 peer 10.1.0.{rng.randint(10, 200)}",
                    f"[rank{rng.randint(0, 63)}]: step {step} loss {rng.random():.6f} lr {rng.random() * 1e-4:.3e} tokens/s {rng.randint(1000, 99999)}",
                    f"iteration {step} consumed {rng.getrandbits(48):x} samples, grad_norm {rng.random() * 10:.4f}",
                ]) + "\n"
                for _l in range(400)
            )
            w.add("logs", {"captured_at": t0, "node": node, "namespace": "team-a", "pod": pod, "pod_uid": "u", "container": "pytorch",
                           "previous": False, "body": log})
            step += 1
        w.checkpoint()
    w.close()


def run_step(step: str, bundle: Path, work: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", STEP, step, str(bundle), str(work)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="k10s-bench-sharing-"))
    bundle = work / "bundle"
    t = time.perf_counter()
    build(bundle, args.size_mb)
    build_s = time.perf_counter() - t
    size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
    rows = []
    for step in ("pack", "verify-dir", "verify-archive", "redact-standard", "redact-strict"):
        r = run_step(step, bundle, work)
        rows.append((step, r["seconds"], size / 1e6 / r["seconds"], r["peak_rss_mb"]))
        print(f"{step:16s} {r['seconds']:8.1f} s {size / 1e6 / r['seconds']:8.1f} MB/s  peak RSS {r['peak_rss_mb']:7.0f} MB", flush=True)
    archive_mb = (work / "b.tar.gz").stat().st_size / 1e6
    text = [
        "# Sharing benchmark (pack, verify, redact)",
        "",
        f"Machine: 2 cores (shared with other jobs), 24 GB RAM, Python {sys.version.split()[0]}, pyarrow, duckdb 2.0.",
        f"Bundle: synthetic, {size / 1e6:,.0f} MB of zstd Parquet (built in {build_s:.0f} s): 64 pods on 64 nodes, dcgm-exporter",
        "scrapes (8 GPUs x 6 lines) and container logs (NCCL lines with names and IPs, training lines), random values.",
        f"Archive: {archive_mb:,.0f} MB. MB/s are bundle bytes per second; peak RSS is the step's own process (ru_maxrss).",
        "",
        "| step | seconds | MB/s | peak RSS (MB) |",
        "|---|---:|---:|---:|",
    ]
    text += [f"| {s} | {sec:.1f} | {mbs:.1f} | {rss:.0f} |" for s, sec, mbs, rss in rows]
    text += [
        "",
        "Redaction runs with `rebuild_tables=False` (raw layer only; `k10s analyze` re-derives tables on first use).",
        "Run: `python benchmarks/bench_sharing.py --size-mb 1000 --out benchmarks/results/sharing.md`.",
    ]
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(text) + "\n", encoding="utf-8")
    print("\n".join(text))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    _ = resource


if __name__ == "__main__":
    main()
