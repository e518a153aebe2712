"""LLM fine-tuning frameworks on several GPUs, 2025-2026 (real incidents batch 374), pinned as read. Three controls,
collected blind, all three read right as collected (3/3 both ways). A tmux-garbled capture of a two-rank axolotl ORPO
run whose first collective never completes (rank 0's ``Exception (either an error or timeout) detected by watchdog at
work: 1``, rank 1's ``Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: -1.``;
axolotl-ai-cloud/axolotl#2267, fixed by axolotl#2440 carrying TRL#3069: the ORPO trainer gathered whole logits tensors
for its metrics) is an info nccl-hang of no single culprit, as pasted or as its 2 ranks. Rank 1's
``AttributeError: 'AxolotlGRPOTrainer' object has no attribute 'current_gradient_accumulation_steps'`` followed by
the start of rank 0's traceback (a comment on axolotl#2797; TRL#4852: the attribute is only set in the first training
iteration, so the evaluation ``eval_on_start`` runs first raises on every rank) is a warning python-exception of no rank
(two ranks failing in a log without a clock). The head of rank 3's traceback, cut before its exception, from
``trl/scripts/grpo.py --use_liger_kernel --eval_on_start`` under FSDP2 (huggingface/trl#4850, the same bug) is rank 3
as an info suspect only (confidence low). Contrasts: rank 1's three lines alone name rank 1 (a lone paste's exception,
python-exception); rank 3's traceback with an exception line, or with its own CUDA OOM, names rank 3; the GRPO lines
untagged, with rank 0's copy of the exception, with rank 1's OOM after them, or the ORPO lines cut to one rank's,
name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

ORPO_HANG = corpus_lines("axolotl-2267-")
GRPO_EVAL = corpus_lines("axolotl-2797-")
TRL_HEAD = corpus_lines("trl-4850-")

#: rank 1's three lines (the code line, its carets, the AttributeError) without rank 0's traceback header
GRPO_RANK1_ONLY = GRPO_EVAL[:3]
#: the same lines without the ``[rankN]: `` tags (a paste of the untagged console)
GRPO_UNTAGGED = [line.split(": ", 1)[1] if line.startswith("[rank") else line for line in GRPO_EVAL]
#: rank 0's own copy of the AttributeError after its traceback header
GRPO_BOTH_EXCEPTIONS = GRPO_EVAL[:4] + [GRPO_EVAL[2].replace("[rank1]", "[rank0]")]
#: rank 1's CUDA OOM after the two ranks' lines
GRPO_RANK1_OOM = GRPO_EVAL[:4] + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of "
    "79.10 GiB of which 3.06 MiB is free.",
]
#: rank 3's traceback carried on to its exception line
TRL_WITH_EXCEPTION = TRL_HEAD + [
    "[rank3]: AttributeError: 'GRPOTrainer' object has no attribute 'current_gradient_accumulation_steps'",
]
#: rank 3's traceback ending in its own CUDA OOM
TRL_RANK3_OOM = TRL_HEAD + [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total capacity of "
    "79.10 GiB of which 3.06 MiB is free.",
]
#: rank 1's NCCL lines of the capture alone
ORPO_RANK1_ONLY = [line for line in ORPO_HANG if "Rank 1]" in line]
#: rank 0's watchdog line of the capture alone
ORPO_RANK0_ONLY = ORPO_HANG[:1]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "orpo-hang-as-pasted": (ORPO_HANG, None, None, None, None),
    "orpo-hang-two-ranks": (ORPO_HANG, 2, 2, None, None),
    "grpo-eval-as-pasted": (GRPO_EVAL, None, None, None, None),
    "grpo-eval-two-ranks": (GRPO_EVAL, 2, 2, None, None),
    "grpo-eval-eight-ranks": (GRPO_EVAL, 8, 8, None, None),
    "trl-head-as-pasted": (TRL_HEAD, None, None, None, None),
    "trl-head-four-ranks": (TRL_HEAD, 4, 4, None, None),
    # variants that must not name anyone
    "grpo-untagged-names-none": (GRPO_UNTAGGED, None, None, None, None),
    "grpo-both-exceptions-names-none": (GRPO_BOTH_EXCEPTIONS, 2, 2, None, None),
    "grpo-rank1-oom-names-none": (GRPO_RANK1_OOM, 2, 2, None, None),
    "orpo-rank1-lines-only-names-none": (ORPO_RANK1_ONLY, 2, 2, None, None),
    "orpo-rank0-line-only-names-none": (ORPO_RANK0_ONLY, 2, 2, None, None),
    # contrasts that name a rank
    "grpo-rank1-only-names-rank1": (GRPO_RANK1_ONLY, 2, 2, 1, "python-exception"),
    "trl-with-exception-names-rank3": (TRL_WITH_EXCEPTION, 4, 4, 3, "python-exception"),
    "trl-rank3-oom-names-rank3": (TRL_RANK3_OOM, 4, 4, 3, "cuda-oom"),
}
BATCHED = Batched("b374", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_llm_finetune_multi_gpu_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_orpo_first_collective_timeout_is_a_hang_of_no_single_culprit(tmp_path):
    """axolotl#2267 as collected: rank 1's ``Timeout at NCCL work: 1`` and (since session 60) rank 0's ``Exception
    (either an error or timeout) detected by watchdog at work: 1`` read as two ranks waiting on the same first
    collective, an info nccl-hang naming no one; rank 0's watchdog line alone is one rank's wait alone, as rank 1's
    timeout alone is (before session 60 it said nothing)."""
    want = [("nccl-hang", "info", "no-single-culprit", [])]
    assert _gist(ORPO_HANG, tmp_path / "a", None, None) == want
    assert _gist(ORPO_HANG, tmp_path / "b", 2, 2) == want
    assert _gist(ORPO_RANK0_ONLY, tmp_path / "c", 2, 2) == want


def test_grpo_eval_on_start_two_ranks_are_a_rankless_python_exception(tmp_path):
    """axolotl#2797's comment: rank 1's AttributeError and rank 0's traceback header make two failing ranks in a log
    without a clock — a warning python-exception of no rank; rank 1's lines alone name rank 1 (warning, medium: the
    paste holds that rank's lines only)."""
    assert _gist(GRPO_EVAL, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    findings = pasted_findings(GRPO_RANK1_ONLY, tmp_path / "b", 2, 2, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [1])
    ]
    assert findings[0]["confidence"] == "medium"


def test_trl_rank3_traceback_head_is_a_suspect_only(tmp_path):
    """trl#4850 as collected: rank 3's frames, cut before the exception, are an info python-exception holding rank 3
    (confidence low), nothing louder."""
    findings = pasted_findings(TRL_HEAD, tmp_path, None, None, NOW)
    assert_info_suspect(findings, 3)
    assert findings[0]["confidence"] == "low"
