"""A collective fingerprint mismatch split at a node boundary names no rank (real incidents batch 166, optuna/optuna#5717:
transformers' hyperparameter search with the Optuna backend under ``accelerate`` on two 8-GPU nodes, where rank 3 reports
``Rank 3 is running collective: ...TensorShape=[3150]..., but Rank 8 is running collective: ...TensorShape=[3154]...``).

A reporter names the *first* rank, in rank order, whose fingerprint differs from its own, so ranks 0..7 run the
reporter's collective and rank 8 does not; ranks 9..15 are not seen. When the ranks that agree fill whole nodes and the
odd rank is the first rank of a node none of whose ranks agrees (and whose other ranks are not seen), the split follows
the node boundary: the node differs as a whole, and its first rank is named alone only because it comes first. Which
rank, if any, is at fault cannot be told: no rank is named (docs/rules.md, "Session 34: batch 166"). Contrasts: the odd
rank in the middle of a node and a one-node job (the odd rank in another op: since session 58 one report of sizes only
names no one) and a reporter on the odd rank's node that agrees with the majority keep naming the odd rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
TAIL = (
    "TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
    "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
)
#: the real paste, wrapped by the author's terminal at 146 columns
PASTE = [
    "RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running collective: CollectiveFingerPrint(Seq"
    "uenceNumber=0, OpType=BROADC",
    "AST, TensorShape=[3150], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout"
    "=Strided (default), require",
    "s_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 8 is running collective: Co"
    "llectiveFingerPrint(Sequenc",
    "eNumber=0, OpType=BROADCAST, TensorShape=[3154], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (defa"
    "ult), device=cuda, layout=St",
    "rided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives d"
    "iffer in the following aspe",
    "cts:   Tensor Tensor shapes: 3150vs 3154",
]


def _fp(n: int, seq: int = 0, op: str = "BROADCAST") -> str:
    return f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{n}], {TAIL}"


def _report(a: int, b: int, tag: str = "", seq: int = 0, b_op: str = "BROADCAST") -> str:
    """Rank ``a``'s report naming ``b`` (its own shape 3150, ``b``'s 3154; ``b``'s op ``b_op``), ``tag`` before it."""
    return (
        f"{tag}RuntimeError: Detected mismatch between collectives on ranks. Rank {a} is running collective: "
        f"{_fp(3150, seq)}, but Rank {b} is running collective: {_fp(3154, seq, b_op)}.Collectives differ in the following "
        "aspects: \tTensor Tensor shapes: 3150vs 3154"
    )


#: key: (the pasted lines, processes per node, world size, the rank a warning/critical finding must name alone: None)
CASES = {
    # optuna-5717 as pasted: 2 x 8, rank 3 names rank 8, the first rank of node 1
    "two-nodes-of-8-paste-wrapped": (PASTE, 8, 16, None),
    "two-nodes-of-8-one-line": ([_report(3, 8)], 8, 16, None),
    # torch >= 2.2 tags the report with its rank
    "two-nodes-of-8-rank-tagged": ([_report(3, 8, "[rank3]: ")], 8, 16, None),
    # four nodes of 4: rank 1 names rank 4, the first rank of node 1; later nodes unseen
    "four-nodes-of-4": ([_report(1, 4, seq=12)], 4, 16, None),
    # two reporters on node 0 both name node 1's first rank
    "two-reporters-same-node": ([_report(2, 8), _report(5, 8)], 8, 16, None),
    # contrasts: rank 9 is named, so rank 8 (node 1) runs the majority's collective: rank 9 is the odd one ...
    "odd-rank-mid-node": ([_report(3, 9, b_op="ALLREDUCE")], 8, 16, 9),
    # ... one node of 16: rank 8 is no node's first rank ...
    "one-node-of-16": ([_report(3, 8, b_op="ALLREDUCE")], 16, 16, 8),
    # ... but one report of sizes only, mid-node or on one node, names no one (session 58: its ranks called the same
    # collective, only their inputs differ)
    "sizes-only-mid-node": ([_report(3, 9)], 8, 16, None),
    "sizes-only-one-node-of-16": ([_report(3, 8)], 16, 16, None),
    # ... and a reporter on node 1 agreeing with node 0 leaves rank 8 alone in its collective
    "reporter-on-odd-node-agrees": ([_report(3, 8), _report(9, 8)], 8, 16, 8),
}
BATCHED = Batched("b166", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_fingerprint_split_at_a_node_boundary_names_no_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
