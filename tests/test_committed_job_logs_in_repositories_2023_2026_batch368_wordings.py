"""Job logs committed to public repositories, 2023-2026 (real incidents batch 368), pinned as read. Three incidents,
collected blind from committed files. One was read right as collected: a supervisor-prefixed (``[TRAINING] ``) torchrun
paste of four identical ``SyntaxError: expected 'except' or 'finally' block`` tracebacks (spawnaga/GeneticTrading's
attached_assets/, a syntax error in the module every rank imports) is a python-exception warning of no rank, as pasted,
as four GPUs or with the prefix stripped. Two are NOT_YET (batch 368): rank 0's lone
``[TRAINING] [rank0]: TypeError: run_ga_evolution() got an unexpected keyword argument 'elite_count'`` (the GA phase
runs on rank 0 only; the agent SIGTERMs ranks 1-3, ``<NO_OTHER_FAILURES>``, GPU 2's NCCL ``Connection closed by
localRank 0``) is read as every rank's code bug, a warning of no rank, where rank 0 is the culprit; and one run of
Viola868/deepseek_training's committed ``train.err`` (accelerate + DeepSpeed, four processes each ending in the bare
``Expected all tensors to be on the same device, but found at least two devices, cuda:N and cpu!``, N = 0, 3, 2, 1,
the ``RuntimeError:`` heads lost) names rank 1 from the agent's ``local_rank: 1`` alone, where every rank failed alike.
Scored 1/3 both ways as collected; no rule changed (measure only). Contrasts: rank 0's exception as a ``ValueError``
names rank 0 (critical), as a CUDA OOM names rank 0 (cuda-oom); the same paste tagged ``[rank2]:`` still names no one;
the four device messages with their ``RuntimeError: `` heads restored name no one (the heads are what the reading
keys on); with only the ``cuda:1`` copy, or none, rank 1 stays named. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

GA_TYPEERROR = corpus_lines("genetictrading-pasted-start-system-rank0-")
FOUR_SYNTAXERRORS = corpus_lines("genetictrading-pasted-start-system-four-ranks-")
DEVICE_MISMATCH = corpus_lines("deepseek-training-train-err-accelerate-")

_TYPEERROR = "TypeError: run_ga_evolution() got an unexpected keyword argument 'elite_count'"
_MISMATCH = "Expected all tensors to be on the same device"


def _unprefixed(lines: list[str]) -> list[str]:
    """The supervisor's ``[TRAINING] `` prefix taken off every line (torchrun's console as it printed it)."""
    return [line.removeprefix("[TRAINING] ") for line in lines]


#: rank 0's exception a data error, not a signature mismatch
GA_VALUEERROR = [line.replace(_TYPEERROR, "ValueError: population must be positive") for line in GA_TYPEERROR]
#: rank 0's exception a CUDA OOM
GA_OOM = [
    "[TRAINING] [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 23.65 GiB of which 1.00 GiB is free." if _TYPEERROR in line else line
    for line in GA_TYPEERROR
]
#: the same traceback tagged rank 2
GA_RANK2 = [line.replace("[rank0]", "[rank2]") for line in GA_TYPEERROR]
#: the four device-mismatch messages with the ``RuntimeError: `` head stderr lost
DEVICE_MISMATCH_HEADED = ["RuntimeError: " + line if line.startswith(_MISMATCH) else line for line in DEVICE_MISMATCH]
#: only the cuda:1 process's message kept
DEVICE_MISMATCH_CUDA1_ONLY = [
    line for line in DEVICE_MISMATCH if not (line.startswith(_MISMATCH) and "cuda:1 " not in line)
]
#: none of the four messages kept (the launcher's report alone)
DEVICE_MISMATCH_NO_MESSAGES = [line for line in DEVICE_MISMATCH if not line.startswith(_MISMATCH)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the files say
    "four-syntaxerrors-as-pasted": (FOUR_SYNTAXERRORS, None, None, None, None),
    "four-syntaxerrors-four-gpus": (FOUR_SYNTAXERRORS, 4, 4, None, None),
    "four-syntaxerrors-unprefixed": (_unprefixed(FOUR_SYNTAXERRORS), None, None, None, None),
    # today's readings of the NOT_YET incidents (wrong: see the tests below)
    "ga-typeerror-as-pasted": (GA_TYPEERROR, None, None, None, None),
    "ga-typeerror-four-gpus": (GA_TYPEERROR, 4, 4, None, None),
    "ga-typeerror-unprefixed": (_unprefixed(GA_TYPEERROR), None, None, None, None),
    "device-mismatch-as-pasted": (DEVICE_MISMATCH, None, None, 1, "python-exception"),
    "device-mismatch-four-gpus": (DEVICE_MISMATCH, 4, 4, 1, "python-exception"),
    # contrasts
    "ga-valueerror-names-rank0": (GA_VALUEERROR, 4, 4, 0, "python-exception"),
    "ga-oom-names-rank0": (GA_OOM, 4, 4, 0, "cuda-oom"),
    "ga-typeerror-rank2-names-none": (GA_RANK2, 4, 4, None, None),
    "device-mismatch-headed-names-none": (DEVICE_MISMATCH_HEADED, 4, 4, None, None),
    "device-mismatch-cuda1-only-names-rank1": (DEVICE_MISMATCH_CUDA1_ONLY, 4, 4, 1, "python-exception"),
    "device-mismatch-no-messages-names-rank1": (DEVICE_MISMATCH_NO_MESSAGES, 4, 4, 1, "python-exception"),
}
BATCHED = Batched("b368", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_committed_job_logs_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_four_syntaxerrors_are_a_failure_of_no_rank(tmp_path):
    """Read right as collected: the four ``[TRAINING] ``-prefixed SyntaxError tracebacks and the launcher's table
    (Failures ranks 1-3, Root Cause rank 0) are one python-exception warning of no rank, the only finding."""
    assert _failures(FOUR_SYNTAXERRORS, tmp_path, 4, 4) == [("rank-failure", "warning", "python-exception", [])]


def test_ga_typeerror_is_read_as_every_ranks_bug_today(tmp_path):
    """NOT_YET (batch 368): rank 0's lone TypeError is read as a code bug every rank shares (a warning of no rank).
    Wrong: no other rank raised anything; the agent SIGTERMed ranks 1-3 (``<NO_OTHER_FAILURES>``, Root Cause rank 0)
    and GPU 2's NCCL saw ``Connection closed by localRank 0``: the GA phase runs on rank 0 only, rank 0 is the culprit.
    The same paste with a ValueError in its place names rank 0 (critical): the signature-mismatch TypeError alone is
    taken for a common-mode bug."""
    assert _failures(GA_TYPEERROR, tmp_path / "a", 4, 4) == [("rank-failure", "warning", "python-exception", [])]
    assert _failures(GA_VALUEERROR, tmp_path / "b", 4, 4) == [("rank-failure", "critical", "python-exception", [0])]


def test_device_mismatch_names_the_launchers_rank_today(tmp_path):
    """NOT_YET (batch 368): the run names rank 1 at warning from the agent's ``failed (exitcode: 1) local_rank: 1``,
    its exit status only. Wrong: four processes each printed torch's device-mismatch message (cuda:0, cuda:3, cuda:2,
    cuda:1) without its ``RuntimeError:`` head; with the heads restored the same run is every rank's (no one named)."""
    assert _failures(DEVICE_MISMATCH, tmp_path / "a", 4, 4) == [("rank-failure", "warning", "python-exception", [1])]
    assert _failures(DEVICE_MISMATCH_HEADED, tmp_path / "b", 4, 4) == [
        ("rank-failure", "warning", "python-exception", [])
    ]
