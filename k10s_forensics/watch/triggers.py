"""What starts a capture: pure functions from an object change or a log line to triggers.

* a training pod's container terminated with a non-zero exit code, a signal or OOMKilled,
  or restarted (its restart count went up);
* a training pod turned not Ready while its containers still read running and none has a readiness probe (the node
  controller's mark of a pod whose node stopped answering: a dead node's ranks print nothing and never exit), or its
  ``DisruptionTarget`` condition turned True (preempted, evicted, its node draining or shutting down);
* a training job's condition Failed, Restarting or Suspended turned True (RayJob:
  ``jobStatus`` FAILED / ``jobDeploymentStatus`` Failed);
* a Kueue Workload's Evicted or Preempted condition turned True;
* a log line with a NCCL watchdog timeout, desync report, collective mismatch, CUDA error or
  Xid (the parsers' own patterns, ``parsers/log_patterns.py``).

A pod's job comes from its job labels; a pod with none is not a training pod.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers import log_reports as R

#: (label, job kind or None when the label does not say)
JOB_LABELS = (
    ("training.kubeflow.org/job-name", None),
    ("trainer.kubeflow.org/trainjob-name", "TrainJob"),
    ("jobset.sigs.k8s.io/jobset-name", "JobSet"),
    ("ray.io/originated-from-cr-name", "RayJob"),
    ("ray.io/cluster", None),
    ("batch.kubernetes.io/job-name", None),
)
JOB_CONDITIONS = ("Failed", "Restarting", "Suspended")
WORKLOAD_CONDITIONS = ("Evicted", "Preempted")
SIGNALS = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}

LOG_PATTERNS = (
    ("nccl-watchdog-timeout", P.WATCHDOG_CAUGHT),
    ("nccl-watchdog-timeout", P.EXCEPTION_SUMMARY),
    ("nccl-desync-report", R.DESYNC_RANKS),
    ("nccl-desync-report", R.DESYNC_JOINED),
    ("nccl-desync-report", R.DESYNC_NEVER),
    ("collective-mismatch", P.MISMATCH),
    ("collective-mismatch", R.FINGERPRINT),
    ("cuda-error", P.CUDA_ERROR),
    ("cuda-error", P.NCCL_CUDA_FAILURE),
    ("cuda-error", P.CUDA_KERNEL_ASSERT),
    ("xid", P.XID),
)


@dataclass
class Trigger:
    """Why a capture of ``job`` (``namespace/name``) should start now."""

    job: str
    reason: str
    detail: str = ""
    pod: str = ""
    kind: str = ""
    at: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {"job": self.job, "kind": self.kind, "reason": self.reason, "detail": self.detail[:300],
                "pod": self.pod, "at": round(self.at, 3)}


def job_of_pod(pod: dict[str, Any]) -> tuple[str, str] | None:
    """``(namespace/job, kind)`` of a training pod, None for any other pod."""
    meta = pod.get("metadata") or {}
    labels = meta.get("labels") or {}
    for label, kind in JOB_LABELS:
        if labels.get(label):
            return f"{meta.get('namespace') or ''}/{labels[label]}", kind or ""
    return None


def _statuses(pod: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    return {cs.get("name"): cs for cs in ((pod or {}).get("status") or {}).get("containerStatuses") or [] if cs.get("name")}


def _termination(term: dict[str, Any]) -> str:
    code = term.get("exitCode")
    reason = term.get("reason") or ""
    sig = term.get("signal") or (128 < code < 160 and code - 128 if isinstance(code, int) else None) or (
        -code if isinstance(code, int) and code < 0 else None)
    parts = [f"exit {code}"]
    if sig:
        parts.append(SIGNALS.get(int(sig), f"signal {sig}"))
    if reason:
        parts.append(reason)
    return ", ".join(parts)


def _failed(term: dict[str, Any] | None) -> bool:
    return bool(term) and (term.get("exitCode") not in (0, None) or term.get("reason") == "OOMKilled")


def _condition(pod: dict[str, Any] | None, ctype: str) -> dict[str, Any]:
    conds = ((pod or {}).get("status") or {}).get("conditions") or []
    return next((c for c in conds if isinstance(c, dict) and c.get("type") == ctype), {})


def _node_marked(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Ready True -> False with every container still running and no readiness probe to have failed."""
    statuses = list(_statuses(new).values())
    probed = any(c.get("readinessProbe") for c in ((new.get("spec") or {}).get("containers") or []) if isinstance(c, dict))
    return (_condition(old, "Ready").get("status") == "True" and _condition(new, "Ready").get("status") == "False"
            and bool(statuses) and all("running" in (cs.get("state") or {}) for cs in statuses) and not probed)


def _disruption(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The DisruptionTarget condition's reason and message once it turned True (PreemptionByScheduler,
    DeletionByTaintManager, EvictionByEvictionAPI, TerminationByKubelet, ...), else None."""
    cond = _condition(new, "DisruptionTarget")
    if cond.get("status") != "True" or _condition(old, "DisruptionTarget").get("status") == "True":
        return None
    return ": ".join(str(x) for x in (cond.get("reason"), cond.get("message")) if x) or "DisruptionTarget"


def pod_triggers(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Trigger]:
    """Container failures and restarts, a pod its node's loss left not Ready, a pod about to be disrupted, between two
    versions of a pod (old None: first seen)."""
    if old is None or new is None:
        return []
    owner = job_of_pod(new)
    if owner is None:
        return []
    job, kind = owner
    pod = f"{job.split('/')[0]}/{(new.get('metadata') or {}).get('name', '')}"
    before, out = _statuses(old), []
    for name, cs in _statuses(new).items():
        prev = before.get(name) or {}
        term = (cs.get("state") or {}).get("terminated")
        prev_term = (prev.get("state") or {}).get("terminated")
        if _failed(term) and (not prev_term or prev_term.get("finishedAt") != term.get("finishedAt")):
            reason = "oom-killed" if term.get("reason") == "OOMKilled" else "container-failed"
            out.append(Trigger(job, reason, f"{pod} container {name}: {_termination(term)}", pod, kind))
        elif int(cs.get("restartCount") or 0) > int(prev.get("restartCount") or 0):
            last = (cs.get("lastState") or {}).get("terminated") or {}
            reason = "oom-killed" if last.get("reason") == "OOMKilled" else "container-restarted"
            out.append(Trigger(job, reason, f"{pod} container {name} restarted ({_termination(last)})", pod, kind))
    node = (new.get("spec") or {}).get("nodeName") or "?"
    if _node_marked(old, new):
        out.append(Trigger(job, "pod-not-ready", f"{pod} not Ready with its containers still running: node {node} unreachable?", pod, kind))
    if (why := _disruption(old, new)) is not None:
        out.append(Trigger(job, "pod-disrupted", f"{pod} on {node}: {why}", pod, kind))
    return out


def _true_conditions(obj: dict[str, Any] | None, types: tuple[str, ...]) -> set[str]:
    conds = ((obj or {}).get("status") or {}).get("conditions") or []
    return {c.get("type") for c in conds if isinstance(c, dict) and c.get("status") == "True" and c.get("type") in types}


def job_triggers(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Trigger]:
    """A training job turning Failed / Restarting / Suspended."""
    if old is None or new is None:
        return []
    meta, kind = new.get("metadata") or {}, str(new.get("kind") or "")
    job = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"
    turned = sorted(_true_conditions(new, JOB_CONDITIONS) - _true_conditions(old, JOB_CONDITIONS))
    status, before = new.get("status") or {}, old.get("status") or {}
    if kind == "RayJob" and "FAILED" in (status.get("jobStatus"), str(status.get("jobDeploymentStatus")).upper()) and (
            status.get("jobStatus") != before.get("jobStatus") or status.get("jobDeploymentStatus") != before.get("jobDeploymentStatus")):
        turned.append("Failed")
    return [Trigger(job, f"job-{c.lower()}", f"{kind} {job} is {c}", "", kind) for c in turned]


def workload_triggers(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Trigger]:
    """A Kueue Workload evicted or preempted; the job is its owner."""
    if old is None or new is None:
        return []
    turned = sorted(_true_conditions(new, WORKLOAD_CONDITIONS) - _true_conditions(old, WORKLOAD_CONDITIONS))
    meta = new.get("metadata") or {}
    owner = next(iter(meta.get("ownerReferences") or []), {}) or {}
    job = f"{meta.get('namespace') or ''}/{owner.get('name') or meta.get('name') or ''}"
    return [Trigger(job, f"kueue-{c.lower()}", f"Workload {meta.get('name')} {c}", "", str(owner.get("kind") or ""))
            for c in turned]


def log_reason(line: str) -> str | None:
    """The trigger reason of one log line, or None."""
    for reason, pattern in LOG_PATTERNS:
        if pattern.search(line):
            return reason
    return None


__all__ = ["JOB_LABELS", "LOG_PATTERNS", "Trigger", "job_of_pod", "job_triggers", "log_reason", "pod_triggers",
           "workload_triggers"]
