"""The newest threads of 2026 (real incidents batch 321), pinned as read.
One culprit and two controls, collected blind, all read right both ways as collected. SimpleTuner's FLUX.2 ZeRO-2 run
on 8 GPUs (bghira/SimpleTuner#2712): ``[RANK 1] ... GPU circuit breaker OPEN: cuda_error - Detected mismatch between
collectives on ranks. Rank 1 is running ... SequenceNumber=101, OpType=ALLGATHER ... but Rank 7 is running collective:
CollectiveFingerPrint(SequenceNumber=0OpType=REDUCE)`` names rank 7 (collective-mismatch, critical), through the
circuit breaker's wrapper and its ``cuda_error`` word. PyTorch CI's H100 runner with a broken Fabric Manager
(pytorch/pytorch#177472, NCCL 2.29.3): the ``DistBackendError`` and NCCL's ``Failed to bind NVLink SHARP (NVLS)
Multicast memory ... CUDA error 401`` block was a warning nccl-error of no rank as collected, and is a warning cuda-error
of no rank since session 55 (the node's NVSwitch fabric refusing NVLS, common mode: this batch's suggestion). vLLM v0.25.0 TP=2 hanging under HAMi's
CUDA interposer (Project-HAMi/HAMi-core#261): the API server's ``Waiting for 1 local, 0 remote core engine proc(s) to
start.`` every 10 s after worker ``[1]``'s cut NCCL line gives no finding at all. Contrasts: the fingerprint alone names
rank 7, the traceback alone leaves rank 7 an info suspect (no one named), the odd rank renumbered to 5 names rank 5; the
NVLS block alone names no one, nor the same lines under ``[rank3]:`` since session 55 (rank 3, nccl-error, as collected); a rank's CUDA OOM after the
waiting lines names that rank. Pasted logs through ``k10s import-logs``, batched.
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

NOW = dt.datetime(2026, 12, 5, 17, 30, tzinfo=dt.timezone.utc)

FINGERPRINT = corpus_lines("SimpleTuner-2712-")
NVLS_BIND = corpus_lines("pytorch-177472-")
ENGINE_WAIT = corpus_lines("HAMi-core-261-")

#: rank 1's circuit-breaker line alone (the fingerprint report naming rank 7's REDUCE #0)
FINGERPRINT_ALONE = FINGERPRINT[:1]
#: rank 0's INFO line and rank 7's traceback head, without rank 1's fingerprint report
TRACEBACK_ALONE = FINGERPRINT[1:]
#: the same report and traceback with the odd rank renumbered to 5
ODD_RANK_5 = [
    line.replace("Rank 7", "Rank 5").replace("[rank7]", "[rank5]")
    for line in FINGERPRINT
]
#: NCCL's ``Last error:`` block without torch's ``DistBackendError`` line
NVLS_BLOCK_ALONE = NVLS_BIND[1:]
#: the whole error under one rank's ``[rank3]:`` tag
NVLS_RANK_3 = ["[rank3]: " + line for line in NVLS_BIND]
#: the waiting lines, then rank 1's CUDA OOM
ENGINE_WAIT_RANK1_OOM = ENGINE_WAIT + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
    "79.19 GiB of which 1.06 GiB is free."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "fingerprint-as-pasted": (FINGERPRINT, None, None, 7, "collective-mismatch"),
    "fingerprint-eight-gpus": (FINGERPRINT, 8, 8, 7, "collective-mismatch"),
    "nvls-bind-as-pasted": (NVLS_BIND, None, None, None, None),
    "nvls-bind-eight-gpus": (NVLS_BIND, 8, 8, None, None),
    "engine-wait-as-pasted": (ENGINE_WAIT, None, None, None, None),
    "engine-wait-two-workers": (ENGINE_WAIT, 2, 2, None, None),
    # contrasts
    "fingerprint-alone-names-rank7": (
        FINGERPRINT_ALONE,
        8,
        8,
        7,
        "collective-mismatch",
    ),
    "traceback-alone-names-none": (TRACEBACK_ALONE, 8, 8, None, None),
    "odd-rank-5-names-rank5": (ODD_RANK_5, 8, 8, 5, "collective-mismatch"),
    "nvls-block-alone-names-none": (NVLS_BLOCK_ALONE, 8, 8, None, None),
    "nvls-under-rank3-names-none": (NVLS_RANK_3, 8, 8, None, None),
    "engine-wait-rank1-oom-names-rank1": (ENGINE_WAIT_RANK1_OOM, 2, 2, 1, "cuda-oom"),
}
BATCHED = Batched("b321", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_thread_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_fingerprint_report_is_a_critical_mismatch_of_rank7(tmp_path):
    """The circuit breaker's ``cuda_error`` wrapper does not make it a CUDA error: the fingerprint report is read as the
    collective mismatch it carries, critical, rank 7 (the REDUCE #0 against everyone's ALLGATHER #101)."""
    findings = pasted_findings(FINGERPRINT, tmp_path, 8, 8, NOW)
    got = [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in naming_findings(findings)
    ]
    assert ("nccl-hang", "critical", "collective-mismatch", [7]) in got, got


def test_traceback_alone_leaves_rank7_a_suspect(tmp_path):
    """Rank 7's traceback head with no exception line (cut by the excerpt) is an info suspect, not a culprit."""
    assert_info_suspect(pasted_findings(TRACEBACK_ALONE, tmp_path, 8, 8, NOW), 7)


def test_nvls_bind_failure_is_a_failure_of_no_rank(tmp_path):
    """The Fabric Manager's NVLS multicast-bind error (CUDA error 401) is a warning CUDA error of no rank, the node's
    fabric (common mode; a warning NCCL error of no rank as collected)."""
    findings = pasted_findings(NVLS_BIND, tmp_path, 8, 8, NOW)
    failures = [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]
    assert failures == [("warning", "cuda-error", [])], failures


def test_engine_core_wait_gives_no_finding(tmp_path):
    """vLLM's API server waiting for its engine core, every 10 s, with no error: no finding at all (a startup hang k10s
    does not read yet, and no rank to name)."""
    assert pasted_findings(ENGINE_WAIT, tmp_path, 2, 2, NOW) == []
