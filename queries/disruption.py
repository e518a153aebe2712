"""Narrative for disruption findings."""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.queries._narrative import ranks_text

WHAT = {
    "preempted": "was preempted by the scheduler for a higher-priority pod",
    "evicted": "was evicted by its kubelet (node pressure)",
    "node-shutdown": "was terminated by its node's shutdown",
    "drained": "was evicted through the Eviction API (a drain, an autoscaler, the descheduler)",
    "taint-eviction": "was deleted by the taint manager (its node tainted NoExecute)",
    "pod-gc": "was deleted by the pod garbage collector",
}


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    what = WHAT.get(finding.get("cause") or "", "was stopped by Kubernetes (a DisruptionTarget)")
    pods = ", ".join(finding["pods"]) or "A pod"
    start = finding.get("started_at")
    when = start.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if isinstance(start, dt.datetime) else (start or "---")
    detail = row.get("detail") or "---"
    if finding["ranks"]:
        others = row.get("job_pods", 0) - row.get("pods_stopped", 0)
        finding["title"] = f"{ranks_text(finding['ranks'])} of {finding.get('job')}: {pods} {what}; {others} other pod(s) waited"
        finding["summary"] = (f"{ranks_text(finding['ranks'])} of {finding.get('job')} stopped from outside the job: {pods} {what} "
                              f"at {when} ({detail}), while {others} other pod(s) of the job ran on and only waited for it.")
    else:
        finding["title"] = f"Every pod of {finding.get('job')} stopped from outside the job: {finding.get('cause') or 'disrupted'}"
        finding["summary"] = f"Every pod of {finding.get('job')} stopped from outside the job at {when}: {pods} {what} ({detail})."
    return finding
