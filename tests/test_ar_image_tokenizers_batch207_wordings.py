"""Autoregressive image generators, visual tokenizers and diffusion LMs (real incidents batch 207): wordings pinned as read.
Held controls, all five met as collected: DiffuSeq's four processes' identical start-up and interleaved tracebacks at
``train.py`` line 115 (Shark-NLP/DiffuSeq#41), a taming-transformers VQGAN ddp_spawn worker's traceback into the
``on_pretrain_routine_start`` callback, cut (CompVis/taming-transformers#184), and three diffusion-LM evaluations
under accelerate whose one pasted rank's ``[rankN]:`` frames stop before any exception: rank 1 into
``generate_with_dual_cache`` (huggingface/accelerate#3794, pasted indented four spaces; also unindented), rank 0 in
torch.compile's DDP backend (NVlabs/Fast-dLLM#24, its leading markdown backtick kept), rank 0 at lm_eval's wrapper
(maomaocun/dLLM-cache#8). None names a rank at warning or above, as pasted and in the layouts the threads imply.
Contrast: rank 1's frames ending in its own ``torch.OutOfMemoryError`` name rank 1, cuda-oom. No rule changed for the
batch (nothing missed). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 13, 0, tzinfo=dt.timezone.utc)


DIFFUSEQ = corpus_lines("DiffuSeq-41-")
TAMING = corpus_lines("taming-transformers-184-")
LLADA_RANK1 = corpus_lines("accelerate-3794-")
COMPILE_RANK0 = corpus_lines("Fast-dLLM-24-")
LM_EVAL_RANK0 = corpus_lines("dLLM-cache-8-")

#: accelerate-3794's frames without the paste's four-space indent
LLADA_RANK1_UNINDENTED = [line[4:] for line in LLADA_RANK1]
#: the same frames ending in rank 1's own exception (the contrast that names)
LLADA_RANK1_OOM = LLADA_RANK1 + [
    "    [rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 1 has a total capacity of 79.14 GiB of which 1.05 GiB is free."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # DiffuSeq-41's shape: four processes' identical start-up, tracebacks interleaved, the error cut
    "diffuseq-interleaved-as-pasted": (DIFFUSEQ, None, None, None, None),
    "diffuseq-interleaved-layout-4": (DIFFUSEQ, 4, 4, None, None),
    # taming-transformers-184's shape: a ddp_spawn worker's set-up callback traceback, cut
    "taming-spawn-callback-as-pasted": (TAMING, None, None, None, None),
    "taming-spawn-callback-layout-8": (TAMING, 8, 8, None, None),
    # accelerate-3794's shape: rank 1's indented frames cut before any exception
    "llada-rank1-frames-cut-as-pasted": (LLADA_RANK1, None, None, None, None),
    "llada-rank1-frames-cut-layout-2": (LLADA_RANK1, 2, 2, None, None),
    "llada-rank1-frames-cut-layout-8": (LLADA_RANK1, 8, 8, None, None),
    "llada-rank1-frames-cut-unindented": (LLADA_RANK1_UNINDENTED, 8, 8, None, None),
    # Fast-dLLM-24's shape: rank 0's frames in torch.compile's DDP backend, cut
    "compile-rank0-frames-cut-as-pasted": (COMPILE_RANK0, None, None, None, None),
    "compile-rank0-frames-cut-layout-4": (COMPILE_RANK0, 4, 4, None, None),
    # dLLM-cache-8's shape: rank 0's lm_eval frames, cut
    "lm-eval-rank0-frames-cut-as-pasted": (LM_EVAL_RANK0, None, None, None, None),
    "lm-eval-rank0-frames-cut-layout-8": (LM_EVAL_RANK0, 8, 8, None, None),
    # contrast: rank 1's frames ending in its own OOM name rank 1
    "llada-rank1-frames-own-oom-contrast": (LLADA_RANK1_OOM, 8, 8, 1, "cuda-oom"),
}
BATCHED = Batched("b207", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ar_image_tokenizers_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
