"""AMD ROCm / RCCL multi-GPU training failures (real incidents batch 243), pinned as read. Four controls, as pasted
and laid out by their own nproc/world: rank 2's lone ``DistBackendError`` with RCCL's ``Failed to find reverse path
from remNode 0/200000 nlinks 3 to node 0/700000`` on one node of 4 MI300X (ROCm/rccl#1728: all 4 ranks alike on the
VM's topology; read as rank 2's nccl-error, a miss kept in NOT_YET); rank 4's hard-wrapped ``_ALLGATHER_BASE``
watchdog on 8 MI300X (deepspeedai/DeepSpeed#6725: the faulting GPU moves from run to run, read as nothing); veRL's
``HIP error: invalid device function`` at the first parameter broadcast on a Radeon R9700 (verl-project/verl#3163:
no code object for the GPU, read as an exception of no rank); milabench's JSON-lines event log with rank 1's
``HIP error: unspecified launch failure`` (mila-iqia/milabench#397: the ROCm stack the PR pins, read as nothing).
Scored 3/4 both ways as collected; no rule changed (measure only).
Contrasts: rank 1 printing the same RCCL tail as rank 2 names no one; rank 4's own HIP traceback in place of the
watchdog names rank 4; verl's traceback tagged ``[rank3]:`` names rank 3; milabench's lines taken out of their JSON
records name rank 1, and with rank 3's copy added (still as JSON) no one.
Pasted logs through ``k10s import-logs``, batched.
Since session 57 (batch 342's suggestion) HIP's ``HIP error: …`` reads as CUDA's ``CUDA error: …``: rank 4's own and
milabench's rank 1 (in its JSON records too) are cuda-errors, and milabench#397, a lone rank's launch failure every rank
met on that ROCm stack, is named (NOT_YET: the lone-rank shape the corpus holds as a culprit); veRL's ``invalid device
function`` (no code object for the GPU) is every rank's, under any tag.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 7, 0, tzinfo=dt.timezone.utc)

REVERSE_PATH = corpus_lines("rccl-1728-")
WATCHDOG_8 = corpus_lines("DeepSpeed-6725-")
INVALID_FUNCTION = corpus_lines("verl-3163-")
JSONL_LAUNCH = corpus_lines("milabench-397-")

#: rank 1 prints the same traceback as rank 2 (the author meets it "at all 4 ranks")
REVERSE_PATH_TWO = REVERSE_PATH + [line.replace("[rank2]", "[rank1]", 1) for line in REVERSE_PATH]
#: rank 4's own HIP traceback in place of its watchdog lines
RANK4_OWN_HIP = [
    "[rank4]: Traceback (most recent call last):",
    "[rank4]: torch.AcceleratorError: HIP error: an illegal memory access was encountered",
]
#: veRL's traceback as torch prints a rank's exception (``[rank3]:`` on every line)
INVALID_FUNCTION_RANK3 = ["[rank3]: " + line for line in INVALID_FUNCTION]
#: milabench's ``data`` fields as plain stderr lines, out of their JSON records
JSONL_UNWRAPPED = [json.loads(line)["data"].rstrip("\n") for line in JSONL_LAUNCH]
#: rank 3 of another run with the same records (still JSON)
JSONL_TWO = JSONL_LAUNCH + [line.replace("[rank1]", "[rank3]") for line in JSONL_LAUNCH]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected (rccl-1728 is a control the tool reads as rank 2's: NOT_YET)
    "reverse-path-as-pasted": (REVERSE_PATH, None, None, 2, "nccl-error"),
    "reverse-path-one-node-of-4": (REVERSE_PATH, 4, 4, 2, "nccl-error"),
    "watchdog-8-as-pasted": (WATCHDOG_8, None, None, None, None),
    "watchdog-8-one-node-of-8": (WATCHDOG_8, 8, 8, None, None),
    "invalid-function-as-pasted": (INVALID_FUNCTION, None, None, None, None),
    "jsonl-launch-as-pasted": (JSONL_LAUNCH, None, None, 1, "cuda-error"),  # NOT_YET since session 57 (HIP read)
    # contrasts
    "reverse-path-two-ranks-names-none": (REVERSE_PATH_TWO, 4, 4, None, None),
    "rank4-own-hip-names-rank4": (RANK4_OWN_HIP, 8, 8, 4, "cuda-error"),
    "invalid-function-rank3-names-none": (INVALID_FUNCTION_RANK3, None, None, None, None),
    "jsonl-unwrapped-names-rank1": (JSONL_UNWRAPPED, None, None, 1, "cuda-error"),
    "jsonl-two-ranks-names-none": (JSONL_TWO, None, None, None, None),
}
BATCHED = Batched("b243", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rocm_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], tmp_path: Path, nproc: int | None = None, world: int | None = None) -> list[dict]:
    return pasted_findings(lines, tmp_path, nproc, world, NOW)


def test_invalid_device_function_is_an_exception_of_no_rank(tmp_path):
    """veRL's HIP error is read as a rank failure that names no rank: the log has none (since session 57 a CUDA-style
    error, and no code object for the GPU's architecture is every rank's: common mode)."""
    findings = _findings(INVALID_FUNCTION, tmp_path)
    failures = [f for f in findings if f["rule"] == "rank-failure"]
    assert failures and all(not f["ranks"] for f in failures), [(f["rule"], f["ranks"]) for f in findings]
    assert any(f["cause"] == "cuda-error" for f in failures), [(f["rule"], f["cause"]) for f in findings]


def test_reverse_path_two_ranks_is_a_failure_of_no_one(tmp_path):
    """Ranks 1 and 2 with the same RCCL internal error: still an nccl-error rank failure, naming neither."""
    findings = _findings(REVERSE_PATH_TWO, tmp_path, 4, 4)
    failures = [f for f in findings if f["rule"] == "rank-failure"]
    assert failures and all(not f["ranks"] for f in failures), [(f["rule"], f["ranks"]) for f in findings]
    assert any(f["cause"] == "nccl-error" for f in failures), [(f["rule"], f["cause"]) for f in findings]


def test_jsonl_records_hide_the_rank_tag(tmp_path):
    """milabench's JSON records yielded no rank failure at all as collected; since session 57 its ``HIP error:`` line is
    read as CUDA's wording is, in the record as out of it: rank 1's cuda-error both ways (the control NOT_YET)."""
    wrapped = [f for f in _findings(JSONL_LAUNCH, tmp_path / "w") if f["rule"] == "rank-failure"]
    unwrapped = [f for f in _findings(JSONL_UNWRAPPED, tmp_path / "u") if f["rule"] == "rank-failure"]
    assert [f["ranks"] for f in wrapped] == [[1]], [(f["cause"], f["ranks"]) for f in wrapped]
    assert [f["ranks"] for f in unwrapped] == [[1]], [(f["cause"], f["ranks"]) for f in unwrapped]
