"""Benchmark the Kubernetes-object parsers on a synthetic listing.

    python benchmarks/bench_k8s_parsers.py [--nodes 512] [--listings 2] [--events 20000] [--out DIR]

Builds raw/objects.parquet for a cluster of N 8-GPU nodes running one PyTorchJob per 16
nodes (master + workers, nproc 8, every pod listed ``--listings`` times), plus events
from both APIs and visible-devices exec rows, then times each parser's ``derive``.
Writes a Markdown table to benchmarks/results/k8s-parsers.md.
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from k8s_builders import at, container, context, make_bundle, meta, obj_row, pod, pytorch_labels, pytorchjob  # noqa: E402
from k10s_forensics.parsers import k8s_events, k8s_jobs, k8s_nodes, k8s_pods, kueue, ranks  # noqa: E402


def build(root: Path, nodes: int, listings: int, events: int):
    objs, exec_rows = [], []
    for n in range(nodes):
        body = {"apiVersion": "v1", "kind": "Node", "metadata": meta(f"gpu-node-{n}", None, labels={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
                "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"},
                           "conditions": [{"type": "Ready", "status": "True"}], "addresses": [{"type": "InternalIP", "address": f"10.0.{n // 250}.{n % 250}"}]}}
        objs += [obj_row(body, at(m * 10)) for m in range(listings)]
    for j in range(max(1, nodes // 16)):
        name = f"job-{j}"
        objs.append(obj_row(pytorchjob(name, workers=15, gpus=8, nproc=8)))
        for i in range(16):
            rtype, idx = ("master", 0) if i == 0 else ("worker", i - 1)
            p = pod(f"{name}-{rtype}-{idx}", labels=pytorch_labels(name, rtype, idx), containers=[container(gpus=8, env={"PET_NPROC_PER_NODE": "8"})],
                    node=f"gpu-node-{j * 16 + i}")
            objs += [obj_row(p, at(m * 10)) for m in range(listings)]
            uuids = ",".join(f"GPU-{j}-{i}-{g}" for g in range(8))
            exec_rows.append({"captured_at": at(1), "duration_ms": 5, "source": "visible-devices", "node": f"gpu-node-{j * 16 + i}",
                              "namespace": "team-a", "pod": p["metadata"]["name"], "container": "pytorch", "command": "printenv NVIDIA_VISIBLE_DEVICES",
                              "exit_code": 0, "stdout": uuids, "stderr": "", "error": None})
    for e in range(events):
        body = {"apiVersion": "v1", "kind": "Event", "metadata": meta(f"ev.{e}", uid=f"ev-{e}"), "reason": "BackOff", "type": "Warning",
                "involvedObject": {"kind": "Pod", "name": f"job-0-worker-{e % 15}"}, "message": "Back-off restarting failed container",
                "count": 1 + e % 7, "lastTimestamp": "2026-11-21T10:05:00Z"}
        objs.append(obj_row(body))
    return make_bundle(root / "b", objs, exec_rows), len(objs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=512)
    ap.add_argument("--listings", type=int, default=2)
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    root = args.out or Path(tempfile.mkdtemp(prefix="k10s-bench-k8s-"))
    t0 = time.perf_counter()
    bundle, n_objects = build(root, args.nodes, args.listings, args.events)
    build_s = time.perf_counter() - t0
    raw_mb = bundle.raw_path("objects").stat().st_size / 1e6
    ctx = context(bundle, root / "out")
    lines = ["| parser | seconds | rows out |", "|---|---|---|"]
    total = 0.0
    for module, tables in ((k8s_nodes, ["nodes"]), (k8s_pods, ["pods", "containers"]), (k8s_events, ["events"]),
                           (k8s_jobs, ["jobs"]), (kueue, ["kueue_workloads"]), (ranks, ["ranks"])):
        start = time.perf_counter()
        module.derive(ctx)
        took = time.perf_counter() - start
        total += took
        rows = ", ".join(f"{t} {ctx.table(t).num_rows}" for t in tables)
        lines.append(f"| {module.__name__.rsplit('.', 1)[-1]} | {took:.2f} | {rows} |")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    head = [
        "# Kubernetes-object parsers",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, 2 cores shared, 24 GB.",
        f"Input: {args.nodes} nodes, {args.nodes // 16} PyTorchJobs x 16 pods (nproc 8), {args.listings} listings, "
        f"{args.events} events: {n_objects} raw object rows, {raw_mb:.1f} MB zstd Parquet (built in {build_s:.1f} s).",
        "",
    ]
    text = "\n".join(head + lines + ["", f"Total parse time {total:.2f} s ({n_objects / total:,.0f} objects/s); peak RSS {peak_mb:.0f} MB.", ""])
    print(text)
    out = Path(__file__).resolve().parent / "results" / "k8s-parsers.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    if args.out is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
