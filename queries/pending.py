"""Narrative for pending findings."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import known

WHY = {
    "quota": "Kueue has not admitted the workload (quota)",
    "evicted": "Kueue evicted or preempted the workload",
    "untolerated-taint": "every GPU node it could use has a taint it does not tolerate",
    "node-selector": "no GPU node matches its nodeSelector",
    "fragmentation": "enough GPUs are free in total, but not on any single eligible node",
    "insufficient-gpu": "no eligible node has enough free GPUs",
    "unschedulable": "the scheduler cannot place it",
    "not-scheduled-yet": "it has not been scheduled yet",
}
FIX = {
    "quota": "Free quota in the ClusterQueue (finish/lower-priority workloads), borrow from the cohort, or lower the request.",
    "evicted": "Check the preemption policy and PodsReady timeout of the ClusterQueue; resubmit with a higher priority if appropriate.",
    "untolerated-taint": "Add the matching toleration to the pod template, or remove the taint from the GPU nodes meant for this job.",
    "node-selector": "Fix the nodeSelector/affinity or label the intended GPU nodes.",
    "fragmentation": "Drain/consolidate small jobs (or use topology-aware scheduling) to free a whole node, or split the request across more pods.",
    "insufficient-gpu": "Wait for capacity, add nodes (cluster autoscaler), or reduce the per-pod GPU request.",
    "unschedulable": "Read the scheduler message below and fix the named constraint.",
    "not-scheduled-yet": "Check the scheduler (or a custom scheduler name) is running.",
}


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    cause = finding["cause"] or "unschedulable"
    n = row.get("pending_pods") or 0
    pasted = row.get("pending_pods") is None  # read from a scheduler's words in the job's log, not from the API
    what = f"{n} pod{'s' if n != 1 else ''} of {finding['job']}" if n else f"pods of {finding['job']}" if pasted else f"workload {finding['job']}"
    finding["title"] = f"{what} pending: {WHY.get(cause, cause)}"
    since = finding.get("started_at") or ("--- (the log gives no time)" if pasted else "---")
    parts = [f"{what[0].upper() + what[1:]} pending since {since}: {WHY.get(cause, cause)}"
             + (", in the scheduler's own words in the log (how many pods and which nodes only the API says)." if pasted else ".")]
    if row.get("untolerated_taints"):
        parts.append(f"Untolerated taints: {', '.join(row['untolerated_taints'])}.")
    if row.get("gpu_request") is not None and row.get("eligible_nodes") is not None:
        parts.append(f"Each pod asks for {row['gpu_request']} GPUs; {row['eligible_nodes']} eligible nodes, {known(row.get('fitting_nodes'), 'not known')} with room, "
                     f"{known(row.get('free_gpus_eligible'), 'not known')} GPUs free on them (at most {known(row.get('max_free_gpus_node'), 'not known')} on one).")
    if row.get("kueue_message"):
        parts.append(f"Kueue: {row['kueue_message']}.")
    if row.get("quota_nominal_gpus") is not None:
        parts.append(f"ClusterQueue {known(row.get('cluster_queue'), 'not known')}: {known(row.get('quota_used_gpus'), 'not known')} of {row['quota_nominal_gpus']} GPUs in use.")
    if row.get("held_gpus"):
        parts.append(f"Partial gang: {row['running_pods']} pods already run and hold {row['held_gpus']} GPUs while waiting.")
    if row.get("scheduler_message"):
        parts.append(f"Scheduler: {row['scheduler_message']}")
    finding["summary"] = " ".join(parts)
    finding["recommendation"] = FIX.get(cause, FIX["unschedulable"])
    if row.get("held_gpus"):
        finding["recommendation"] += " Meanwhile the running workers hold GPUs idle: use gang scheduling (Kueue, Volcano, coscheduling) so a gang starts whole."
    return finding
