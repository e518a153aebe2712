"""Multi-node runs under torchrun / the HF Trainer's launchers, 2025-2026 (real incidents batch 404), pinned as read.
Two incidents, collected blind. One was read right as collected: rank 15's traceback from the second node of a
2 x 8 FSDP fine-tune, ``pretrain_unified_navit.py`` -> ``fsdp_ema_setup`` -> ``FSDP(`` -> ``[rank15]:     state =
_init_process_group_state_for_hybrid_shard(``, cut before its exception (ByteDance-Seed/Bagel#295, settled by PR #309:
the CLI's default ``(1, 8)`` mesh leaves every second-node rank out of the mesh, a control) is a python-exception
suspect at info, confidence low, rank 15: no culprit, as pasted or as its 2 x 8. The other (NOT_YET as collected) gives
no finding: a worker machine's torchrun alone, ``[c10d] The client socket has timed out after 900s while trying to
connect to (33.145.124.128, 29500).`` then the head of torchrun's traceback, no rank tag (hiyouga/LlamaFactory#6575,
the author's diagnosis: the machines pip-initialise at different speeds, the workers start first; the store host, the
master node, had not started: rank 0's node, never-joined). Scored 1/2 both ways as collected (ff27a491).
Contrasts: the timeout twice (two workers), with the agent's ``failed (exitcode: 1) local_rank: 0``, with the host's
``1/2 clients joined`` or with torch's ``DistNetworkError`` line name no one; the timeout tagged ``[rank8]:`` is rank 8
a suspect only (info); rank 15's traceback untagged, beside rank 8's copy, or copied for every rank 8-15 names no one;
rank 15's traceback with the exception line the title gives (``IndexError: list index out of range``) names rank 15
(warning, python-exception: the paste holds one rank's lines only). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

MASTER_LATE = corpus_lines("LlamaFactory-6575-")
SECOND_NODE_MESH = corpus_lines("Bagel-295-")

#: the same worker timeout twice: two worker machines waiting on the one late master
MASTER_LATE_TWO_WORKERS = MASTER_LATE + MASTER_LATE
#: the worker agent's own report of its local worker 0 after the timeout
MASTER_LATE_AGENT_FAILED = MASTER_LATE + [
    "E0108 20:04:35.000000 140204748584768 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) "
    "local_rank: 0 (pid: 48096) of binary: /opt/conda/bin/python",
]
#: the store host's count, as a host that did come up would print it
MASTER_LATE_HOST_COUNT = MASTER_LATE + [
    "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
]
#: torch's exception line for the same timeout at the end of the traceback
MASTER_LATE_DIST_NETWORK_ERROR = MASTER_LATE + [
    "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to "
    "(33.145.124.128, 29500).",
]
#: the same lines as a rank's own (a rank 8 whose init_process_group timed out on the store)
MASTER_LATE_TAGGED_RANK8 = [f"[rank8]: {line}" for line in MASTER_LATE]

#: rank 15's traceback without the author's quote marker
SECOND_NODE_MESH_PLAIN = [line.removeprefix("> ") for line in SECOND_NODE_MESH]
#: the same frames without the rank tags
SECOND_NODE_MESH_UNTAGGED = [line.replace("[rank15]: ", "") for line in SECOND_NODE_MESH_PLAIN]
#: rank 8's copy beside rank 15's: two ranks of the second node alike
SECOND_NODE_MESH_RANKS_8_15 = [line.replace("[rank15]", "[rank8]") for line in SECOND_NODE_MESH_PLAIN] + \
    SECOND_NODE_MESH_PLAIN
#: every rank of the second node alike, as the mesh makes them
SECOND_NODE_MESH_ALL = [line.replace("[rank15]", f"[rank{r}]") for r in range(8, 16) for line in SECOND_NODE_MESH_PLAIN]
#: rank 15's traceback with the exception line the title gives
SECOND_NODE_MESH_WITH_EXCEPTION = SECOND_NODE_MESH_PLAIN + ["[rank15]: IndexError: list index out of range"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "master-late-as-pasted": (MASTER_LATE, None, None, None, None),
    "master-late-two-nodes-of-eight": (MASTER_LATE, 8, 16, None, None),
    "second-node-mesh-as-pasted": (SECOND_NODE_MESH, None, None, None, None),
    "second-node-mesh-two-nodes-of-eight": (SECOND_NODE_MESH, 8, 16, None, None),
    # variants that must not name anyone
    "master-late-two-workers-names-none": (MASTER_LATE_TWO_WORKERS, 8, 24, None, None),
    "master-late-agent-failed-names-none": (MASTER_LATE_AGENT_FAILED, 8, 16, None, None),
    "master-late-host-count-names-none": (MASTER_LATE_HOST_COUNT, None, None, None, None),
    "master-late-dist-network-error-names-none": (MASTER_LATE_DIST_NETWORK_ERROR, 8, 16, None, None),
    "master-late-tagged-rank8-suspect-only": (MASTER_LATE_TAGGED_RANK8, 8, 16, None, None),
    "second-node-mesh-plain-names-none": (SECOND_NODE_MESH_PLAIN, 8, 16, None, None),
    "second-node-mesh-untagged-names-none": (SECOND_NODE_MESH_UNTAGGED, 8, 16, None, None),
    "second-node-mesh-ranks-8-15-names-none": (SECOND_NODE_MESH_RANKS_8_15, 8, 16, None, None),
    "second-node-mesh-all-ranks-names-none": (SECOND_NODE_MESH_ALL, 8, 16, None, None),
    # a contrast that names a rank
    "second-node-mesh-with-exception-names-rank15": (SECOND_NODE_MESH_WITH_EXCEPTION, 8, 16, 15, "python-exception"),
}
BATCHED = Batched("b404", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_multi_node_launcher_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_worker_store_timeout_alone_gives_no_finding(tmp_path):
    """LlamaFactory#6575 as collected (NOT_YET): a launcher's TCPStore client timing out on MASTER_ADDR says the store
    host never listened, late or unreachable alike (a closed port reads the same); the start-up skew that makes the
    master node the late one is in the thread's prose only, so k10s names no one and finds nothing."""
    assert _gist(MASTER_LATE, tmp_path / "a", None, None) == []
    assert _gist(MASTER_LATE, tmp_path / "b", 8, 16) == []


def test_tagged_store_timeout_is_a_suspect_only(tmp_path):
    """The same lines as rank 8's own: a traceback cut before its exception, rank 8 a suspect at info only."""
    assert_info_suspect(pasted_findings(MASTER_LATE_TAGGED_RANK8, tmp_path, 8, 16, NOW), 8)


def test_second_node_mesh_traceback_is_a_suspect_only(tmp_path):
    """Bagel#295 as collected: rank 15's frames with no exception line are an info python-exception suspect, confidence
    low; the author's quote marker on the first line changes nothing."""
    findings = pasted_findings(SECOND_NODE_MESH, tmp_path / "a", None, None, NOW)
    assert_info_suspect(findings, 15)
    assert [f["confidence"] for f in findings if f["rule"] == "rank-failure"] == ["low"]
    assert_info_suspect(pasted_findings(SECOND_NODE_MESH, tmp_path / "b", 8, 16, NOW), 15)


def test_second_node_ranks_alike_are_no_single_culprit(tmp_path):
    """Every second-node rank's copy of the traceback, as the (1, 8) mesh makes them: a rankless python-exception."""
    assert _gist(SECOND_NODE_MESH_ALL, tmp_path, 8, 16) == [("rank-failure", "warning", "python-exception", [])]
