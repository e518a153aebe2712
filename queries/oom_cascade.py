"""Narrative for oom-cascade findings."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import duration_text, mib_text, ranks_text


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    first, together = row.get("first_rank"), row.get("together_ranks") or []
    who = (f"Rank {first}" if first is not None else ranks_text(together) if together
           else ranks_text([]) + " in " + (", ".join(finding["pods"]) or "the job"))
    host = finding["cause"] == "host-oom"
    finding["title"] = f"{who} ran out of {'host' if host else 'GPU'} memory and took the job down"
    step = f" at step {row['step']}" if row.get("step") is not None else ""
    mem = f" ({mib_text(row.get('in_use_mib'))} / {mib_text(row.get('total_mib'))})" if row.get("total_mib") else ""
    parts = [f"{who} {'was OOMKilled' if host else 'OOM'}{step}{mem}."]
    if together:
        finding["title"] = f"{who} ran out of GPU memory at the same allocation at once"
        parts = [f"{who} OOM at the same allocation at once{step}{mem}: no single culprit, the job fits on none of them."]
    unordered = row.get("unordered_ranks") or []
    if unordered and not together:
        who = ranks_text(unordered)
        finding["title"] = f"{who} failed, one of them out of GPU memory, in a log that cannot order them"
        parts = [f"{who} failed in a log without a clock, one of them out of GPU memory{step}{mem}: which came first is "
                 "unknown, no single culprit."]
    if row.get("watchdog_ranks"):
        parts.append(f"{row['watchdog_ranks']} ranks hit NCCL watchdog timeout ({duration_text(row.get('timeout_ms'))}).")
    if row.get("sigterm_ranks"):
        parts.append(f"{row['sigterm_ranks']} sibling processes were SIGTERM'd by torchrun.")
    if row.get("remote_error_ranks"):
        parts.append(f"{row['remote_error_ranks']} ranks saw the remote peer close.")
    if row.get("headroom_mib") is not None:
        parts.append(f"Headroom at death: {row['headroom_mib']:.0f} MiB" + (f" (it asked for {row['requested_mib']:.0f} MiB)." if row.get("requested_mib") else "."))
    if row.get("medium_why") == "lone-paste-oom":
        parts.append("The paste holds this rank's lines only: whether the other ranks, holding the same model and batch size, "
                     "ran out of memory too is not said (confidence medium).")
    if (row.get("incidents") or 0) > 1:
        parts.append(f"It happened {row['incidents']} times in this capture.")
    if finding.get("gpu_hours_lost"):
        parts.append(f"≈{finding['gpu_hours_lost']:.2f} GPU-hours wasted.")
    finding["summary"] = " ".join(parts)
    finding["recommendation"] = (
        "Raise the container memory limit or reduce data-loader workers/prefetch on that pod." if host else
        "Reduce the per-rank batch size or enable gradient (activation) checkpointing; set "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True if reserved-but-unallocated memory is large; check for uneven sequence lengths on that rank."
    )
    return finding
