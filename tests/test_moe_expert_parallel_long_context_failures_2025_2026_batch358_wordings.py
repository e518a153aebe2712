"""MoE expert-parallel and long-context (sequence-parallel) failures, 2025-2026 (real incidents batch 358), pinned as
read. Three controls, collected blind; none was read right as collected (0/3 both ways at eaf2800e, all NOT_YET):

- snowflakedb/ArcticInference#175: three vLLM workers' interleaved lines through ``all_gather_into_tensor``, rank 0's
  ``ValueError: output tensor size must be equal to world_size times input tensor size`` (Ulysses with --max-num-seqs
  not divisible by the sequence-parallel size, every worker alike) names rank 0 (python-exception, warning);
- NVIDIA-NeMo/Megatron-Bridge#1335: rank 428's lone ``RuntimeError: DeepEP error: timeout (dispatch CPU)`` (a waiting
  rank's expert-dispatch timeout, no rank blamed by the thread) names rank 428 (python-exception, warning) as
  collected; since session 58 DeepEP's own timeout is a wait on peers (a teardown) and it names no one, while a DeepEP
  assertion stays the rank's own failure;
- vllm-project/vllm#27998: rank 1's lone watchdog ``CUDA error: an illegal memory access was encountered`` (the
  torch.compile sequence-parallel pass mis-rewriting MoE graphs, every rank's code) names rank 1 (cuda-error, warning).

No rule changed (measure only). Contrasts: another rank's tag moves the name with it (DeepEP to rank 3, the CUDA error to
rank 0); the ValueError given to rank 2 while rank 0's traceback stays open names no one; a second rank's copy of the
error line names no one (alike); the proving line removed leaves an info suspect; a watchdog collective timeout in place
of the illegal memory access is the job's info hang of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_findings,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 3, 0, tzinfo=dt.timezone.utc)

ULYSSES_ALLGATHER = corpus_lines("arcticinference-175-")
DEEPEP_TIMEOUT = corpus_lines("megatron-bridge-1335-")
SP_PASS_MOE_IMA = corpus_lines("vllm-27998-")

_W0, _W1, _W2 = "(VllmWorker rank=0 pid=104)", "(VllmWorker rank=1 pid=105)", "(VllmWorker rank=2 pid=106)"

#: rank 0's ValueError given to worker 2 (rank 0's own traceback still open below it)
ULYSSES_ERROR_RANK2 = [
    line.replace(_W0, _W2) if "ValueError" in line else line for line in ULYSSES_ALLGATHER
]
#: worker 1's copy of the ValueError beside rank 0's: alike
ULYSSES_TWO_COPIES = ULYSSES_ALLGATHER + [
    line.replace(_W0, _W1) for line in ULYSSES_ALLGATHER if "ValueError" in line
]
#: the workers' frames without the ValueError
ULYSSES_NO_ERROR = [line for line in ULYSSES_ALLGATHER if "ValueError" not in line]

#: the same DeepEP timeout pasted from rank 3
DEEPEP_RANK3 = [line.replace("[rank428]", "[rank3]") for line in DEEPEP_TIMEOUT]
#: a DeepEP error that is no timeout (an assertion), rank 3's: its own failure
DEEPEP_ASSERT_RANK3 = DEEPEP_RANK3[:-1] + [
    "[rank3]: RuntimeError: Failed: Assertion error /workspace/DeepEP/csrc/deep_ep.cpp:335 'num_rdma_ranks > 1'"]
#: rank 100's copy beside rank 428's: alike
DEEPEP_TWO_COPIES = DEEPEP_TIMEOUT + [line.replace("[rank428]", "[rank100]") for line in DEEPEP_TIMEOUT]
#: rank 428's frames without the timeout line
DEEPEP_NO_ERROR = DEEPEP_TIMEOUT[:-1]


def _rank0(line: str) -> str:
    return line.replace("[rank1]", "[rank0]").replace("Rank 1]", "Rank 0]")


#: the same illegal memory access pasted from rank 0
SP_PASS_RANK0 = [_rank0(line) for line in SP_PASS_MOE_IMA]
#: rank 0's watchdog line beside rank 1's: alike
SP_PASS_TWO_COPIES = SP_PASS_MOE_IMA + [_rank0(SP_PASS_MOE_IMA[0])]
#: rank 1's watchdog reporting a collective timeout in place of the illegal memory access (a wait, not a fault)
SP_PASS_WATCHDOG_TIMEOUT = [
    SP_PASS_MOE_IMA[0].replace(
        "CUDA error: an illegal memory access was encountered",
        "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600000 milliseconds before timing out.",
    )
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected (NOT_YET, batch 358): each names its one tagged rank
    # since session 64 c10d's size check against the world size is every rank's (common mode): no one
    "ulysses-as-pasted-names-none": (ULYSSES_ALLGATHER, None, None, None, None),
    "ulysses-four-workers-names-none": (ULYSSES_ALLGATHER, 4, 4, None, None),
    "deepep-as-pasted-names-none": (DEEPEP_TIMEOUT, None, None, None, None),
    "deepep-1024-gpus-names-none": (DEEPEP_TIMEOUT, 8, 1024, None, None),
    "sp-pass-as-pasted-names-rank1": (SP_PASS_MOE_IMA, None, None, 1, "cuda-error"),
    "sp-pass-two-gpus-names-rank1": (SP_PASS_MOE_IMA, 2, 2, 1, "cuda-error"),
    # contrasts
    "ulysses-error-rank2-names-none": (ULYSSES_ERROR_RANK2, 4, 4, None, None),
    "ulysses-two-copies-names-none": (ULYSSES_TWO_COPIES, 4, 4, None, None),
    "deepep-rank3-names-none": (DEEPEP_RANK3, 8, 1024, None, None),
    "deepep-assert-names-rank3": (DEEPEP_ASSERT_RANK3, 8, 1024, 3, "python-exception"),
    "deepep-two-copies-names-none": (DEEPEP_TWO_COPIES, 8, 1024, None, None),
    "sp-pass-rank0-names-rank0": (SP_PASS_RANK0, 2, 2, 0, "cuda-error"),
    "sp-pass-two-copies-names-none": (SP_PASS_TWO_COPIES, 2, 2, None, None),
    "sp-pass-watchdog-timeout-names-none": (SP_PASS_WATCHDOG_TIMEOUT, 2, 2, None, None),
}
BATCHED = Batched("b358", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_moe_long_context_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_as_collected_each_is_a_lone_warning_of_medium_confidence(tmp_path):
    """As collected each paste gave exactly one finding: a rank-failure warning (not critical) of its tagged rank,
    said at medium confidence (the paste holds that rank's lines only). Since session 58 DeepEP's own timeout is a wait
    on peers (a teardown): Megatron-Bridge#1335 names no one. Since session 64 c10d's `output tensor size must be equal
    to world_size times input tensor size` is every rank's (common mode): ArcticInference#175 is a warning of no rank."""
    assert _gist(DEEPEP_TIMEOUT, tmp_path / "deepep", None, None) == []
    assert _gist(ULYSSES_ALLGATHER, tmp_path / "ulysses", None, None) == [("rank-failure", "warning", "python-exception", [])]
    for i, (lines, rank, cause) in enumerate(((SP_PASS_MOE_IMA, 1, "cuda-error"),)):
        findings = pasted_findings(lines, tmp_path / str(i), None, None, NOW)
        assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
            ("rank-failure", "warning", cause, [rank])
        ]
        assert findings[0]["confidence"] == "medium"


def test_frames_without_the_proving_line_leave_an_info_suspect(tmp_path):
    """The workers' frames without the ValueError name no single culprit since session 72 (docs/rules.md "Session 72:
    workers raising in the same second": several vLLM workers' records of one second and one handler); rank 428's
    DeepEP frames without the timeout line leave rank 428 an info suspect."""
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(ULYSSES_NO_ERROR, tmp_path / "a", 4, 4, NOW)]
    assert got == [("rank-failure", "warning", "python-exception", [])]
    assert_info_suspect(pasted_findings(DEEPEP_NO_ERROR, tmp_path / "b", 8, 1024, NOW), 428)


def test_watchdog_collective_timeout_is_an_info_hang_of_no_rank(tmp_path):
    """Rank 1's watchdog line reporting a collective timeout, not a CUDA fault, is the job's hang at info, no rank:
    the reading the DeepEP dispatch timeout does not get yet."""
    assert _gist(SP_PASS_WATCHDOG_TIMEOUT, tmp_path, 2, 2) == [("nccl-hang", "info", "no-single-culprit", [])]
