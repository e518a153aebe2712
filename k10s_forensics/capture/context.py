"""What a collector sees while it runs: the source, the scope, the inventory, the bundle sink.

``CollectorContext`` is handed to ``Collector.run``. It writes rows (and counts them), fans
work out over the bounded pool, and records errors so that a failing node or pod degrades
only that part of the capture.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, TypeVar

from k10s_forensics.store.bundle import utcnow
from k10s_forensics.capture.inventory import Inventory
from k10s_forensics.capture.pool import WorkPool
from k10s_forensics.capture.retry import CallError, Deadline, Stopped
from k10s_forensics.capture.scope import Scope
from k10s_forensics.capture.sink import Sink
from k10s_forensics.capture.source import KubeSource, object_json

T = TypeVar("T")
MAX_ERRORS_KEPT = 25


@dataclass
class CaptureOptions:
    """Knobs of one capture (CLI flags)."""

    duration_s: float = 0.0
    interval_s: float = 15.0
    concurrency: int = 64
    timeout_s: float = 30.0
    deadline_s: float | None = None
    log_bytes: int = 5 << 20
    log_concurrency: int = 16
    exec_timeout_s: float = 60.0
    prometheus: str | None = None
    since_s: float = 6 * 3600
    history_from: str | None = None  # --from: RFC 3339, unix seconds or relative (-3h)
    history_to: str | None = None    # --to (default now)
    prometheus_access: Any = None    # capture.promclient.PromAccess (auth, headers, TLS)
    skip: frozenset[str] = frozenset()
    #: Derive tables/ while capturing, in this many processes (0: no tables; rebuild or analyze derive them).
    table_jobs: int = 0


@dataclass
class CollectorRun:
    """Bookkeeping of one collector over all phases (becomes its manifest entry)."""

    name: str
    status: str = "pending"
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    rows: int = 0
    items_ok: int = 0
    items_failed: int = 0
    errors: list[str] = field(default_factory=list)
    errors_dropped: int = 0
    skipped: list[str] = field(default_factory=list)
    skip_reason: str | None = None
    failure: str | None = None
    interrupted: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_error(self, message: str) -> None:
        with self._lock:
            if message in self.errors:
                return
            if len(self.errors) < MAX_ERRORS_KEPT:
                self.errors.append(message)
            else:
                self.errors_dropped += 1

    def final_status(self) -> str:
        """ok / partial / failed / skipped from what happened.

        Nothing succeeded and every error is an RBAC denial: ``skipped`` (the rows written
        are the failed attempts, each with its reason); nothing succeeded otherwise: ``failed``.
        """
        if self.failure is not None:
            return "partial" if self.items_ok else "failed"
        if self.skip_reason is not None and self.rows == 0 and not self.items_ok:
            return "skipped"
        if self.interrupted is not None:
            return "partial"
        if self.items_failed or self.errors:
            if self.items_ok == 0:
                forbidden = bool(self.errors) and all("forbidden" in e for e in self.errors)
                return "skipped" if forbidden else "failed"
            return "partial"
        return "ok"

    def manifest_entry(self) -> dict[str, Any]:
        from k10s_forensics.store.bundle import iso

        errors = list(self.errors)
        if self.failure is not None:
            errors.insert(0, self.failure)
        if self.skip_reason is not None and self.final_status() == "skipped":
            errors.insert(0, self.skip_reason)
        if self.interrupted is not None:
            errors.append(f"interrupted: {self.interrupted}")
        if self.errors_dropped:
            errors.append(f"... and {self.errors_dropped} more errors")
        entry: dict[str, Any] = {
            "name": self.name,
            "status": self.final_status(),
            "started_at": iso(self.started_at),
            "finished_at": iso(self.finished_at),
            "rows": self.rows,
            "errors": errors,
        }
        if self.skipped:
            entry["skipped"] = list(self.skipped)
        return entry


class CollectorContext:
    """Per-collector handle: source, scope, inventory, options, and row/error recording."""

    def __init__(self, *, source: KubeSource, scope: Scope, inventory: Inventory, options: CaptureOptions,
                 sink: Sink, pool: WorkPool, deadline: Deadline, run: CollectorRun, progress: Any = None,
                 round_index: int = 0):
        self.source = source
        self.scope = scope
        self.inventory = inventory
        self.options = options
        self.sink = sink
        self.pool = pool
        self.deadline = deadline
        self.run = run
        self.progress = progress
        self.round_index = round_index

    # ---- rows -------------------------------------------------------------------------
    def add(self, raw_name: str, row: dict[str, Any]) -> None:
        """Write one raw row (dropped silently once the bundle is closed after a stop)."""
        if self.sink.add(raw_name, row):
            with self.run._lock:
                self.run.rows += 1

    def add_object(self, item: dict[str, Any], api_version: str, kind: str, captured_at: dt.datetime) -> None:
        meta = item.get("metadata") or {}
        self.add("objects", {
            "captured_at": captured_at, "api_version": api_version, "kind": kind,
            "namespace": meta.get("namespace"), "name": meta.get("name"), "uid": meta.get("uid"),
            "body": object_json(item, api_version, kind),
        })

    # ---- outcomes ---------------------------------------------------------------------
    def error(self, message: str) -> None:
        """An item (node, pod, listing) failed; the collector becomes partial (or failed if nothing worked)."""
        with self.run._lock:
            self.run.items_failed += 1
        self.run.add_error(message)
        if self.progress is not None:
            self.progress.error(self.run.name)

    def ok(self) -> None:
        """An item (node, pod, listing) succeeded."""
        with self.run._lock:
            self.run.items_ok += 1

    def skip(self, reason: str) -> None:
        """Nothing to do here (API not served, no such pods): recorded as ``skipped`` if no rows."""
        self.run.skip_reason = reason

    def note_skipped(self, reason: str) -> None:
        """A part that is absent by design (a CRD not served): listed, not an error."""
        with self.run._lock:
            if reason not in self.run.skipped:
                self.run.skipped.append(reason)

    # ---- work -------------------------------------------------------------------------
    def fan_out(self, fn: Callable[[T], None], items: Iterable[T], describe: Callable[[T], str], *,
                limit: threading.Semaphore | None = None, node_task: bool = False) -> None:
        """Run ``fn(item)`` for every item on the bounded pool and wait for all of them.

        A ``CallError`` from one item is recorded as an error naming it (``describe(item)``);
        the others go on. ``Stopped`` ends the wait and is re-raised.
        """
        if node_task and self.progress is not None:
            items = list(items)
            self.progress.add_node_tasks(len(items))

        def task(item: T) -> None:
            self.deadline.check()
            if limit is not None:
                limit.acquire()
            try:
                fn(item)
            except CallError as exc:
                self.error(f"{describe(item)}: {exc}")
            finally:
                if limit is not None:
                    limit.release()
                if node_task and self.progress is not None:
                    self.progress.node_done()

        futures = [self.pool.submit(task, item) for item in items]
        self.pool.wait(futures, self.deadline)
        for fut in futures:
            exc = fut.exception() if fut.done() else None
            if exc is not None and not isinstance(exc, Stopped):
                self.error(f"internal error: {exc.__class__.__name__}: {exc}")

    def list_objects(self, path: str, api_version: str, kind: str, *, params: list[tuple[str, Any]] | None = None,
                     keep: Callable[[dict[str, Any]], bool] | None = None,
                     seen: Callable[[dict[str, Any]], None] | None = None) -> int:
        """List ``path`` page by page, write each kept object, call ``seen`` on it; returns the count.

        Raises:
            CallError: the listing failed (the caller records it).
        """
        count = 0
        for _doc, items in self.source.list(path, params):
            captured_at = utcnow()
            for item in items:
                if keep is not None and not keep(item):
                    continue
                self.add_object(item, api_version, kind, captured_at)
                if seen is not None:
                    seen(item)
                count += 1
        return count

    def try_list(self, path: str, api_version: str, kind: str, **kwargs: Any) -> int | None:
        """``list_objects`` that records a failure as an error naming the listing; None on failure."""
        try:
            count = self.list_objects(path, api_version, kind, **kwargs)
        except CallError as exc:
            self.error(f"list {kind} ({path}): {exc}")
            return None
        self.ok()
        return count


__all__ = ["CaptureOptions", "CollectorContext", "CollectorRun"]
