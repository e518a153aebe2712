"""Narrative for nccl-hang findings (culprit selection is in nccl_hang.sql and the hang evidence views)."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import duration_text, ranks_text

WHY = {
    "rank-failed": "failed before the collective timed out ({kind})",
    "peer-closed": "closed its NCCL connections (the others name its address as the remote peer)",
    "lagging-rank": "joined the collective and never finished it (PyTorch's desync report names it)",
    "collective-mismatch": "ran a different collective from the others (a fingerprint mismatch, or its traceback's call differs from its peers')",
    # the watchdog compare's two kinds of collective-mismatch (said by its detail)
    "size-mismatch": "entered the same collective with a different size (NumelIn/NumelOut differ from the other ranks')",
    "op-mismatch": "entered a different collective type at the same sequence number as the others",
    "seq-mismatch": ("waited in an earlier collective of another type or size than the others' (they completed that "
                     "sequence number, paired with a different call of theirs)"),
    "behind": "never enqueued the collective the others waited on (its last enqueued work is lower)",
    "desync": "was waiting on a different collective (desync)",
    "never-joined": "never joined the collective the others waited on",
    "rank-dead": "is a dead process according to NCCL RAS",
    # a two-rank desync report whose named rank died of a fatal signal (queries/_evidence_logs.sql desync_dead)
    **{k: f"died of {v} and never joined the collective the others waited on" for k, v in (
        ("segfault", "a segmentation fault"), ("sigbus", "a bus error"), ("abort", "an abort"), ("sigfpe", "a floating-point exception"),
        ("sigill", "an illegal instruction"))},
}

RECOMMEND_DESYNC = ("Ranks issue collectives in different orders or sizes: look for rank-dependent control flow (data-dependent "
                    "branches, uneven batches, a rank skipping a step); enable TORCH_NCCL_TRACE_BUFFER_SIZE for a Flight Recorder dump.")


def _decided(row: dict[str, Any]) -> str:
    by = row.get("decided_by")
    if not by:
        return ""
    text = f"Decided by {by} evidence (confidence {row.get('confidence') or 'none'})"
    detail = row.get("decision_detail")
    return text + (f": {detail}." if detail else ".")


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    cause = finding["cause"] or "never-joined"
    op = row.get("op_type") or "a collective"
    victims = row.get("victims") or 0
    ranks = f"{victims} rank{'s' if victims != 1 else ''}"
    if not victims:
        wait = "No watchdog timeout was logged for it."
    elif row.get("seq_num") is None and row.get("op_type") is None:  # gloo's own timeouts, PyTorch 1.9's watchdog: no SeqNum
        wait = f"{ranks} timed out waiting in a collective ({duration_text(row.get('timeout_ms'))})."
    else:
        wait = f"{ranks} hit NCCL watchdog timeout ({duration_text(row.get('timeout_ms'))}) on SeqNum {row.get('seq_num')} ({row.get('op_type')})."
    if cause == "no-single-culprit":
        finding["title"] = f"The job hung on {op}; no single culprit rank"
        finding["summary"] = " ".join(p for p in (wait, _decided(row) or f"{row.get('decision_detail')}.") if p)
        finding["recommendation"] = ("Every rank was stuck in the same collective: look at the network (NCCL RAS, IB counters, "
                                     "the network finding), the GPUs of the job (Xid, gpu-health) and NCCL's own WARN lines; set "
                                     "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 for a Flight Recorder dump next time.")
        return finding
    who = ranks_text(finding["ranks"])
    # the watchdog compare's collective mismatch says which: another op or another size (its detail's first word)
    how = (row.get("decision_detail") or "").split(":")[0] if row.get("decided_by") == "watchdog-compare" else ""
    why = WHY.get(how if cause == "collective-mismatch" and how in WHY else cause, WHY["never-joined"]).format(
        kind=row.get("failure_kind") or "error")
    where = ", ".join(finding["nodes"]) or "an unknown node"
    finding["title"] = f"{who} {why.split(' (')[0]}; the job hung on {op}"
    parts = [f"{who} on {where} {why}.", wait]
    suspects = row.get("suspect_ranks") or []
    if suspects:
        parts.append(f"Also named: {ranks_text(suspects).lower()} (less likely).")
    resolved = [e for e in finding["evidence"] if e.get("what") == "peer-address" and e.get("resolved_pod")]
    if resolved:
        peers = "; ".join(f"{e['peer_ip']} = {e['resolved_pod']} on {e.get('resolved_node') or '?'} (ranks {', '.join(str(r) for r in (e.get('resolved_ranks') or [])) or '?'})" for e in resolved[:3])
        parts.append(f"Peer addresses in the errors: {peers}.")
    parts.append(_decided(row))
    if finding["severity"] == "info" and row.get("failure_kind") == "cuda_oom":  # info for a low-confidence verdict too
        parts.append("The first failure is a CUDA OOM: see the oom-cascade finding.")
    finding["summary"] = " ".join(p for p in parts if p)
    if cause == "rank-failed" and (row.get("failure_kind") or "").startswith("xid"):
        finding["recommendation"] = f"Drain {where} and check the GPU (see gpu-health); restart the job from its last checkpoint on healthy nodes."
    elif cause in ("desync", "collective-mismatch", "lagging-rank", "behind"):
        finding["recommendation"] = f"Inspect {who} first. {RECOMMEND_DESYNC}"
    else:
        finding["recommendation"] = (f"Inspect {who} on {where} (py-spy dump of the process, dmesg, its container log); "
                                     "set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 to get a Flight Recorder dump next time.")
    return finding
