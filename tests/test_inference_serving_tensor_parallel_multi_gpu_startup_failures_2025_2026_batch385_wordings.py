"""Inference servers' tensor-parallel start-up failures, 2025-2026 (real incidents batch 385), pinned as read. Two
controls, collected blind (only two usable threads were found). One was read right as collected: TensorRT-LLM
AutoDeploy's Phi-4 at world size 2 (NVIDIA/TensorRT-LLM#11220: both ranks' ``[TRT-LLM AUTO-DEPLOY] [RANK n] [I]
[stage=sharding, ...]`` lines, then rank 1's ``failed while attempting to run meta for aten.mm.default`` and the first
line of its traceback; the merged fix, #15351, says the fused-QKV split sizes were never returned to the TP sharder, a
bug every rank hits) names rank 1 at info, confidence low only (a traceback with no exception line: a suspect), no
culprit. The other (NOT_YET as collected, batch 385) was read with a culprit: SGLang's TP1 scheduler traceback ending
``ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes.
min_per_gpu_memory=8.88..., local_gpu_memory=11.90...`` (sgl-project/sglang#5416, merged: SGLang's own object broadcast
on a CUDA device during the NextN/EAGLE draft worker's set-up left GPU memory uneven) names rank 1 (warning,
python-exception, medium); the truth is no one, and TP1 is by the check's own numbers one of the roomier GPUs, a
witness. Scored 1/2 both ways as collected (79cd95a8). Contrasts: TP0's copy of the same traceback beside TP1's, or the
traceback untagged, name no one; TP1's own CUDA OOM after it names rank 1 (cuda-oom); rank 1's exception line added
to the TRT-LLM paste names rank 1 (warning), rank 0's copy of rank 1's lines beside them names no one. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

UNBALANCED = corpus_lines("sglang-5416-")
SHARDING = corpus_lines("TensorRT-LLM-11220-")

#: TP0's copy of the same check failure beside TP1's: the check fires on every roomier rank alike
UNBALANCED_TP0_AND_TP1 = [line.replace(" TP1]", " TP0]") for line in UNBALANCED] + UNBALANCED
#: the same traceback without SGLang's ``[time TPn]`` tag (a console paste)
UNBALANCED_UNTAGGED = [line.replace(" TP1]", "]") for line in UNBALANCED]
#: TP1's own CUDA OOM right after the check failure
UNBALANCED_TP1_OOM = UNBALANCED + [
    "[2025-04-15 04:23:50 TP1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a "
    "total capacity of 79.10 GiB of which 3.06 MiB is free.",
]
#: rank 1's exception line, as the thread's next (cut-off) lines would give it
SHARDING_RANK1_ERROR = SHARDING + [
    "0: [rank1]:E0130 00:55:00.928000 1292728 torch/_subclasses/fake_tensor.py:2820] RuntimeError: a and b must have "
    "same reduction dim, but got [s44*s70, 3840] X [2560, 5120].",
]
#: rank 0's copy of rank 1's error lines beside them: the sharding transform fails on both ranks
SHARDING_BOTH_RANKS = SHARDING + [line.replace("[rank1]", "[rank0]").replace("1292728", "1292727") for line in SHARDING[2:]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "sharding-as-pasted": (SHARDING, None, None, None, None),
    "sharding-world-two": (SHARDING, 2, 2, None, None),
    # NOT_YET as collected (batch 385, rank 1 named); read right since session 64 (the check is the group's: no one)
    "unbalanced-as-pasted-names-none": (UNBALANCED, None, None, None, None),
    "unbalanced-eight-ranks-names-none": (UNBALANCED, 8, 8, None, None),
    # variants that must not name anyone
    "unbalanced-tp0-and-tp1-names-none": (UNBALANCED_TP0_AND_TP1, 8, 8, None, None),
    "unbalanced-untagged-names-none": (UNBALANCED_UNTAGGED, None, None, None, None),
    "sharding-both-ranks-names-none": (SHARDING_BOTH_RANKS, 2, 2, None, None),
    # contrasts that must name a rank
    "unbalanced-tp1-oom-names-rank1": (UNBALANCED_TP1_OOM, 8, 8, 1, "cuda-oom"),
    "sharding-rank1-error-names-rank1": (SHARDING_RANK1_ERROR, 2, 2, 1, "python-exception"),
}
BATCHED = Batched("b385", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_inference_serving_tp_startup_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"], f["confidence"])
            for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_sharding_traceback_head_is_an_info_suspect(tmp_path):
    """TensorRT-LLM#11220 as collected: rank 1's ``failed while attempting to run meta`` and traceback head with no
    exception line hold rank 1 as a suspect only (info, low), as pasted or as the thread's world of 2."""
    want = [("rank-failure", "info", "python-exception", [1], "low")]
    assert _gist(SHARDING, tmp_path / "a", None, None) == want
    assert _gist(SHARDING, tmp_path / "b", 2, 2) == want


def test_memory_unbalanced_check_names_no_one(tmp_path):
    """sglang#5416: TP1's lone ``The memory capacity is unbalanced`` traceback named rank 1 as collected (NOT_YET,
    warning, medium); since session 64 it is a warning of no rank: the check raises on a rank whose own free memory is
    above the group's least (local 11.90 > min 8.88 GiB), a witness of the imbalance, not its cause (common mode)."""
    want = [("rank-failure", "warning", "python-exception", [], None)]
    assert _gist(UNBALANCED, tmp_path / "a", None, None) == want
    assert _gist(UNBALANCED, tmp_path / "b", 8, 8) == want
