"""Settled lone-rank culprits of 2023-2024 threads (real incidents batch 298), pinned as read.
Three incidents collected blind, all read right as collected, both ways: the torchrun agent's one line ``failed
(exitcode: -9) local_rank: 1 (pid: 14447) of binary:`` (AkariAsai/self-rag#83: the author found host memory too small)
names local rank 1, host-oom-kill, at warning (no agent SIGTERM lines to show the others torn down); the DeepSpeed
launcher's ``sigkill_handler [...] exits with return code = 1`` with no ``--local_rank=`` in its argument list
(hiyouga/LlamaFactory#2444: multi-node PPO, the maintainer's guess a memory overflow) is a python-exception failure of
no rank; one process's NCCL INFO channel setup then Open MPI's ``1 process returned a non-zero exit code`` (NVIDIA/nccl#983:
a bus error at ``ncclCommInitRank``, only in the title) names no one and raises nothing. Contrasts: the agent's line
renumbered names the new local rank; exitcode -11 / 1 give segfault / python-exception; with the agent's SIGTERM line for
another worker the OOM kill is critical; the launcher's ``--local_rank=5`` (the last process it looped over, not the
first to fail) still names no rank, and its ``-9`` gives host-oom-kill of no rank; mpirun's ``process rank 1 ... exited
on signal 7 (Bus error)`` names rank 1 (sigbus). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 6, 30, tzinfo=dt.timezone.utc)

AGENT_MINUS_9 = corpus_lines("self-rag-83-")
LAUNCHER_EXIT_1 = corpus_lines("LlamaFactory-2444-")
MPIRUN_ONE_PROCESS = corpus_lines("nccl-983-")

#: the agent's line for local rank 3 instead of 1
AGENT_RANK_3 = [AGENT_MINUS_9[0].replace("local_rank: 1", "local_rank: 3")]
#: the same worker dead of SIGSEGV (-11) / of its own exit code 1
AGENT_SEGV = [AGENT_MINUS_9[0].replace("exitcode: -9", "exitcode: -11")]
AGENT_EXIT_1 = [AGENT_MINUS_9[0].replace("exitcode: -9", "exitcode: 1")]
#: the agent's SIGTERM to the other worker before its report of local rank 1
AGENT_WITH_SIGTERM = [
    "torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 14446 closing signal "
    "SIGTERM"
] + AGENT_MINUS_9
#: the launcher's line with a ``--local_rank=5`` argument (the last child it looped over)
LAUNCHER_LOCAL_RANK = [
    LAUNCHER_EXIT_1[0].replace("'--stage'", "'--local_rank=5', '--stage'")
]
#: the same with a SIGKILL return code
LAUNCHER_MINUS_9 = [
    LAUNCHER_LOCAL_RANK[0].replace("return code = 1", "return code = -9")
]
#: mpirun's block naming the process: ``process rank 1 ... exited on signal 7 (Bus error)``
MPIRUN_SIGNAL_7 = MPIRUN_ONE_PROCESS[:10] + [
    MPIRUN_ONE_PROCESS[10],
    "mpirun noticed that process rank 1 with PID 0 on node 4c217144f0b2 exited on signal 7 (Bus error).",
    MPIRUN_ONE_PROCESS[10],
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "agent-minus-9-as-pasted": (AGENT_MINUS_9, None, None, 1, "host-oom-kill"),
    "agent-minus-9-two-ranks": (AGENT_MINUS_9, 2, 2, 1, "host-oom-kill"),
    "launcher-exit-1-as-pasted": (LAUNCHER_EXIT_1, None, None, None, None),
    "launcher-exit-1-two-nodes": (LAUNCHER_EXIT_1, 8, 16, None, None),
    "mpirun-one-process-as-pasted": (MPIRUN_ONE_PROCESS, None, None, None, None),
    "mpirun-one-process-two-ranks": (MPIRUN_ONE_PROCESS, 1, 2, None, None),
    # contrasts
    "agent-rank-3-names-rank3": (AGENT_RANK_3, 4, 4, 3, "host-oom-kill"),
    "agent-segv-names-rank1-segfault": (AGENT_SEGV, 2, 2, 1, "segfault"),
    "agent-exit-1-names-rank1-exception": (AGENT_EXIT_1, 2, 2, 1, "python-exception"),
    "agent-with-sigterm-names-rank1": (AGENT_WITH_SIGTERM, 2, 2, 1, "host-oom-kill"),
    "launcher-local-rank-names-none": (LAUNCHER_LOCAL_RANK, 8, 16, None, None),
    "launcher-minus-9-names-none": (LAUNCHER_MINUS_9, 8, 16, None, None),
    "mpirun-signal-7-names-rank1": (MPIRUN_SIGNAL_7, 1, 2, 1, "sigbus"),
}
BATCHED = Batched("b298", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_lone_rank_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, world, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_agent_kill_severity_needs_the_teardown(tmp_path):
    """The agent's ``exitcode: -9`` line alone is a warning; with its SIGTERM to another worker (that worker torn down
    after the kill) the same local rank 1 is critical."""
    assert _failures(AGENT_MINUS_9, tmp_path / "a", 2, 2) == [
        ("warning", "host-oom-kill", [1])
    ]
    assert _failures(AGENT_WITH_SIGTERM, tmp_path / "b", 2, 2) == [
        ("critical", "host-oom-kill", [1])
    ]


def test_launcher_exit_is_a_failure_of_no_rank(tmp_path):
    """The DeepSpeed launcher's ``exits with return code`` line is a failure of no rank, even with a ``--local_rank=``
    argument (the launcher reports the last child it looped over, not the first to fail)."""
    assert _failures(LAUNCHER_EXIT_1, tmp_path / "a", 8, 16) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(LAUNCHER_MINUS_9, tmp_path / "b", 8, 16) == [
        ("warning", "host-oom-kill", [])
    ]


def test_mpirun_anonymous_exit_raises_nothing(tmp_path):
    """Open MPI's ``1 process returned a non-zero exit code`` without its ``process rank N ... exited`` line is no
    failure at all (no rank, no cause)."""
    assert _failures(MPIRUN_ONE_PROCESS, tmp_path, 1, 2) == []
