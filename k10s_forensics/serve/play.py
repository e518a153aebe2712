"""``k10s serve --play``: a bundle's incident played as it unfolds, for watchers to catch.

The bundle (usually ``k10s simulate rank-segfault`` or another rank-failure scenario) holds
the state during the hang: one rank's container terminated, the others stuck. Playing it:

``running`` (from the start): every pod of the job Running, no restarts; logs end 10 s
before the culprit's container ended.
``fail`` (``fail_s``): the culprit's container terminated as recorded (exit code, reason), and
a pod Kubernetes stopped (``k10s simulate pod-disrupted``) with its DisruptionTarget condition and status reason;
its whole log is there, the others' logs end where it ended.
``hang`` (``hang_s``): every log as recorded (the others' watchdog timeouts); exec
(nvidia-smi, ss) replays the recorded hang-time answers.
``restart`` (``restart_s``): the operator deletes the job's pods and creates new ones with
new names (Running, short fresh logs); the job object says ``Restarting``.

Every change goes through the change log, so watch streams see it as it happens.
"""

from __future__ import annotations

import copy
import datetime as dt
import threading
import time
from dataclasses import dataclass
from typing import Any

from k10s_forensics.store.bundle import iso, parse_iso
from k10s_forensics.serve.changes import ChangeLog
from k10s_forensics.serve.store import Recording, Store

PODS = ("", "v1", "pods")
JOB_LABELS = ("training.kubeflow.org/job-name", "jobset.sigs.k8s.io/jobset-name", "ray.io/cluster",
              "trainer.kubeflow.org/trainjob-name", "batch.kubernetes.io/job-name")
PHASES = ("running", "fail", "hang", "restart")


@dataclass
class PlayTimes:
    """Seconds after the start at which each phase begins."""

    fail_s: float = 5.0
    hang_s: float = 7.0
    restart_s: float = 60.0

    @classmethod
    def parse(cls, text: str) -> "PlayTimes":
        """``fail=5,hang=7,restart=60`` (any subset)."""
        times = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            if name not in ("fail", "hang", "restart"):
                raise ValueError(f"unknown play phase {name!r} (fail, hang, restart)")
            setattr(times, f"{name}_s", float(value))
        if not times.fail_s <= times.hang_s <= times.restart_s:
            raise ValueError("play times must be in order: fail <= hang <= restart")
        return times


def _job_of(pod: dict[str, Any]) -> str | None:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return next((labels[k] for k in JOB_LABELS if labels.get(k)), None)


def _terminated(pod: dict[str, Any]) -> dict[str, Any] | None:
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        term = (cs.get("state") or {}).get("terminated") or (cs.get("lastState") or {}).get("terminated")
        if term and term.get("exitCode", 0) != 0:
            return term
    return None


def running_version(pod: dict[str, Any], started: str) -> dict[str, Any]:
    """The pod as it was before anything failed: Running, ready, no restarts."""
    body = copy.deepcopy(pod)
    status = body.setdefault("status", {})
    status["phase"] = "Running"
    for key in ("reason", "message"):  # a stopped pod's (Evicted, Terminated by a node shutdown) comes with its stop
        status.pop(key, None)
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"]
    for cs in status.get("containerStatuses") or []:
        cs.update(ready=True, started=True, restartCount=0, lastState={}, state={"running": {"startedAt": started}})
    return body


class Play:
    """Plays the incident of ``store`` on a server's change log (``start()`` runs the clock)."""

    def __init__(self, store: Store, times: PlayTimes | None = None):
        self.store, self.times = store, times or PlayTimes()
        self.log = ChangeLog(store)
        pods = {o.name: o for o in store.objects.get(PODS, []) if _job_of(o.body)}
        failed = sorted((parse_iso(t.get("finishedAt")) or dt.datetime.max.replace(tzinfo=dt.timezone.utc), name)
                        for name, o in pods.items() if (t := _terminated(o.body)))
        if not failed:
            raise ValueError("nothing to play: no pod of a training job has a failed container in this bundle")
        self.fail_at, self.culprit = failed[0]
        self.namespace = pods[self.culprit].namespace
        self.job = _job_of(pods[self.culprit].body)
        self.originals = {n: copy.deepcopy(o.body) for n, o in pods.items() if o.namespace == self.namespace and _job_of(o.body) == self.job}
        self.new_names: dict[str, str] = {}
        self.phase = "running"
        self.phase_started: dict[str, float] = {}
        self._stop = threading.Event()
        started = iso(self.fail_at - dt.timedelta(minutes=30))
        for body in self.originals.values():
            self.log.put(PODS, running_version(body, started))
        self._job_status("Running")
        self.log.compact()  # the played world starts here: no history before it
        store.log_filter = self.log_body
        self.phase_started["running"] = time.time()

    # ---- the clock ----------------------------------------------------------------------
    def start(self) -> "Play":
        threading.Thread(target=self._run, name="k10s-play", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        t0 = time.monotonic()
        for phase, at_s in (("fail", self.times.fail_s), ("hang", self.times.hang_s), ("restart", self.times.restart_s)):
            if self._stop.wait(max(0.0, t0 + at_s - time.monotonic())):
                return
            self.advance(phase)

    def advance(self, phase: str) -> None:
        """Enter ``phase`` now (tests may drive the clock themselves)."""
        self.phase_started[phase] = time.time()
        self.phase = phase
        if phase == "fail":
            self.log.put(PODS, copy.deepcopy(self.originals[self.culprit]))
        elif phase == "restart":
            self._restart()
        self.log.tick()

    def _restart(self) -> None:
        started = iso(self.fail_at + dt.timedelta(minutes=1))
        self._job_status("Restarting")
        for name, body in sorted(self.originals.items()):
            self.log.delete(PODS, self.namespace, name)
            new = running_version(body, started)
            new_name = _renamed(name)
            new["metadata"].update(name=new_name, uid=f"{new['metadata'].get('uid', '')[:-4]}r001",
                                   creationTimestamp=started)
            self.new_names[new_name] = name
            self._copy_recordings(name, new_name, started)
            self.log.put(PODS, new)

    def _copy_recordings(self, old: str, new: str, started: str) -> None:
        for key, recs in list(self.store.execs.items()):
            if key[0] == self.namespace and key[1] == old:
                self.store.execs[(key[0], new, key[2], key[3])] = recs
        for key in [k for k in self.store.logs if k[0] == self.namespace and k[1] == old and not k[3]]:
            text = f"{started} restarted by the operator: loading checkpoint\n{started} step 0 loss 2.31\n"
            self.store.logs[(key[0], new, key[2], False)] = Recording(self.fail_at, {"body": text, "error": None})

    def _job_status(self, condition: str) -> None:
        for key, objs in list(self.store.objects.items()):
            for obj in objs:
                if obj.namespace == self.namespace and obj.name == self.job and key[0] and "status" in obj.body:
                    body = copy.deepcopy(obj.body)
                    now = iso(dt.datetime.now(dt.timezone.utc))
                    body["status"]["conditions"] = [{"type": condition, "status": "True", "reason": f"Job{condition}",
                                                     "lastTransitionTime": now}]
                    self.log.put(key, body)

    # ---- logs as of the current phase ---------------------------------------------------
    def log_body(self, namespace: str, pod: str, body: str) -> str | None:
        """The part of a recorded log this phase shows (None: the pod does not exist yet)."""
        if namespace != self.namespace or pod in self.new_names or pod not in self.originals:
            return body
        if self.phase in ("hang", "restart"):
            return body
        if self.phase == "fail" and pod == self.culprit:
            return body
        cutoff = self.fail_at - dt.timedelta(seconds=10) if self.phase == "running" else self.fail_at
        kept = []
        for line in body.splitlines(keepends=True):
            ts = parse_iso(line.split(" ", 1)[0])
            if ts is not None and ts > cutoff:
                break
            kept.append(line)
        return "".join(kept)

    def describe(self) -> dict[str, Any]:
        return {"job": f"{self.namespace}/{self.job}", "culprit": self.culprit, "fail_at": iso(self.fail_at),
                "phase": self.phase, "phase_started": dict(self.phase_started), "new_names": dict(self.new_names)}


def _renamed(name: str) -> str:
    head, _, tail = name.rpartition("-")
    if head and len(tail) == 5 and tail.isalnum() and not tail.isdigit():
        return f"{head}-r{tail[1:]}"
    return f"{name}-r1"


__all__ = ["PHASES", "Play", "PlayTimes", "running_version"]
