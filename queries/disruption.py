"""Narrative for disruption findings."""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.queries._narrative import known, ranks_text

WHAT = {
    "preempted": "was preempted by the scheduler for a higher-priority pod",
    "evicted": "was evicted by its kubelet (node pressure)",
    "node-shutdown": "was terminated by its node's shutdown",
    "drained": "was evicted through the Eviction API (a drain, an autoscaler, the descheduler)",
    "taint-eviction": "was deleted by the taint manager (its node tainted NoExecute)",
    "pod-gc": "was deleted by the pod garbage collector",
    "reclaimed": "was evicted by Volcano to reclaim its queue's borrowed GPUs for another queue",
}


#: Slurm's reasons for ending a job (log_slurm), and Kubernetes' deadline, as said in a title
SLURM = {"time-limit": "its time limit", "preempted": "preemption by a higher-priority job",
         "node-failure": "a node failure", "requeued": "a requeue", "deadline-exceeded": "its active deadline (activeDeadlineSeconds)",
         "spot-reclaimed": "the reclaim of its spot capacity", "evicted": "an eviction for node pressure",
         "node-shutdown": "its node's shutdown"}


#: who stopped the job, by the api_reason of a stop read from a log or a job's status
LOGGED_STOPS = {"Slurm": "Slurm", "submitit": "Slurm (submitit)", "SkyPilot": "SkyPilot", "Kubernetes": "Kubernetes",
                "DeadlineExceeded": "Kubernetes"}


def _slurm(finding: dict[str, Any], row: dict[str, Any], when: str) -> dict[str, Any]:
    why = SLURM.get(finding.get("cause") or "", "a cancellation")
    detail = row.get("detail") or "---"
    nodes = ", ".join(finding.get("nodes") or []) or "---"
    if finding["ranks"]:
        finding["title"] = (f"{ranks_text(finding['ranks'])} of {known(finding.get('job'), 'not named')}: node {nodes} failed (Slurm); "
                            f"the job's other ranks waited")
        finding["summary"] = (f"Slurm declared node {nodes} failed at {when} ({detail}): {ranks_text(finding['ranks'])} of "
                              f"{known(finding.get('job'), 'not named')} ran there; the job's other ranks ran on and only waited for them.")
    else:
        who = LOGGED_STOPS[row["api_reason"]]
        finding["title"] = f"{who} ended {known(finding.get('job'), 'not named')}: {why}"
        failed = f"; node(s) it declared failed: {nodes}" if finding.get("cause") == "node-failure" else ""
        finding["summary"] = (f"{who} ended {known(finding.get('job'), 'not named')} at {when} for {why} ({detail}){failed}. "
                              "The scheduler's stop names no rank: a failure before it is the incident's root.")
    return finding


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    start = finding.get("started_at")
    if row.get("api_reason") in LOGGED_STOPS:
        return _slurm(finding, row, start.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if isinstance(start, dt.datetime) else (start or "---"))
    what = WHAT.get(finding.get("cause") or "", "was stopped by Kubernetes (a DisruptionTarget)")
    pods = ", ".join(finding["pods"]) or "A pod"
    when = start.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if isinstance(start, dt.datetime) else (start or "---")
    detail = row.get("detail") or "---"
    if finding["ranks"]:
        others = row.get("job_pods", 0) - row.get("pods_stopped", 0)
        finding["title"] = f"{ranks_text(finding['ranks'])} of {known(finding.get('job'), 'not named')}: {pods} {what}; {others} other pod(s) waited"
        finding["summary"] = (f"{ranks_text(finding['ranks'])} of {known(finding.get('job'), 'not named')} stopped from outside the job: {pods} {what} "
                              f"at {when} ({detail}), while {others} other pod(s) of the job ran on and only waited for it.")
    else:
        finding["title"] = f"Every pod of {known(finding.get('job'), 'not named')} stopped from outside the job: {finding.get('cause') or 'disrupted'}"
        finding["summary"] = f"Every pod of {known(finding.get('job'), 'not named')} stopped from outside the job at {when}: {pods} {what} ({detail})."
    return finding
