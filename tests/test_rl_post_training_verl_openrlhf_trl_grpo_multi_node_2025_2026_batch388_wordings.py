"""RL post-training (verl, OpenRLHF, TRL GRPO/PPO, ...) multi-GPU/multi-node failures, 2025-2026 (real incidents batch
388), pinned as read. Three controls, collected blind (only three usable threads found), all read right as collected:
rank 0's two-line tail ``[rank0]:     output_reward_func = reward_func(`` / ``[rank0]: TypeError: accuracy_reward()
missing 1 required positional argument: 'assistant'`` (2U1/Qwen-VL-Series-Finetune#234: the maintainer, the dataset
does not feed the reward function's ``assistant`` column, every rank alike) is a python-exception warning of no rank,
as pasted or as 4 processes; NCCL's lone ``Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000``
(rllm-org/rllm#10: DeepScaleR's verl generation placing two workers on one GPU, fixed with ``max_colocate_count=1``,
the named pair changing from run to run) raises nothing at all; the head of rank 1's traceback out of
``GRPOTrainer.__init__`` cut at ``[rank1]:     raise ValueError(`` (huggingface/open-r1#236: ``(3 x 1)`` not divisible
by 8 generations, a constructor check every rank runs) is an info suspect rank 1 only. Scored 3/3 both ways as
collected. Contrasts: the reward TypeError untagged, or copied by rank 1 too, names no one, but rank 1's own CUDA OOM
after it names rank 1 (cuda-oom); the duplicate-GPU message in rank 5's tagged NCCL invalid-usage tail names no one,
but rank 5's own illegal memory access names rank 5 (cuda-error); the open-r1 traceback completed with its ValueError,
or copied by ranks 0 and 2, names no one, while the same ValueError with ranks 0 and 2 timing out in their first
all-reduce names rank 1 (never-joined), and rank 1's tail ending in a data ``KeyError`` names rank 1. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

REWARD_ARG = corpus_lines("Qwen-VL-Series-Finetune-234-")
DUPLICATE_GPU = corpus_lines("rllm-10-")
GROUP_CHECK = corpus_lines("open-r1-236-")

#: the reward TypeError without the rank tags (the untagged console)
REWARD_ARG_UNTAGGED = [line.replace("[rank0]: ", "") for line in REWARD_ARG]
#: rank 1's copy of the same two lines beside rank 0's
REWARD_ARG_TWO_COPIES = [line.replace("[rank0]", "[rank1]") for line in REWARD_ARG] + REWARD_ARG
#: rank 1's own CUDA OOM after rank 0's reward TypeError
REWARD_ARG_RANK1_OOM = REWARD_ARG + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
    "79.10 GiB of which 1.06 GiB is free.",
]
#: the duplicate-GPU message as the end of rank 5's tagged NCCL invalid-usage tail
DUPLICATE_GPU_RANK5_TAIL = [
    "[rank5]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
    "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
    "[rank5]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "[rank5]: Last error:",
    "[rank5]: " + DUPLICATE_GPU[0],
]
#: NCCL's own WARN line carrying the message
DUPLICATE_GPU_NCCL_WARN = ["ISTD-2100000569:1422836:1422836 [0] init.cc:943 NCCL WARN " + DUPLICATE_GPU[0]]
#: rank 5's own illegal memory access after the message
DUPLICATE_GPU_RANK5_ILLEGAL = DUPLICATE_GPU + ["[rank5]: RuntimeError: CUDA error: an illegal memory access was encountered"]
#: the exception line the excerpt cut, as the issue title gives it
GROUP_CHECK_EXC = (
    "[rank1]: ValueError: The global train batch size (3 x 1) must be evenly divisible by the number of generations per "
    "prompt (8). Given the current train batch size, the valid values for the number of generations are: [3]."
)
GROUP_CHECK_WITH_EXC = GROUP_CHECK + [GROUP_CHECK_EXC]
#: the three training ranks' copies of the completed traceback
GROUP_CHECK_ALL_RANKS = [
    line.replace("[rank1]", f"[rank{r}]") for r in (0, 1, 2) for line in GROUP_CHECK_WITH_EXC
]
_WATCHDOG = (
    "[rank{r}]:[E208 10:00:00.000000000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800087 "
    "milliseconds before timing out."
)
#: rank 1's ValueError while ranks 0 and 2 time out in their first all-reduce
GROUP_CHECK_OTHERS_WAIT = GROUP_CHECK_WITH_EXC + [_WATCHDOG.format(r=0), _WATCHDOG.format(r=2)]
#: rank 1's traceback ending in a data KeyError instead of the constructor check
GROUP_CHECK_RANK1_KEYERROR = GROUP_CHECK[:5] + ["[rank1]: KeyError: 'solution'"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say: no one
    "reward-arg-as-pasted": (REWARD_ARG, None, None, None, None),
    "reward-arg-four-processes": (REWARD_ARG, 4, 4, None, None),
    "duplicate-gpu-as-pasted": (DUPLICATE_GPU, None, None, None, None),
    "duplicate-gpu-eight-ranks": (DUPLICATE_GPU, 8, 8, None, None),
    "group-check-as-pasted": (GROUP_CHECK, None, None, None, None),
    "group-check-three-processes": (GROUP_CHECK, 3, 3, None, None),
    # variants that must not name anyone
    "reward-arg-untagged-names-none": (REWARD_ARG_UNTAGGED, None, None, None, None),
    "reward-arg-two-copies-names-none": (REWARD_ARG_TWO_COPIES, 2, 2, None, None),
    "duplicate-gpu-rank5-tail-names-none": (DUPLICATE_GPU_RANK5_TAIL, 8, 8, None, None),
    "duplicate-gpu-nccl-warn-names-none": (DUPLICATE_GPU_NCCL_WARN, 8, 8, None, None),
    "group-check-with-exception-names-none": (GROUP_CHECK_WITH_EXC, 3, 3, None, None),
    "group-check-all-ranks-names-none": (GROUP_CHECK_ALL_RANKS, 3, 3, None, None),
    # contrasts that must name a rank
    "reward-arg-rank1-oom-names-rank1": (REWARD_ARG_RANK1_OOM, 4, 4, 1, "cuda-oom"),
    "duplicate-gpu-rank5-illegal-names-rank5": (DUPLICATE_GPU_RANK5_ILLEGAL, 8, 8, 5, "cuda-error"),
    "group-check-others-wait-names-rank1": (GROUP_CHECK_OTHERS_WAIT, 3, 3, 1, "never-joined"),
    "group-check-rank1-keyerror-names-rank1": (GROUP_CHECK_RANK1_KEYERROR, 3, 3, 1, "python-exception"),
}
BATCHED = Batched("b388", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rl_post_training_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_lone_reward_signature_error_is_a_rankless_python_exception(tmp_path):
    """Qwen-VL-Series-Finetune#234 as collected: rank 0's lone ``TypeError`` from the reward call is one warning,
    python-exception, no rank — the same dataset feeds every rank's reward function."""
    assert _gist(REWARD_ARG, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(REWARD_ARG, tmp_path / "b", 4, 4) == [("rank-failure", "warning", "python-exception", [])]


def test_duplicate_gpu_message_names_no_one(tmp_path):
    """rllm#10 as collected: the NCCL duplicate-GPU line names two ranks and a device but raises nothing; in rank 5's
    tagged invalid-usage tail it is a rankless nccl-error warning (a placement fault, the pair arbitrary)."""
    # since session 62 a rankless nccl-error warning saying the launch's placement (was no finding at all)
    assert _gist(DUPLICATE_GPU, tmp_path / "a", 8, 8) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(DUPLICATE_GPU_RANK5_TAIL, tmp_path / "b", 8, 8) == [("rank-failure", "warning", "nccl-error", [])]


def test_cut_constructor_traceback_is_a_suspect_only(tmp_path):
    """open-r1#236 as collected: rank 1's frames down to ``raise ValueError(`` with the exception cut make rank 1 an
    info suspect (low), nothing louder; completed with the ValueError it is a rankless python-exception warning."""
    findings = pasted_findings(GROUP_CHECK, tmp_path / "a", 3, 3, NOW)
    assert_info_suspect(findings, 1)
    assert findings[0]["confidence"] == "low"
    assert _gist(GROUP_CHECK_WITH_EXC, tmp_path / "b", 3, 3) == [("rank-failure", "warning", "python-exception", [])]
