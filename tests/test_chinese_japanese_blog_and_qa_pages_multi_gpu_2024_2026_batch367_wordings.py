"""Chinese and Japanese blog / Q&A pages of multi-GPU failures, 2024-2026 (real incidents batch 367), pinned as read.
Four controls, collected blind from Chinese blog pages (a CSDN mirror and three GitCode blog posts; no Japanese page in
the ``pages`` corpus quoted its log lines), all read right both ways as collected: DeepSpeed's lone
``indexSelectLargeIndex ... Assertion `srcIndex < srcSelectDimSize` failed`` (an index bug fixed by a PR) and
Megatron-DeepSpeed TP=1's ``RuntimeError: CUDA error: device-side assert triggered`` on 8 H800 (token ids beyond the
vocabulary from the TP=1 data path) are a cuda-error warning of no rank; vLLM over three 8-GPU servers'
``NCCL WARN socketStartConnect: Connect to 10.37.12.78<46417> failed : Software caused connection abort`` then
``NCCL error: unhandled system error`` (interfaces not pinned alike on every server) is an nccl-error warning of no rank,
NCCL's ``[0]`` device prefix not read as rank 0; one ``NCCL WARN NET/IB : Got completion from peer 10.2.8.2<55466> with
error 12`` (GIDs across HCAs of mixed vendors) is no finding. Scored 4/4 both ways; no rule changed (measure only).
Variants that must not change it: the pastes laid out as one node of 8, two nodes of 8, or with no layout. Contrasts that
must: the assert tagged ``[rank3]:`` names rank 3; Megatron's two lines tagged ``[rank5]:`` name rank 5, but rank 0's copy
beside it is every rank's (no one); the socket error tagged ``[rank2]:`` names rank 2; an untagged ``NCCL error`` after
the NET/IB warning is an nccl-error of no rank, tagged ``[rank9]:`` it names rank 9; an Xid 79 beside the assert is a
critical gpu-health finding. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, gist, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

INDEX_ASSERT = corpus_lines("csdn-gitblog-151474550-")
TP1_ASSERT = corpus_lines("gitcode-blog-ab6ebba8-")
MIXED_HCA = corpus_lines("gitcode-blog-a552f72d-")
SOCKET_ABORT = corpus_lines("gitcode-blog-c78323ca-")

NCCL_SYSTEM_ERROR = "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"


def _tagged(lines: list[str], rank: int) -> list[str]:
    return [f"[rank{rank}]: {line}" for line in lines]


#: the assert as rank 3 would print it under torchrun's per-rank prefix
INDEX_ASSERT_RANK3 = _tagged(INDEX_ASSERT, 3)
#: Megatron's two lines from rank 5 alone, then beside rank 0's copy (every rank's)
TP1_ASSERT_RANK5 = _tagged(TP1_ASSERT, 5)
TP1_ASSERT_RANK5_AND_0 = TP1_ASSERT_RANK5 + _tagged(TP1_ASSERT, 0)
#: the socket failure tagged by rank 2 of two 8-GPU servers
SOCKET_ABORT_RANK2 = _tagged(SOCKET_ABORT, 2)
#: the NET/IB warning followed by the error it leads to, untagged and tagged
MIXED_HCA_THEN_ERROR = MIXED_HCA + [NCCL_SYSTEM_ERROR]
MIXED_HCA_THEN_RANK9 = MIXED_HCA + [f"[rank9]: {NCCL_SYSTEM_ERROR}"]
#: a real GPU fault beside the assert
TP1_ASSERT_XID79 = TP1_ASSERT + ["NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the pages say
    "index-assert-as-pasted": (INDEX_ASSERT, None, None, None, None),
    "index-assert-one-node-of-8": (INDEX_ASSERT, 8, 8, None, None),
    "tp1-assert-eight-h800": (TP1_ASSERT, 8, 8, None, None),
    "tp1-assert-as-pasted": (TP1_ASSERT, None, None, None, None),
    "mixed-hca-as-pasted": (MIXED_HCA, None, None, None, None),
    "mixed-hca-two-nodes": (MIXED_HCA, 8, 16, None, None),
    "socket-abort-servers-of-8": (SOCKET_ABORT, 8, None, None, None),
    "socket-abort-two-servers": (SOCKET_ABORT, 8, 16, None, None),
    "socket-abort-as-pasted": (SOCKET_ABORT, None, None, None, None),
    # contrasts
    "index-assert-rank3-names-rank3": (INDEX_ASSERT_RANK3, 8, 8, 3, "cuda-error"),
    "tp1-assert-rank5-names-rank5": (TP1_ASSERT_RANK5, 8, 8, 5, "cuda-error"),
    "tp1-assert-rank5-and-0-names-none": (TP1_ASSERT_RANK5_AND_0, 8, 8, None, None),
    "socket-abort-rank2-names-rank2": (SOCKET_ABORT_RANK2, 8, 16, 2, "nccl-error"),
    "mixed-hca-then-error-names-none": (MIXED_HCA_THEN_ERROR, None, None, None, None),
    "mixed-hca-then-rank9-names-rank9": (MIXED_HCA_THEN_RANK9, 8, 16, 9, "nccl-error"),
}
BATCHED = Batched("b367", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_chinese_blog_pages_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _rank_failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_device_side_asserts_are_a_cuda_error_of_no_rank(tmp_path):
    """The CSDN page's lone kernel assertion and the GitCode page's two Megatron lines: one cuda-error warning that names
    no rank (``block: [949,0,0], thread: [62,0,0]`` are kernel coordinates, not ranks), however the job is laid out."""
    for i, (lines, nproc) in enumerate(((INDEX_ASSERT, None), (INDEX_ASSERT, 8), (TP1_ASSERT, 8), (TP1_ASSERT, None))):
        assert _rank_failures(lines, tmp_path / str(i), nproc, nproc) == [("warning", "cuda-error", [])]


def test_socket_abort_is_an_nccl_error_of_no_rank(tmp_path):
    """vLLM's ``NCCL WARN socketStartConnect ... Software caused connection abort`` from ``jnlh102072 ... [0]`` then
    ``NCCL error: unhandled system error``: an nccl-error warning naming no rank; the ``[0]`` device prefix is not rank 0."""
    assert _rank_failures(SOCKET_ABORT, tmp_path / "a", 8, 16) == [("warning", "nccl-error", [])]
    assert _rank_failures(SOCKET_ABORT, tmp_path / "b", None, None) == [("warning", "nccl-error", [])]


def test_lone_net_ib_completion_error_is_no_finding(tmp_path):
    """One ``NCCL WARN NET/IB : Got completion from peer 10.2.8.2<55466> with error 12`` line (the mixed-vendor GID
    problem) is no finding at all today, as pasted or as two nodes of 8: neither the peer nor a rank is blamed."""
    assert pasted_findings(MIXED_HCA, tmp_path / "a", None, None, NOW) == []
    assert pasted_findings(MIXED_HCA, tmp_path / "b", 8, 16, NOW) == []


def test_xid79_beside_the_assert_is_a_critical_gpu_fault(tmp_path):
    """Contrast: an Xid 79 (GPU fallen off the bus) beside Megatron's assert adds a critical gpu-health finding; the
    assert itself stays a cuda-error warning of no rank."""
    got = gist(pasted_findings(TP1_ASSERT_XID79, tmp_path, 8, 8, NOW))
    assert ("gpu-health", "critical", "xid-79", [], None, None) in got
    assert ("rank-failure", "warning", "cuda-error", [], None, None) in got
