"""Narrative for idle-gpu findings."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import known


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    n = row.get("idle_gpus") or len(finding["gpus"])
    cost = row.get("cost_usd")
    money = f" ≈ ${cost:,.2f} at ${row.get('usd_per_gpu_hour'):.2f}/GPU-hour ({row.get('model') or 'unknown model'})" if cost is not None else ""
    hours = f"{finding['gpu_hours_lost']:.2f} GPU-hours" if finding.get("gpu_hours_lost") is not None else "---"
    if finding["cause"] == "allocated-idle":
        pod = (finding.get("job") or finding["pods"][0]) if (finding.get("job") or finding["pods"]) else "a pod"
        finding["title"] = f"{pod} holds {n} GPU{'s' if n != 1 else ''} that did no work"
        finding["summary"] = (f"{n} GPU{'s' if n != 1 else ''} on {', '.join(finding['nodes'])} allocated to {pod} stayed idle (no tensor/SM activity, idle power) "
                              f"for {known(row.get('idle_hours'), 'not known')} h since {known(finding.get('started_at'), 'not known')}: {hours}{money}.")
        finding["recommendation"] = "Check the pod is doing work (stuck rendezvous, waiting for data, a notebook left open); delete it or set an idle timeout so the GPUs return to the pool."
    else:
        finding["title"] = f"{n} healthy GPU{'s' if n != 1 else ''} unallocated and idle"
        finding["summary"] = f"{n} GPUs on {len(finding['nodes'])} schedulable nodes were free and idle: {hours}{money}." + (f" {row['fragmentation']}." if row.get("fragmentation") else "")
        finding["recommendation"] = "Scale the node pool down, or pack pending work onto these nodes" + (" (free GPUs are fragmented across nodes)." if row.get("fragmentation") else ".")
    return finding
