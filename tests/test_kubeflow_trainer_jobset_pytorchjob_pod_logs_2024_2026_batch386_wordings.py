"""Kubernetes-run training jobs' pod logs, 2024-2026 (real incidents batch 386), pinned as read. Two controls,
collected blind, both read right as collected. A Kubernetes job's worker-0 pod on a 2 x 8-GPU RoCE v2 all-reduce with
NCCL 2.22.3 and ``NCCL_IB_ROCE_VERSION_NUM=2`` (NVIDIA/nccl#1538: the author's A/B, the job works with
``NCCL_IB_GID_INDEX=7`` instead; every process crashes alike): UCX-style ``[job-...-worker-0:4682 :0:4682] Caught
signal 11 (Segmentation fault ...)`` with interleaved backtraces, then local ranks [2] and [4] failing ``Connect``
(``[Proxy Service 2] Failed to execute operation Connect from rank 2``) and pid 5665's own SIGSEGV, is a warning
segfault of no rank as pasted ('Every process of the job took the same signal'), and no finding at all laid out as
8 per node on 16. Rank 2's Lightning frames only (NVIDIA/nccl#1748: a PyTorch Lightning job over InfiniBand under
Kubernetes, NCCL 2.26's graph-search fallback using a hardcoded NET id 0 under NIC fusion, fixed by NCCL 2.27; the
``Could not find NET with id 0`` error is past the excerpt) are an info suspect rank 2, low. Scored 2/2 both ways as
collected (d77306bb). Contrasts: the description's block alone (one UCX ``Caught signal 11`` line, no rank) and pid
5665's lines alone name no one and say nothing; a ``[rank2]: Fatal Python error: Segmentation fault`` names rank 2
(segfault); rank 2's frames with the NCCL ``internal error ... Could not find NET with id 0`` tail tagged
``[rank2]:`` name rank 2 (nccl-error, medium) — pinned as read: the truth of the thread is a library bug every rank
is exposed to, but a lone rank's NCCL internal error does not say so; the same tail given to ranks 0-3, or untagged,
names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

ROCE_SEGFAULT = corpus_lines("nccl-1538-")
NET_ID_0 = corpus_lines("nccl-1748-")

#: the description's block alone: one UCX ``Caught signal 11`` line and the interleaved backtraces, no rank tag
ROCE_DESCRIPTION_ONLY = ROCE_SEGFAULT[:14]
#: pid 5665's lines alone (local rank [2]): its failed connect and its SIGSEGV
ROCE_ONE_PROCESS = [line for line in ROCE_SEGFAULT if ":5665" in line]
#: a segfault tagged by rank 2 alone
SEGFAULT_RANK2 = ["[rank2]: Fatal Python error: Segmentation fault"]
#: the NCCL tail the excerpt cut, as torch prints it, tagged by rank 2
NCCL_TAIL = [
    "[rank2]: torch.distributed.DistBackendError: NCCL error in: "
    "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, internal error - please report this issue to the NCCL "
    "developers, NCCL version 2.26.2",
    "[rank2]: ncclInternalError: Internal check failed.",
    "[rank2]: Last error:",
    "[rank2]: Could not find NET with id 0",
]
NET_ID_0_WITH_ERROR = NET_ID_0 + NCCL_TAIL
#: the same frames and tail printed by every rank of a 4-GPU node
NET_ID_0_EVERY_RANK = [line.replace("[rank2]", f"[rank{r}]") for r in range(4) for line in NET_ID_0_WITH_ERROR]
#: the same frames and tail without the rank tags
NET_ID_0_UNTAGGED = [line.replace("[rank2]: ", "") for line in NET_ID_0_WITH_ERROR]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "roce-segfault-as-pasted": (ROCE_SEGFAULT, None, None, None, None),
    "roce-segfault-two-nodes-of-eight": (ROCE_SEGFAULT, 8, 16, None, None),
    "net-id-0-as-pasted": (NET_ID_0, None, None, None, None),
    "net-id-0-four-per-node": (NET_ID_0, 4, 8, None, None),
    # variants that must not name anyone
    "roce-description-only-names-none": (ROCE_DESCRIPTION_ONLY, 8, 16, None, None),
    "roce-one-process-names-none": (ROCE_ONE_PROCESS, 8, 16, None, None),
    "net-id-0-every-rank-names-none": (NET_ID_0_EVERY_RANK, 4, 4, None, None),
    "net-id-0-untagged-names-none": (NET_ID_0_UNTAGGED, None, None, None, None),
    # contrasts that name a rank
    "segfault-rank2-tagged-names-rank2": (SEGFAULT_RANK2, 8, 16, 2, "segfault"),
    "net-id-0-with-error-names-rank2": (NET_ID_0_WITH_ERROR, 4, 8, 2, "nccl-error"),
}
BATCHED = Batched("b386", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kubernetes_pod_log_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_roce_segfault_of_every_process_is_rankless(tmp_path):
    """NVIDIA/nccl#1538 as collected: two worker-0 processes' UCX ``Caught signal 11`` lines are one warning segfault
    of no rank as pasted; laid out as 2 nodes x 8 the unranked pids make no finding at all (pinned as read)."""
    assert _gist(ROCE_SEGFAULT, tmp_path / "a", None, None) == [("rank-failure", "warning", "segfault", [])]
    assert _gist(ROCE_SEGFAULT, tmp_path / "b", 8, 16) == []


def test_one_ucx_segfault_line_says_nothing(tmp_path):
    """A lone UCX-style ``[host:pid :0:tid] Caught signal 11`` (no rank tag) is not read as any process's crash (pinned
    as read)."""
    assert _gist(ROCE_DESCRIPTION_ONLY, tmp_path / "a", None, None) == []
    assert _gist(ROCE_ONE_PROCESS, tmp_path / "b", None, None) == []


def test_lone_lightning_frames_are_a_suspect_only(tmp_path):
    """NVIDIA/nccl#1748 as collected: rank 2's frames without their exception are an info suspect, confidence low."""
    findings = pasted_findings(NET_ID_0, tmp_path, None, None, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "info", "python-exception", [2])
    ]
    assert findings[0]["confidence"] == "low"


def test_lone_nccl_internal_error_names_its_rank(tmp_path):
    """With the tail the excerpt cut, rank 2's lone ``internal error ... Could not find NET with id 0`` names rank 2,
    warning, medium (pinned as read; the thread's truth is an NCCL bug every rank is exposed to)."""
    findings = pasted_findings(NET_ID_0_WITH_ERROR, tmp_path, 4, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "nccl-error", [2])
    ]
    assert findings[0]["confidence"] == "medium"
