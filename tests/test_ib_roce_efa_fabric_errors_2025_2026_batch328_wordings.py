"""Multi-node fabric failures of 2025-2026 threads (real incidents batch 328: InfiniBand / RoCE / AWS EFA), pinned as read.
Four controls, collected blind, all read right as collected (4/4 both ways, no control named): srun's ``tasks 0-7`` and
``tasks 8-15: Exited with exit code 132`` after UCX's ``Caught signal 4 (Illegal instruction: illegal operand)`` in
``hybrid_ep`` (NVIDIA-NeMo/Megatron-Bridge#3343: the recipe's EP 16 on an EFA cluster, every task alike) is a SIGILL of
no rank; ``[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)``
after ``NCCL_SOCKET_IFNAME set by environment to eth2`` (NVIDIA/nccl#1837: a job-wide interface that does not exist) is
a NCCL error of no rank; NVSHMEM's ``neither nv_peer_mem, or nvidia_peermem detected`` / ``building transport map
failed`` (deepseek-ai/DeepEP#223: the host's nvidia-peermem module not loaded) and UCCL's ``CQE ERROR ...
status=12(transport retry counter exceeded)`` on many QPs (uccl-project/uccl#799: a link-local GID chosen on every
Broadcom NIC) are read as no failure at all. No rule changed (measure only). Contrasts: one srun ``task 9`` exiting
132 names rank 9 (sigill); only the second host's ``tasks 8-15`` names none (eight alike); UCX's ``Caught signal 4``
backtrace without srun's lines reads nothing; the socket error under a ``[rank5]:`` tag names rank 5 (nccl-error);
without that error line nothing is named; the agent's ``failed (exitcode: 255) local_rank: 3`` after NVSHMEM's lines
names rank 3 (exit-255); the CQE line as ``[rank3]``'s ``RuntimeError`` names rank 3 (python-exception). Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

SIGILL_ALL_TASKS = corpus_lines("Megatron-Bridge-3343-")
SOCKET_IFNAME = corpus_lines("nccl-1837-")
NVSHMEM_PEERMEM = corpus_lines("DeepEP-223-")
CQE_RETRY = corpus_lines("uccl-799-")

#: UCX's signal report and backtrace, then srun's report of one task only: ``task 9: Exited with exit code 132``
SIGILL_ONE_TASK = SIGILL_ALL_TASKS[:-2] + [
    "  srun: error: pool0-1616: task 9: Exited with exit code 132"
]
#: srun's report of the second host's tasks only (``tasks 8-15``): eight ranks alike
SIGILL_ONE_HOST = [line for line in SIGILL_ALL_TASKS if "pool0-1361" not in line]
#: UCX's ``Caught signal 4`` report and backtrace without srun's exit lines
UCX_SIGNAL_ONLY = SIGILL_ALL_TASKS[:-2]
#: the socket error under a torch rank tag, ``[rank5]:``, in place of the launcher's ``[trainer0|0]:``
SOCKET_IFNAME_RANK5 = [
    line.replace("[trainer0|0]:", "[rank5]:") for line in SOCKET_IFNAME
]
#: trainer 3's two INFO lines only (no error line)
SOCKET_IFNAME_INFO_ONLY = SOCKET_IFNAME[:2]
#: NVSHMEM's lines, then torch elastic's report of local rank 3's exit
AGENT_LOCAL_RANK3 = (
    "[2025-06-18 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
    "(exitcode: 255) local_rank: 3 (pid: 4242) of binary: /usr/bin/python3"
)
NVSHMEM_AGENT_RANK3 = NVSHMEM_PEERMEM + [AGENT_LOCAL_RANK3]
#: the first CQE line as rank 3's exception
CQE_IN_RANK3_EXCEPTION = [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "test_low_latency.py", line 120, in <module>',
    "[rank3]: RuntimeError: " + CQE_RETRY[0],
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (all four controls read right)
    "sigill-all-tasks-as-pasted": (SIGILL_ALL_TASKS, None, None, None, None),
    "sigill-all-tasks-two-nodes": (SIGILL_ALL_TASKS, 8, 16, None, None),
    "socket-ifname-as-pasted": (SOCKET_IFNAME, None, None, None, None),
    "socket-ifname-eight-ranks": (SOCKET_IFNAME, 8, 8, None, None),
    "nvshmem-peermem-as-pasted": (NVSHMEM_PEERMEM, None, None, None, None),
    "nvshmem-peermem-two-nodes": (NVSHMEM_PEERMEM, 8, 16, None, None),
    "cqe-retry-as-pasted": (CQE_RETRY, None, None, None, None),
    "cqe-retry-two-nodes": (CQE_RETRY, 8, 16, None, None),
    # contrasts
    "sigill-one-task-names-rank9": (SIGILL_ONE_TASK, 8, 16, 9, "sigill"),
    "sigill-one-host-names-none": (SIGILL_ONE_HOST, 8, 16, None, None),
    "ucx-signal-without-srun-names-none": (UCX_SIGNAL_ONLY, 8, 16, None, None),
    "socket-ifname-rank5-tag-names-rank5": (SOCKET_IFNAME_RANK5, 8, 8, 5, "nccl-error"),
    "socket-ifname-info-only-names-none": (
        SOCKET_IFNAME_INFO_ONLY,
        None,
        None,
        None,
        None,
    ),
    "nvshmem-agent-local-rank3-names-rank3": (NVSHMEM_AGENT_RANK3, 8, 8, 3, "exit-255"),
    "cqe-in-rank3-exception-names-rank3": (
        CQE_IN_RANK3_EXCEPTION,
        8,
        16,
        3,
        "python-exception",
    ),
}
BATCHED = Batched("b328", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_fabric_error_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
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


def test_every_task_exiting_132_is_a_sigill_of_no_rank(tmp_path):
    """srun's two ``tasks a-b: Exited with exit code 132`` lines: sixteen ranks alike, a SIGILL failure of no rank
    (warning), as pasted and as the thread lays it out."""
    assert _failures(SIGILL_ALL_TASKS, tmp_path / "a", None, None) == [
        ("warning", "sigill", [])
    ]
    assert _failures(SIGILL_ALL_TASKS, tmp_path / "b", 8, 16) == [
        ("warning", "sigill", [])
    ]


def test_socket_family_error_is_a_nccl_error_of_no_rank(tmp_path):
    """``ncclSocketInit: ... is neither AF_INET(2) nor AF_INET6(10)`` under the launcher's ``[trainer0|0]:`` prefix (no
    rank tag): a NCCL error of no rank (warning)."""
    assert _failures(SOCKET_IFNAME, tmp_path, None, None) == [
        ("warning", "nccl-error", [])
    ]


@pytest.mark.parametrize(
    "lines",
    [NVSHMEM_PEERMEM, CQE_RETRY, UCX_SIGNAL_ONLY],
    ids=["nvshmem-transport-map", "verbs-cqe-retry-exceeded", "ucx-caught-signal-4"],
)
def test_fabric_lines_without_a_launcher_exit_read_no_failure(lines, tmp_path):
    """NVSHMEM's init failure, a verbs ``CQE ERROR ... status=12(transport retry counter exceeded)`` and UCX's
    ``Caught signal 4 (Illegal instruction ...)`` report are not read as a failure today: no rank-failure at all."""
    assert _failures(lines, tmp_path, 8, 16) == []
