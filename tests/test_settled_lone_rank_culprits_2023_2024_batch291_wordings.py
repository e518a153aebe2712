"""Lone-rank failures settled (or read) in 2023-2024 threads (real incidents batch 291), pinned as read.
Three culprits and one control, collected blind; all four were read right as collected, and are pinned here so a
change of reading is seen: a multi-node ml-4m run's ``[default0]:[rank12]:... Process group watchdog thread terminated
with exception: CUDA error: uncorrectable ECC error encountered`` (pytorch/pytorch#113128) names rank 12 (cuda-error,
critical); the llama2-70b-lora reference's NCCL ``Connection closed by localRank N`` lines and the elastic agent's
``failed (exitcode: -6) local_rank: 5`` (mlcommons/training#770, glibc's ``double free or corruption``) name rank 5
(abort, warning); ColossalAI's three ``closing signal SIGTERM`` lines and ``failed (exitcode: -9) local_rank: 1``
(hpcaitech/ColossalAI#3677) name rank 1 (host-oom-kill, critical); FastSpeech2's ChildFailedError summary with ranks 0, 1
and 2 all ``Signal 11 (SIGSEGV)`` in the same second (open-mmlab/Amphion#167, the control) is a segfault of no rank
(warning). Scored 4/4 both ways as collected, the control named by no one; no rule changed (measure only). Contrasts:
without the ECC line, the agent's -6 line, or the agent's -9 line nothing is named; the ECC line renumbered to rank 5
names rank 5; the agent's -6 worded as -11 names rank 5 (segfault, critical); the -9 moved to local rank 2 names rank 2;
the SIGSEGV summary cut to its root-cause block alone names rank 0 (segfault, warning). Pasted logs through
``k10s import-logs``, batched. Three of the four were already real samples (tests/data/real-samples/incidents, the
same logs): their lines are read from there and only mlcommons/training#770 joined the corpus.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings, sample_lines

NOW = dt.datetime(2026, 12, 5, 6, 0, tzinfo=dt.timezone.utc)

ECC_WATCHDOG = sample_lines("pytorch-113128-")
AGENT_SIGABRT = corpus_lines("training-770-")
AGENT_SIGKILL = sample_lines("colossalai-3677-")
ALL_SIGSEGV = sample_lines("amphion-167-")

#: rank 12's stack without the watchdog's ECC line: no rank, no cause
ECC_NO_LINE = [line for line in ECC_WATCHDOG if "uncorrectable" not in line]
#: the same ECC error on rank 5
ECC_RANK_5 = [
    line.replace("[rank12]", "[rank5]").replace("Rank 12]", "Rank 5]")
    for line in ECC_WATCHDOG
]
#: NCCL's connection-closed lines and accelerate's traceback without the agent's ``failed (exitcode: -6)``
SIGABRT_NO_AGENT = [line for line in AGENT_SIGABRT if "exitcode" not in line]
#: the agent's failure worded as a segfault (-11)
SIGABRT_AS_SIGSEGV = [
    line.replace("exitcode: -6", "exitcode: -11") for line in AGENT_SIGABRT
]
#: the SIGTERMs and torchrun's traceback without the agent's ``failed (exitcode: -9) local_rank: 1``
SIGKILL_NO_AGENT = [line for line in AGENT_SIGKILL if "exitcode" not in line]
#: the SIGKILL on local rank 2 (pid 1169), pid 1168 among the terminated
SIGKILL_RANK_2 = [
    line.replace("local_rank: 1 (pid: 1168)", "local_rank: 2 (pid: 1169)").replace(
        "process 1169 closing", "process 1168 closing"
    )
    for line in AGENT_SIGKILL
]
#: the summary's header and its root-cause block alone (rank 0's SIGSEGV, no other failure listed)
SIGSEGV_ROOT_ONLY = ALL_SIGSEGV[:2] + ALL_SIGSEGV[17:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ecc-watchdog-as-pasted": (ECC_WATCHDOG, None, None, 12, "cuda-error"),
    "agent-sigabrt-as-pasted": (AGENT_SIGABRT, None, None, 5, "abort"),
    "agent-sigabrt-eight-gpus": (AGENT_SIGABRT, 8, 8, 5, "abort"),
    "agent-sigkill-as-pasted": (AGENT_SIGKILL, None, None, 1, "host-oom-kill"),
    "agent-sigkill-four-procs": (AGENT_SIGKILL, 4, 4, 1, "host-oom-kill"),
    "all-sigsegv-as-pasted": (ALL_SIGSEGV, None, None, None, None),
    "all-sigsegv-three-gpus": (ALL_SIGSEGV, 3, 3, None, None),
    # contrasts
    "ecc-without-line-names-none": (ECC_NO_LINE, None, None, None, None),
    "ecc-rank5-names-rank5": (ECC_RANK_5, None, None, 5, "cuda-error"),
    "sigabrt-without-agent-names-none": (SIGABRT_NO_AGENT, 8, 8, None, None),
    "sigabrt-as-sigsegv-names-rank5": (SIGABRT_AS_SIGSEGV, 8, 8, 5, "segfault"),
    "sigkill-without-agent-names-none": (SIGKILL_NO_AGENT, 4, 4, None, None),
    "sigkill-rank2-names-rank2": (SIGKILL_RANK_2, 4, 4, 2, "host-oom-kill"),
    "sigsegv-root-only-names-rank0": (SIGSEGV_ROOT_ONLY, 3, 3, 0, "segfault"),
}
BATCHED = Batched("b291", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_lone_rank_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_every_rank_sigsegv_is_a_segfault_of_no_rank(tmp_path):
    """Three ranks with the same SIGSEGV in the same second: a segfault (warning) of no rank, though torchrun lists rank
    0 under ``Root Cause (first observed failure)``."""
    assert _failures(ALL_SIGSEGV, tmp_path, 3) == [("warning", "segfault", [])]


def test_severities_as_read(tmp_path):
    """The ECC error and the agent's SIGKILL are critical; the agent's SIGABRT is a warning."""
    assert _failures(ECC_WATCHDOG, tmp_path / "a", None) == [
        ("critical", "cuda-error", [12])
    ]
    assert _failures(AGENT_SIGKILL, tmp_path / "b", 4) == [
        ("critical", "host-oom-kill", [1])
    ]
    assert _failures(AGENT_SIGABRT, tmp_path / "c", 8) == [("warning", "abort", [5])]
