"""Multi-GPU fine-tuning of video and audio language models (real incidents batch 209): their wordings, pinned as read.
Held controls, none named: LLaMA-Factory's Qwen2-VL video run whose ranks 6, 2, 4 and 6 report the watchdog's
``Exception ... at work: 2`` and ``Timeout at NCCL work: 2`` (rank 6's first line wrapped and space-padded;
hiyouga/LlamaFactory#5417), a commenter's Qwen2-VL full SFT stopping at step 3/15 with rank 7's ``_REDUCE_SCATTER_BASE``
time-out glued after a cuDNN warning (the same thread), rank 0's traceback head cut before its exception in the
Qwen3-VL video port (2U1/Qwen-VL-Series-Finetune#192) and at DeepSpeed's engine initialisation on RTX 3090s
(2U1/Gemma3-Finetune#8), rank 1's DETAIL-mode ``Detected mismatch between collectives on ranks`` against rank 0
(modelscope/ms-swift#9443); each as pasted and in layouts of 8 (the reduce-scatter's sizes give a world of 8) and
8 x 2. Contrast: the same reduce-scatter time-out from seven of eight ranks, rank 3 silent, names rank 3 (never-joined),
the corpus's absent-rank shape. No rule changed for the batch (all five met as collected). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


WORK2 = corpus_lines("LlamaFactory-5417-qwen2vl-video-")
STEP3 = corpus_lines("LlamaFactory-5417-comment-")
QWEN3_CUT = corpus_lines("Qwen-VL-Series-Finetune-192-")
DS_INIT_CUT = corpus_lines("Gemma3-Finetune-8-")
MISMATCH = corpus_lines("ms-swift-9443-")

#: rank 7's reduce-scatter time-out as rank N prints it
_RS = STEP3[-1]


def _rs(rank: int) -> str:
    return _RS.replace("[rank7]:", f"[rank{rank}]:").replace(
        "[Rank 7]", f"[Rank {rank}]"
    )


#: the step-3 paste with every rank's copy of the time-out (rank 0's, cut in the excerpt, included)
STEP3_ALL = STEP3[:-1] + [_rs(r) for r in (7, 0, 1, 2, 3, 4, 5, 6)]
#: contrast: seven of eight ranks time out in the reduce-scatter, rank 3 says nothing
STEP3_RANK3_SILENT = STEP3[:-1] + [_rs(r) for r in (7, 0, 1, 2, 4, 5, 6)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # LlamaFactory-5417's shape: every shown rank at NCCL work 2, one line wrapped and padded
    "work2-timeouts-as-pasted": (WORK2, None, None, None, None),
    "work2-timeouts-layout-8": (WORK2, 8, 8, None, None),
    "work2-timeouts-layout-8x2": (WORK2, 8, 16, None, None),
    # the commenter's shape: step 3/15, rank 7's reduce-scatter time-out after a cuDNN warning
    "step3-reduce-scatter-as-pasted": (STEP3, None, None, None, None),
    "step3-reduce-scatter-layout-8": (STEP3, 8, 8, None, None),
    "step3-reduce-scatter-all-eight-layout-8": (STEP3_ALL, 8, 8, None, None),
    # Qwen-VL-Series-Finetune-192 / Gemma3-Finetune-8's shape: rank 0's traceback head cut before its exception
    "qwen3vl-video-rank0-cut-as-pasted": (QWEN3_CUT, None, None, None, None),
    "qwen3vl-video-rank0-cut-layout-8": (QWEN3_CUT, 8, 8, None, None),
    "ds-init-rank0-cut-as-pasted": (DS_INIT_CUT, None, None, None, None),
    "ds-init-rank0-cut-layout-8x2": (DS_INIT_CUT, 8, 16, None, None),
    # ms-swift-9443's shape: rank 1's DETAIL-mode mismatch against rank 0
    "detail-mismatch-rank1-vs-rank0-as-pasted": (MISMATCH, None, None, None, None),
    "detail-mismatch-rank1-vs-rank0-layout-2": (MISMATCH, 2, 2, None, None),
    "detail-mismatch-rank1-vs-rank0-layout-8": (MISMATCH, 8, 8, None, None),
    # contrast: seven of eight ranks wait in the reduce-scatter and rank 3 is silent: rank 3
    "step3-rank3-silent-contrast": (STEP3_RANK3_SILENT, 8, 8, 3, "never-joined"),
}
BATCHED = Batched("b209", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_video_audio_finetune_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
