"""NCCL's network device that will not open on some ranks only (docs/rules.md, "Session 61: a NIC that will not open on
one node"): ``NCCL WARN NET/IB : Unable to open device erdma_1`` or ``NCCL INFO NET/IB : No device found.`` printed by a
strict subset of the ranks whose NET/IB lines show, while the others list their devices (``NET/IB : Using
[0]mlx5_0:1/RoCE …``) with no failure, names those ranks (rule nic-open, warning, nccl-error, medium) — NVIDIA/nccl#2428's
shape: node B's container admits one of the two eRDMA devices node A uses.

Contrasts: every rank alike (NCCL_IB_HCA naming a device no node has; a cluster without IB, every rank's ``No device
found`` then ``Using [RO]``) names no one; a lone rank's paste with no peer's device list names no one; a peer whose
``Using`` line lists no device (``Using [RO]; OOB …``) is no healthy peer; the WARN of another NET/IB matter (an async
event) is not this; the paste of nccl-2428 as collected (no line tagged) still names no one.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 11, 0, tzinfo=dt.timezone.utc)


def _listed(rank: int, host: str, devices: str = "[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE") -> str:
    return f"[rank{rank}]: {host}:{100 + rank}:{200 + rank} [0] NCCL INFO NET/IB : Using {devices} [RO]; OOB eth0:10.0.0.{rank + 1}<0>"


def _unopenable(rank: int, host: str, device: str = "mlx5_1") -> str:
    return f"[rank{rank}]: {host}:{100 + rank}:{200 + rank} [0] NCCL WARN NET/IB : Unable to open device {device}"


def _none_found(rank: int, host: str) -> str:
    return f"[rank{rank}]: {host}:{100 + rank}:{200 + rank} [0] NCCL INFO NET/IB : No device found."


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _nic(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"], f.get("confidence")) for f in findings if f["rule"] == "nic-open"]


def test_the_erdma_node_that_cannot_open_its_second_device_is_named(tmp_path):
    lines = [_listed(0, "node-a", "[0]erdma_0:1/RoCE [1]erdma_1:1/RoCE"), _unopenable(1, "node-b", "erdma_1"),
             _listed(1, "node-b", "[0]erdma_0:1/RoCE")]
    findings = pasted_findings(lines, tmp_path, 1, 2, NOW)
    assert _nic(findings) == [("warning", "nccl-error", [1], "medium")], _gist(findings)
    assert {r for f in naming_findings(findings) for r in f["ranks"]} == {1}, _gist(findings)
    assert "erdma_1" in next(f for f in findings if f["rule"] == "nic-open")["title"]


def test_nccl_s_host_prefix_alone_places_the_ranks(tmp_path):
    lines = [ln.split("]: ", 1)[1] for ln in (_listed(0, "node-a"), _unopenable(1, "node-b"), _listed(1, "node-b", "[0]mlx5_0:1/RoCE"))]
    findings = pasted_findings(lines, tmp_path, 1, 2, NOW)
    assert _nic(findings) == [("warning", "nccl-error", [1], "medium")], _gist(findings)


def test_a_node_with_no_device_among_nodes_that_list_theirs_is_named(tmp_path):
    lines = [_listed(r, f"node-{r}", "[0]mlx5_0:1/IB") for r in (0, 1, 3)] + [
        _none_found(2, "node-2"), "[rank2]: node-2:102:202 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.3<0>"]
    findings = pasted_findings(lines, tmp_path, 1, 4, NOW)
    assert _nic(findings) == [("warning", "nccl-error", [2], "medium")], _gist(findings)


def test_two_ranks_of_one_node_are_named_together(tmp_path):
    lines = [_listed(0, "node-a"), _listed(1, "node-a"), _unopenable(2, "node-b"), _unopenable(3, "node-b")]
    findings = pasted_findings(lines, tmp_path, 2, 4, NOW)
    assert _nic(findings) == [("warning", "nccl-error", [2, 3], "medium")], _gist(findings)


@pytest.mark.parametrize("lines", [
    # every rank alike: the job's NCCL_IB_HCA or the cluster, no one's node
    [_unopenable(0, "node-a", "erdma_1"), _listed(0, "node-a", "[0]erdma_0:1/RoCE"),
     _unopenable(1, "node-b", "erdma_1"), _listed(1, "node-b", "[0]erdma_0:1/RoCE")],
    # a cluster without IB: every rank's `No device found` then a device-less `Using [RO]`
    [ln for r in range(4) for ln in (_none_found(r, "host"), _listed(r, "host", "").replace("Using  [RO]", "Using [RO]"))],
    # a lone rank's paste: no peer's device list
    [_unopenable(1, "node-b", "erdma_1"), _listed(1, "node-b", "[0]erdma_0:1/RoCE")],
    [_none_found(1, "node-b")],
    # the peer's `Using` lists no device: no healthy peer
    [_listed(0, "node-a", "").replace("Using  [RO]", "Using [RO]"), _none_found(1, "node-b")],
    # another NET/IB WARN (a port's async event) is not a device that will not open
    [_listed(0, "node-a"), "[rank1]: node-b:101:201 [0] NCCL WARN NET/IB : mlx5_1:1 Got async event : port error",
     _listed(1, "node-b")],
], ids=["every-rank-alike", "no-ib-cluster", "lone-rank-unopenable", "lone-rank-none-found", "peer-lists-no-device",
        "other-net-ib-warn"])
def test_no_one_is_named_without_a_healthy_peer_beside_a_failing_rank(tmp_path, lines):
    findings = pasted_findings(lines, tmp_path, 1, 4 if len({ln.split("]:")[0] for ln in lines}) > 2 else 2, NOW)
    assert _nic(findings) == [], _gist(findings)
    assert naming_findings(findings) == [], _gist(findings)


def test_nccl_2428_as_collected_names_no_one(tmp_path):
    """No line of the paste is tagged: which rank printed the WARN only the thread's prose says."""
    findings = pasted_findings(corpus_lines("nccl-2428-"), tmp_path, 1, 2, NOW)
    assert _nic(findings) == [] and naming_findings(findings) == [], _gist(findings)
