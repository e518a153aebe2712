"""Diffusion / video / multimodal trainers' multi-GPU failures (real incidents batch 275), pinned as read.
One culprit and four controls, collected blind, all read right as collected (5/5 both ways, no control named; the
culprit, collected by batch 273's helper too, is counted once, in batch 273, and its log is read from there):
c10d's ``[Rank 1] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered``
after an unranked SDXL traceback on 2x H100 (kohya-ss/sd-scripts#1434) names rank 1, critical cuda-error; an unranked
``AttributeError: 'DistributedDataParallel' object has no attribute 'set_multiplier'`` (kohya-ss/sd-scripts#1083, a
DDP-unwrap bug every worker hits) and SimpleTuner's unranked ``ZeroDivisionError: integer modulo by zero`` (bghira/
SimpleTuner#1776, a multi-GPU regression) are warning python-exceptions of no rank; ``[rank1]:``'s full
``'DistributedDataParallel' object has no attribute 'text_model'`` traceback then ``[rank0]:``'s starting (Akegarasu/
lora-scripts#543) names no one; two workers' tracebacks interleaved down to a doubled ``raise AttributeError(...)``
source line with no message line (kohya-ss/sd-scripts#1019) read as nothing at all. No rule changed (measure only).
Contrasts: without the ``[Rank 1]`` watchdog line the ECC error is a warning cuda-error of no rank; renumbered
``[Rank 3]`` names rank 3; an illegal memory access in place of the ECC error is only a warning; ``CUDA error: out of
memory`` reads as rank 1's oom-cascade (cuda-oom); the ZeroDivision traceback under ``[rank1]:`` names rank 1; the DDP
one under ``[rank1]:``, and rank 1's traceback without rank 0's start, named rank 1 until session 61 and are now its
suspect only (a lone paste's DDP wrapper attribute: lone-paste-program-structure); the interleaved tracebacks with their message line are a
warning python-exception of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 23, 45, tzinfo=dt.timezone.utc)

ECC = corpus_lines("sd-scripts-1434-")
SET_MULTIPLIER = corpus_lines("sd-scripts-1083-")
ZERO_STEPS = corpus_lines("SimpleTuner-1776-")
TEXT_MODEL = corpus_lines("lora-scripts-543-")
INTERLEAVED = corpus_lines("sd-scripts-1019-")

ECC_ERROR = "CUDA error: uncorrectable ECC error encountered"
#: the unranked traceback and its CUDA notes without c10d's ``[Rank 1]`` watchdog line
ECC_NO_RANK = [line for line in ECC if "[Rank 1]" not in line]
#: the watchdog line renumbered: rank 3 of four
ECC_RANK_3 = [line.replace("[Rank 1]", "[Rank 3]") for line in ECC]
#: an illegal memory access in place of the ECC error (a CUDA error, not a hardware report)
ECC_ILLEGAL = [
    line.replace(
        "uncorrectable ECC error encountered",
        "an illegal memory access was encountered",
    )
    for line in ECC
]
#: a device out of memory in place of the ECC error
ECC_OOM = [line.replace(ECC_ERROR, "CUDA error: out of memory") for line in ECC]
#: each traceback as one rank's (``[rank1]:`` on every line)
SET_MULTIPLIER_RANK_1 = ["[rank1]: " + line for line in SET_MULTIPLIER]
ZERO_STEPS_RANK_1 = ["[rank1]: " + line for line in ZERO_STEPS]
#: rank 1's traceback without rank 0's start
TEXT_MODEL_RANK_1_ONLY = [
    line for line in TEXT_MODEL if not line.startswith("[rank0]:")
]
#: the interleaved tracebacks with the doubled message line the excerpt cut
INTERLEAVED_MESSAGE = INTERLEAVED + [
    "AttributeErrorAttributeError: : 'DistributedDataParallel' object has no attribute 'text_model''DistributedDataParallel'"
    " object has no attribute 'text_model'"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ecc-as-pasted": (ECC, None, None, 1, "cuda-error"),
    "ecc-two-gpus": (ECC, 2, 2, 1, "cuda-error"),
    "set-multiplier-as-pasted": (SET_MULTIPLIER, None, None, None, None),
    "set-multiplier-two-gpus": (SET_MULTIPLIER, 2, 2, None, None),
    "zero-steps-as-pasted": (ZERO_STEPS, None, None, None, None),
    "text-model-as-pasted": (TEXT_MODEL, None, None, None, None),
    "text-model-two-gpus": (TEXT_MODEL, 2, 2, None, None),
    "interleaved-as-pasted": (INTERLEAVED, None, None, None, None),
    "interleaved-two-gpus": (INTERLEAVED, 2, 2, None, None),
    # contrasts
    "ecc-without-rank-line-names-none": (ECC_NO_RANK, 2, 2, None, None),
    "ecc-rank3-names-rank3": (ECC_RANK_3, 4, 4, 3, "cuda-error"),
    "ecc-illegal-access-names-rank1": (ECC_ILLEGAL, 2, 2, 1, "cuda-error"),
    "ecc-oom-names-rank1-cuda-oom": (ECC_OOM, 2, 2, 1, "cuda-oom"),
    # since session 61 the DDP wrapper's AttributeError in a lone rank's paste is that rank's suspect only (info,
    # low_why lone-paste-program-structure): it names no one
    "set-multiplier-rank1-suspect-only": (SET_MULTIPLIER_RANK_1, 2, 2, None, None),
    "zero-steps-rank1-names-rank1": (ZERO_STEPS_RANK_1, 2, 2, 1, "python-exception"),
    "text-model-rank1-only-suspect-only": (TEXT_MODEL_RANK_1_ONLY, 2, 2, None, None),
    "interleaved-with-message-names-none": (INTERLEAVED_MESSAGE, 2, 2, None, None),
}
BATCHED = Batched("b275", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_multimodal_trainer_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_ecc_report_is_critical_an_illegal_access_a_warning(tmp_path):
    """The uncorrectable ECC error under ``[Rank 1]`` is the one reading at critical; the same lines with an illegal
    memory access are rank 1's warning, and without the rank line the ECC error is a warning of no rank."""
    assert _failures(ECC, tmp_path / "a", 2) == [
        ("rank-failure", "critical", "cuda-error", [1])
    ]
    assert _failures(ECC_ILLEGAL, tmp_path / "b", 2) == [
        ("rank-failure", "warning", "cuda-error", [1])
    ]
    assert _failures(ECC_NO_RANK, tmp_path / "c", 2) == [
        ("rank-failure", "warning", "cuda-error", [])
    ]


def test_every_worker_s_script_bug_is_a_failure_of_no_rank(tmp_path):
    """The unranked DDP and ZeroDivision tracebacks, and rank 1's complete traceback beside rank 0's starting one, are
    each one warning python-exception naming no rank."""
    for i, lines in enumerate((SET_MULTIPLIER, ZERO_STEPS, TEXT_MODEL)):
        assert _failures(lines, tmp_path / str(i), 2) == [
            ("rank-failure", "warning", "python-exception", [])
        ]


def test_interleaved_frames_without_message_read_as_nothing(tmp_path):
    """Two workers' frames interleaved down to a doubled ``raise`` source line, with no exception line: no finding."""
    assert _failures(INTERLEAVED, tmp_path, 2) == []
