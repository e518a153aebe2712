"""Settled one-rank culprits of 2026 threads (real incidents batch 336), pinned as read.
One culprit and two controls, collected blind; all three were read right as collected, both ways (no NOT_YET): the
torchrun agent's ``failed (exitcode: -9) local_rank: 0`` with no error file, after a Puzzletron scoring run
(NVIDIA/Model-Optimizer#1681: a CPU-RAM leak across solution validations, fixed by PR #1729) names rank 0,
host-oom-kill (warning as pasted, whatever the layout); Megatron-Bridge's unranked ``INFO`` lines of a packed-sequence
preparation (NVIDIA-NeMo/Megatron-Bridge#1505: no rank synchronization while packing, the other ranks idled into an NCCL
timeout past the excerpt) and UCCL's unranked ``Failed to modify QP to RTR: Connection timed out`` / ``errno: 110``
lines on MI355X + IONIC RoCE (uccl-project/uccl#641: node configuration) name no one. No rule changed (measure only).
Contrasts: the agent's local rank renumbered names the new rank (critical at four per node); exit -11, -6 and 1 give
segfault, abort and python-exception; without the agent's line nothing is named; a SIGTERM to a sibling first keeps
host-oom-kill (critical); a rank-tagged CUDA OOM after the packing lines names that rank (cuda-oom); one rank's lone
watchdog timeout there names no one; a ``[rank3]:`` tag on the QP failures, or NCCL's own ``ibv_modify_qp`` WARN,
still names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 30, tzinfo=dt.timezone.utc)

AGENT_SIGKILL = corpus_lines("Model-Optimizer-1681-")
PACKING_INFO = corpus_lines("Megatron-Bridge-1505-")
QP_RTR_TIMEOUT = corpus_lines("uccl-641-")

#: the agent's local rank 0 renumbered 3 (four processes per node)
AGENT_LOCAL_RANK_3 = [
    line.replace("local_rank: 0", "local_rank: 3") for line in AGENT_SIGKILL
]
#: the same agent line with another exit status
AGENT_EXIT_SEGV = [
    line.replace("exitcode: -9", "exitcode: -11") for line in AGENT_SIGKILL
]
AGENT_EXIT_ABRT = [
    line.replace("exitcode: -9", "exitcode: -6") for line in AGENT_SIGKILL
]
AGENT_EXIT_1 = [line.replace("exitcode: -9", "exitcode: 1") for line in AGENT_SIGKILL]
#: only the launcher's own ``ChildFailedError`` traceback: no agent line, no rank
AGENT_NO_FAILED_LINE = AGENT_SIGKILL[2:]
#: the agent tearing down a sibling before it reports local rank 0's SIGKILL
AGENT_SIGTERM_FIRST = [
    "W0612 01:14:56.900000 3908386 torch/distributed/elastic/multiprocessing/api.py:900] Sending "
    "process 3908424 closing signal SIGTERM"
] + AGENT_SIGKILL
#: a rank-tagged CUDA OOM after the packing lines
PACKING_RANK0_OOM = PACKING_INFO + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.10 GiB of which 1.00 GiB is free."
]
#: one rank's lone watchdog timeout after the packing lines (a waiting rank, not the busy one)
PACKING_RANK1_WATCHDOG = PACKING_INFO + [
    "[rank1]:[E1125 10:00:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=3, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 "
    "milliseconds before timing out."
]
#: the QP failures tagged ``[rank3]:``
QP_RTR_RANK3 = [
    "[rank3]: " + line if line.startswith("Failed") else line for line in QP_RTR_TIMEOUT
]
#: NCCL's own wording of the same transition failing, one host and device, before the UCCL lines
QP_RTR_NCCL_WARN = [
    "host-01:4021:4100 [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection "
    "timed out, on dev mlx_x:1, curr state INIT, next state RTR"
] + QP_RTR_TIMEOUT

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (or might: the thread states no nproc)
    "agent-sigkill-as-pasted": (AGENT_SIGKILL, None, None, 0, "host-oom-kill"),
    "agent-sigkill-one-process": (AGENT_SIGKILL, 1, 1, 0, "host-oom-kill"),
    "agent-sigkill-two-processes": (AGENT_SIGKILL, 2, 2, 0, "host-oom-kill"),
    "packing-info-as-pasted": (PACKING_INFO, None, None, None, None),
    "packing-info-eight-gpus": (PACKING_INFO, 8, 8, None, None),
    "qp-rtr-timeout-as-pasted": (QP_RTR_TIMEOUT, None, None, None, None),
    "qp-rtr-timeout-two-nodes": (QP_RTR_TIMEOUT, 8, 16, None, None),
    # contrasts
    "agent-local-rank-3-names-rank3": (AGENT_LOCAL_RANK_3, 4, 4, 3, "host-oom-kill"),
    "agent-exit-segv-names-rank0": (AGENT_EXIT_SEGV, 2, 2, 0, "segfault"),
    "agent-exit-abrt-names-rank0": (AGENT_EXIT_ABRT, 2, 2, 0, "abort"),
    "agent-exit-1-names-rank0": (AGENT_EXIT_1, 2, 2, 0, "python-exception"),
    "agent-without-failed-line-names-none": (AGENT_NO_FAILED_LINE, 2, 2, None, None),
    "agent-sigterm-first-names-rank0": (AGENT_SIGTERM_FIRST, 2, 2, 0, "host-oom-kill"),
    "packing-rank0-oom-names-rank0": (PACKING_RANK0_OOM, 8, 8, 0, "cuda-oom"),
    "packing-rank1-watchdog-names-none": (PACKING_RANK1_WATCHDOG, 8, 8, None, None),
    "qp-rtr-rank3-tag-names-none": (QP_RTR_RANK3, 8, 8, None, None),
    "qp-rtr-nccl-warn-names-none": (QP_RTR_NCCL_WARN, 8, 8, None, None),
}
BATCHED = Batched("b336", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_settled_one_rank_culprit_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_agent_sigkill_severity_follows_the_layout(tmp_path):
    """Local rank 0's SIGKILL with no error file is a warning host-oom-kill as pasted and at one or two processes per
    node; the same line for local rank 3 at four per node is critical, and so is rank 0's after a SIGTERM to a
    sibling."""
    assert _failures(AGENT_SIGKILL, tmp_path / "a", 2) == [
        ("warning", "host-oom-kill", [0])
    ]
    assert _failures(AGENT_LOCAL_RANK_3, tmp_path / "b", 4) == [
        ("critical", "host-oom-kill", [3])
    ]
    assert _failures(AGENT_SIGTERM_FIRST, tmp_path / "c", 2) == [
        ("critical", "host-oom-kill", [0])
    ]


def test_unranked_lines_are_no_rank_failure(tmp_path):
    """Neither the packing ``INFO`` lines nor the QP ``RTR`` timeouts make a rank failure of any severity."""
    assert _failures(PACKING_INFO, tmp_path / "a", 8) == []
    assert _failures(QP_RTR_TIMEOUT, tmp_path / "b", 8) == []
