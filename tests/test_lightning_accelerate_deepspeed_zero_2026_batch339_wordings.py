"""Lightning / HF accelerate / DeepSpeed ZeRO multi-GPU failures (real incidents batch 339), pinned as read.
Four controls, collected blind, all read right both ways as collected (none named): DeepSpeed 0.16.0's
``AssertionError: no_sync context manager is incompatible with gradient partitioning logic of ZeRO stage 3`` under
``[rank0]:`` with the agent's ``failed (exitcode: 1) local_rank: 1`` (deepspeedai/DeepSpeed#6793: every rank under
gradient accumulation) reads, laid out as the thread's two ranks, as ranks 0 and 1 failing alike (pasted with no
layout it names rank 0, warning); SimpleTuner's abridged, wrapped ``[rank1]`` NCCL watchdog timeout with
``traceback : Signal 6 (SIGABRT)`` (bghira/SimpleTuner#3099: per-rank RNG picked different datasets) gives no finding
at all; the same assertion for ZeRO stage 2 as an untagged, elided traceback (kongds/E5-V#23) is a failure of no rank;
DDP's wrapped ``Expected to mark a variable ready only once`` (LibreYOLO/libreyolo#303: the RF-DETR segmentation head
used twice per forward) is every process's (common mode). Scored 4/4 both ways as collected; no rule changed (measure
only). Contrasts: without the agent's line the ``[rank0]`` traceback names rank 0 (critical); the traceback renumbered
``[rank1]`` names rank 1; a rank's own CUDA OOM or exception names that rank (and makes the watchdog line its victim);
the ZeRO-2 traceback tagged ``[rank3]:`` names rank 3; the reducer error stays common mode under a ``[rank1]:`` tag; two
ranks' watchdog lines read as an info hang of no culprit, the agent's SIGABRT line alone as an abort of no rank.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

NO_SYNC_Z3 = corpus_lines("DeepSpeed-6793-")
GATED_WATCHDOG = corpus_lines("SimpleTuner-3099-")
NO_SYNC_Z2 = corpus_lines("E5-V-23-")
READY_TWICE = corpus_lines("libreyolo-303-")

OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {g} has a total capacity of "
    "79.10 GiB of which 1.00 GiB is free."
)

#: the ``[rank0]`` traceback and SIGTERM without the agent's ``failed (exitcode: 1) local_rank: 1``
NO_SYNC_NO_AGENT = NO_SYNC_Z3[:-1]
#: the same traceback under ``[rank1]:`` (the agent's ``local_rank: 1`` is then the traceback's own rank)
NO_SYNC_RANK1 = [line.replace("[rank0]:", "[rank1]:") for line in NO_SYNC_Z3]
#: rank 1's own CUDA OOM in place of rank 0's traceback, then the launcher lines
NO_SYNC_OWN_OOM = ["[rank1]: " + OOM.format(g=1)] + NO_SYNC_Z3[3:]
#: rank 5's own exception before the wrapped ``[rank1]`` watchdog timeout
GATED_RANK5_ERROR = [
    "[rank5]: Traceback (most recent call last):",
    '[rank5]:   File "train.py", line 10, in <module>',
    "[rank5]: ValueError: bad sample",
] + GATED_WATCHDOG
#: rank 5's own CUDA OOM before it
GATED_RANK5_OOM = ["[rank5]: " + OOM.format(g=5)] + GATED_WATCHDOG
#: the untagged ZeRO-2 traceback as rank 3's (every line ``[rank3]:``)
NO_SYNC_Z2_RANK3 = ["[rank3]: " + line for line in NO_SYNC_Z2]
#: the reducer error under a ``[rank1]:`` tag
READY_TWICE_RANK1 = ["[rank1]: " + line for line in READY_TWICE]
#: rank 1's CUDA OOM in place of the reducer error
READY_TWICE_OOM = ["[rank1]: " + OOM.format(g=1)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    # since session 62 DeepSpeed's no_sync assertion (raised in site-packages, naming nothing of the rank) in a lone
    # paste is a library check every rank meets: rank 0 a suspect at info, no culprit (the truth: a control)
    "no-sync-zero3-as-pasted": (NO_SYNC_Z3, None, None, None, None),
    "no-sync-zero3-two-ranks": (NO_SYNC_Z3, 2, 2, None, None),
    "gated-dataset-watchdog-as-pasted": (GATED_WATCHDOG, None, None, None, None),
    "gated-dataset-watchdog-eight-ranks": (GATED_WATCHDOG, 8, 8, None, None),
    "no-sync-zero2-untagged-as-pasted": (NO_SYNC_Z2, None, None, None, None),
    "no-sync-zero2-untagged-eight-ranks": (NO_SYNC_Z2, 8, 8, None, None),
    "ready-twice-as-pasted": (READY_TWICE, None, None, None, None),
    "ready-twice-two-ranks": (READY_TWICE, 2, 2, None, None),
    # contrasts
    "no-sync-without-agent-names-rank0": (
        NO_SYNC_NO_AGENT,
        2,
        2,
        0,
        "python-exception",
    ),
    "no-sync-renumbered-rank1-names-rank1": (
        NO_SYNC_RANK1,
        None,
        None,
        1,
        "python-exception",
    ),
    "no-sync-own-oom-names-rank1": (NO_SYNC_OWN_OOM, 2, 2, 1, "cuda-oom"),
    "gated-rank5-exception-names-rank5": (
        GATED_RANK5_ERROR,
        8,
        8,
        5,
        "python-exception",
    ),
    "gated-rank5-oom-names-rank5": (GATED_RANK5_OOM, 8, 8, 5, "cuda-oom"),
    "no-sync-zero2-tagged-rank3-library-check-names-none": (NO_SYNC_Z2_RANK3, 8, 8, None, None),
    "ready-twice-tagged-rank1-names-none": (READY_TWICE_RANK1, 2, 2, None, None),
    "ready-twice-replaced-by-oom-names-rank1": (READY_TWICE_OOM, 2, 2, 1, "cuda-oom"),
}
BATCHED = Batched("b339", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_lightning_accelerate_deepspeed_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _said(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, nproc, NOW)
    ]


def test_no_sync_rank0_and_agent_local_rank1_fail_alike(tmp_path):
    """The ``[rank0]`` assertion and the agent's exit of local rank 1, laid out as two ranks, are two ranks failing
    alike (a warning of no rank); pasted with no layout the paste is rank 0's alone, and since session 62 its library
    assertion (DeepSpeed's no_sync check, raised in site-packages) makes rank 0 a suspect at info only."""
    assert _said(NO_SYNC_Z3, tmp_path / "a", 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]
    assert _said(NO_SYNC_Z3, tmp_path / "b", None) == [
        ("rank-failure", "info", "python-exception", [0])
    ]


def test_lone_wrapped_watchdog_timeout_says_nothing(tmp_path):
    """One rank's wrapped watchdog timeout and the agent's SIGABRT, with no rank failing before it: no finding at all as
    collected (since session 57, the batch's suggestion: an info hang of no culprit); two ranks' watchdog lines read as
    an info hang of no culprit; the SIGABRT line alone as an abort of no rank."""
    assert ("nccl-hang", "info", "no-single-culprit", []) in _said(GATED_WATCHDOG, tmp_path / "a", 8)
    both = [
        f"[rank{r}]:[E817 10:00:0{r}.123456789 ProcessGroupNCCL.cpp:689] [Rank {r}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=34036, OpType=ALLGATHER, NumelIn=8, NumelOut=64, Timeout(ms)=5400000) "
        "ran for 5400073 milliseconds before timing out."
        for r in (1, 2)
    ]
    assert _said(both, tmp_path / "b", 8) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]
    assert _said(GATED_WATCHDOG[-1:], tmp_path / "c", 8) == [
        ("rank-failure", "warning", "abort", [])
    ]


def test_reducer_error_is_every_process_s(tmp_path):
    """DDP's ``Expected to mark a variable ready only once`` is read as every process's (the same code), tagged or
    not: a warning python-exception of no rank."""
    assert _said(READY_TWICE, tmp_path / "a", 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]
    assert _said(READY_TWICE_RANK1, tmp_path / "b", 2) == [
        ("rank-failure", "warning", "python-exception", [])
    ]
