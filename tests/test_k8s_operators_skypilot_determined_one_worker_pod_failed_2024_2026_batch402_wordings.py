"""Operator-run distributed PyTorch jobs where one pod/node seemed to fail, 2024-2026 (real incidents batch 402), pinned
as read. Two controls, collected blind, both read right as collected (no rank named, both ways). SkyPilot's own 2-node
``nccl_test.yaml`` on Azure with accelerated networking (skypilot-org/skypilot#4448: the latest SkyPilot image breaks
NCCL over the accelerated-networking interface, every node alike): head's and worker1's identical ``misc/socket.cc:484
NCCL WARN socketStartConnect: Connect to fe80::...%enP...s1<port> failed : Software caused connection abort``, under
SkyPilot's ``(head, rank=0, pid=5634)`` / ``(worker1, rank=1, pid=4888, ip=10.60.0.4)`` node prefix and torchrun's
``[nccl-e9ef-7d4f-1:3]:`` tee tag, then worker1's ``[rank7]: Traceback (most recent call last):`` — k10s finds nothing
at all, as pasted or laid out as 2 nodes of 4 (no culprit, as the truth wants, but no nccl-error either: the prefixed
NCCL WARN lines are not read). A verl GRPO run on a multi-node Ray cluster (verl-project/verl#726: NCCL connecting to the
link-local 169.254.0.1, the AWS cluster's network, every worker alike): the driver's untagged
``torch.distributed.DistBackendError ... unhandled system error`` with ``socketStartConnect: Connect to 169.254.0.1<40815>
failed : Software caused connection abort``, then innocent ``(WorkerDict pid=..., ip=...)`` lines — an nccl-error
warning of no rank, as pasted or as 16 workers. Scored 2/2 both ways as collected. Contrasts: worker1's lines alone
with its own ``[rank7]: torch.distributed.DistBackendError`` name rank 7 (nccl-error); the same error on rank 7 and on
head's rank 3 beside both nodes' socket aborts names no one; verl's error tagged ``[rank3]:`` once names rank 3, tagged by
ranks 3 and 5 or repeated untagged names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

ACCELNET = corpus_lines("skypilot-4448-")
LINK_LOCAL = corpus_lines("verl-726-")

#: worker1's lines alone (SkyPilot node rank 1: torch ranks 4-7)
ACCELNET_WORKER1 = [line for line in ACCELNET if line.startswith("(worker1")]
_BACKEND_ERROR = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3690, "
    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"
)
#: worker1's local rank 3 (torch rank 7) reaching its own DistBackendError, as SkyPilot and torchrun's tee print it
RANK7_ERROR = f"(worker1, rank=1, pid=4888, ip=10.60.0.4) [nccl-e9ef-7d4f-1:3]:[rank7]: {_BACKEND_ERROR}"
#: the head's local rank 3 (torch rank 3) reaching the same error
RANK3_ERROR = f"(head, rank=0, pid=5634) [nccl-e9ef-7d4f-0:3]:[rank3]: {_BACKEND_ERROR}"
#: verl's four error lines tagged by rank 3 alone
LINK_LOCAL_RANK3 = [f"[rank3]: {line}" if i < 4 else line for i, line in enumerate(LINK_LOCAL)]
#: ... and by rank 5 too
LINK_LOCAL_RANK3_RANK5 = LINK_LOCAL_RANK3 + [f"[rank5]: {line}" for line in LINK_LOCAL[:4]]
#: the same four error lines twice, untagged (two workers' copies)
LINK_LOCAL_TWICE = LINK_LOCAL + LINK_LOCAL[:4]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "accelnet-as-pasted": (ACCELNET, None, None, None, None),
    "accelnet-two-nodes-of-four": (ACCELNET, 4, 8, None, None),
    "link-local-as-pasted": (LINK_LOCAL, None, None, None, None),
    "link-local-sixteen-workers": (LINK_LOCAL, 8, 16, None, None),
    # variants that must not name anyone
    "accelnet-worker1-alone-names-none": (ACCELNET_WORKER1, 4, 8, None, None),
    "accelnet-rank7-and-rank3-errors-names-none": (ACCELNET + [RANK7_ERROR, RANK3_ERROR], 4, 8, None, None),
    "accelnet-both-nodes-and-rank7-error-names-none": (ACCELNET + [RANK7_ERROR], 4, 8, None, None),
    "link-local-rank3-and-rank5-names-none": (LINK_LOCAL_RANK3_RANK5, 8, 16, None, None),
    "link-local-untagged-twice-names-none": (LINK_LOCAL_TWICE, None, None, None, None),
    # contrasts that must name a rank
    "accelnet-worker1-rank7-error-names-rank7": (ACCELNET_WORKER1 + [RANK7_ERROR], 4, 8, 7, "nccl-error"),
    "link-local-tagged-rank3-names-rank3": (LINK_LOCAL_RANK3, 8, 16, 3, "nccl-error"),
}
BATCHED = Batched("b402", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_operator_pod_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_prefixed_socket_aborts_on_both_nodes_find_nothing(tmp_path):
    """skypilot#4448 as collected: no finding at all — right that no rank is named (both nodes abort alike), but the
    NCCL WARN ``socketStartConnect ... Software caused connection abort`` under SkyPilot's node prefix and torchrun's tee
    tag is not read as an nccl-error (pinned as read; docs/rules.md, "Session 64: batch 402")."""
    assert _gist(ACCELNET, tmp_path / "a", None, None) == []
    assert _gist(ACCELNET, tmp_path / "b", 4, 8) == []


def test_link_local_connect_abort_is_a_rankless_nccl_error(tmp_path):
    """verl#726 as collected: one warning, nccl-error, no rank — the untagged driver error is every worker's; the
    ``(WorkerDict pid=..., ip=...)`` lines around it are innocent."""
    assert _gist(LINK_LOCAL, tmp_path / "a", None, None) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(LINK_LOCAL, tmp_path / "b", 8, 16) == [("rank-failure", "warning", "nccl-error", [])]
