"""huggingface transformers / trl / accelerate / peft threads' multi-GPU failures (real incidents batch 349), pinned as read.
Four controls, collected blind, all read right as collected (no rank named, both ways): rank 0's accelerate
``DistributedOperationException`` for a ``gather`` of unequal logits shapes with rank 2's traceback after it
(huggingface/trl#2882: an ORPOTrainer regression in trl 0.14/0.15, every rank), and rank 0's and rank 3's interleaved
tracebacks into ``deepspeed_plugins = AcceleratorState().deepspeed_plugins`` (huggingface/trl#2377: accelerate 1.0-1.8
under DeepSpeed, settled by the maintainer in #2329) are each a warning python-exception of no rank; rank 0's lone
traceback in accelerate's ``DataLoaderDispatcher._fetch_batches`` -> ``concatenate`` (huggingface/trl#3950: streaming
datasets with ``dispatch_batches=True``) and rank 0's lone traceback into ``self.optimizer.step()`` (huggingface/accelerate
#3905: FSDP2 bf16 optimizer step) have no exception line and hold rank 0 as an info suspect only. Scored 4/4 both ways as
collected; no rule changed (measure only). Contrasts: rank 2's traceback alone with a CUDA error line names rank 2
(cuda-error); rank 3's frames with an out-of-memory line name rank 3 (cuda-oom); rank 0's frames completed by accelerate's
``ValueError: Please make sure to properly initialize your accelerator ...`` name rank 0 (python-exception), as do the
dispatcher's frames completed by a ``Sizes of tensors must match`` line (a job-wide ``dispatch_batches`` failure that only
the main process can raise: read today as rank 0's own) and the optimizer-step frames completed by their exception;
the optimizer-step frames renumbered to rank 3 hold rank 3 as the suspect, and with a CUDA error name rank 3.
Pasted logs through ``k10s import-logs``, batched.
Since session 57 (the batch's suggestion) accelerate's ``Please make sure to properly initialize your accelerator``
ValueError names no one (its setup check, every process's: common mode), and so does its own ``You can't use batches of
different size with `dispatch_batches=True``` refusal; a ``Sizes of tensors must match`` line stays rank 0's.
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

NOW = dt.datetime(2026, 12, 5, 23, 0, tzinfo=dt.timezone.utc)

ORPO_GATHER = corpus_lines("trl-2882-")
PPO_ACCELERATOR_STATE = corpus_lines("trl-2377-")
DISPATCH_CONCAT = corpus_lines("trl-3950-")
FSDP2_OPTIMIZER_STEP = corpus_lines("accelerate-3905-")

#: rank 2's traceback alone (the gather exception above it gone), ended by a CUDA error of its own
ORPO_RANK2_CUDA_ERROR = ORPO_GATHER[10:] + [
    "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered"
]
#: rank 3's interleaved frames alone, ended by an out-of-memory line of rank 3's
PPO_RANK3_OOM = PPO_ACCELERATOR_STATE[10:] + [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
    "79.10 GiB of which 1.06 GiB is free."
]
#: rank 0's frames completed by accelerate's ValueError (the line the excerpt cut; the issue title quotes it)
PPO_RANK0_VALUEERROR = PPO_ACCELERATOR_STATE[:10] + [
    "[rank0]:     raise ValueError(",
    "[rank0]: ValueError: Please make sure to properly initialize your accelerator via `accelerator = Accelerator()` "
    "before using any functionality from the `accelerate` library.",
]
#: the dispatcher's frames completed by a size-mismatch exception (what ``concatenate`` raises on unequal batches)
DISPATCH_SIZES = DISPATCH_CONCAT + [
    "[rank0]: RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 412 but got size 388 for "
    "tensor number 1 in the list."
]
#: the dispatcher's frames ended by an out-of-memory line instead
DISPATCH_OOM = DISPATCH_CONCAT + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.10 GiB of which 1.06 GiB is free."
]
#: the optimizer-step frames completed by their exception
FSDP2_STEP_RAISED = FSDP2_OPTIMIZER_STEP + [
    "[rank0]: RuntimeError: Tensors of the same index must be on the same device and the same dtype except `step` "
    "tensors that can be CPU and float32/64 notwithstanding"
]
#: the optimizer-step frames renumbered to rank 3
FSDP2_STEP_RANK3 = [line.replace("[rank0]", "[rank3]") for line in FSDP2_OPTIMIZER_STEP]
#: and ended by a CUDA error of rank 3's
FSDP2_STEP_RANK3_CUDA = FSDP2_STEP_RANK3 + [
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "orpo-gather-as-pasted": (ORPO_GATHER, None, None, None, None),
    "orpo-gather-four-processes": (ORPO_GATHER, 4, 4, None, None),
    "ppo-accelerator-state-as-pasted": (PPO_ACCELERATOR_STATE, None, None, None, None),
    "ppo-accelerator-state-four-ranks": (PPO_ACCELERATOR_STATE, 4, 4, None, None),
    "dispatch-concat-as-pasted": (DISPATCH_CONCAT, None, None, None, None),
    "dispatch-concat-two-processes": (DISPATCH_CONCAT, 2, 2, None, None),
    "fsdp2-optimizer-step-as-pasted": (FSDP2_OPTIMIZER_STEP, None, None, None, None),
    "fsdp2-optimizer-step-four-ranks": (FSDP2_OPTIMIZER_STEP, 4, 4, None, None),
    # contrasts
    "orpo-rank2-own-cuda-error-names-rank2": (
        ORPO_RANK2_CUDA_ERROR,
        4,
        4,
        2,
        "cuda-error",
    ),
    "ppo-rank3-oom-names-rank3": (PPO_RANK3_OOM, 4, 4, 3, "cuda-oom"),
    # accelerate's every-process ValueError, completed on rank 0 alone: every process's since session 57 (common mode)
    "ppo-rank0-valueerror-names-none": (PPO_RANK0_VALUEERROR, 4, 4, None, None),
    # the dispatcher's concatenate failure (job-wide dispatch_batches, only the main process raises): read as rank 0's
    "dispatch-sizes-mismatch-names-rank0": (
        DISPATCH_SIZES,
        2,
        2,
        0,
        "python-exception",
    ),
    "dispatch-oom-names-rank0": (DISPATCH_OOM, 2, 2, 0, "cuda-oom"),
    "fsdp2-step-raised-names-rank0": (FSDP2_STEP_RAISED, 4, 4, 0, "python-exception"),
    "fsdp2-step-rank3-names-none": (FSDP2_STEP_RANK3, 4, 4, None, None),
    "fsdp2-step-rank3-cuda-error-names-rank3": (
        FSDP2_STEP_RANK3_CUDA,
        4,
        4,
        3,
        "cuda-error",
    ),
}
BATCHED = Batched("b349", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hf_repo_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


@pytest.mark.parametrize(
    "lines",
    [ORPO_GATHER, PPO_ACCELERATOR_STATE],
    ids=["orpo-gather", "ppo-accelerator-state"],
)
def test_two_ranks_failing_alike_are_a_failure_of_no_rank(lines, tmp_path):
    """Two ranks' tracebacks (rank 0's exception and rank 2's frames; ranks 0 and 3 interleaved): a Python failure
    (warning) of no single rank."""
    assert _failures(lines, tmp_path, 4) == [("warning", "python-exception", [])]


@pytest.mark.parametrize(
    ("lines", "rank"),
    [(DISPATCH_CONCAT, 0), (FSDP2_OPTIMIZER_STEP, 0), (FSDP2_STEP_RANK3, 3)],
    ids=["dispatch-concat", "fsdp2-optimizer-step", "fsdp2-optimizer-step-rank3"],
)
def test_lone_frames_without_exception_hold_a_suspect(lines, rank, tmp_path):
    """One rank's frames cut before their exception line: that rank as an info suspect, nothing louder."""
    assert_info_suspect(pasted_findings(lines, tmp_path, 4, 4, NOW), rank)
