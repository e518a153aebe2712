"""FSDP/FSDP2 and Megatron hangs where one rank went its own way (real incidents batch 318), pinned as read.
Three incidents, collected blind: two culprits the logs do not name (NOT_YET, batch 318) and one control read right.
lightseekorg/TorchSpec#126: the author's abridged ``[Rank N] Watchdog caught collective operation timeout:`` block
(wrapped over three lines, ``SeqNum=…``, ``600000+ ms``) reads as nothing; rank 1, one all-gather behind after dropping
a sample per-rank, is the thread's flight recorder. pytorch/pytorch#77562: one pre-2.0 watchdog line of rank 3 alone
in an FSDP ``_ALLGATHER_BASE`` names no one (a lone waiter); rank 0, which alone took the save path after a
``dist.reduce``, is the thread's. NVIDIA/Megatron-LM#4910 (control: optimizer CPU offload makes the fsdp_dtensor
checkpoint's collectives differ across ranks): three ``[rank12]:`` traceback frames with no exception line are an
info suspect, naming no one. Scored 1/3 both ways as collected; no rule changed (measure only). Contrasts: the same
template written for ranks 0, 2 and 3 of four names rank 1 (never-joined); the same line for seven of eight ranks
names the eighth; rank 0's line in another op at the same SeqNum beside rank 3's still names no one; rank 12's frames
under an exception line name rank 12 (python-exception); the flight-recorder-style ``Last enqueued NCCL work`` counters,
abridged or as PyTorch's dump-signal line words them, one rank one behind, name no one. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 14, 0, tzinfo=dt.timezone.utc)

RANK_N_TEMPLATE = corpus_lines("TorchSpec-126-")
CKPT_FRAMES = corpus_lines("Megatron-LM-4910-")
LONE_ALLGATHER = corpus_lines("pytorch-77562-")

#: the author's three-line template written for ranks 0, 2 and 3 of the four DP ranks (rank 1 absent)
TEMPLATE_RANKS_0_2_3 = [
    line.replace("[Rank N]", f"[Rank {r}]")
    for r in (0, 2, 3)
    for line in RANK_N_TEMPLATE
]
#: the thread's flight-recorder summary as the author abridged it: rank 1 one work behind ranks 0/2/3
FR_ABRIDGED = [
    "[Rank 1] Last enqueued NCCL work: 21936, last completed 21936 ",
    "[Rank 0/2/3] Last enqueued NCCL work: 21937, last completed 21936",
]
#: the same counters as PyTorch's dump-signal line words them, one line per rank, rank 1 one enqueued work behind
DUMP_SIGNAL = (
    "[rank{r}]:[E626 05:14:36.393067540 ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
    "Received a dump signal due to a collective timeout from this local rank and we will try our best to dump "
    "the debug info. Last enqueued NCCL work: {e}, last completed NCCL work: 21936."
)
DUMP_ONE_BEHIND = [
    DUMP_SIGNAL.format(r=r, e=21936 if r == 1 else 21937) for r in range(4)
]
#: rank 12's frames under an exception line of its own
CKPT_FRAMES_RAISED = CKPT_FRAMES + [
    "[rank12]: RuntimeError: validate_uneven_dtensor failed"
]
#: the frames without their ``[rank12]:`` tag
CKPT_FRAMES_UNTAGGED = [line.replace("[rank12]: ", "") for line in CKPT_FRAMES]
#: the same watchdog line from every rank of eight but rank 0
ALLGATHER_ALL_BUT_0 = [
    LONE_ALLGATHER[0].replace("[Rank 3]", f"[Rank {r}]") for r in range(1, 8)
]
#: rank 0's line at the same SeqNum in another op (REDUCE) beside rank 3's
ALLGATHER_AND_REDUCE = LONE_ALLGATHER + [
    LONE_ALLGATHER[0]
    .replace("[Rank 3]", "[Rank 0]")
    .replace("_ALLGATHER_BASE", "REDUCE")
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "rank-n-template-as-pasted": (RANK_N_TEMPLATE, None, None, None, None),
    "rank-n-template-four-ranks": (RANK_N_TEMPLATE, None, 4, None, None),
    "ckpt-frames-as-pasted": (CKPT_FRAMES, None, None, None, None),
    "ckpt-frames-two-nodes": (CKPT_FRAMES, 8, 16, None, None),
    "lone-allgather-as-pasted": (LONE_ALLGATHER, None, None, None, None),
    "lone-allgather-eight-ranks": (LONE_ALLGATHER, 8, 8, None, None),
    # contrasts
    "template-for-ranks-0-2-3-names-rank1": (
        TEMPLATE_RANKS_0_2_3,
        None,
        4,
        1,
        "never-joined",
    ),
    "fr-abridged-names-none": (FR_ABRIDGED, None, 4, None, None),
    "dump-signal-one-behind-names-none": (DUMP_ONE_BEHIND, None, 4, None, None),
    "ckpt-frames-raised-names-rank12": (
        CKPT_FRAMES_RAISED,
        None,
        None,
        12,
        "python-exception",
    ),
    "ckpt-frames-untagged-names-none": (CKPT_FRAMES_UNTAGGED, None, None, None, None),
    "allgather-all-but-0-names-rank0": (ALLGATHER_ALL_BUT_0, 8, 8, 0, "never-joined"),
    "allgather-and-reduce-names-none": (ALLGATHER_AND_REDUCE, 8, 8, None, None),
}
BATCHED = Batched("b318", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_rank_hang_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_rank12_frames_are_an_info_suspect(tmp_path):
    """Rank 12's three frames with no exception line: an info python-exception holding rank 12 (a suspect, not a
    culprit), nothing louder; untagged, the same frames give no finding at all."""
    assert_info_suspect(
        pasted_findings(CKPT_FRAMES, tmp_path / "a", None, None, NOW), 12
    )
    assert pasted_findings(CKPT_FRAMES_UNTAGGED, tmp_path / "b", None, None, NOW) == []


def test_lone_and_template_watchdogs_say_nothing(tmp_path):
    """The template (no rank, ``SeqNum=…``) gives no finding at all, of any severity; a lone rank's watchdog line gave
    none as collected and is, since session 57, the job's hang at info, of no rank."""
    assert pasted_findings(RANK_N_TEMPLATE, tmp_path / "a", None, 4, NOW) == []
    lone = pasted_findings(LONE_ALLGATHER, tmp_path / "b", 8, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in lone] == [("nccl-hang", "info", "no-single-culprit", [])]
