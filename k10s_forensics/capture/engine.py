"""The capture engine: runs the collectors phase by phase over a bounded pool into a bundle.

Phases: ``start`` (objects listed, visible devices, Prometheus history), ``round`` × N
(every ``--interval`` for ``--duration``: DCGM scrape, nvidia-smi, ss), ``end`` (objects
listed again, kernel log, container logs). Within a phase collectors run at once, each in
its own thread, after the collectors it ``needs``; their per-node/per-pod calls share one
``WorkPool`` of ``--concurrency`` workers. Ctrl-C or the global deadline stop everything,
and the bundle is closed with ``complete: false`` and every collector's status.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from k10s_forensics.store.bundle import Bundle, BundleWriter, iso, new_manifest, utcnow
from k10s_forensics.store.columns import use_column_writers
from k10s_forensics.capture.context import CaptureOptions, CollectorContext, CollectorRun
from k10s_forensics.capture.inventory import Inventory
from k10s_forensics.capture.pool import WorkPool
from k10s_forensics.capture.progress import NullProgress
from k10s_forensics.capture.retry import CallError, Deadline, Stopped
from k10s_forensics.capture.scope import Scope
from k10s_forensics.capture.sink import Sink
from k10s_forensics.capture.source import CallStats, KubeSource
from k10s_forensics.errors import CollectorError


#: API groups whose resource lists collectors look up (fetched at once before the start phase).
DISCOVERY_GROUPS = ("kubeflow.org", "trainer.kubeflow.org", "jobset.x-k8s.io", "batch", "ray.io", "kueue.x-k8s.io",
                    "nvidia.com", "events.k8s.io")


#: Buffered text per raw table before a row group is written (4 tables: memory stays well under 100 MB).
FLUSH_BYTES = 8 << 20


@dataclass
class CaptureResult:
    """What a capture produced."""

    bundle: Bundle
    complete: bool
    stop_reason: str | None
    rounds: int
    elapsed_s: float
    stats: CallStats


class CaptureEngine:
    """One capture: ``run()`` writes the bundle at ``out_dir`` and returns a ``CaptureResult``."""

    def __init__(self, source: KubeSource, scope: Scope, options: CaptureOptions, out_dir: str | Path, *,
                 collectors: Sequence[Any] | None = None, progress: Any = None, deadline: Deadline | None = None):
        self.source = source
        self.scope = scope
        self.options = options
        self.out_dir = Path(out_dir)
        if collectors is None:
            from k10s_forensics.collectors import COLLECTORS as collectors
        self.collectors = [c for c in collectors if c.name not in options.skip]
        self.progress = progress or NullProgress()
        self.deadline = deadline or source.deadline
        self.inventory = Inventory(scope)
        self.pool = WorkPool(options.concurrency)
        self.runs: dict[str, CollectorRun] = {c.name: CollectorRun(c.name) for c in collectors}
        for name in options.skip:
            if name in self.runs:
                self.runs[name].skip_reason = "skipped by --skip"
        self.rounds_done = 0
        self.sink: Sink | None = None

    # ---- public -------------------------------------------------------------------------
    def run(self) -> CaptureResult:
        started = time.monotonic()
        cluster = self._cluster_info()
        manifest = new_manifest(cluster=cluster, scope=self.scope.manifest(), window_start=utcnow())
        writer = BundleWriter(self.out_dir, manifest)
        use_column_writers(writer, FLUSH_BYTES)
        live = None
        if self.options.table_jobs > 0:
            from k10s_forensics.capture.live_tables import LiveTables

            live = LiveTables(self.options.table_jobs)
            live.attach(writer.writers)
        self.sink = Sink(writer)
        previous_handler = self._install_sigint()
        self.progress.start(self)
        try:
            self._run_phases()
        finally:
            self.progress.stop()
            if previous_handler is not None:
                signal.signal(signal.SIGINT, previous_handler)
        stop_reason = self.deadline.reason if self.deadline.stopped else None
        bundle = self._close(stop_reason, time.monotonic() - started)
        self.pool.shutdown()
        if live is not None and stop_reason is None:
            self._derive_tables(live, bundle)
        elif live is not None:  # stopped (deadline, Ctrl-C): hand the raw bundle back now
            live.close(wait=False)
        return CaptureResult(bundle, stop_reason is None, stop_reason, self.rounds_done, time.monotonic() - started, self.source.stats)

    # ---- phases -------------------------------------------------------------------------
    def _run_phases(self) -> None:
        try:
            self.progress.set_phase("start")
            self._prefetch_discovery()
            self._run_phase("start")
            self._checkpoint()
            first = time.monotonic()
            while True:
                self.deadline.check()
                self.progress.set_phase(f"round {self.rounds_done + 1}")
                self._run_phase("round", self.rounds_done)
                self.rounds_done += 1
                self._checkpoint()
                due = self.rounds_done * self.options.interval_s
                if self.options.duration_s <= 0 or due > self.options.duration_s + 1e-6:
                    break
                self.deadline.sleep(max(0.0, first + due - time.monotonic()))
            self.progress.set_phase("end")
            self._run_phase("end")
        except Stopped:
            pass

    def _prefetch_discovery(self) -> None:
        """Fetch the resource lists of every API group a collector may use, in parallel (one latency, not ten)."""
        try:
            groups = self.source.discovery()
        except CallError:
            return  # collectors report discovery failures themselves
        wanted = [(g, v) for g in DISCOVERY_GROUPS if g in groups for v in groups[g]["versions"] if v]
        futures = [self.pool.submit(self._resources_quietly, g, v) for g, v in wanted]
        self.pool.wait(futures, self.deadline)

    def _resources_quietly(self, group: str, version: str) -> None:
        try:
            self.source.resources(group, version)
        except CallError:
            pass

    def _run_phase(self, phase: str, round_index: int = 0) -> None:
        members = [c for c in self.collectors if phase in c.phases]
        names = {c.name for c in members}
        done = {c.name: threading.Event() for c in members}
        for c in members:
            if phase == "start":
                needs = c.start_needs(self.scope) if hasattr(c, "start_needs") else c.needs
            else:
                needs = getattr(c, "needs_at_end", ()) if phase == "end" else ()
            deps = [done[n] for n in needs if n in names]
            threading.Thread(target=self._run_one, args=(c, phase, round_index, deps, done[c.name]),
                             name=f"collector-{c.name}", daemon=True).start()
        for c in members:
            while not done[c.name].wait(0.1):
                if self.deadline.stopped:
                    self._mark_unfinished(members, done, phase)
                    raise Stopped(self.deadline.reason or "stopped")

    def _run_one(self, collector: Any, phase: str, round_index: int, deps: list[threading.Event], done: threading.Event) -> None:
        run = self.runs[collector.name]
        try:
            for dep in deps:
                while not dep.wait(0.1):
                    if self.deadline.stopped:
                        return
            if self.deadline.stopped:
                return
            run.status = "running"
            run.started_at = run.started_at or utcnow()
            ctx = CollectorContext(source=self.source, scope=self.scope, inventory=self.inventory, options=self.options,
                                   sink=self.sink, pool=self.pool, deadline=self.deadline, run=run, progress=self.progress,
                                   round_index=round_index)
            try:
                collector.run(ctx, phase)
            except Stopped as exc:
                run.interrupted = exc.reason
            except CallError as exc:
                ctx.error(str(exc))
            except Exception as exc:  # a collector bug must not take the capture down
                run.failure = f"internal error in {phase} phase: {exc.__class__.__name__}: {exc}"
            run.finished_at = utcnow()
            run.status = "done"
        finally:
            done.set()

    def _mark_unfinished(self, members: list[Any], done: dict[str, threading.Event], phase: str) -> None:
        reason = self.deadline.reason or "stopped"
        for c in members:
            if not done[c.name].is_set():
                run = self.runs[c.name]
                if run.started_at is not None:
                    run.interrupted = reason
                    run.finished_at = utcnow()

    # ---- bundle ---------------------------------------------------------------------------
    def _entries(self, reason: str | None) -> list[dict[str, Any]]:
        entries = []
        for name, run in self.runs.items():
            if run.started_at is None and run.skip_reason is None:
                run.skip_reason = f"not run: capture {reason} first" if reason else "not run"
            entries.append(run.manifest_entry())
        return entries

    def _checkpoint(self) -> None:
        """Flush rows and the manifest in the writer thread; the next phase starts at once."""
        self.sink.checkpoint([r.manifest_entry() for r in self.runs.values() if r.started_at])

    def _close(self, reason: str | None, elapsed_s: float) -> Bundle:
        writer = self.sink.writer
        manifest = writer.manifest
        manifest["window"]["end"] = iso(utcnow())
        stats = self.source.stats
        manifest["capture"] = {
            "concurrency": self.options.concurrency, "duration_s": self.options.duration_s,
            "interval_s": self.options.interval_s, "rounds": self.rounds_done, "elapsed_s": round(elapsed_s, 3),
            "api_calls": stats.calls, "retries": stats.retries, "failed_calls": stats.failures,
            "stopped": reason, "skipped_by_flag": sorted(self.options.skip),
        }
        # Decide statuses once the sink is sealed: rows arriving later are dropped, rows accepted are written.
        self.sink.seal()
        manifest["collectors"] = []
        for entry in self._entries(reason):
            writer.record_collector(entry)
        return writer.close(complete=reason is None)

    def _derive_tables(self, live: Any, bundle: Bundle) -> None:
        """tables/ from what was parsed during capture; on failure the bundle stays raw-only
        (``k10s analyze`` or ``k10s rebuild`` derive the tables later): nothing captured is lost."""
        self.progress.set_phase("tables")
        try:
            live.finish(bundle)
        except Exception as exc:  # noqa: BLE001 - capture must hand back its bundle whatever happened
            live.close()
            bundle.manifest.setdefault("capture", {})["tables_error"] = f"{exc.__class__.__name__}: {exc}"[:300]
            bundle.save_manifest()

    def _cluster_info(self) -> dict[str, Any]:
        conn = self.source.connection
        info: dict[str, Any] = {"context": conn.context, "server": conn.server, "kubernetes_version": None}
        try:
            info["kubernetes_version"] = self.source.version().get("gitVersion")
        except CallError as exc:
            if exc.kind in ("connection", "timeout"):
                raise CollectorError(f"cannot reach the Kubernetes API at {conn.server}: {exc}") from None
        except Stopped:
            raise CollectorError("interrupted before the capture started") from None
        return info

    def _install_sigint(self) -> Any:
        if threading.current_thread() is not threading.main_thread():
            return None

        def on_sigint(signum: int, frame: Any) -> None:
            if self.deadline.stopped:  # a second Ctrl-C: stop waiting for anything
                raise KeyboardInterrupt
            self.deadline.stop("interrupted (Ctrl-C)")

        return signal.signal(signal.SIGINT, on_sigint)


__all__ = ["CaptureEngine", "CaptureResult"]
