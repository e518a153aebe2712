"""Tables during capture: the heavy parsers run on each raw row group as capture writes it.

Capture's raw writers call ``LiveTables`` with every row group of ``raw/exec`` and
``raw/scrapes`` they write. Each row group becomes one task per parser of
``rebuild_pool.SHARDED`` (nvidia-smi XML/CSV, ss, dcgm-exporter), run in a process pool while
capture waits on the network. When capture has closed the bundle, ``finish`` folds those
results into a normal rebuild (``rebuild_pool.derive_parallel`` with ``precomputed``): the
lighter parsers (objects, logs, dmesg, ranks, gpus) run then, and ``tables/`` is the same as
``k10s rebuild`` would write. If anything is off (a task failed, row groups missing), the
results are dropped and the rebuild parses everything itself: nothing captured is lost.

Memory: at most ``2 x jobs`` row groups wait for a worker; beyond that the raw writer
waits (capture keeps its bound on memory).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.rebuild.pool import SHARDED, Task, pool, rebuild_parallel, run_task


class LiveTables:
    """Parse raw row groups as capture writes them; ``finish`` writes tables/."""

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self.work = Path(tempfile.mkdtemp(prefix="k10s-live-tables-"))
        self.groups: dict[str, int] = {}
        self.results: dict[str, list[Future]] = {parser: [] for parser in SHARDED}
        self._pool = None
        self._slots = threading.BoundedSemaphore(2 * self.jobs)
        self._count = 0

    def attach(self, writers: dict[str, Any]) -> None:
        """Listen to the raw writers of the sources the sharded parsers read; start the workers
        now, while capture's first calls wait on the network."""
        self._pool = pool(self.jobs)
        self._pool.submit(int)  # starts the process server and a worker
        for raw in sorted({raw for raw, _ in SHARDED.values()}):
            writer = writers.get(raw)
            if writer is not None and hasattr(writer, "listeners"):
                writer.listeners.append(self._listener(raw))

    def _listener(self, raw: str) -> Callable[[pa.Table, int], None]:
        def on_group(table: pa.Table, first_row: int) -> None:
            index = self.groups.get(raw, 0)
            self.groups[raw] = index + 1
            rows = table.append_column("_row", pa.array(range(first_row, first_row + table.num_rows), pa.int64()))
            for parser, (parser_raw, source) in SHARDED.items():
                if parser_raw == raw:
                    self._submit(parser, raw, index, rows, source)

        return on_group

    def _submit(self, parser: str, raw: str, index: int, rows: pa.Table, source: str) -> None:
        mask = pc.fill_null(pc.equal(rows["source"], source), False)
        if not pc.any(mask).as_py():
            done: Future = Future()
            done.set_result({"tables": [], "issues": None, "seconds": 0.0})
            done.out_dir = self.work / "none"  # type: ignore[attr-defined]
            self.results[parser].append(done)
            return
        if self._pool is None:
            self._pool = pool(self.jobs)
        self._slots.acquire()
        self._count += 1
        task = Task(self._count, parser, raw, index, index + 1, rows.nbytes)
        future = self._pool.submit(run_task, None, task, str(self.work / str(self._count)), {}, set(), rows)
        future.add_done_callback(lambda _f: self._slots.release())
        future.out_dir = self.work / str(self._count)  # type: ignore[attr-defined]
        self.results[parser].append(future)

    def finish(self, bundle: Bundle) -> None:
        """Write tables/ of the closed bundle, using what was parsed during capture."""
        try:
            rebuild_parallel(bundle, self.jobs, precomputed=self.results, precomputed_groups=dict(self.groups))
        finally:
            self.close()

    def close(self, wait: bool = True) -> None:
        """Stop the workers (``wait=False``: drop queued row groups, do not wait for running ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None
        shutil.rmtree(self.work, ignore_errors=True)


__all__ = ["LiveTables"]
