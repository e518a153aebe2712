"""Report lines that name other ranks: collective fingerprints, desync reports, fr_trace output.

Split from log_classify: these lines are printed by one rank about others, so every event
carries the rank it names in ``rank`` and (set by the caller) the printing rank in
``reporter_rank``. Wordings (PyTorch sources, ProcessGroupWrapper.cpp and TraceUtils.h):

* ``Detected mismatch between collectives on ranks. Rank A is running collective:
  CollectiveFingerPrint(SequenceNumber=.., OpType=.., TensorShape=[..], ...), but Rank B is
  running collective: ...`` (>= 1.12: A is the reporter, B the first rank in rank order whose
  fingerprint differs from A's); ``Rank A is running inconsistent collective:
  CollectiveFingerPrint(OpType=.., ...)`` (1.10-1.11: the reporter's own fingerprint only).
* ``[7] finished collective #182, but didn't join collective #183 (count from 1)``,
  ``[0, 1] joined but didn't finish collective #39 (count from 1)``, ``ranks [3] are the
  lagging ranks that caused this timeout. They never joined any collectives``.
* fr_trace: ``missing ranks: {3, 4}``.
* The AWS Neuron runtime's cross-rank check of a loaded program (NEFF): ``ENC:validate_neff_cc_ops [nec_dev 0]
  mismatching number of cc ops, expected 6 received 3. Check if ranks 1 and 0 are using the same neff`` (the first
  rank is the reporter, ``expected`` its own program's count of collective ops; the second its peer, ``received``
  the peer's): subkind ``neff_cc_ops``, one event per rank, the count in ``fingerprint``.
* Horovod's stall warning (the coordinator, after ``HOROVOD_STALL_CHECK_TIME_SECONDS``): before
  0.20 each stalled tensor with the ranks that never submitted it, ``HorovodBroadcast_x_0
  [missing ranks: 1]``; 0.20 ``Stalled ops: allreduce.x [ready ranks: 0, 7, 3]``, the ranks
  that did (the others never did: the SQL takes the complement in the job's ranks); 0.21+
  a ``Missing ranks:`` header, then ``1: [allreduce.x, ...]`` per missing rank (log_lines.py).
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers import log_patterns as P

Event = dict[str, Any]
#: lines from a monitored barrier's report to its original exception (``Original exception:``, then the error)
BARRIER_WAIT_GAP = 4
#: gloo's own wait on a peer that timed out (a send/recv of the pair never completed): under gloo's monitored
#: barrier's report it is the reporter's wait for the rank running the barrier (``Original exception:``)
GLOO_PAIR_WAIT = re.compile(r"\bTimed out waiting (\d{1,10}) ?ms for (?:send|recv) operation to complete")
#: the rank that reached the monitored barrier, in the report of its own (``Rank 3 successfully reached monitoredBarrier``)
BARRIER_REACHED = re.compile(r"\bRank (\d{1,7}) successfully reached monitoredBarrier")

#: ``Rank A is running collective: CollectiveFingerPrint(...)`` (PyTorch >= 1.12); the first rank
#: of a report is its reporter, the second the first rank (in rank order) whose fingerprint differs.
FINGERPRINT = re.compile(r"Rank (\d+) is running collective: CollectiveFingerPrint\(SequenceNumber=(\d+),?\s*OpType=(\w+)")
#: The second rank of a report whose line was cut before its fingerprint (a paste, a log limit).
FINGERPRINT_CUT = re.compile(r"\bbut Rank (\d+) is running\b")
FINGERPRINT_SHAPE = re.compile(r"TensorShape=\[([^\]]{0,400})\]")
FINGERPRINT_DTYPES = re.compile(r"TensorDtypes=([\w\[\], ]{0,200}?),? TensorDeviceTypes")
#: PyTorch 1.10-1.11: each rank that sees any difference reports only its own fingerprint.
FINGERPRINT_OLD = re.compile(r"Rank (\d+) is running inconsistent collective: CollectiveFingerPrint\(OpType=(\w+)")
RANK_LIST = r"\[(\d+(?:, ?\d+){0,4095})\]"
#: TORCH_NCCL_DESYNC_DEBUG report (TraceUtils): the lagging ranks, three wordings.
DESYNC_RANKS = re.compile(RANK_LIST + r" finished collective #(\d+), but didn't join collective #(\d+)")
DESYNC_JOINED = re.compile(RANK_LIST + r" joined but didn't finish collective #(\d+)")
DESYNC_NEVER = re.compile(r"ranks " + RANK_LIST + r" are the lagging ranks that caused this timeout")
#: Horovod's stall inspector, per stalled tensor: the ranks missing it (< 0.20) or ready with it (0.20).
HOROVOD_MISSING = re.compile(r"\[missing ranks: (\d+(?:, ?\d+){0,4095})\]")
HOROVOD_READY = re.compile(r"\[ready ranks: (\d+(?:, ?\d+){0,4095})\]")

#: the Neuron runtime's check that the ranks of a replica group loaded the same compiled graph: ``expected`` N collective
#: ops (the reporter's own program), ``received`` M (its peer's), ``ranks A and B`` (A the reporter, B the peer)
NEFF_CC_OPS = re.compile(r"mismatching number of cc ops, expected (\d{1,9}),? received (\d{1,9})\b.{0,40}?"
                         r"\bCheck if ranks (\d{1,7}) and (\d{1,7}) are using the same neff")

#: gloo's check on a message a peer sent (``op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't match
#: expected size. Is there a distributed collective mismatch in your code?``): the RECEIVING rank aborts (``terminate called
#: after throwing an instance of 'gloo::EnforceNotMet'``), the sender is a peer the line does not name
GLOO_SIZE_MISMATCH = re.compile(r"Received data size doesn't match expected size")


def _int(value: str | None) -> int | None:
    return int(value) if value not in (None, "") else None


def _fingerprints(text: str) -> list[Event]:
    """``Detected mismatch between collectives``: one event per rank named, with its fingerprint.

    The first rank of a report is the one that printed it (``reporter_rank``); the fingerprint
    text (op, shapes, dtypes; the sequence number is ``seq_num``) goes to ``fingerprint``.
    """
    found = list(FINGERPRINT.finditer(text))
    if found:
        out = []
        for i, m in enumerate(found):
            segment = text[m.end(): found[i + 1].start() if i + 1 < len(found) else m.end() + 2000]
            shape = FINGERPRINT_SHAPE.search(segment)
            dtypes = FINGERPRINT_DTYPES.search(segment)
            fp = f"OpType={m.group(3)}"
            if shape and (i + 1 < len(found) or shape.start() < 400):
                fp += f", TensorShape=[{shape.group(1)}]"
            if dtypes and (i + 1 < len(found) or dtypes.start() < 600):
                fp += f", TensorDtypes={dtypes.group(1)}"
            out.append({"kind": "collective_mismatch", "subkind": "fingerprint", "rank": _int(m.group(1)), "seq_num": _int(m.group(2)),
                        "op_type": m.group(3), "fingerprint": fp, "_reporter": _int(found[0].group(1))})
        cut = FINGERPRINT_CUT.search(text, found[-1].end()) if len(found) == 1 else None
        if cut:  # the line ends before the other rank's fingerprint: it differs, in what is unknown
            out.append({"kind": "collective_mismatch", "subkind": "fingerprint_cut", "rank": _int(cut.group(1)),
                        "seq_num": out[0]["seq_num"], "op_type": None, "fingerprint": "(cut short)", "_reporter": out[0]["_reporter"]})
        return out
    old = FINGERPRINT_OLD.search(text)
    if old:
        shape = FINGERPRINT_SHAPE.search(text, old.end())
        fp = f"OpType={old.group(2)}" + (f", TensorShape=[{shape.group(1)}]" if shape else "")
        return [{"kind": "collective_mismatch", "subkind": "fingerprint_self", "rank": _int(old.group(1)), "op_type": old.group(2),
                 "fingerprint": fp, "_reporter": _int(old.group(1))}]
    if P.MISMATCH.search(text):
        return [{"kind": "collective_mismatch", "subkind": "mismatch"}]
    neff = NEFF_CC_OPS.search(text) if "cc ops" in text else None
    if neff and neff.group(3) != neff.group(4):  # each side's count of collective ops, the reporter first
        return [{"kind": "collective_mismatch", "subkind": "neff_cc_ops", "rank": _int(neff.group(r)),
                 "fingerprint": f"cc ops={neff.group(c)}", "_reporter": _int(neff.group(3))} for r, c in ((3, 1), (4, 2))]
    if "Received data size" in text and GLOO_SIZE_MISMATCH.search(text):  # the receiver's report: no sender named
        return [{"kind": "collective_mismatch", "subkind": "gloo_size"}]
    return []


def _rank_list(value: str) -> list[int]:
    return [int(r) for r in value.replace(" ", "").split(",") if r]


def _desync(text: str) -> list[Event]:
    """TORCH_NCCL_DESYNC_DEBUG report lines naming the lagging ranks (one event per rank).

    subkind ``not_joined``: finished #N but didn't join #N+1 (seq_num N+1); ``not_finished``:
    joined #N but didn't finish it (seq_num N); ``never_joined``: never joined any collective.
    """
    m = DESYNC_RANKS.search(text)
    if m:
        return [{"kind": "nccl_desync", "rank": r, "last_completed_seq": _int(m.group(2)), "seq_num": _int(m.group(3)), "subkind": "not_joined"}
                for r in _rank_list(m.group(1))]
    m = DESYNC_JOINED.search(text)
    if m:
        return [{"kind": "nccl_desync", "rank": r, "seq_num": _int(m.group(2)), "subkind": "not_finished"} for r in _rank_list(m.group(1))]
    m = DESYNC_NEVER.search(text)
    if m:
        return [{"kind": "nccl_desync", "rank": r, "subkind": "never_joined"} for r in _rank_list(m.group(1))]
    return []


def _barrier(text: str) -> list[Event]:
    """``monitored_barrier``: the ranks that never reached it, named by one that did (a desync
    report of its own kind: subkind ``barrier``, seen as never having joined); ``barrier_peer``:
    a rank that reached it and got no answer from the rank running it (that rank's own report,
    when present, names the culprit); ``store_wait``: gloo's rendezvous key a rank timed out on."""
    m = P.BARRIER_FAILED.search(text) if "monitoredBarrier" in text or "faulty rank" in text else None
    if m:
        return [{"kind": "nccl_desync", "rank": r, "subkind": "barrier"} for r in _rank_list(m.group(1))]
    m = P.BARRIER_PEER.search(text) if "monitoredBarrier" in text or "faulty rank" in text else None
    if m:  # the rank whose answer never came: rank 0 runs the barrier and may only have reported the culprit
        ev: Event = {"kind": "nccl_desync", "rank": _int(m.group(1) or m.group(2)), "subkind": "barrier_peer"}
        reached = BARRIER_REACHED.search(text)
        if reached:  # the reporter, in its own words (a line without a rank tag names it too)
            ev["_reporter"] = _int(reached.group(1))
        return [ev]
    m = P.STORE_WAIT_RANK.search(text) if "wait timeout after" in text else None
    if m:  # gloo's rendezvous: every rank waits for the address of the one that never came
        return [{"kind": "nccl_desync", "rank": _int(m.group(1)), "subkind": "store_wait"}]
    return []


def barrier_wait(events: list[Event], line_no: int, norm: Any) -> None:
    """gloo's pair wait timing out (``Timed out waiting 600000ms for send operation to complete``) within
    ``BARRIER_WAIT_GAP`` lines under a monitored barrier's report of the same rank (or of none): the report's
    ``Original exception``, the reporter's own wait for the rank running the barrier ran out, that rank never took
    its part in the whole timeout (gives the report's ``barrier_peer`` events ``timeout_ms``)."""
    m = GLOO_PAIR_WAIT.search(norm.text) if "Timed out waiting" in norm.text else None
    for ev in events[-4:] if m else []:
        if (ev.get("subkind") == "barrier_peer" and 0 < line_no - ev["line_no"] <= BARRIER_WAIT_GAP
                and norm.rank in (None, ev.get("reporter_rank"))):
            ev["timeout_ms"] = int(m.group(1))


def _horovod_stall(text: str) -> list[Event]:
    """Horovod's stall warning: subkind ``horovod_missing``, a rank that never submitted a stalled
    tensor (a rank never seen in the collective, like a desync report's); ``horovod_ready``, a rank
    that did: every tensor of the line is listed with the ranks ready for it, and a rank ready for
    one of them is no culprit (the SQL names the job's ranks ready for none, k10s_desync_lines)."""
    if "missing ranks: " in text:
        missing = sorted({r for m in HOROVOD_MISSING.finditer(text) for r in _rank_list(m.group(1))})
        return [{"kind": "nccl_desync", "rank": r, "subkind": "horovod_missing"} for r in missing]
    if "ready ranks: " in text:
        ready = sorted({r for m in HOROVOD_READY.finditer(text) for r in _rank_list(m.group(1))})
        return [{"kind": "nccl_desync", "rank": r, "subkind": "horovod_ready"} for r in ready]
    return []


def reports(text: str) -> list[Event]:
    """Events of a report line (fingerprint mismatch, desync report, barrier, flight recorder missing ranks, Horovod stall)."""
    events = _fingerprints(text) or _desync(text) or _barrier(text) or _horovod_stall(text)
    if events:
        return events
    m = P.FR_MISSING.search(text)
    if m:
        ranks = [r for r in m.group(1).replace(" ", "").split(",") if r]
        return [{"kind": "flight_recorder_missing_ranks", "rank": _int(r)} for r in ranks]
    return []


__all__ = ["barrier_wait", "reports"]
