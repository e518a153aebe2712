"""Parallel ``k10s rebuild``: parsers run in a process pool, by source and by raw row group.

Plan: every parser that reads only the raw layer is a task; the large per-row sources
(``SHARDED``: nvidia-smi XML/CSV, ss, dcgm-exporter) are split into tasks of contiguous
raw row groups of about ``SHARD_BYTES`` each. A worker runs one task against its own
``ShardContext`` (the rebuild's ``DeriveContext`` restricted to those row groups) and writes
what it derives to a folder of its own; memory per worker is one row group plus the
parser's state. The parent then folds every task's tables and parse issues into the real
context in plan order (parser order, then row-group order) — never in completion order —
so the output is the same whatever the number of processes or the order they finish in.
Parsers that read derived tables (``AFTER_MERGE``: prom_ksm, prometheus, ranks, gpus) run
afterwards in the parent, exactly as in a serial rebuild.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
import traceback
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle
from k10s_forensics.store import derived
from k10s_forensics.parsers import DERIVERS, ParseIssues, load_deriver
from k10s_forensics.rebuild.memory import keep_freed_memory
from k10s_forensics.rebuild.run import DeriveContext, ensure_layer, rebuild
from k10s_forensics.rebuild.shard import SHARD_SUFFIX, ShardContext, Task, Unwritten, read_shard

#: Parser -> (raw file, source): parsers whose output for a raw row group depends on that group only.
SHARDED: dict[str, tuple[str, str]] = {
    "nvidia_smi_xml": ("exec", "nvidia-smi-xml"),
    "nvidia_smi_csv": ("exec", "nvidia-smi-csv"),
    "ss": ("exec", "ss"),
    "dcgm": ("scrapes", "dcgm-exporter"),
}
#: Parsers that read tables the others derived: run in the parent after the merge, in DERIVERS
#: order. prom_ksm adds history pods not already listed (it reads pods, nodes) and prometheus
#: attributes series with pods and nodes; in a worker they saw empty tables (pods listed twice).
#: Moving them after the merge keeps every table's row order: no parser between them and
#: ranks emits into pods, containers, nodes or gpu_samples.
AFTER_MERGE: tuple[str, ...] = ("prom_ksm", "prometheus", "ranks", "gpus")
#: Compressed raw bytes per sharded task (a few tasks per process balance the load).
SHARD_BYTES = 24 << 20
#: Below this many raw bytes ``jobs=0`` (auto) parses in-process: starting workers costs more.
AUTO_MIN_RAW_BYTES = 32 << 20
#: Automatic rebuilds (analyze, report, sql on stale tables) use the pool only with this many
#: cores: on 2 cores the pool's merge cost ate its gain (BENCHMARKS.md, scale).
AUTO_MIN_CORES = 4


def effective_jobs(bundle: Bundle, jobs: int) -> int:
    """Processes to use: ``jobs`` as given, or for 0 every core (one when the raw layer is small)."""
    if jobs > 0:
        return jobs
    raw_bytes = sum(p.stat().st_size for p in (bundle.path / "raw").glob("*.parquet"))
    return 1 if raw_bytes < AUTO_MIN_RAW_BYTES else max(os.cpu_count() or 1, 1)


def _row_group_ranges(path: Path, shard_bytes: int) -> list[tuple[int, int, int]]:
    """Contiguous (first, stop, bytes) ranges of row groups of about ``shard_bytes`` each."""
    try:
        meta = pq.ParquetFile(path).metadata
    except Exception:  # damaged: one task, which records the damage as a serial rebuild would
        return [(0, -1, 0)]
    ranges, first, size = [], 0, 0
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        size += sum(group.column(c).total_compressed_size for c in range(group.num_columns))
        if size >= shard_bytes:
            ranges.append((first, i + 1, size))
            first, size = i + 1, 0
    if first < meta.num_row_groups or not ranges:
        ranges.append((first, meta.num_row_groups, size))
    return ranges


def plan(bundle: Bundle, shard_bytes: int | None = None) -> list[Task]:
    """Every task of a parallel rebuild, in merge order."""
    shard_bytes = shard_bytes or SHARD_BYTES
    tasks: list[Task] = []
    for parser in DERIVERS:
        if parser in AFTER_MERGE:
            continue
        if parser in SHARDED:
            raw = SHARDED[parser][0]
            path = bundle.raw_path(raw)
            if path.is_file():
                for first, stop, size in _row_group_ranges(path, shard_bytes):
                    tasks.append(Task(len(tasks), parser, raw, first, None if stop < 0 else stop, size))
                continue
        tasks.append(Task(len(tasks), parser))
    return tasks


def _crash_issue(issues: ParseIssues, parser: str, exc: BaseException) -> None:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f"{Path(last.filename).name}:{last.lineno}" if last else "?"
    issues.add(f"parser:{parser}", f"parser crashed ({exc.__class__.__name__} at {where})", str(exc)[:200])


def run_task(bundle_path: str | None, task: Task, out_dir: str, damaged: dict[str, bool], missing_reported: set[str],
             rows: pa.Table | None = None) -> dict[str, Any]:
    """Worker side: derive one task into ``out_dir``; its tables, issues, wall and CPU seconds.

    With ``rows`` (capture's just-written row group) the bundle is not read at all."""
    keep_freed_memory()
    started, cpu = time.perf_counter(), time.process_time()
    bundle = Bundle.open(bundle_path) if bundle_path else Unwritten()
    issues = ParseIssues()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ctx = ShardContext(bundle, out, issues, task, rows)
    ctx._damaged.update(damaged)
    ctx._missing_reported.update(missing_reported)
    try:
        load_deriver(task.parser)(ctx)
    except Exception as exc:  # a parser bug costs its tables, never the rebuild
        _crash_issue(issues, task.parser, exc)
    tables = ctx.write_shard()
    return {"tables": tables, "issues": issues, "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu}


def _merge(ctx: DeriveContext, out_dir: Path, result: dict[str, Any]) -> None:
    ctx.issues.merge(result["issues"])
    for name in result["tables"]:
        for table in read_shard(out_dir / f"{name}{SHARD_SUFFIX}"):  # one per worker emit: the same row groups
            ctx.emit(name, table)


def pool(jobs: int) -> ProcessPoolExecutor:
    mp = multiprocessing.get_context("forkserver")
    mp.set_forkserver_preload(["k10s_forensics.rebuild.pool", *(f"k10s_forensics.parsers.{p}" for p in DERIVERS)])
    # no max_tasks_per_child: CPython 3.11's pool can hang when it replaces a worker
    return ProcessPoolExecutor(max_workers=jobs, mp_context=mp)


def usable_precomputed(bundle: Bundle, precomputed: dict[str, list[Future]] | None, groups: dict[str, int] | None) -> dict[str, list[Future]]:
    """The parsers whose live results cover every row group of their raw file, all succeeded."""
    if not precomputed:
        return {}
    counts = {}
    for raw in {raw for raw, _ in SHARDED.values()}:
        try:
            counts[raw] = pq.ParquetFile(bundle.raw_path(raw)).metadata.num_row_groups if bundle.raw_path(raw).is_file() else 0
        except Exception:
            return {}
    good = {}
    for parser, futures in precomputed.items():
        raw = SHARDED[parser][0]
        if (groups or {}).get(raw, 0) != counts[raw] or len(futures) != counts[raw]:
            continue
        if all(f.exception() is None for f in futures):
            good[parser] = futures
    return good


def derive_parallel(ctx: DeriveContext, jobs: int, timings: dict[str, float] | None = None,
                    precomputed: dict[str, list[Future]] | None = None, precomputed_groups: dict[str, int] | None = None) -> tuple[str, ...]:
    """Run every raw-only parser of ``ctx``'s bundle in ``jobs`` processes and fold the results
    into ``ctx`` in plan order. Returns the parsers still to run (in order) in this process.

    ``precomputed``: per sharded parser, the results capture computed for each raw row group
    (``capture.live_tables``); used only when they cover the whole file."""
    live = usable_precomputed(ctx.bundle, precomputed, precomputed_groups)
    tasks = [t for t in plan(ctx.bundle) if t.parser not in live]
    work = ctx.out_dir / "_shards"
    work.mkdir()
    damaged = {k: v for k, v in ctx._damaged.items() if v}
    missing = _report_missing_columns(ctx)
    try:
        with pool(jobs) as executor:
            # biggest first keeps the processes busy to the end; merging waits for plan order
            futures = {t.order: executor.submit(run_task, str(ctx.bundle.path), t, str(work / str(t.order)), damaged, missing)
                       for t in sorted(tasks, key=lambda t: -t.weight)}
            ordered = [(t.parser, futures[t.order], work / str(t.order)) for t in tasks]
            ordered += [(p, f, f.out_dir) for p, fs in live.items() for f in fs]
            position = {p: i for i, p in enumerate(DERIVERS)}
            ordered.sort(key=lambda item: position[item[0]])  # stable: row-group order within a parser
            for parser, future, out_dir in ordered:
                try:
                    result = future.result()
                except Exception as exc:  # the worker died (killed, out of memory): its tables are lost
                    _crash_issue(ctx.issues, parser, exc)
                    continue
                if result["issues"] is not None:
                    _merge(ctx, out_dir, result)
                if timings is not None:
                    timings[parser] = timings.get(parser, 0.0) + result["seconds"]
                shutil.rmtree(out_dir, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return AFTER_MERGE


def derive_raw_step(bundle: Bundle, jobs: int, timings: dict[str, float] | None = None, *,
                    precomputed: dict[str, list[Future]] | None = None,
                    precomputed_groups: dict[str, int] | None = None) -> derived.DeriveRaw | None:
    """The first step of a rebuild in ``jobs`` processes (0: see ``effective_jobs``), or None
    when one process it is (the serial path)."""
    n = effective_jobs(bundle, jobs)
    if n <= 1 and not precomputed:
        return None
    return lambda ctx: derive_parallel(ctx, n, timings, precomputed, precomputed_groups)


def rebuild_parallel(bundle: Bundle, jobs: int = 0, *, precomputed: dict[str, list[Future]] | None = None,
                     precomputed_groups: dict[str, int] | None = None, timings: dict[str, float] | None = None,
                     say: derived.Say | None = derived.stderr_say) -> ParseIssues:
    """A rebuild (under the layer's lock, see ``rebuild.build_layer``) with the raw-only parsers in
    ``jobs`` processes (0: see ``effective_jobs``); ``precomputed``: see ``derive_parallel``."""
    step = derive_raw_step(bundle, jobs, timings, precomputed=precomputed, precomputed_groups=precomputed_groups)
    return rebuild(bundle, timings=timings, say=say, derive_raw=step)


def ensure_tables(bundle: Bundle) -> None:
    """Make the derived layer current (``engine.connect`` calls this only when it is not):
    in processes for a large bundle on a machine with ``AUTO_MIN_CORES`` cores or more."""
    jobs = 0 if (os.cpu_count() or 1) >= AUTO_MIN_CORES else 1
    ensure_layer(bundle, derive_raw=derive_raw_step(bundle, jobs))


def _report_missing_columns(ctx: DeriveContext) -> set[str]:
    """Record raw files lacking required columns once, here (each worker would record it again)."""
    for name in RAW_SCHEMAS:
        path = ctx.bundle.raw_path(name)
        if not path.is_file() or ctx._damaged.get(name):
            continue
        try:
            pf = pq.ParquetFile(path)
        except Exception:
            continue
        if pf.metadata.num_rows == 0:
            continue
        present = set(pf.schema_arrow.names)
        missing = [f.name for f in RAW_SCHEMAS[name] if f.name not in present]
        if missing:
            ctx._missing_reported.add(name)
            ctx.issues.add(f"raw:{name}", "missing required columns", ", ".join(missing), f"raw/{name}.parquet")
    return set(RAW_SCHEMAS)


__all__ = ["AFTER_MERGE", "SHARDED", "ShardContext", "Task", "derive_parallel", "derive_raw_step", "effective_jobs", "ensure_tables", "plan",
           "rebuild_parallel", "run_task"]
