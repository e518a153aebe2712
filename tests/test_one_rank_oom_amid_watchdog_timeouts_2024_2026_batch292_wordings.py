"""One rank's OOM amid the other ranks' watchdog timeouts (real incidents batch 292), pinned as read.
One culprit and four controls, collected blind and all read right as collected (5/5 both ways): the agent's ``failed
(exitcode: -9) local_rank: 4`` after eight ``closing signal SIGTERM`` lines (DachengLi1/LongChat#9: the host killed
local rank 4) names rank 4 (host-oom-kill); an unranked ``torch.cuda.OutOfMemoryError ... (GPU 0; ...)`` in the first
update after an eval (mlcommons/algorithmic-efficiency#426: every worker's memory, fixed by ``empty_cache``) and FSDP's
``UserWarning: Failed to clone() tensor ... CUDA out of memory ... (GPU 1; ...)`` at save (tatsu-lab/stanford_alpaca#65:
the full state dict gathered on the GPU, fixed by offloading it) are a critical OOM cascade of no rank; ranks 1 and 2's
``_ALLGATHER_BASE`` watchdog timeouts (huggingface/trl#1726: FSDP with PPO's generate, unsupported) and rank 0's lone
60 s ``ALLGATHER`` watchdog timeout (OpenNMT/OpenNMT-py#2515) name no one. Contrasts: the same OOM under ``[rank3]: ``
names rank 3 (warning); a ``[rank3]:`` OOM added to trl's watchdog lines names rank 3 (cuda-oom); without the agent's
line LongChat's SIGTERM lines name no one, ``local_rank: 6`` names rank 6 and ``exitcode: -11`` gives a segfault; a
raised ``[rank1]:`` OOM names rank 1 while torch 2.0's ``... of lm_head.weight on rank 1.`` warning wording names no
one. Pinned as read, also where no one is named and a reader would like one: the agent's ``exitcode: -9 local_rank: 2``
after OpenNMT's unprefixed rank-0 watchdog lines names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings, sample_lines

NOW = dt.datetime(2026, 12, 5, 6, 0, tzinfo=dt.timezone.utc)

UNRANKED_OOM = corpus_lines("algorithmic-efficiency-426-")
ALLGATHER_WATCHDOG = corpus_lines("trl-1726-")
RANK0_WATCHDOG = corpus_lines("OpenNMT-py-2515-")
AGENT_SIGKILL = sample_lines("longchat-9-")
CLONE_WARNING = corpus_lines("stanford_alpaca-65-")

#: the same traceback with every line tagged ``[rank3]: `` (torch >= 2.2's prefix)
UNRANKED_OOM_RANK3 = ["[rank3]: " + line for line in UNRANKED_OOM]
RANK3_OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.51 GiB. GPU 3 has a total "
    "capacity of 79.10 GiB of which 283.44 MiB is free."
)
#: trl's watchdog lines with a rank-3 OOM after them, and before them
WATCHDOG_THEN_OOM = ALLGATHER_WATCHDOG + [RANK3_OOM]
OOM_THEN_WATCHDOG = ALLGATHER_WATCHDOG[:1] + [RANK3_OOM] + ALLGATHER_WATCHDOG[1:]
#: OpenNMT's rank-0 watchdog lines followed by the agent's SIGKILL report of local rank 2
RANK0_WATCHDOG_AGENT_SIGKILL = RANK0_WATCHDOG + [
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 3012) of binary: "
    "/usr/bin/python3"
]
_FAILED = next(i for i, line in enumerate(AGENT_SIGKILL) if "failed (exitcode" in line)
#: the eight SIGTERM lines and the traceback without the agent's ``failed (exitcode: -9) local_rank: 4``
AGENT_NO_FAILED = AGENT_SIGKILL[:_FAILED] + AGENT_SIGKILL[_FAILED + 1 :]
AGENT_LOCAL_RANK_6 = [
    line.replace("local_rank: 4", "local_rank: 6") for line in AGENT_SIGKILL
]
AGENT_SIGSEGV = [
    line.replace("exitcode: -9", "exitcode: -11") for line in AGENT_SIGKILL
]
#: torch 2.0's wording of the same warning, naming the rank that failed to clone
CLONE_WARNING_ON_RANK = [
    line.replace("lm_head.weight. This may", "lm_head.weight on rank 1. This may")
    for line in CLONE_WARNING
]
#: the OOM raised on rank 1 instead of warned about
RAISED_RANK1_OOM = [
    "[rank1]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 502.00 MiB (GPU 1; "
    "39.59 GiB total capacity; 35.54 GiB already allocated; 276.19 MiB free; 37.22 GiB reserved in "
    "total by PyTorch)"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "unranked-oom-as-pasted": (UNRANKED_OOM, None, None, None, None),
    "unranked-oom-eight-gpus": (UNRANKED_OOM, 8, 8, None, None),
    "allgather-watchdog-as-pasted": (ALLGATHER_WATCHDOG, None, None, None, None),
    "allgather-watchdog-four-ranks": (ALLGATHER_WATCHDOG, 4, 4, None, None),
    "rank0-watchdog-as-pasted": (RANK0_WATCHDOG, None, None, None, None),
    "rank0-watchdog-four-ranks": (RANK0_WATCHDOG, 4, 4, None, None),
    "agent-sigkill-as-pasted": (AGENT_SIGKILL, None, None, 4, "host-oom-kill"),
    "agent-sigkill-nine-processes": (AGENT_SIGKILL, 9, 9, 4, "host-oom-kill"),
    "clone-warning-as-pasted": (CLONE_WARNING, None, None, None, None),
    "clone-warning-four-gpus": (CLONE_WARNING, 4, 4, None, None),
    # contrasts
    "unranked-oom-tagged-rank3-names-rank3": (UNRANKED_OOM_RANK3, 8, 8, 3, "cuda-oom"),
    "watchdog-then-rank3-oom-names-rank3": (WATCHDOG_THEN_OOM, 4, 4, 3, "cuda-oom"),
    "rank3-oom-then-watchdog-names-rank3": (OOM_THEN_WATCHDOG, 4, 4, 3, None),
    # read as is: the agent's SIGKILL of local rank 2 after rank 0's unprefixed watchdog lines names no one
    "rank0-watchdog-agent-sigkill-names-none": (
        RANK0_WATCHDOG_AGENT_SIGKILL,
        4,
        4,
        None,
        None,
    ),
    "agent-without-failed-line-names-none": (AGENT_NO_FAILED, 9, 9, None, None),
    "agent-local-rank6-names-rank6": (AGENT_LOCAL_RANK_6, 9, 9, 6, "host-oom-kill"),
    "agent-sigsegv-names-rank4-segfault": (AGENT_SIGSEGV, 9, 9, 4, "segfault"),
    "clone-warning-on-rank1-names-none": (CLONE_WARNING_ON_RANK, 4, 4, None, None),
    "raised-rank1-oom-names-rank1": (RAISED_RANK1_OOM, 4, 4, 1, "cuda-oom"),
}
BATCHED = Batched("b292", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_rank_oom_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return sorted((f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings)


def test_unranked_oom_is_a_critical_cascade_of_no_rank(tmp_path):
    """An OOM no rank is tagged on (a bare traceback, or inside FSDP's clone warning) is a critical OOM cascade that
    names no rank: the controls are not named, but they are critical."""
    assert _findings(UNRANKED_OOM, tmp_path / "a", 8) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
    assert _findings(CLONE_WARNING, tmp_path / "b", 4) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]


def test_watchdog_timeouts_alone_are_information(tmp_path):
    """Ranks 1 and 2's watchdog timeouts, with no one's failure, are an NCCL hang of no single culprit (info)."""
    assert _findings(ALLGATHER_WATCHDOG, tmp_path, 4) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]
