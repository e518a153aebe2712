"""torch elastic rendezvous and restart failures (real incidents batch 344), pinned as read.
Three controls, collected blind, all read right as collected (3/3 both ways, none named): a two-node x 4-GPU Qwen-VL
launch that prints only torchrun's ``WARNING:torch.distributed.run:`` OMP_NUM_THREADS banner and hangs (QwenLM/Qwen-VL#204:
MASTER_ADDR left at the script default, the agents never meet); the torchrun agent's own traceback into
``_create_etcd_v2_handler`` ending in ``RendezvousConnectionError: The connection to etcd has failed`` (pytorch#123714:
torch's etcd rendezvous/server port, before any worker exists); an untagged ``ncclCommWatchdog`` frame dump from the
survivors of a deliberate rank leave-and-rejoin (pytorch#123678: the rendezvous shut down during the worker-group
restart, fixed by PR #124819). No rule changed (measure only). Contrasts: the banner followed by the agent's ``failed
(exitcode: 1) local_rank: 2`` is a python failure of no rank on two nodes (the node is unknown), of rank 2 on one; a ``[rank5]:`` (or ``[rank6]:``)
traceback after the banner names that rank; a ``[rank3]:`` traceback ahead of the agent's etcd traceback names rank 3;
the agent's traceback ending in ``RendezvousClosedError`` or ``RendezvousTimeoutError`` instead names no one; the frames
under three ranks' watchdog timeouts of a four-rank world name rank 3 never-joined; under a ``[rank2]:`` CUDA OOM, rank 2.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 22, 40, tzinfo=dt.timezone.utc)

LAUNCH_BANNER = corpus_lines("Qwen-VL-204-")
ETCD_AGENT = corpus_lines("pytorch-123714-")
WATCHDOG_FRAMES = corpus_lines("pytorch-123678-")


def _rank_traceback(rank: int) -> list[str]:
    """A worker's own rank-tagged Python traceback."""
    return [
        f"[rank{rank}]: Traceback (most recent call last):",
        f'[rank{rank}]:   File "finetune.py", line 364, in <module>',
        f"[rank{rank}]:     train()",
        f"[rank{rank}]: KeyError: 'input_ids'",
    ]


def _watchdog_timeout(rank: int) -> str:
    return (
        f"[rank{rank}]:[E404 12:31:59.000000000 ProcessGroupNCCL.cpp:1389] [PG 0 Rank {rank}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=60000) ran for 60011 milliseconds before timing out."
    )


#: the banner and the agent's report of its local rank 2 (no node rank given, so no global rank)
BANNER_AGENT_FAILED = LAUNCH_BANNER + [
    "E1219 10:00:00.000000 139955215721408 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 2 (pid: 4242) of binary: /usr/bin/python"
]
#: the agent's etcd traceback ending in the other two rendezvous errors
ETCD_CLOSED = ETCD_AGENT[:-1] + [
    "torch.distributed.elastic.rendezvous.api.RendezvousClosedError"
]
ETCD_TIMEOUT = ETCD_AGENT[:-1] + [
    "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError: "
]
#: the survivors' frames under three ranks' watchdog timeouts, or under one rank's CUDA OOM
WATCHDOG_THREE_OF_FOUR = [_watchdog_timeout(r) for r in (0, 1, 2)] + WATCHDOG_FRAMES
WATCHDOG_AFTER_OOM = [
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a "
    "total capacity of 79.10 GiB of which 1.00 GiB is free."
] + WATCHDOG_FRAMES

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "launch-banner-as-pasted": (LAUNCH_BANNER, None, None, None, None),
    "launch-banner-two-nodes-of-four": (LAUNCH_BANNER, 4, 8, None, None),
    "etcd-agent-as-pasted": (ETCD_AGENT, None, None, None, None),
    "etcd-agent-one-process": (ETCD_AGENT, 1, 1, None, None),
    "watchdog-frames-as-pasted": (WATCHDOG_FRAMES, None, None, None, None),
    # contrasts
    "banner-agent-local-rank2-names-none": (BANNER_AGENT_FAILED, 4, 8, None, None),
    "banner-rank5-traceback-names-rank5": (
        LAUNCH_BANNER + _rank_traceback(5),
        4,
        8,
        5,
        "python-exception",
    ),
    "banner-rank6-traceback-names-rank6": (
        LAUNCH_BANNER + _rank_traceback(6),
        4,
        8,
        6,
        "python-exception",
    ),
    "etcd-agent-after-rank3-traceback-names-rank3": (
        _rank_traceback(3) + ETCD_AGENT,
        4,
        4,
        3,
        "python-exception",
    ),
    "etcd-agent-closed-names-none": (ETCD_CLOSED, None, None, None, None),
    "etcd-agent-timeout-names-none": (ETCD_TIMEOUT, None, None, None, None),
    "watchdog-three-of-four-names-rank3": (
        WATCHDOG_THREE_OF_FOUR,
        4,
        4,
        3,
        "never-joined",
    ),
    "watchdog-after-oom-names-rank2": (WATCHDOG_AFTER_OOM, 4, 4, 2, "cuda-oom"),
}
BATCHED = Batched("b344", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_elastic_rendezvous_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_agent_rendezvous_errors_are_no_rank_failure(tmp_path):
    """The torchrun agent's own rendezvous errors (connection, closed, timeout) raise before any worker exists: a
    launcher-level error, not a worker's exception, so no rank. Since session 58 (this batch's suggestion) they are said:
    the lost connection and the timeout at warning, the closed rendezvous at info, each naming no rank."""
    assert _failures(ETCD_AGENT, tmp_path / "a", None, None) == [("warning", "rendezvous-connection", [])]
    assert _failures(ETCD_CLOSED, tmp_path / "b", None, None) == [("info", "rendezvous-closed", [])]
    assert _failures(ETCD_TIMEOUT, tmp_path / "c", None, None) == [("warning", "rendezvous-timeout", [])]


def test_agent_local_rank_maps_only_on_one_node(tmp_path):
    """The agent's ``failed (exitcode: 1) local_rank: 2`` with no node rank in the paste: on the thread's two nodes of
    four a python failure (warning) of no global rank; on one node of four, local rank 2 is rank 2."""
    assert _failures(BANNER_AGENT_FAILED, tmp_path / "a", 4, 8) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(BANNER_AGENT_FAILED, tmp_path / "b", 4, 4) == [
        ("warning", "python-exception", [2])
    ]
