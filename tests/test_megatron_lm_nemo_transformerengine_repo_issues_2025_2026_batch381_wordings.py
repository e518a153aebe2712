"""NVIDIA Megatron-LM / NeMo / TransformerEngine repo issues, 2025-2026 (real incidents batch 381), pinned as read. Three
controls, collected blind, all read right as collected (3/3 both ways, no NOT_YET), none with its exception line in
the paste:

* NVIDIA/Megatron-LM#907: four Ray-prefixed frame lines of ``(worker6, rank=6, pid=8930, ip=10.42.3.242)`` down to
  ``self._build_document_sample_shuffle_indices()`` (GPTDataset indices built on global rank 0 only, the data on
  node-local storage: every rank off node 0 fails alike). Nothing is found, as pasted or as 8 per node of 16.
* NVIDIA/Megatron-LM#1861: nine DEBUG lines of an async torch_dist checkpoint save, ``[54744] ... rank: 39, takes ...
  to schedule async ckpt`` and forked writers ``[848xx] ... 0 started`` (an occasional segfault of the forked writer
  processes, fixed by spawn instead of fork / ``non_blocking=False``). Nothing is found: the bracketed pids are not
  ranks and ``rank: 39`` is a progress message.
* NVIDIA/Megatron-LM#1151: nineteen ``[rank2]:`` forward frames of a context-parallel run on 4 A100s (the NCCL error
  of TE's CP P2P exchange beyond the excerpt; ``NVTE_BATCH_MHA_P2P_COMM=1`` makes it go). Rank 2 is an info suspect only
  (frames without an exception line), which names no culprit.

Contrasts: rank 2's NCCL ``invalid usage`` line after its frames, the same for every rank, or untagged, is a rankless
nccl-error warning; rank 2's own CUDA OOM after its frames names rank 2 (cuda-oom), untagged it is a rankless critical
oom; worker 6's ``FileNotFoundError`` for an index file, and a ``Fatal Python error: Segmentation fault`` of a writer
pid after the DEBUG lines, name no one. Read as pasted now (not a reading we endorse): a CUDA OOM carrying Ray's
``(worker6, rank=6, pid=..., ip=...)`` prefix names no one, since that prefix's ``rank=6`` is not read as a rank tag
(docs/rules.md, "Session 61: batch 381"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

INDICES_FRAMES = corpus_lines("Megatron-LM-907-")
ASYNC_CKPT_DEBUG = corpus_lines("Megatron-LM-1861-")
CP_FRAMES = corpus_lines("Megatron-LM-1151-")

RAY6 = "(worker6, rank=6, pid=8930, ip=10.42.3.242)"
NCCL_USAGE = (
    "[rank2]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.22.3"
)
OOM_RANK2 = (
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of "
    "79.14 GiB of which 1.06 GiB is free."
)

#: rank 2's NCCL error line after its frames (the error the excerpt cut off)
CP_NCCL = CP_FRAMES + [NCCL_USAGE]
#: the last frames and the NCCL error from each of the four CP ranks
CP_NCCL_EVERY_RANK = [line.replace("[rank2]", f"[rank{r}]") for r in range(4) for line in CP_FRAMES[-2:] + [NCCL_USAGE]]
#: the same without the rank tags
CP_NCCL_UNTAGGED = [line.replace("[rank2]: ", "") for line in CP_NCCL]
#: rank 2's own CUDA OOM after its frames, tagged and untagged
CP_OOM_RANK2 = CP_FRAMES + [OOM_RANK2]
CP_OOM_UNTAGGED = [line.replace("[rank2]: ", "") for line in CP_OOM_RANK2]
#: worker 6's missing-index exception after its frames
INDICES_FNF = INDICES_FRAMES + [
    f"{RAY6} FileNotFoundError: [Errno 2] No such file or directory: "
    "'/data/cache/GPTDataset_indices/abc-GPTDataset-train-document_index.npy'"
]
#: a CUDA OOM under Ray's worker prefix (read as pasted now: the prefix is not a rank tag)
INDICES_RAY_OOM = INDICES_FRAMES + [
    f"{RAY6} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 6 has a total capacity of "
    "79.14 GiB of which 1.06 GiB is free."
]
#: a forked writer's segfault after the DEBUG lines, tagged by its pid only
ASYNC_CKPT_SEGV = ASYNC_CKPT_DEBUG + ["[2025-09-25 19:31:27,601] [84829] Fatal Python error: Segmentation fault"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "indices-frames-as-pasted": (INDICES_FRAMES, None, None, None, None),
    "indices-frames-eight-of-sixteen": (INDICES_FRAMES, 8, 16, None, None),
    "async-ckpt-debug-as-pasted": (ASYNC_CKPT_DEBUG, None, None, None, None),
    "async-ckpt-debug-eight-of-sixty-four": (ASYNC_CKPT_DEBUG, 8, 64, None, None),
    "cp-frames-as-pasted": (CP_FRAMES, None, None, None, None),
    "cp-frames-four-gpus": (CP_FRAMES, 4, 4, None, None),
    # variants that must not name anyone
    "cp-nccl-rank2-names-none": (CP_NCCL, 4, 4, None, None),
    "cp-nccl-every-rank-names-none": (CP_NCCL_EVERY_RANK, 4, 4, None, None),
    "cp-nccl-untagged-names-none": (CP_NCCL_UNTAGGED, 4, 4, None, None),
    "cp-oom-untagged-names-none": (CP_OOM_UNTAGGED, 4, 4, None, None),
    "indices-fnf-names-none": (INDICES_FNF, 8, 16, None, None),
    "async-ckpt-pid-segfault-names-none": (ASYNC_CKPT_SEGV, 8, 64, None, None),
    # read as pasted now (Ray's rank=6 prefix is not a rank tag)
    "indices-ray-oom-names-none-now": (INDICES_RAY_OOM, 8, 16, None, None),
    # contrasts that must name a rank
    "cp-oom-rank2-names-rank2": (CP_OOM_RANK2, 4, 4, 2, "cuda-oom"),
}
BATCHED = Batched("b381", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_megatron_issue_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_frames_and_debug_lines_without_an_exception_find_nothing(tmp_path):
    """Megatron-LM#907 and #1861 as collected: Ray-prefixed frames with no exception line, and DEBUG lines whose
    bracketed numbers are pids, give no finding at all."""
    assert _gist(INDICES_FRAMES, tmp_path / "a", None, None) == []
    assert _gist(INDICES_FRAMES, tmp_path / "b", 8, 16) == []
    assert _gist(ASYNC_CKPT_DEBUG, tmp_path / "c", None, None) == []
    assert _gist(ASYNC_CKPT_DEBUG, tmp_path / "d", 8, 64) == []


def test_rank2_frames_alone_are_a_suspect_only(tmp_path):
    """Megatron-LM#1151 as collected: rank 2's forward frames without their exception line hold rank 2 at info only."""
    assert_info_suspect(pasted_findings(CP_FRAMES, tmp_path / "a", None, None, NOW), 2)
    assert_info_suspect(pasted_findings(CP_FRAMES, tmp_path / "b", 4, 4, NOW), 2)


def test_rank2_nccl_usage_error_is_rankless(tmp_path):
    """The NCCL ``invalid usage`` the excerpt cut off, after rank 2's frames: a warning nccl-error of no rank."""
    assert _gist(CP_NCCL, tmp_path, 4, 4) == [("rank-failure", "warning", "nccl-error", [])]


def test_ray_prefixed_oom_is_not_tied_to_its_rank_now(tmp_path):
    """As read now: ``(worker6, rank=6, pid=..., ip=...) torch.OutOfMemoryError`` is a critical cuda-oom of no rank."""
    assert _gist(INDICES_RAY_OOM, tmp_path, 8, 16) == [("oom-cascade", "critical", "cuda-oom", [])]
