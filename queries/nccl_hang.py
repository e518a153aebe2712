"""Narrative for nccl-hang findings (culprit selection is in nccl_hang.sql and the hang evidence views)."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import duration_text, known, ranks_text

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


def spans(ranks: list[int]) -> str:
    """``4-7``, ``0-3, 8``, ``107``: sorted ranks as runs."""
    out: list[str] = []
    for r in sorted(set(ranks)):
        if out and r == out[-1][1] + 1:
            out[-1][1] = r
        else:
            out.append([r, r])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def _group_hang(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """A hang whose every wait line names one group smaller than the world (nccl_hang.sql ``group_hang``): what the log
    shows, no rank named."""
    waiters = list(row.get("victim_ranks") or [])
    who = f"rank{'s' if len(waiters) != 1 else ''} {spans(waiters)}"
    group = row.get("wait_group") or "one process group"
    if row.get("hand_overs"):  # pipelining's shape inference
        what = f"wait{'s' if len(waiters) == 1 else ''} in {group} ({', '.join(row['hand_overs'])})"
    else:
        granks = row.get("group_ranks") or []
        own = f"(group rank{'s' if len(granks) != 1 else ''} {', '.join(str(g) for g in granks)}) " if granks else ""
        on = ", ".join(p for p in (row.get("op_type"), f"SeqNum {row['seq_num']}" if row.get("seq_num") is not None else None) if p)
        waited = f" ({duration_text(row['timeout_ms'])})" if row.get("timeout_ms") else ""
        what = f"{own}timed out in {group}{' on ' + on if on else ''}{waited}"
    silent = list(row.get("silent_ranks") or [])
    total = row.get("job_ranks")
    rest = (f"Rank{'s' if len(silent) != 1 else ''} {spans(silent)} of the job's {total} log no line read here (silent, or not in "
            "these logs)." if silent else "")
    if finding["evidence"] and isinstance(finding["evidence"][0].get("silent_ranks"), list):  # a long job's silent ranks as runs
        finding["evidence"][0]["silent_ranks"] = spans(silent)
    finding["title"] = (f"{who[0].upper()}{who[1:]} wait{'s' if len(waiters) == 1 else ''} in {group}, a group smaller than the "
                        "world; no rank named")
    finding["summary"] = " ".join(p for p in (
        f"{who[0].upper()}{who[1:]} {what}: a group smaller than the world, by the lines' own words.", rest,
        "No rank is named: no line says which member of the group (or which rank outside it) the waiters wait on.") if p)
    finding["recommendation"] = ("Look at the group's other members and the stage or peer the waiters wait on (a py-spy dump of "
                                 "every rank of the group, the ranks that print nothing); set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and "
                                 "TORCH_NCCL_DUMP_ON_TIMEOUT=1 for a Flight Recorder dump, which lists each group's members and "
                                 "their last collective.")
    return finding


def _waited(row: dict[str, Any]) -> str:
    """How long the watchdog waited, or ``---`` and why (a line without ``Timeout(ms)``, never "None")."""
    return duration_text(row["timeout_ms"]) if row.get("timeout_ms") is not None else "---: its length not logged"


def _work(row: dict[str, Any]) -> str:
    """The collective waited on: ``SeqNum 7 (ALLREDUCE)``; a field the lines do not give is said as such, never "None"
    (torch >= 2.4's ``Exception ... detected by watchdog at work: 1`` names no op)."""
    seq, op = row.get("seq_num"), row.get("op_type")
    if seq is None:
        return f"{op} (sequence number not logged)" if op else "a collective (sequence number not logged)"
    return f"SeqNum {seq} ({op or 'collective not named'})"


def _serving_wait(finding: dict[str, Any]) -> dict[str, Any]:
    """A serving engine's wait on its workers (nccl_hang.sql ``serving_rows``): a hang's symptom, no rank named."""
    finding["title"] = "The serving engine waited on its workers (a hang's symptom); no rank named"
    finding["summary"] = ("vLLM's shared-memory broadcast queue found no free block for a minute or more (`No available shared "
                          "memory broadcast block found`): the process printing it waits for the others to read or write, so "
                          "some worker is slow or stuck (a hung tensor-parallel worker, a long compile, one GPU's fault). The "
                          "printer is the waiter, not the culprit; no line here says which worker stalled.")
    finding["recommendation"] = ("Find the worker that stopped: the other workers' logs, a py-spy dump of each worker process, "
                                 "nvidia-smi for a GPU stuck at 100% or in error; compile or weight-loading steps can take "
                                 "longer than a minute on their own (VLLM_RPC_TIMEOUT, a warm compile cache).")
    return finding


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    if finding["cause"] == "group-hang":
        return _group_hang(finding, row)
    if finding["cause"] == "serving-wait":
        return _serving_wait(finding)
    cause = finding["cause"] or "never-joined"
    op = row.get("op_type") or "a collective"
    victims = row.get("victims") or 0
    ranks = f"{victims} rank{'s' if victims != 1 else ''}"
    if not victims:
        wait = "No watchdog timeout was logged for it."
    elif row.get("seq_num") is None and row.get("op_type") is None:  # gloo's own timeouts, PyTorch 1.9's watchdog: no SeqNum
        after = f" ({duration_text(row['timeout_ms'])})" if row.get("timeout_ms") is not None else ""  # nccl2 prints none
        wait = f"{ranks} timed out waiting in a collective{after}."
    else:
        wait = f"{ranks} hit NCCL watchdog timeout ({_waited(row)}) on {_work(row)}."
    if cause == "no-single-culprit":
        finding["title"] = f"The job hung on {op}; no single culprit rank"
        finding["summary"] = " ".join(p for p in (wait, _decided(row) or f"{known(row.get('decision_detail'), 'no evidence detail recorded')}.") if p)
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
    if row.get("medium_why") == "absent-from-paste":
        parts.append(f"The paste holds no line of {who.lower()}'s own: whether it hung or its lines were left out of the paste "
                     "is not said (warning, not critical).")
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
