"""Forum-style multi-node launch failures (real incidents batch 276, family discuss-pytorch-and-hf-forums-2026), pinned
as read. Three controls, collected blind, all read right as collected (no NOT_YET): a two-node torchrun hang whose
stdout holds only srun-labelled NCCL INFO lines of devices [0] and [6] (NVIDIA/nvidia-resiliency-ext#142: the
``--node-rank`` flag of the launch command, every rank alike); torchrun's c10d store failing to bind port 29500
(``errno: 98 - Address already in use``) and the elastic agent's own traceback (hao-ai-lab/FastVideo#575: another job
holds the default port); a bare agent traceback of a two-node LLaMA-Factory launch (hiyouga/LlamaFactory#5864: the
maintainer's "check the network settings"). None of them names a rank, as pasted or laid out as the thread says.
Contrasts: an NCCL ``Cuda failure 'out of memory'`` of device [6] names rank 6 without srun's label, but under srun's
``0:`` label it names rank 0 (the label is read as the rank even with eight processes per node, where it is the task,
i.e. the node, index); a lone ``[Rank 6]`` watchdog timeout names no one; the agent's ``failed (exitcode: 1)
local_rank: 2`` after the bind error names rank 2; the agent traceback under a ``[rank3]:`` tag is an info suspect
only, names rank 3 with a ``ValueError`` line, and no one with a connection-reset line or with an untagged exception.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted_cases,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 0, 30, tzinfo=dt.timezone.utc)

HANG = corpus_lines("nvidia-resiliency-ext-142-")
PORT = corpus_lines("FastVideo-575-")
AGENT = corpus_lines("LlamaFactory-5864-")

#: an NCCL allocation failure of device [6] (pid 183660 of the pasted host)
DEVICE_6_OOM = "ip-10-1-29-23:183660:183740 [6] include/alloc.h:125 NCCL WARN Cuda failure 'out of memory'"
#: the hang's lines without srun's ``0:`` task label, then device [6]'s failure
HANG_UNLABELLED_OOM = [line.removeprefix("0: ") for line in HANG] + [DEVICE_6_OOM]
#: the same failure under srun's ``0:`` label, as the hang's other lines are
HANG_LABELLED_OOM = HANG + ["0: " + DEVICE_6_OOM]
#: a lone watchdog timeout of rank 6 (a waiting rank's line) after the hang's lines
HANG_WATCHDOG_6 = HANG + [
    "0: [rank6]:[E812 10:15:02.123456789 ProcessGroupNCCL.cpp:632] [Rank 6] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600045 "
    "milliseconds before timing out."
]
#: the bind error, then the agent's report of a worker (local rank 2) that failed, then its traceback
PORT_AGENT_EXIT_2 = (
    PORT[:3]
    + [
        "E0629 10:00:00.000000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 2 (pid: 5678) of binary: /usr/bin/python3"
    ]
    + PORT[3:]
)
#: the agent traceback as if pasted under rank 3's ``[rank3]:`` tag
AGENT_RANK_3 = ["[rank3]: " + line for line in AGENT]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (nothing named)
    "hang-as-pasted": (HANG, None, None, None, None),
    "hang-eight-per-node-two-nodes": (HANG, 8, 16, None, None),
    "port-as-pasted": (PORT, None, None, None, None),
    "agent-as-pasted": (AGENT, None, None, None, None),
    # contrasts
    "device6-oom-unlabelled-names-rank6": (HANG_UNLABELLED_OOM, 8, 16, 6, "cuda-oom"),
    # srun's task label is read as the rank although each task is a node's torchrun of eight ranks
    "device6-oom-under-srun-label-0-names-rank0": (
        HANG_LABELLED_OOM,
        8,
        16,
        0,
        "cuda-oom",
    ),
    "lone-watchdog-rank6-names-none": (HANG_WATCHDOG_6, 8, 16, None, None),
    "port-agent-exit-local-rank2-names-rank2": (
        PORT_AGENT_EXIT_2,
        8,
        8,
        2,
        "python-exception",
    ),
    "agent-under-rank3-tag-names-none": (AGENT_RANK_3, 4, 8, None, None),
    "agent-rank3-valueerror-names-rank3": (
        AGENT_RANK_3 + ["[rank3]: ValueError: bad config"],
        4,
        8,
        3,
        "python-exception",
    ),
    "agent-rank3-connection-reset-names-none": (
        AGENT_RANK_3 + ["[rank3]: RuntimeError: Connection reset by peer"],
        4,
        8,
        None,
        None,
    ),
    "agent-untagged-valueerror-names-none": (
        AGENT + ["ValueError: bad config"],
        4,
        8,
        None,
        None,
    ),
}
BATCHED = Batched("b276", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_launch_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_tagged_agent_traceback_is_an_info_suspect(tmp_path):
    """The launcher's frames under ``[rank3]:`` with no exception line: rank 3 is held as an info suspect, nothing
    louder."""
    assert_info_suspect(pasted_findings(AGENT_RANK_3, tmp_path, 4, 8, NOW), 3)


def test_untagged_exception_after_agent_traceback_is_a_failure_of_no_rank(tmp_path):
    """An exception line after the agent's own frames, with no tag: a Python failure of no rank (warning)."""
    findings = pasted_findings(AGENT + ["ValueError: bad config"], tmp_path, 4, 8, NOW)
    failures = [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]
    assert failures == [("warning", "python-exception", [])], failures
