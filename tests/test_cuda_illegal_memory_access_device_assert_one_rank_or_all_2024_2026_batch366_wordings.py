"""CUDA illegal memory access / device-side assert / illegal instruction / misaligned address: one rank's own or every
rank's, 2024-2026 (real incidents batch 366), pinned as read. Three controls, collected blind (the third,
shibing624/MedicalGPT#23, a 2023 thread, replaced pytorch/pytorch#131755, found already in the corpus as batch 259).
One was read right as collected: the untagged ``indexSelectLargeIndex`` asserts and ``RuntimeError: CUDA error:
device-side assert triggered`` of a multi-GPU reward-model run (MedicalGPT#23: the script's pad id outside the
vocabulary, every rank's batches) are a cuda-error warning of no rank, as pasted or laid out as eight GPUs. Two are
NOT_YET as collected (batch 366) and pinned as read: device [0]'s ``NCCL WARN Cuda failure 'misaligned address'`` and the
untagged ``all_reduce`` traceback ending ``NCCL Error 1: unhandled cuda error`` (open-mmlab/mmengine#1557:
SyncBuffersHook's all_reduce of bf16 buffers, every rank's; NCCL's bf16 misalignment) name no one as pasted but named
rank 0 (cuda-error, warning) laid out as the 16-GPU job (since session 59 a suspect at info: read right); rank 3's ``CUDA error: an illegal instruction was encountered`` in
``flashinfer_sample`` beside rank 2's first exception line (vllm-project/vllm#18045: the FlashInfer sampler traps on
every TP rank) named rank 3 (cuda-error, warning; since session 72 no one: rank 2's record from the same handler in the
same second, tests/test_worker_records_same_second.py). Scored 1/3 both ways as collected; no rule changed (measure only).
Variants that keep the reading: the tensor-parallel layout, the NCCL line's device renumbered (no one, as device 0),
the worker renumbered (no one since session 72). Contrasts that change it: the assert's ``RuntimeError`` tagged ``[rank2]:`` names rank 2; a
second rank's copy beside it names no one; rank 0's own illegal instruction beside rank 3's names no one (every rank's,
what the thread shows); rank 3's lines without the exception name nothing. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

PAD_ASSERT = corpus_lines("medicalgpt-23-")
BF16_MISALIGNED = corpus_lines("mmengine-1557-")
SAMPLER_TRAP = corpus_lines("vllm-18045-")

#: the assert's RuntimeError as rank 2's (a tagged process)
PAD_ASSERT_RANK2 = [("[rank2]: " + line if line.startswith("RuntimeError") else line) for line in PAD_ASSERT]
#: rank 5's copy of the same RuntimeError beside rank 2's: every rank's
PAD_ASSERT_TWO_RANKS = PAD_ASSERT_RANK2 + ["[rank5]: RuntimeError: CUDA error: device-side assert triggered"]
#: the NCCL line from local device 3 of the host
BF16_MISALIGNED_DEV3 = [line.replace("[0] enqueue", "[3] enqueue") for line in BF16_MISALIGNED]
#: rank 0's own illegal instruction beside rank 3's (what the thread's paste shows: every worker fails)
_RANK0 = "(VllmWorker rank=0 pid=265) ERROR 05-12 19:01:18 [multiproc_executor.py:470]"
SAMPLER_TRAP_RANK0_TOO = SAMPLER_TRAP + [_RANK0 + " RuntimeError: CUDA error: an illegal instruction was encountered"]
#: the same worker lines renumbered rank 1
SAMPLER_TRAP_RANK1 = [line.replace("rank=3 pid=268", "rank=1 pid=266") for line in SAMPLER_TRAP]
#: rank 3's frames without the exception line
SAMPLER_TRAP_NO_EXCEPTION = [line for line in SAMPLER_TRAP if "RuntimeError" not in line]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "pad-assert-as-pasted": (PAD_ASSERT, None, None, None, None),
    "pad-assert-eight-gpus": (PAD_ASSERT, 8, 8, None, None),
    # today's readings of the NOT_YET controls
    "bf16-misaligned-as-pasted": (BF16_MISALIGNED, None, None, None, None),
    # since session 59 (NCCL's CUDA failure launching its collective, in a lone paste, is a suspect only): no one
    "bf16-misaligned-16-gpus": (BF16_MISALIGNED, 8, 16, None, None),
    "bf16-misaligned-one-node": (BF16_MISALIGNED, 8, 8, None, None),
    # read right since session 72 (docs/rules.md "Session 72: workers raising in the same second"): rank 2's record
    # from the same handler in the same second makes it no single culprit
    "sampler-trap-as-pasted": (SAMPLER_TRAP, None, None, None, None),
    "sampler-trap-tp4": (SAMPLER_TRAP, 4, 4, None, None),
    # variants
    "bf16-misaligned-device3-names-none": (BF16_MISALIGNED_DEV3, 8, 16, None, None),
    "sampler-trap-rank1-names-none": (SAMPLER_TRAP_RANK1, 4, 4, None, None),
    # contrasts
    "pad-assert-rank2-names-rank2": (PAD_ASSERT_RANK2, 8, 8, 2, "cuda-error"),
    "pad-assert-two-ranks-names-none": (PAD_ASSERT_TWO_RANKS, 8, 8, None, None),
    "sampler-trap-rank0-too-names-none": (SAMPLER_TRAP_RANK0_TOO, 4, 4, None, None),
    "sampler-trap-rank0-too-as-pasted-names-none": (SAMPLER_TRAP_RANK0_TOO, None, None, None, None),
}
BATCHED = Batched("b366", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cuda_fault_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
        if f["rule"] == "rank-failure"
    ]


def test_untagged_device_assert_is_a_cuda_error_of_no_rank(tmp_path):
    """MedicalGPT#23 (read right): the untagged ``indexSelectLargeIndex`` asserts and ``device-side assert
    triggered`` are a cuda-error warning that names no rank, as pasted or as eight GPUs: nothing says which process
    (and the out-of-vocabulary pad id is in every rank's batches)."""
    for folder, nproc in ((tmp_path / "a", None), (tmp_path / "b", 8)):
        assert _failures(PAD_ASSERT, folder, nproc, nproc) == [("warning", "cuda-error", [])]


def test_nccl_misaligned_address_is_read_as_a_cuda_error(tmp_path):
    """mmengine#1557 (NOT_YET as collected): the NCCL ``Cuda failure 'misaligned address'`` inside ``all_reduce`` and
    ``NCCL Error 1: unhandled cuda error`` are read as a CUDA error (not NCCL's), of no rank as pasted; as the 16-GPU job
    they named rank 0 (device [0] of node 0) at warning, wrong: the buffer all_reduce is every rank's and the fault
    NCCL's handling of bf16. Since session 59 rank 0 is a suspect only, at info (NCCL's CUDA failure launching its
    collective, in a lone paste)."""
    assert _failures(BF16_MISALIGNED, tmp_path / "a", None, None) == [("warning", "cuda-error", [])]
    assert _failures(BF16_MISALIGNED, tmp_path / "b", 8, 16) == [("info", "cuda-error", [0])]


def test_sampler_trap_names_no_one_as_rank2_prints_its_own(tmp_path):
    """vllm#18045 (NOT_YET as collected, named rank 3; read right since session 72): rank 3's illegal instruction
    beside rank 2's exception print started at the same second from the same handler is a cuda-error warning of no
    rank (the sampler kernel traps on every TP rank, rank 0 too, in the thread). Rank 3's frames without the exception
    line are no finding at all."""
    assert _failures(SAMPLER_TRAP, tmp_path / "a", 4, 4) == [("warning", "cuda-error", [])]
    assert pasted_findings(SAMPLER_TRAP_NO_EXCEPTION, tmp_path / "b", 4, 4, NOW) == []
