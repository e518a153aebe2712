"""Ascend NPU (torch_npu / MindSpore / CANN HCCL) multi-device failures (real incidents batch 343), pinned as read.
One culprit and four controls, collected blind; four read right as collected, one is NOT_YET (batch 343). Controls:
vllm-ascend's DP+EP example where ranks 0 and 1 both fail ``hcclCommInitRootInfoConfig ... error code is 15``
(vllm-project/vllm-ascend#672: a CANN bug, fixed by CANN 8.1.rc1) is two ranks failing alike, no culprit; torch_npu's
troubleshooting page's ``RuntimeError: Tensors must be contiguous`` with ``(PID:23232, Device:0, RankID:0) ERR02002``
(a script bug) and MindSpore's ``EI0005 ... parameter [count], local [9556480], remote [9555712]`` (ranks built
different all-reduce sizes) are Python failures of no rank: torch_npu's ``RankID:`` field and HCCL's
``local``/``remote`` are not rank tags; torchrun's own ``failed to bind to [::]:29500 (errno: 98 - Address already in
use)`` (a leftover process holds the port) is a Python failure of no rank. The culprit is not read: one card's
MindSpore log with ``EI0002 ... remote rank [0]`` and HCCL's older-format heartbeat verdict ``serverId[10.*.*.*],
deviceId[0], Heartbeat Lost Occurred, Possible Reason: 1. Process has exited`` (mindspore-ai/docs cann_error_cases:
device 0's process exited) yields no finding at all, even with ``[rank1]:`` tags; the newer ``Cluster Exception
Location[IP/ID]:[<ip>/0] ... ExceptionType:[Heartbeat Lost Occurred]`` wording in its place names rank 0 (rank-dead).
Scored 4/5 both ways as collected (0 of 4 controls named); no rule changed (measure only). Contrasts: rank 0's error
alone names rank 0; rank 1's traceback alone, cut before its exception, is an info suspect only; a ``[rank0]:`` /
``[rank3]:`` tag on the contiguous-tensor / count-mismatch tracebacks names that rank; ``RankID:3`` in torch_npu's
line names no one; torchrun's traceback under ``[rank2]:`` names rank 2. Pasted logs through ``k10s import-logs``,
batched.
Since session 57 (the batch's suggestion) CANN's older verdict names device 0 (rank-dead), under any rank tag of the
surviving process that prints it: the culprit is read right both ways.
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

NOW = dt.datetime(2026, 12, 5, 23, 0, tzinfo=dt.timezone.utc)

DP_EP_INIT = corpus_lines("vllm-ascend-672-")
HEARTBEAT_LOST = corpus_lines("mindspore-docs-cann-error-cases-ei0002-")
NON_CONTIGUOUS = corpus_lines("ascend-pytorch-docs-allreduce-non-contiguous-")
COUNT_MISMATCH = corpus_lines("mindspore-docs-cann-error-cases-ei0005-")
PORT_IN_USE = corpus_lines("ascend-pytorch-docs-torchrun-master-port-")

#: rank 0's full error block alone (up to the blank line before rank 1's traceback)
DP_EP_RANK0 = DP_EP_INIT[: DP_EP_INIT.index("")]
#: rank 1's traceback alone, cut (as pasted) before its exception line
DP_EP_RANK1 = DP_EP_INIT[DP_EP_INIT.index("") + 1 :]
#: the older heartbeat verdict rewritten in HCCL's newer wording, which carries the lost rank after the IP
HEARTBEAT_NEW_FORMAT = [
    "Cluster Exception Location[IP/ID]:[10.0.0.1/0], Arrival Time:[Thu Dec  1 00:26:30 2022], Discoverer:[10.0.0.1/1], "
    "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected"
    if "Heartbeat Lost" in line
    else line
    for line in HEARTBEAT_LOST
]
#: the reporting card's lines under its own rank tag (device 1, rank 1)
HEARTBEAT_RANK1 = ["[rank1]: " + line for line in HEARTBEAT_LOST]
#: torch_npu's error-code line naming another rank id
NON_CONTIGUOUS_RANKID3 = [
    line.replace("RankID:0", "RankID:3") for line in NON_CONTIGUOUS
]
NON_CONTIGUOUS_RANK0 = ["[rank0]: " + line for line in NON_CONTIGUOUS]
COUNT_MISMATCH_RANK3 = ["[rank3]: " + line for line in COUNT_MISMATCH]
#: torchrun's traceback as if a worker's, under a rank tag
PORT_IN_USE_RANK2 = ["[rank2]: " + line for line in PORT_IN_USE]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (where they say)
    "dp-ep-init-error15-as-pasted": (DP_EP_INIT, None, None, None, None),
    "dp-ep-init-error15-two-ranks": (DP_EP_INIT, 2, 2, None, None),
    # NOT_YET (batch 343): rank 0 is the culprit, and nothing is read
    "heartbeat-lost-device0-as-pasted": (HEARTBEAT_LOST, None, None, 0, "rank-dead"),
    "heartbeat-lost-device0-eight-cards": (HEARTBEAT_LOST, 8, 8, 0, "rank-dead"),
    "non-contiguous-as-pasted": (NON_CONTIGUOUS, None, None, None, None),
    "count-mismatch-as-pasted": (COUNT_MISMATCH, None, None, None, None),
    "port-in-use-as-pasted": (PORT_IN_USE, None, None, None, None),
    "port-in-use-eight-ranks": (PORT_IN_USE, 8, 8, None, None),
    # contrasts
    "dp-ep-rank0-error-alone-names-rank0": (DP_EP_RANK0, 2, 2, 0, "python-exception"),
    "heartbeat-lost-new-format-names-rank0": (
        HEARTBEAT_NEW_FORMAT,
        8,
        8,
        0,
        "rank-dead",
    ),
    "heartbeat-lost-rank1-tagged-names-rank0": (HEARTBEAT_RANK1, 8, 8, 0, "rank-dead"),
    "non-contiguous-rankid3-names-none": (NON_CONTIGUOUS_RANKID3, 4, 4, None, None),
    "non-contiguous-rank0-tagged-names-rank0": (
        NON_CONTIGUOUS_RANK0,
        2,
        2,
        0,
        "python-exception",
    ),
    "count-mismatch-rank3-tagged-names-rank3": (
        COUNT_MISMATCH_RANK3,
        4,
        4,
        3,
        "python-exception",
    ),
    "port-in-use-rank2-tagged-names-rank2": (
        PORT_IN_USE_RANK2,
        8,
        8,
        2,
        "python-exception",
    ),
}
BATCHED = Batched("b343", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ascend_npu_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_two_ranks_failing_alike_without_a_clock_name_no_one(tmp_path):
    """Ranks 0 and 1 both raising (rank 1's line past the excerpt) in a paste without a clock: a Python failure of
    no single rank."""
    assert _failures(DP_EP_INIT, tmp_path, 2) == [("warning", "python-exception", [])]


def test_rank1_cut_traceback_alone_is_an_info_suspect(tmp_path):
    """Rank 1's traceback with its exception line past the excerpt: an info suspect holding rank 1, nothing louder."""
    assert_info_suspect(pasted_findings(DP_EP_RANK1, tmp_path, 2, 2, NOW), 1)


def test_old_format_heartbeat_verdict_names_the_device(tmp_path):
    """HCCL's older ``serverId[...], deviceId[0], Heartbeat Lost Occurred`` verdict read nothing as collected; since
    session 57 it names device 0 (rank-dead), as the newer wording does; the ``EI0002`` notify-wait timeout and glibc's
    ``malloc_consolidate(): invalid chunk size`` add nothing."""
    named = naming_findings(pasted_findings(HEARTBEAT_LOST, tmp_path, 8, 8, NOW))
    assert [(f["rule"], f["cause"], f["ranks"]) for f in named] == [("rank-failure", "rank-dead", [0])]


@pytest.mark.parametrize(
    "lines",
    [NON_CONTIGUOUS, COUNT_MISMATCH, PORT_IN_USE],
    ids=["non-contiguous", "count-mismatch", "port-in-use"],
)
def test_unranked_tracebacks_are_failures_of_no_rank(lines, tmp_path):
    """The torch_npu argument check, HCCL's ``EI0005`` parameter check and torchrun's own bind failure: each a
    Python failure (warning) of no rank, not a collective mismatch nor a launcher fault."""
    assert _failures(lines, tmp_path, None) == [("warning", "python-exception", [])]
