"""Watchdog timeouts without a SeqNum (PyTorch <= 1.10: ``WorkNCCL(OpType=..., Timeout(ms)=...)``) on different
OpTypes (real incidents batch 127, huggingface/accelerate#157: at an epoch's end rank 0 waits in an ALLREDUCE while
five others wait in a BROADCAST). Without a SeqNum the odd rank cannot be placed at its peers' sequence point: with
uneven batch counts the rank still holding data sits in the gradient all-reduce while the others have moved on, so it
is a suspect (info), not a culprit; and since the waiters were not in one collective, a rank the paste never shows is
no more the missing one than they are (as waiters on different SeqNums already were). The same odd OpType on the
others' SeqNum stays a collective mismatch, and SeqNum-less waiters all in one OpType still name a silent minority
(docs/rules.md, "Session 30: batch 127"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.timezone.utc)
OLD = ("[E ProcessGroupNCCL.cpp:566] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(OpType={op}, "
       "Timeout(ms)=1800000) ran for {ms} milliseconds before timing out.")
NEW = ("[E ProcessGroupNCCL.cpp:828] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={s}, "
       "OpType={op}, Timeout(ms)=1800000) ran for {ms} milliseconds before timing out.")


def _old(ops: dict[int, str]) -> list[str]:
    return [OLD.format(r=r, op=op, ms=1801060 + 40 * i) for i, (r, op) in enumerate(ops.items())]


def _new(ops: dict[int, str], seq: int = 900) -> list[str]:
    return [NEW.format(r=r, s=seq, op=op, ms=1801060 + 40 * i) for i, (r, op) in enumerate(ops.items())]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # accelerate-157's shape: rank 0 in another OpType, rank 4 never shown
    "no-seqnum-odd-op-one-unseen": (_old({0: "ALLREDUCE", 1: "BROADCAST", 3: "BROADCAST", 5: "BROADCAST",
                                          2: "BROADCAST"}), None),
    # every rank shown, rank 0 alone in another OpType
    "no-seqnum-odd-op-all-shown": (_old({0: "ALLREDUCE", 1: "BROADCAST", 2: "BROADCAST", 3: "BROADCAST"}), None),
    # contrasts: the odd OpType on the SeqNum the others wait on is a collective mismatch of that rank ...
    "seqnum-odd-op-same-seq": (_new({0: "ALLREDUCE", 1: "BROADCAST", 2: "BROADCAST", 3: "BROADCAST"}), 0),
    # ... and SeqNum-less waiters all in one OpType still name the rank the paste never shows
    "no-seqnum-one-op-one-unseen": (_old({0: "BROADCAST", 1: "BROADCAST", 3: "BROADCAST", 5: "BROADCAST",
                                          2: "BROADCAST"}), 4),
}
BATCHED = Batched("b127", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_seqnumless_waiters_on_different_optypes_place_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
