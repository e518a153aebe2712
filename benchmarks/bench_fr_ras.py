"""Benchmark: Flight Recorder dumps, from raw exec rows to the evidence view.

Builds a job of R ranks (8 per pod) whose every rank dumped a full ring buffer of E entries
(pickle, the default writer), one rank behind, as the capture stores them (base64 in the
JSON envelope, one exec row per pod). Times, side by side in one run:

* floor: base64-decoding and plain ``pickle.loads`` of the same dumps (what any reader pays);
* ``parsers.flight_recorder.derive`` through a real ``DeriveContext`` (envelope, restricted
  unpickler, rows, Parquet);
* the view ``k10s_hang_evidence_fr`` on real DuckDB (views loaded, then the query).

Usage: python benchmarks/bench_fr_ras.py [--ranks 128] [--entries 2000] [--out benchmarks/results/fr-ras.md]
"""

from __future__ import annotations

import argparse
import base64
import json
import pickle
import platform
import tempfile
import time
from pathlib import Path

from k10s_forensics.analyze.runner import prepare
from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.parsers import ParseIssues, flight_recorder
from k10s_forensics.rebuild.run import DeriveContext, rebuild
from k10s_forensics.simulate.fr_dumps import encode_dump, envelope, fr_dump, fr_entry

PER_POD = 8


def build(root: Path, ranks: int, entries: int) -> tuple[Path, list[bytes]]:
    import datetime as dt

    t = dt.datetime(2026, 11, 21, 10, tzinfo=dt.timezone.utc)
    dumps, rows, objects = [], [], []
    for p in range(ranks // PER_POD):
        files = {}
        for lr in range(PER_POD):
            r = p * PER_POD + lr
            top = 50_000 - (1 if r == 7 else 0)
            es = [fr_entry(i, s, "ALLREDUCE", 25165824, "completed", 1_763_000_000_000_000_000 + s) for i, s in enumerate(range(top - entries + 1, top))]
            es.append(fr_entry(entries - 1, top, "ALLREDUCE", 25165824, "started", 1_763_000_100_000_000_000))
            data = encode_dump(fr_dump(es, list(range(ranks))))
            dumps.append(data)
            files[f"/tmp/nccl_trace_rank_{r}"] = data
        pod = f"job-worker-{p}"
        rows.append({"captured_at": t, "duration_ms": 100, "source": "flight-recorder", "node": f"n{p}", "namespace": "ns", "pod": pod,
                     "container": "pytorch", "command": "python3 -I -S -c ...", "exit_code": 0, "stdout": envelope(files), "stderr": "", "error": None})
        objects.append({"captured_at": t, "api_version": "v1", "kind": "Pod", "namespace": "ns", "name": pod, "uid": f"u{p}",
                        "body": json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod, "namespace": "ns", "uid": f"u{p}",
                                            "labels": {"training.kubeflow.org/job-name": "job"},
                                            "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "job", "uid": "j", "controller": True}]},
                                            "spec": {"nodeName": f"n{p}", "containers": [{"name": "pytorch"}]}, "status": {"phase": "Running"}})})
    bundle = root / "b"
    (bundle / "raw").mkdir(parents=True)
    write_raw_table(bundle, "exec", rows)
    write_raw_table(bundle, "objects", objects)
    write_json_atomic(bundle / "manifest.json", new_manifest())
    return bundle, dumps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=128)
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        bundle, dumps = build(Path(d), args.ranks, args.entries)
        mb = sum(len(x) for x in dumps) / 1e6
        encoded = [base64.b64encode(x).decode() for x in dumps]
        t0 = time.perf_counter()
        n = sum(len(pickle.loads(base64.b64decode(x))["entries"]) for x in encoded)
        floor = time.perf_counter() - t0
        out = Path(d) / "tables"
        out.mkdir()
        t0 = time.perf_counter()
        ctx = DeriveContext(Bundle.open(bundle), out, ParseIssues())
        flight_recorder.derive(ctx)
        ctx.finish()
        derive_s = time.perf_counter() - t0
        rebuild(Bundle.open(bundle))
        t0 = time.perf_counter()
        con = prepare(Bundle.open(bundle))
        views_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        rows = con.sql("SELECT culprit_ranks, confidence FROM k10s_hang_evidence_fr").fetchall()
        query_s = time.perf_counter() - t0
        assert rows == [([7], "high")], rows
    lines = [
        f"### Flight Recorder: {args.ranks} ranks x {args.entries} entries ({n} entries, {mb:.1f} MB of pickles)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; shared by 8 helpers (loaded).",
        "",
        "| step | seconds | MB/s of dumps | x floor |",
        "|---|---:|---:|---:|",
        f"| floor: base64 decode + plain `pickle.loads` | {floor:.2f} | {mb / floor:.0f} | 1.0 |",
        f"| `parsers.flight_recorder.derive` (envelope, restricted unpickler, rows, Parquet) | {derive_s:.2f} | {mb / derive_s:.0f} | {derive_s / floor:.1f} |",
        f"| all shared views loaded (`prepare`, every view file) | {views_s:.2f} | | |",
        f"| `SELECT * FROM k10s_hang_evidence_fr` | {query_s:.2f} | | |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
