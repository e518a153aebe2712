"""One incident, one bundle: triggers join, captures are bounded and rate-limited.

A trigger for a job with an incident opened less than ``cooldown_s`` ago joins it (its
reason is added; no new capture). Otherwise a new incident opens, if the job's rate
(``rate_per_job_per_h``) and the cluster's (``rate_cluster_per_h``) allow, and its capture
starts at once when fewer than ``max_concurrent`` run, else as soon as one ends. Before a
capture, retention makes room; when it cannot (everything left is being written), the
incident is skipped and the reason said (log, /metrics, ``skipped`` in ``k10s watch list``).
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from k10s_forensics.watch import runner, store
from k10s_forensics.watch.config import WatchConfig
from k10s_forensics.watch.metrics import Metrics
from k10s_forensics.watch.triggers import Trigger

#: The space a capture is assumed to need when deciding whether retention must make room.
CAPTURE_ESTIMATE_BYTES = 64 << 20
MAX_TRIGGERS_KEPT = 200  # per incident (a storm of 100 pods failing joins one incident)
_UNSAFE = re.compile(r"[^a-z0-9.-]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass
class Incident:
    id: str
    job: str
    kind: str
    started_at: float
    triggers: list[Trigger] = field(default_factory=list)
    capture_started_at: float | None = None
    state: str = "queued"


def incident_id(job: str, at: float) -> str:
    """``20261128T101500Z-team-a-llama-ft``: time first (sorting = age), the job made path-safe."""
    stamp = dt.datetime.fromtimestamp(at, dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    safe = _UNSAFE.sub("-", job.lower().replace("/", "-")).strip("-.")[:80] or "job"
    return f"{stamp}-{safe}"


class Incidents:
    """Decides what each trigger does and runs the captures (threads)."""

    def __init__(self, cfg: WatchConfig, connection: Any, metrics: Metrics,
                 after: Callable[[Incident, dict[str, Any]], None] | None = None, log: Any = None):
        self.cfg, self.connection, self.metrics, self.after = cfg, connection, metrics, after
        self.out = Path(cfg.out)
        self.log = log or sys.stderr
        self.lock = threading.Lock()
        self.open: dict[str, Incident] = {}      # job -> its latest incident
        self.running: set[str] = set()           # incident ids of first captures running
        self.busy: set[str] = set()              # incident ids of second rounds running
        self.queue: deque[Incident] = deque()
        self.job_starts: dict[str, deque[float]] = {}
        self.cluster_starts: deque[float] = deque()
        self.skipped: deque[dict[str, Any]] = deque(maxlen=100)
        self.threads: list[threading.Thread] = []
        self.stopping = threading.Event()

    def say(self, text: str) -> None:
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%H:%M:%SZ")
        clean = _CONTROL.sub("?", text)  # log lines and webhook labels come from the cluster: no escapes
        print(f"k10s watch {stamp} {clean}", file=self.log, flush=True)

    # ---- triggers -----------------------------------------------------------------------
    def submit(self, trigger: Trigger) -> str:
        """``joined``, ``started``, ``queued`` or ``rate-limited``."""
        # alert names come from outside: one label value for all of them (bounded /metrics)
        self.metrics.inc("k10s_watch_triggers_total", reason="alert" if trigger.reason.startswith("alert-") else trigger.reason)
        now = time.time()
        with self.lock:
            current = self.open.get(trigger.job)
            if current is not None and now - current.started_at < self.cfg.cooldown_s:
                if len(current.triggers) < MAX_TRIGGERS_KEPT:
                    current.triggers.append(trigger)
                self.metrics.inc("k10s_watch_triggers_joined_total")
                return "joined"
            why = self._rate_limited(trigger.job, now)
            if why:
                self.skipped.append({"job": trigger.job, "reason": why, "trigger": trigger.reason, "at": now})
                self.metrics.inc("k10s_watch_skipped_total", reason="rate-limit")
                self.say(f"skipped {trigger.job} ({trigger.reason}): {why}")
                return "rate-limited"
            incident = Incident(incident_id(trigger.job, now), trigger.job, trigger.kind, now, [trigger])
            while any(i.id == incident.id for i in self.open.values()) or (self.out / incident.id).exists():
                incident.id += "-1"
            self.open[trigger.job] = incident
            self.job_starts.setdefault(trigger.job, deque()).append(now)
            self.cluster_starts.append(now)
            self.queue.append(incident)
            started = self._start_queued()
        self.say(f"incident {incident.id}: {trigger.reason} {trigger.detail}")
        return "started" if incident in started else "queued"

    def _rate_limited(self, job: str, now: float) -> str:
        for starts in (self.cluster_starts, self.job_starts.get(job, deque())):
            while starts and now - starts[0] > 3600:
                starts.popleft()
        if len(self.job_starts.get(job, ())) >= self.cfg.rate_per_job_per_h:
            return f"rate limit: {self.cfg.rate_per_job_per_h} captures of this job in the last hour"
        if len(self.cluster_starts) >= self.cfg.rate_cluster_per_h:
            return f"rate limit: {self.cfg.rate_cluster_per_h} captures in the cluster in the last hour"
        return ""

    def _start_queued(self) -> list[Incident]:
        started = []
        while self.queue and len(self.running) < self.cfg.max_concurrent and not self.stopping.is_set():
            incident = self.queue.popleft()
            self.running.add(incident.id)
            thread = threading.Thread(target=self._run, args=(incident,), name=f"capture-{incident.id}", daemon=True)
            self.threads.append(thread)
            thread.start()
            started.append(incident)
        return started

    # ---- one incident -------------------------------------------------------------------
    def _room(self, incident: Incident) -> str:
        r = self.cfg.retention
        with self.lock:
            busy = (self.running | self.busy) - {incident.id}
        removed = store.prune(self.out, max_bundles=max(r.max_bundles - 1, 0), max_age_h=r.max_age_h,
                              max_bytes=r.max_bytes, busy=busy, need_bytes=CAPTURE_ESTIMATE_BYTES)
        for name in removed:
            self.metrics.inc("k10s_watch_retention_removed_total")
            self.say(f"retention removed {name}")
        free = shutil.disk_usage(self.out).free
        removable = sum(store.dir_bytes(p) for p in store.entries(self.out)
                        if p.name.removesuffix(store.PARTIAL) not in busy)
        if free < CAPTURE_ESTIMATE_BYTES and free + removable < CAPTURE_ESTIMATE_BYTES:  # removing would not help
            return f"disk full: {free} bytes free under {self.out}, a capture needs {CAPTURE_ESTIMATE_BYTES}"
        while shutil.disk_usage(self.out).free < CAPTURE_ESTIMATE_BYTES:  # the disk itself is full
            removed = store.prune(self.out, max_bundles=0, max_age_h=r.max_age_h, max_bytes=r.max_bytes, busy=busy, limit=1)
            if not removed:
                free = shutil.disk_usage(self.out).free
                return f"disk full: {free} bytes free under {self.out}, a capture needs {CAPTURE_ESTIMATE_BYTES}"
            self.metrics.inc("k10s_watch_retention_removed_total")
            self.say(f"retention removed {removed[0]} (disk full)")
        used = store.used_bytes(self.out)
        if used + CAPTURE_ESTIMATE_BYTES > r.max_bytes:
            return (f"no room: {used} bytes kept by incidents being written, max_bytes {r.max_bytes} "
                    f"leaves less than the {CAPTURE_ESTIMATE_BYTES} bytes a capture needs")
        return ""

    def _run(self, incident: Incident) -> None:
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            why = self._room(incident)
            if why:
                incident.state = "skipped"
                self.skipped.append({"job": incident.job, "reason": why, "id": incident.id, "at": time.time()})
                self.metrics.inc("k10s_watch_skipped_total", reason="disk")
                self.say(f"skipped {incident.id}: {why}")
                return
            result = runner.run_first(self.connection, self.out, incident, self.cfg, lambda: self._started(incident))
            incident.state = result["state"]
            self._account(incident, result)
            if self.after:
                self.after(incident, result)
            if result["state"] == "captured" and self.cfg.capture.second_round_after_s > 0:
                thread = threading.Thread(target=self._second_round, args=(incident,), name=f"next-{incident.id}", daemon=True)
                self.threads.append(thread)
                thread.start()
        except Exception as exc:  # noqa: BLE001 (the watcher outlives a failed incident; the reason is said)
            incident.state = "failed"
            self.metrics.inc("k10s_watch_capture_failures_total")
            self.say(f"incident {incident.id} failed: {exc.__class__.__name__}: {exc}"[:400])
        finally:
            with self.lock:
                self.running.discard(incident.id)
                self._start_queued()

    def _started(self, incident: Incident) -> None:
        incident.capture_started_at = time.time()
        incident.state = "capturing"
        delay = incident.capture_started_at - incident.triggers[0].at
        self.metrics.observe("k10s_watch_trigger_to_capture_seconds", delay)
        self.metrics.inc("k10s_watch_captures_total")
        self.say(f"capturing {incident.job} into {incident.id} ({delay:.2f}s after the trigger)")

    def _account(self, incident: Incident, result: dict[str, Any]) -> None:
        cap = result.get("capture") or {}
        self.metrics.observe("k10s_watch_capture_seconds", float(cap.get("seconds") or 0.0))
        if not cap.get("ok"):
            self.metrics.inc("k10s_watch_capture_failures_total")
        self.metrics.set("k10s_watch_bytes_kept", store.used_bytes(self.out))
        self.say(f"incident {incident.id} {result['state']}: {result.get('y') or cap.get('error', '')}")

    def _second_round(self, incident: Incident) -> None:
        wait_s = incident.started_at + self.cfg.capture.second_round_after_s - time.time()
        if self.stopping.wait(max(0.0, wait_s)):
            return
        with self.lock:
            self.busy.add(incident.id)
        try:
            cap = runner.run_second(self.connection, self.out, incident, self.cfg)
        finally:
            with self.lock:
                self.busy.discard(incident.id)
        self.metrics.inc("k10s_watch_second_rounds_total")
        if not cap.get("ok"):
            self.metrics.inc("k10s_watch_capture_failures_total")
        self.metrics.set("k10s_watch_bytes_kept", store.used_bytes(self.out))
        self.say(f"incident {incident.id}: second round {'captured' if cap.get('ok') else cap.get('error')}")

    def idle(self) -> bool:
        with self.lock:
            return not self.running and not self.queue and not self.busy

    def stop(self, wait_s: float = 0.0) -> None:
        self.stopping.set()
        end = time.time() + wait_s
        for t in list(self.threads):
            t.join(max(0.0, end - time.time()))


__all__ = ["CAPTURE_ESTIMATE_BYTES", "Incident", "Incidents", "incident_id"]
