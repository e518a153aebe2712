"""Narrative for nccl-hang findings (culprit selection is in nccl_hang.sql)."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import duration_text, ranks_text

WHY = {
    "rank-failed": "failed before the collective timed out ({kind})",
    "peer-closed": "closed its NCCL connections (the others name its address as the remote peer)",
    "desync": "was waiting on a different collective (desync)",
    "rank-hung": "never reported the collective the others waited on",
}


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    who = ranks_text(finding["ranks"])
    cause = finding["cause"] or "rank-hung"
    why = WHY.get(cause, WHY["rank-hung"]).format(kind=row.get("failure_kind") or "error")
    where = ", ".join(finding["nodes"]) or "an unknown node"
    finding["title"] = f"{who} {why.split(' (')[0]}; the job hung on {row.get('op_type') or 'a collective'}"
    parts = [
        f"{who} on {where} {why}.",
        f"{row.get('victims')} ranks hit NCCL watchdog timeout ({duration_text(row.get('timeout_ms'))}) on SeqNum {row.get('seq_num')} ({row.get('op_type')}).",
    ]
    resolved = [e for e in finding["evidence"] if e.get("what") == "peer-address" and e.get("resolved_pod")]
    if resolved:
        peers = "; ".join(f"{e['peer_ip']} = {e['resolved_pod']} on {e.get('resolved_node') or '?'} (ranks {', '.join(str(r) for r in (e.get('resolved_ranks') or [])) or '?'})" for e in resolved[:3])
        parts.append(f"Peer addresses in the errors: {peers}.")
    if finding["severity"] == "info":
        parts.append("The first failure is a CUDA OOM: see the oom-cascade finding.")
    finding["summary"] = " ".join(parts)
    if cause == "rank-failed" and (row.get("failure_kind") or "").startswith("xid"):
        finding["recommendation"] = f"Drain {where} and check the GPU (see gpu-health); restart the job from its last checkpoint on healthy nodes."
    elif cause == "desync":
        finding["recommendation"] = "Ranks issue collectives in different orders: look for rank-dependent control flow (data-dependent branches, uneven batches); enable TORCH_NCCL_TRACE_BUFFER_SIZE for a Flight Recorder dump."
    else:
        finding["recommendation"] = (f"Inspect {who} on {where} (py-spy dump of the process, dmesg, its container log); "
                                     "set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 to get a Flight Recorder dump next time.")
    return finding
