"""Benchmark the container-log deriver (raw/logs -> log_events).

Generates ~N MB of realistic container logs with the API timestamp prefix (mostly
training noise and progress lines, some NCCL INFO, a few errors), writes them as
raw/logs.parquet, then times side by side:

* ``bare``: DuckDB reading the same Parquet and splitting every body into lines
  (the floor any line-oriented parser pays);
* ``deriver``: ``k10s_forensics.parsers.logs.derive`` (prefilter, SQL steps, Python events).

Usage: python benchmarks/bench_logs_parse.py [--mb 200] [--out benchmarks/results/logs-parse.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.parsers import ParseIssues, logs
from k10s_forensics.rebuild.run import DeriveContext

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 11, 21, 9, 0, tzinfo=UTC)

NOISE = (
    "/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes",
    "Loading checkpoint shards: loaded tensor model.layers.{n}.mlp.down_proj.weight dtype=bf16 shape=[4096, 14336]",
    "[INFO] data: fetched shard {n} of s3://bucket/tokens/train (1024 sequences, 2048 tokens each)",
    "wandb: logging metrics at {n}; throughput 412.5 samples/s, mfu 0.41",
    "    return forward_call(*args, **kwargs)",
)
PROGRESS = (
    "[rank{r}]: step {n} | loss 2.{l} | lr 3.0e-04 | grad_norm 0.8{l} | tokens/s 48213",
    "{{'loss': 1.{l}, 'grad_norm': 0.42, 'learning_rate': 2e-05, 'epoch': 0.{l}}}",
    "Epoch 0:  12%|#2        | {n}/10000 [12:01<1:28:00,  1.70it/s, loss=2.{l}]",
)
NCCL_INFO = (
    *["{host}:{pid}:{pid} [{d}] NCCL INFO Channel {c:02d}/0 : {r}[{d}] -> {r2}[{d}] via P2P/IPC/read"] * 30,
    *["{host}:{pid}:{pid} [{d}] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22."] * 10,
    "{host}:{pid}:{pid} [{d}] NCCL INFO Bootstrap : Using eth0:10.0.{d}.{r}<0>",
    "{host}:{pid}:{pid} [{d}] NCCL INFO comm 0x55d3a8c0 rank {r} nranks 64 cudaDev {d} nvmlDev {d} busId {d}a000 commId 0x1 - Init COMPLETE",
)
ERRORS = (
    "[rank{r}]:[E1121 09:59:00.123456789 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
    "[rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB. GPU 3 has a total capacity of 79.14 GiB of which 1.70 GiB is free.",
    "{host}:{pid}:{pid} [{d}] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer 10.0.3.17<43211>",
)


def make_body(rng: random.Random, pod: int, target_bytes: int) -> str:
    host, pid, lines, size, n = f"job-worker-{pod}", 1000 + pod, [], 0, 0
    t = T0
    while size < target_bytes:
        n += 1
        t += dt.timedelta(milliseconds=rng.randint(1, 40))
        roll = rng.random()
        fmt = rng.choice(ERRORS if roll < 0.00005 else NCCL_INFO if roll < 0.05 else PROGRESS if roll < 0.35 else NOISE)
        r = pod * 8 + rng.randrange(8)
        text = fmt.format(n=n, r=r, r2=(r + 1) % 64, l=rng.randrange(10), host=host, pid=pid, d=r % 8, c=rng.randrange(32))
        line = t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z " + text
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0, help="approximate size of the generated logs (MB)")
    ap.add_argument("--pods", type=int, default=32)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "logs-parse.md")
    args = ap.parse_args()
    rng = random.Random(11)
    per_pod = int(args.mb * 1e6 / args.pods)
    with tempfile.TemporaryDirectory(prefix="k10s-bench-logs-") as tmp:
        root = Path(tmp) / "bundle"
        (root / "raw").mkdir(parents=True)
        t = time.perf_counter()
        rows = [
            dict(captured_at=T0 + dt.timedelta(hours=1), node=f"node-{p // 2}", namespace="team-a", pod=f"job-worker-{p}",
                 pod_uid=f"uid-{p}", container="pytorch", previous=False, body=make_body(rng, p, per_pod), error=None)
            for p in range(args.pods)
        ]
        total_bytes = sum(len(r["body"].encode()) for r in rows)
        total_lines = sum(r["body"].count("\n") for r in rows)
        write_raw_table(root, "logs", rows)
        del rows
        gen_s = time.perf_counter() - t
        write_json_atomic(root / "manifest.json", new_manifest())
        bundle = Bundle.open(root)
        parquet = bundle.raw_path("logs")

        t = time.perf_counter()
        con = duckdb.connect()
        n_split = con.sql(
            f"SELECT count(*) FROM (SELECT unnest(string_split(body, chr(10))) AS line FROM read_parquet('{parquet}'))"
        ).fetchall()[0][0]
        bare_s = time.perf_counter() - t
        con.close()

        out = Path(tmp) / "tables"
        out.mkdir()
        issues = ParseIssues()
        ctx = DeriveContext(bundle, out, issues)
        t = time.perf_counter()
        logs.derive(ctx)
        table = ctx.table("log_events")
        derive_s = time.perf_counter() - t
        kinds = {}
        for k in table.column("kind").to_pylist():
            kinds[k] = kinds.get(k, 0) + 1

    mb = total_bytes / 1e6
    report = f"""# Benchmark: container-log deriver (raw/logs -> log_events)

Machine: 2 cores (shared with other jobs), 24 GB RAM, Python {platform.python_version()}, duckdb {duckdb.__version__}.
Command: `python benchmarks/bench_logs_parse.py --mb {args.mb:g} --pods {args.pods}`

Input: {args.pods} container logs, {mb:.1f} MB, {total_lines:,} lines with the API timestamp prefix
(about 65% noise, 30% progress lines, 5% NCCL INFO of which 5% bootstrap/comm lines, 0.005% errors); raw/logs.parquet (zstd).
Generation + Parquet write took {gen_s:.1f} s (not counted).

| step | time (s) | throughput (MB/s) |
|---|---:|---:|
| bare DuckDB read + line split ({n_split:,} lines) | {bare_s:.2f} | {mb / bare_s:.1f} |
| logs deriver (prefilter, steps in SQL, events in Python, Parquet out) | {derive_s:.2f} | {mb / derive_s:.1f} |

Deriver / bare ratio: {derive_s / bare_s:.1f}x. Events written: {table.num_rows:,}
({", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items()))}).
Parse issues: {issues.total()}.
"""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
