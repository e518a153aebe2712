"""NCCL's duplicate-GPU check says what to check (docs/rules.md, "Session 62: NCCL's placement and fabric-state errors
say what to do"): ``Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000`` (ncclInvalidUsage at
communicator init: two ranks of one communicator placed on one GPU by the launcher or the scheduler) is the launch's
placement, never either rank's nor the GPU's. Alone (rllm#10, NeMo-RL#3155, horovod#3929, DeepSpeed#1604: k10s found
nothing before session 62), behind its ``NCCL WARN`` prefix or as the ``Last error:`` payload of a rank's
``DistBackendError`` it is one rank-failure warning, cause nccl-error, no rank, whose summary names the placement and
what to check (CUDA_VISIBLE_DEVICES / LOCAL_RANK's device, Ray's num_gpus and colocation). Contrasts: a rank's own
CUDA error beside it still names that rank; another ncclInvalidUsage keeps the same-code reading; the words in prose
(no ``rank A and rank B both on CUDA device``) are no failure. Pasted logs through ``k10s import-logs``.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

DUPLICATE_GPU = corpus_lines("rllm-10-")
#: rank 5's tagged invalid-usage tail ending in the message (torch's report, the message a `Last error:` payload)
RANK5_TAIL = [
    "[rank5]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
    "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
    "[rank5]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "[rank5]: Last error:",
    "[rank5]: " + DUPLICATE_GPU[0],
]
NCCL_WARN = ["ISTD-2100000569:1422836:1422836 [0] init.cc:943 NCCL WARN " + DUPLICATE_GPU[0]]
#: the device id cut off (rl_games#284's paste)
DEVICE_CUT = ["NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device"]
#: another invalid usage (not two ranks on one GPU)
OTHER_INVALID_USAGE = [line.replace(DUPLICATE_GPU[0], "Invalid config blocking attribute value -2147483648") for line in RANK5_TAIL]
ILLEGAL_RANK5 = ["[rank5]: RuntimeError: CUDA error: an illegal memory access was encountered"]


def _rank_failures(lines: list[str], tmp_path, nproc: int | None) -> list[dict]:
    return [f for f in pasted_findings(lines, tmp_path, nproc, nproc, NOW) if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("lines", [DUPLICATE_GPU, NCCL_WARN, RANK5_TAIL, DEVICE_CUT],
                         ids=["as-collected", "nccl-warn", "rank5-last-error", "device-cut"])
@pytest.mark.parametrize("nproc", [None, 8])
def test_duplicate_gpu_is_the_launch_placement_naming_no_one(tmp_path, lines, nproc):
    found = _rank_failures(lines, tmp_path, nproc)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in found] == [("warning", "nccl-error", [])]
    summary = found[0]["summary"]
    assert "the launch's placement: two ranks of one communicator on one GPU" in summary
    assert "CUDA_VISIBLE_DEVICES" in summary and "LOCAL_RANK" in summary and "num_gpus" in summary
    assert "no single culprit" in summary and "same command line" not in summary


@pytest.mark.parametrize("slug", ["rllm-10-", "NeMo-RL-3155-", "horovod-3929-", "DeepSpeed-1604-", "pytorch-47885-",
                                  "rl_games-284-", "DEIMv2-155-"])
def test_the_corpus_duplicate_gpu_controls_say_placement(tmp_path, slug):
    findings = pasted_findings(corpus_lines(slug), tmp_path, 8, 8, NOW)
    assert naming_findings(findings) == []
    assert any("the launch's placement" in (f.get("summary") or "") for f in findings), [f["summary"] for f in findings]


@pytest.mark.parametrize("lines", [DUPLICATE_GPU + ILLEGAL_RANK5, ILLEGAL_RANK5 + NCCL_WARN], ids=["after", "before"])
def test_a_rank_s_own_cuda_error_beside_it_still_names_that_rank(tmp_path, lines):
    named = naming_findings(pasted_findings(lines, tmp_path, 8, 8, NOW))
    assert [(f["cause"], f["ranks"]) for f in named] == [("cuda-error", [5])]


def test_another_invalid_usage_keeps_the_same_code_reading(tmp_path):
    found = _rank_failures(OTHER_INVALID_USAGE, tmp_path, 8)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in found] == [("warning", "nccl-error", [])]
    assert "every process runs the same command line and code (ncclInvalidUsage)" in found[0]["summary"]


@pytest.mark.parametrize("line", ["INFO placement check: no Duplicate GPU detected on node 0",
                                  "Duplicate GPU detected", "see NCCL's Duplicate GPU detected check in init.cc"])
def test_the_words_without_the_two_ranks_are_no_failure(tmp_path, line):
    assert _rank_failures([line], tmp_path, 8) == []
