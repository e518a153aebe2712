"""PyTorch 2.7-2.12 era launcher and watchdog pastes of 2026 (real incidents batch 285), pinned as read.
Three controls, collected blind, all read right as collected (3/3 both ways, no control named): ranks 2 and 3's
one-minute ``ALLGATHER`` timeouts while a checkpoint was being consolidated (NVIDIA-NeMo/Automodel#1038: a barrier
expiring, the job's timeout too short for consolidation, no rank faulty) name no one; rank 0's newest-style watchdog
block (``failure detected by watchdog ... PG status``, ``First PG on this rank to signal dumping``, ``Received a dump
signal ... from this local rank``; KaiqiangXiong/CL-MVSNet#14: a deadlock under ``--sync_bn``, every rank) names no
one; six unranked ``IndexKernel.cu:113`` device-side asserts (ultralytics/ultralytics#24887: only rank 0 set the
YOLO-World class list, every other rank indexed out of bounds) read as a cuda-error warning of no rank. Contrasts: a
rank's CUDA OOM beside the timeouts names that rank (cuda-oom); rank 0's untimestamped traceback names rank 0 when
pasted before the glog-stamped timeouts and no one when pasted after them (line order is the paste's only clock);
the agent's ``failed (exitcode: -6) local_rank: 0`` under rank 0's watchdog block names the silent rank 1
(never-joined) in a two-rank job; the asserts tagged ``[rank3]:`` name rank 3. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 30, tzinfo=dt.timezone.utc)

CONSOLIDATION_BARRIER = corpus_lines("Automodel-1038-")
SYNC_BN_DUMP = corpus_lines("CL-MVSNet-14-")
INDEX_ASSERTS = corpus_lines("ultralytics-24887-")

#: a rank's own CUDA OOM beside the two waiters' timeouts
RANK1_OOM = [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
    "capacity of 79.11 GiB of which 1.06 GiB is free."
]
#: rank 0's traceback (no glog stamp), as the consolidating rank's own failure would read
RANK0_TRACEBACK = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "train.py", line 10, in <module>',
    "[rank0]:     main()",
    "[rank0]: RuntimeError: consolidation failed",
]
#: the elastic agent's line for local rank 0 (the same paste's, not in the collected excerpt)
AGENT_EXIT_6 = [
    "E1213 17:25:50.704000 1497962 site-packages/torch/distributed/elastic/multiprocessing/api.py:882] "
    "failed (exitcode: -6) local_rank: 0 (pid: 1498377) of binary: /home/u/miniconda3/envs/ZYF312/bin/python"
]
#: the asserts as a rank-tagged launcher would print them
INDEX_ASSERTS_RANK3 = ["[rank3]:" + line for line in INDEX_ASSERTS]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "consolidation-barrier-as-pasted": (CONSOLIDATION_BARRIER, None, None, None, None),
    "consolidation-barrier-four-ranks": (CONSOLIDATION_BARRIER, 4, 4, None, None),
    "sync-bn-dump-as-pasted": (SYNC_BN_DUMP, None, None, None, None),
    "sync-bn-dump-two-ranks": (SYNC_BN_DUMP, 2, 2, None, None),
    "index-asserts-as-pasted": (INDEX_ASSERTS, None, None, None, None),
    "index-asserts-eight-ranks": (INDEX_ASSERTS, 8, 8, None, None),
    # contrasts
    "consolidation-barrier-rank1-oom-names-rank1": (
        CONSOLIDATION_BARRIER + RANK1_OOM,
        4,
        4,
        1,
        "cuda-oom",
    ),
    "rank0-traceback-before-timeouts-names-rank0": (
        RANK0_TRACEBACK + CONSOLIDATION_BARRIER,
        4,
        4,
        0,
        "python-exception",
    ),
    # the same traceback pasted after the stamped timeouts reads as their aftermath: no one
    "rank0-traceback-after-timeouts-names-none": (
        CONSOLIDATION_BARRIER + RANK0_TRACEBACK,
        4,
        4,
        None,
        None,
    ),
    "sync-bn-dump-agent-exit6-as-pasted-names-none": (
        SYNC_BN_DUMP + AGENT_EXIT_6,
        None,
        None,
        None,
        None,
    ),
    # two ranks, only rank 0 printed: the silent rank 1 is read as never having joined the collective
    "sync-bn-dump-agent-exit6-two-ranks-names-rank1": (
        SYNC_BN_DUMP + AGENT_EXIT_6,
        2,
        2,
        1,
        "never-joined",
    ),
    "index-asserts-rank3-names-rank3": (INDEX_ASSERTS_RANK3, 8, 8, 3, "cuda-error"),
}
BATCHED = Batched("b285", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_launcher_paste_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_unranked_device_asserts_are_a_cuda_error_of_no_rank(tmp_path):
    """The unranked ``IndexKernel.cu`` asserts still read as a CUDA error (warning), but of no rank: nothing in the
    lines maps them to a process."""
    assert _failures(INDEX_ASSERTS, tmp_path, 8) == [("warning", "cuda-error", [])]


def test_agent_exit_alone_is_local_rank0_s_abort(tmp_path):
    """The agent's ``exitcode: -6`` line alone names local rank 0 (abort); under rank 0's watchdog block in a two-rank
    job the reading moves to the silent rank (the batched contrast above)."""
    assert _failures(AGENT_EXIT_6, tmp_path, 2) == [("warning", "abort", [0])]
