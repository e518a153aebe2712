"""Contrastive, retrieval and embedding training whose loss gathers embeddings across ranks (real incidents batch
139): the family's shapes that name no rank, and rightly so. A cross-device all-gather that hangs with the ranks
disagreeing both on the sequence point (one rank a SeqNum behind) and on the size they gather at it (an uneven batch:
47 vs 48 rows), a fourth rank unseen (FlagOpen/FlagEmbedding#764): two ranks are odd by two measures, so no rank is
the one out of step. A lone rank's watchdog on a one-element all-gather under torchrun ``--tee`` prefixes
(ContextualAI/gritlm#43), and a lone rank's traceback from DDP's construction-time parameter verification cut before
its error (Optimization-AI/FastCLIP#1): one waiter's lines are no proof of the others'. Contrast: three ranks of a
world of four in one all-gather of one size, the fourth absent, name the absent rank; ranks agreeing on the gather's
size with one rank a SeqNum behind name it. The watchdog comparison takes its reference collective only from ranks
that agree on its size (docs/rules.md, "Session 32: batch 139"); the batch's miss, art-10, is NOT_YET. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)
BAR = "  1%|▏         | 4817/360910 [38:19<22:40:36,  4.36it/s]"


def _watchdog(rank: int, seq: int, numel: int, world: int, new: bool, ms: int) -> str:
    """A rank's watchdog line for an all-gather: torch 2.2's wording, or 2.5's with its clock and PG header."""
    if new:
        return (
            f"[rank{rank}]:[E126 01:17:58.18{rank}429932 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
            f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLGATHER, NumelIn={numel}, "
            f"NumelOut={numel * world}, Timeout(ms)=1800000) ran for {ms} milliseconds before timing out."
        )
    return (
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:523] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum={seq}, OpType=ALLGATHER, NumelIn={numel}, NumelOut={numel * world}, "
        f"Timeout(ms)=1800000) ran for {ms} milliseconds before timing out."
    )


def _uneven(
    new: bool,
    glued: bool,
    other_pg: bool = True,
    sizes: tuple[int, int, int] = (48128, 49152, 8192),
    seqs: tuple[int, int, int] = (6207, 6207, 6206),
) -> list[str]:
    """FlagEmbedding-764's shape: ranks 2 and 0 at 6207 gathering 47 and 48 rows, rank 1 at 6206, rank 3 unseen
    (``other_pg``: rank 0's line of the gradient all-reduce's group, which names no group in this wording)."""
    first = _watchdog(2, seqs[0], sizes[0], 4, new, 1800644)
    lines = [
        (BAR + first) if glued else first,
        _watchdog(0, seqs[1], sizes[1], 4, new, 1800838),
    ]
    if other_pg:
        lines.append(
            "[rank0]:[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL("
            "SeqNum=6029, OpType=ALLREDUCE, NumelIn=65084417, NumelOut=65084417, Timeout(ms)=600000) ran for "
            "1801622 milliseconds before timing out."
        )
    return lines + [
        _watchdog(1, seqs[2], sizes[2], 4, new, 1801713),
        "[rank1]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous "
        "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        "[rank1]:[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.",
    ]


def _tee(rank: int) -> list[str]:
    """gritlm-43's shape: one rank's watchdog report under torchrun's --tee prefix, 8 ranks."""
    p = f"[default{rank}]:[rank{rank}]:"
    return [
        f"{p}[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank {rank}] Timeout at NCCL work: 28044, last enqueued NCCL work: "
        "28044, last completed NCCL work: 28043.",
        f"{p}[E ProcessGroupNCCL.cpp:583] [Rank {rank}] To avoid data inconsistency, we are taking the entire "
        "process down.",
        f"{p}[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank {rank}] Process group watchdog thread terminated with exception: "
        f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=28044, OpType=ALLGATHER, "
        "NumelIn=1, NumelOut=8, Timeout(ms)=1800000) ran for 1800114 milliseconds before timing out.",
        f"[default{rank}]:Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 "
        "(most recent call first):",
    ]


def _ddp_verify(carets: bool) -> list[str]:
    """FastCLIP-1's shape: rank 3's traceback into DDP's parameter verification, cut before its error."""
    py = "/home/u/.conda/envs/clip/lib/python3.11/site-packages/torch"
    lines = [
        "2024-07-10,09:39:27 | INFO | Running in distributed mode with multiple processes. Device: cuda:3.Process "
        "(global: 3, local 3), total 4.",
        "2024-07-10,09:39:27 | INFO | Loaded RN50 model config.",
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "/work/clip/src/training/main.py", line 304, in main',
        "[rank3]:     model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device], **ddp_args)",
        "[rank3]:             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'[rank3]:   File "{py}/nn/parallel/distributed.py", line 798, in __init__',
        "[rank3]:     _verify_param_shape_across_processes(self.process_group, parameters)",
        f'[rank3]:   File "{py}/distributed/utils.py", line 269, in _verify_param_shape_across_processes',
        "[rank3]:     return dist._verify_params_across_processes(process_group, tensors, logger)",
        "[rank3]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]
    return lines if carets else [x for x in lines if not x.strip().endswith("^")]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    "uneven-gather-two-seqnums-one-unseen": (_uneven(False, True), None, None, None),
    "uneven-gather-two-seqnums-one-unseen-torch25": (
        _uneven(True, False),
        None,
        None,
        None,
    ),
    "uneven-gather-world-given": (_uneven(False, False), 4, 4, None),
    # the same without rank 0's other group's line: the two ranks at 6207 still split on its size
    "uneven-gather-no-other-pg-line": (
        _uneven(False, False, other_pg=False),
        None,
        None,
        None,
    ),
    "uneven-gather-no-other-pg-line-torch25": (
        _uneven(True, True, other_pg=False),
        4,
        4,
        None,
    ),
    "tee-lone-rank-allgather": (_tee(5), None, None, None),
    "tee-lone-rank-allgather-world-given": (_tee(5), 8, 8, None),
    "ddp-verify-lone-rank-cut": (_ddp_verify(True), None, None, None),
    "ddp-verify-lone-rank-cut-no-carets": (_ddp_verify(False), 4, 4, None),
    # contrasts: the ranks at 6207 agreeing on its size, rank 1 a SeqNum behind in the same gather (desync) ...
    "agreeing-gather-rank1-behind": (
        _uneven(False, False, other_pg=False, sizes=(49152, 49152, 49152)),
        None,
        None,
        1,
    ),
    # ... or behind in a gather of another size (a collective mismatch) ...
    "agreeing-gather-rank1-behind-other-size": (
        _uneven(True, False, other_pg=False, sizes=(49152, 49152, 8192)),
        None,
        None,
        1,
    ),
    # ... three ranks of four in one all-gather of one size, the fourth absent: named ...
    "same-gather-three-of-four": (
        [_watchdog(r, 6207, 49152, 4, False, 1800600 + r) for r in (2, 0, 1)],
        4,
        4,
        3,
    ),
    # ... and one rank of four gathering another size at the others' SeqNum
    "same-seq-rank3-other-size": (
        [
            _watchdog(r, 6207, 48128 if r == 3 else 49152, 4, False, 1800600 + r)
            for r in (2, 0, 3, 1)
        ],
        4,
        4,
        3,
    ),
}
BATCHED = Batched("b139", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_embedding_gather_shapes_name_only_a_shown_odd_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
