"""Kubernetes-run multi-GPU training killed for memory (real incidents batch 338), pinned as read.
Four controls, collected blind; all four are read right as collected (no NOT_YET): torchrun's bare ``exitcode: -9`` /
``Signal 9 (SIGKILL)`` after Cosmos' ``Synchronizing model states from rank 0 to all ranks`` (nvidia-cosmos/
cosmos-predict2.5#72: host RAM at 4 GPUs, fixed in a release) is a host-oom-kill of no rank once the thread's 4 x 4
layout is given, and pasted with no layout too (since session 57: the broadcast line's ``from rank 0 to all ranks`` is
no printer's rank, so the paste is no longer rank 0's);
DeepSpeed's three ``Killing subprocess`` lines (2U1/Qwen-VL-Series-Finetune#135: a system OOM while saving) and its
lone ``exits with return code = -9`` (#79: CPU RAM of one 8-GPU host) name no one; the Kubernetes report
``Restart Reason: OOMKill`` / ``Exit Code: 137`` the author quoted (valeoai/DrivoR#35: one container, eight H20s)
gives no finding at all. Scored 4/4 both ways as collected (0 of 4 controls named); no rule changed (measure only).
Contrasts: torchrun's agent line or failure table for local rank 2 names rank 2 (host-oom-kill); the broadcast line
naming rank 3 no longer places the paste; the kernel's pasted ``Out of memory: Killed process 410126 (python)`` adds
nothing; a launcher command with ``--local_rank=2`` still names no one (the last spawned command); a ``kubectl describe
pod`` block with ``Reason: OOMKilled`` / ``Exit Code: 137`` and ``RANK: 3`` names rank 3, the same block without the
``RANK`` line names no one and reports nothing; a ``kubectl get pods`` row ``OOMKilled`` for worker-0 names rank 1.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

COSMOS_SIGKILL = corpus_lines("cosmos-predict2-5-72-")
KILLING_SUBPROCESS = corpus_lines("qwen-vl-series-finetune-135-")
RETURN_CODE_9 = corpus_lines("qwen-vl-series-finetune-79-")
K8S_OOMKILL_REPORT = corpus_lines("drivor-35-")

#: the broadcast line alone (no exit): nothing failed
COSMOS_SYNC_ONLY = COSMOS_SIGKILL[:1]
#: the broadcast naming rank 3 as its source: the paste is no longer one rank's
COSMOS_SYNC_RANK3 = [
    COSMOS_SIGKILL[0].replace("from rank 0", "from rank 3")
] + COSMOS_SIGKILL[1:]
#: the exit as torchrun's agent words it, for local rank 2
COSMOS_AGENT_RANK2 = COSMOS_SIGKILL[:1] + [
    "E1212 10:00:00.000000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
    "local_rank: 2 (pid: 5678) of binary: /usr/bin/python3"
]
#: the exit as torchrun's failure table words it, for rank 2
COSMOS_TABLE_RANK2 = COSMOS_SIGKILL[:1] + [
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-12-12_10:00:00",
    "  host      : node0",
    "  rank      : 2 (local_rank: 2)",
    "  exitcode  : -9 (pid: 5678)",
    "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 5678",
]
#: the kernel's OOM-killer line the author quoted from dmesg, pasted under the launcher's lines
DMESG_KILL = (
    "[856341.770960] Out of memory: Killed process 410126 (python) total-vm:79905000kB, anon-rss:22957108kB, "
    "file-rss:72036kB, shmem-rss:15143164kB, UID:1000 pgtables:78032kB oom_score_adj:0"
)
KILLING_WITH_DMESG = KILLING_SUBPROCESS + [DMESG_KILL]
#: the launcher's ERROR line with the command it spawned last (``--local_rank=2``), as DeepSpeed prints it
KILLING_WITH_LAST_CMD = KILLING_SUBPROCESS + [
    "[2025-06-02 20:51:26,900] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', "
    "'--local_rank=2'] exits with return code = -9"
]
#: torchrun's table for rank 5 in place of DeepSpeed's unranked line
TABLE_RANK5 = [
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-03-20_10:00:00",
    "  host      : a800-node",
    "  rank      : 5 (local_rank: 5)",
    "  exitcode  : -9 (pid: 4321)",
    "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 4321",
]
#: ``kubectl describe pod`` of the killed trainer pod, with the ``RANK`` the operator set
DESCRIBE_RANK3 = [
    "Name:             drivor-train-worker-1",
    "Containers:",
    "  trainer:",
    "    State:          Waiting",
    "      Reason:       CrashLoopBackOff",
    "    Last State:     Terminated",
    "      Reason:       OOMKilled",
    "      Exit Code:    137",
    "    Environment:",
    "      RANK:         3",
]
#: the same block without its ``Environment`` / ``RANK`` lines
DESCRIBE_NO_RANK = DESCRIBE_RANK3[:8]
#: ``kubectl get pods`` with worker-0 ``OOMKilled`` (master-0 is rank 0, one process per pod)
GET_PODS = [
    "NAME                     READY   STATUS      RESTARTS   AGE",
    "drivor-train-master-0    0/1     Error       0          24h",
    "drivor-train-worker-0    0/1     OOMKilled   0          24h",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "cosmos-sigkill-as-pasted-names-none": (COSMOS_SIGKILL, None, None, None, None),
    "cosmos-sigkill-four-gpus": (COSMOS_SIGKILL, 4, 4, None, None),
    "killing-subprocess-as-pasted": (KILLING_SUBPROCESS, None, None, None, None),
    "killing-subprocess-three-procs": (KILLING_SUBPROCESS, 3, 3, None, None),
    "return-code-9-as-pasted": (RETURN_CODE_9, None, None, None, None),
    "return-code-9-eight-gpus": (RETURN_CODE_9, 8, 8, None, None),
    "k8s-oomkill-report-as-pasted": (K8S_OOMKILL_REPORT, None, None, None, None),
    "k8s-oomkill-report-eight-gpus": (K8S_OOMKILL_REPORT, 8, 8, None, None),
    # contrasts
    "cosmos-sync-line-only-names-none": (COSMOS_SYNC_ONLY, None, None, None, None),
    "cosmos-sync-from-rank3-as-pasted-names-none": (
        COSMOS_SYNC_RANK3,
        None,
        None,
        None,
        None,
    ),
    "cosmos-agent-local-rank2-names-rank2": (
        COSMOS_AGENT_RANK2,
        4,
        4,
        2,
        "host-oom-kill",
    ),
    "cosmos-table-rank2-names-rank2": (COSMOS_TABLE_RANK2, 4, 4, 2, "host-oom-kill"),
    "killing-subprocess-with-dmesg-names-none": (KILLING_WITH_DMESG, 3, 3, None, None),
    "killing-subprocess-last-cmd-local-rank2-names-none": (
        KILLING_WITH_LAST_CMD,
        3,
        3,
        None,
        None,
    ),
    "table-rank5-names-rank5": (TABLE_RANK5, 8, 8, 5, "host-oom-kill"),
    "describe-oomkilled-rank3-names-rank3": (
        DESCRIBE_RANK3,
        None,
        None,
        3,
        "host-oom-kill",
    ),
    "describe-oomkilled-without-rank-names-none": (
        DESCRIBE_NO_RANK,
        None,
        None,
        None,
        None,
    ),
    "get-pods-worker0-oomkilled-names-rank1": (GET_PODS, 1, 2, 1, "host-oom-kill"),
}
BATCHED = Batched("b338", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kubernetes_oomkilled_wordings_as_read(key, tmp_path_factory):
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


def test_unranked_sigkill_is_a_host_oom_kill_of_no_rank(tmp_path):
    """Torchrun's bare ``exitcode: -9`` under the thread's 4 x 4 layout, and DeepSpeed's lone ``return code = -9``
    under 8 x 8, are host-oom-kills (warning) of no rank."""
    assert _failures(COSMOS_SIGKILL, tmp_path / "a", 4, 4) == [
        ("warning", "host-oom-kill", [])
    ]
    assert _failures(RETURN_CODE_9, tmp_path / "b", 8, 8) == [
        ("warning", "host-oom-kill", [])
    ]


def test_launcher_teardown_and_pasted_oom_reports_read_as_nothing(tmp_path):
    """The launcher's ``Killing subprocess`` lines (with or without the kernel's pasted ``Out of memory: Killed
    process`` line), the quoted Kubernetes ``OOMKill`` report and a ``kubectl describe`` block with no ``RANK`` give no
    rank failure at all."""
    assert _failures(KILLING_SUBPROCESS, tmp_path / "a", 3, 3) == []
    assert _failures(KILLING_WITH_DMESG, tmp_path / "b", 3, 3) == []
    assert _failures(K8S_OOMKILL_REPORT, tmp_path / "c", 8, 8) == []
    assert _failures(DESCRIBE_NO_RANK, tmp_path / "d", None, None) == []
