"""Which rank is odd in TORCH_DISTRIBUTED_DEBUG=DETAIL's ``Detected mismatch between collectives`` reports, read from
the order PyTorch checks fingerprints in (docs/rules.md, "Session 68: the odd rank in DETAIL's mismatch reports").

ProcessGroupWrapper's ``CollectiveFingerPrint::verify`` (torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp) all-gathers
every rank's serialised fingerprint and compares the reporter's OWN with each gathered one IN RANK ORDER, throwing at the
first that differs: rank R's report naming rank i also says every rank j < i (j != R) runs R's collective
(``k10s_fingerprint_obs``'s implied observations). The culprit is the rank whose fingerprint differs from a strictly
larger known group; a tie (a 2-process job, every rank its own collective) names no one, and so does a split that follows
a node boundary with the odd node's other ranks unseen (session 34, batch 166): the node may differ as a whole.

The lines are SYNTHETIC, in the real shape of the 2.13.0 run
tests/data/torch-runs/2.13.0/t68-spawn-2x2-op-mismatch-rank2-init-w2-uncaught-logging-rank (rank 0's and rank 2's
reports, each naming the other), pasted through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 7, 12, 0, tzinfo=dt.timezone.utc)
OPTS = ("TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))")


def _fp(op: str, shape: str = "8", dtype: str = "Float", seq: int = 0) -> str:
    return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{shape}], TensorDtypes={dtype}, "
            f"TensorDeviceTypes={OPTS})")


def _report(a: int, own: tuple, b: int, other: tuple) -> str:
    """SYNTHETIC: rank ``a``'s report (its fingerprint ``own``: (op, shape, dtype)) naming rank ``b`` (``other``)."""
    aspect = (f"Op type: {own[0]}vs {other[0]}" if own[0] != other[0] else
              f"Tensor Tensor shapes: {own[1]}vs {other[1]}" if own[1] != other[1] else
              f"Tensor Tensor dtypes: {own[2]}vs {other[2]}")
    return (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {a} is running collective: {_fp(*own)}, "
            f"but Rank {b} is running collective: {_fp(*other)}.Collectives differ in the following aspects:   {aspect}")


AR, AG, BC = ("ALLREDUCE", "8", "Float"), ("ALLGATHER", "8", "Float"), ("BROADCAST", "8", "Float")
BIG, LONG = ("ALLREDUCE", "16", "Float"), ("ALLREDUCE", "8", "Long")

#: key: (the pasted lines, processes per node, world size, the rank a warning/critical finding must name alone: None)
CASES = {
    # the t68 shape on one node of 4: rank 0 names rank 2 (so rank 1 runs rank 0's ALLREDUCE), rank 2 names rank 0
    "t68-shape-one-node": ([_report(0, AR, 2, AG), _report(2, AG, 0, AR)], 4, 4, 2),
    # three reports, two naming the same rank
    "three-reports-two-name-rank2": ([_report(0, AR, 2, AG), _report(3, AR, 2, AG), _report(2, AG, 0, AR)], 4, 4, 2),
    # one report in a 1 x 8 job naming rank 5: ranks 0-4 run the reporter's collective
    "one-report-names-rank5": ([_report(0, AR, 5, AG)], 8, 8, 5),
    # two reports that differ in shape only, or dtype only: rank 2 alone against ranks 0 and 1
    "shape-only-two-reports": ([_report(0, AR, 2, BIG), _report(2, BIG, 0, AR)], 4, 4, 2),
    "dtype-only-two-reports": ([_report(1, AR, 2, LONG), _report(2, LONG, 0, AR)], 4, 4, 2),
    # contrasts: a 2-process job's two reports, each naming the other (a tie) ...
    "two-process-job": ([_report(0, AR, 1, AG), _report(1, AG, 0, AR)], 2, 2, None),
    # ... every rank its own collective ...
    "every-rank-its-own": ([_report(0, AR, 1, AG), _report(1, AG, 0, AR), _report(2, BC, 0, AR)], 3, 3, None),
    "every-rank-its-own-two-reports": ([_report(0, AR, 1, AG), _report(2, BC, 0, AR)], 3, 3, None),
    # ... and the recorded run's layout, 2 x 2: rank 2 is node 1's first rank and rank 3 is unseen, so node 1 may run
    # ALLGATHER as a whole (ranks {0, 1} against {2, 3}: a tie); no rank is named (session 34, batch 166)
    "t68-shape-two-nodes-of-2": ([_report(0, AR, 2, AG), _report(2, AG, 0, AR)], 2, 4, None),
}
BATCHED = Batched("fporder", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_rank_odd_in_rank_order(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW)))
    assert_one_rank(named, CASES[key][3], None if CASES[key][3] is None else "collective-mismatch")
