"""Multi-GPU fine-tuning and pre-training of code models (real incidents batch 193): their wordings, pinned as read.
Held controls: two workers' tracebacks through ``TrainingArguments.device`` -> ``_setup_devices`` ->
``PartialState(...)`` interleaved line by line with no rank tag (hiyouga/LlamaFactory#5832, Qwen2.5-Coder-7B; also
under a layout of 2 or 8), MFTCoder's ZeRO-3 evaluation traceback with a bare collector timestamp line before every
line (deepspeedai/DeepSpeed#5799; also without the timestamp lines, or ending in ZeRO-3's ``disagreement between rank0
and rank1``), TRL GRPO's lone ``[rank1]:`` traceback into ``_prepare_inputs`` cut before its exception
(Chi-Shan0707/TinyLoRA-GRPO-Coder#1; in a world of 2 or 8, or tagged ``[rank3]:``) and the start of an
``accelerate launch`` paste where the c10d store and two clients connect (nlp-with-transformers/notebooks#99) name no
one. Contrast: the same lone ``[rank1]:`` traceback ending in its own ``torch.OutOfMemoryError`` names rank 1,
cuda-oom. No rule changed for the batch (all four met as collected). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)


SETUP = corpus_lines("LlamaFactory-5832-")
MFT = corpus_lines("DeepSpeed-5799-")
GRPO = corpus_lines("TinyLoRA-GRPO-Coder-1-")
PARROT = corpus_lines("notebooks-99-")
STAMP = "2024-07-24 08:45:13.616"
DISAGREE = (
    "RuntimeError: disagreement between rank0 and rank1: rank0: [0, 1, 2, 453, 454]"
)
GRPO_OOM = (
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
    "79.10 GiB of which 1.20 GiB is free."
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # LlamaFactory-5832's shape: two unranked workers interleaved in _setup_devices
    "setup-devices-interleaved-as-pasted": (SETUP, None, None, None, None),
    "setup-devices-interleaved-layout-2": (SETUP, 2, 2, None, None),
    "setup-devices-interleaved-layout-8": (SETUP, 8, 8, None, None),
    # DeepSpeed-5799's shape: a timestamp line before every traceback line
    "zero3-eval-timestamped-as-pasted": (MFT, None, None, None, None),
    "zero3-eval-timestamped-layout-2": (MFT, 2, 2, None, None),
    "zero3-eval-without-timestamps": (
        [x for x in MFT if x != STAMP and not x.startswith("2024-07-24 ")],
        2,
        2,
        None,
        None,
    ),
    "zero3-eval-with-disagreement-line": (MFT + [DISAGREE], 2, 2, None, None),
    # TinyLoRA-GRPO-Coder-1's shape: a lone rank-tagged traceback cut before its exception
    "grpo-lone-rank1-cut-as-pasted": (GRPO, None, None, None, None),
    "grpo-lone-rank1-cut-layout-2": (GRPO, 2, 2, None, None),
    "grpo-lone-rank1-cut-layout-8": (GRPO, 8, 8, None, None),
    "grpo-lone-rank3-cut-layout-8": (
        [x.replace("[rank1]:", "[rank3]:", 1) for x in GRPO],
        8,
        8,
        None,
        None,
    ),
    # notebooks-99's shape: the launch's healthy start, nothing failing
    "accelerate-start-two-clients-as-pasted": (PARROT, None, None, None, None),
    "accelerate-start-two-clients-layout-2": (PARROT, 2, 2, None, None),
    # contrast: the lone rank's traceback ends in its own CUDA OOM
    "grpo-lone-rank1-own-oom": (GRPO + [GRPO_OOM], 2, 2, 1, "cuda-oom"),
}
BATCHED = Batched("b193", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_code_llm_finetune_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
