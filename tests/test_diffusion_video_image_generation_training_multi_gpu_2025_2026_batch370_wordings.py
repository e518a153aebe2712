"""Multi-GPU training of diffusion image/video models, 2025-2026 (real incidents batch 370), pinned as read. Three
threads, collected blind: one culprit, two controls. Read right as collected: the LTX-2 trainer's one untagged OOM
``torch.OutOfMemoryError: CUDA out of memory. ... GPU 0 has a total capacity of 79.10 GiB ... Process 16746 has 20.84
GiB memory in use. Process 16747 ... Process 16748 ... Process 16749 ...`` and the line it was raised at
(Lightricks/LTX-2#57: ``num_processes=4`` FSDP on 2 H100s, every rank's text encoder loaded onto GPU 0, the repository's
PR #67) is a critical cuda-oom of no rank, as pasted or as its 4 processes. The two NOT_YET as collected: rank 4's lone
Wan2.1-T2V-14B LoRA OOM whose torchrun prefix lost its bracket, ``rank4]: torch.OutOfMemoryError: ... GPU 4 has a total
capacity of 94.99 GiB ...`` (modelscope/DiffSynth-Studio#411: 720p on 8 H100s, the trainer's fp32 intermediates) is a
critical cuda-oom of no rank, not rank 4's (rank 4's since session 60); rank 0's lone ``[rank0]: RuntimeError: element 0 of tensors does not
require grad and does not have a grad_fn`` (modelscope/DiffSynth-Studio#703: only the VACE module trainable, a trainer
bug every rank hits, fixed upstream) names rank 0 (warning, medium). Scored 1/3 both ways as collected. Contrasts: the
OOM with its ``[`` restored names rank 4; the OOM untagged, or beside rank 0's copy, names no one; the autograd error
given to ranks 0 and 1, or untagged, names no one; the GPU-0 OOM tagged ``[rank1]:`` (the rank the LTX-2 author says
printed it) names rank 1 today although its four ``Process N`` holders show the GPU shared by every rank (worth a later
look); a one-process OOM tagged ``[rank1]:`` names rank 1. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 8, 0, tzinfo=dt.timezone.utc)

WAN_OOM = corpus_lines("DiffSynth-Studio-411-")
VACE_NO_GRAD = corpus_lines("DiffSynth-Studio-703-")
LTX_GPU0_OOM = corpus_lines("LTX-2-57-")

#: the torchrun prefix with its opening bracket restored
WAN_OOM_BRACKETED = ["[" + line for line in WAN_OOM]
#: the same OOM without its (bracketless) tag
WAN_OOM_UNTAGGED = [line.replace("rank4]: ", "") for line in WAN_OOM]
#: rank 0's copy of the OOM (GPU 0) beside rank 4's: every rank ran out alike
WAN_OOM_TWO_RANKS = WAN_OOM_BRACKETED + [line.replace("rank4", "rank0").replace("GPU 4", "GPU 0") for line in WAN_OOM_BRACKETED]
#: ranks 0 and 1 both raise the autograd error (the thread: every rank does)
VACE_NO_GRAD_TWO_RANKS = VACE_NO_GRAD + [line.replace("[rank0]", "[rank1]") for line in VACE_NO_GRAD]
#: the autograd error untagged
VACE_NO_GRAD_UNTAGGED = [line.replace("[rank0]: ", "") for line in VACE_NO_GRAD]
#: the GPU-0 OOM tagged by rank 1, as the LTX-2 author says it was printed
LTX_GPU0_OOM_RANK1 = ["[rank1]: " + line for line in LTX_GPU0_OOM]
#: rank 1's OOM holding GPU 0 alone (no other process on it)
ONE_PROCESS_OOM_RANK1 = [
    "[rank1]: " + LTX_GPU0_OOM[0].split(" Process 16746")[0]
    + " Including non-PyTorch memory, this process has 79.08 GiB memory in use.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ltx-gpu0-oom-as-pasted": (LTX_GPU0_OOM, None, None, None, None),
    "ltx-gpu0-oom-four-processes": (LTX_GPU0_OOM, 4, 4, None, None),
    # read right since session 60: the tag that lost its bracket (``rank4]: `` at the line's start) is rank 4's
    "wan-oom-as-pasted": (WAN_OOM, None, None, 4, "cuda-oom"),
    "wan-oom-eight-gpus": (WAN_OOM, 8, 8, 4, "cuda-oom"),
    # read right since session 60: the lone autograd error is rank 0's suspect only, at info (truth: no one)
    "vace-no-grad-as-pasted": (VACE_NO_GRAD, None, None, None, None),
    "vace-no-grad-two-gpus": (VACE_NO_GRAD, 2, 2, None, None),
    "vace-no-grad-eight-gpus": (VACE_NO_GRAD, 8, 8, None, None),
    # variants that must not name anyone
    "wan-oom-untagged-names-none": (WAN_OOM_UNTAGGED, 8, 8, None, None),
    "wan-oom-two-ranks-names-none": (WAN_OOM_TWO_RANKS, 8, 8, None, None),
    "vace-no-grad-two-ranks-names-none": (VACE_NO_GRAD_TWO_RANKS, 2, 2, None, None),
    "vace-no-grad-untagged-names-none": (VACE_NO_GRAD_UNTAGGED, 2, 2, None, None),
    # contrasts that name a rank
    "wan-oom-bracket-restored-names-rank4": (WAN_OOM_BRACKETED, 8, 8, 4, "cuda-oom"),
    "wan-oom-bracket-restored-as-pasted-names-rank4": (WAN_OOM_BRACKETED, None, None, 4, "cuda-oom"),
    "one-process-oom-rank1-names-rank1": (ONE_PROCESS_OOM_RANK1, 4, 4, 1, "cuda-oom"),
    # today's reading, worth a later look: four processes holding GPU 0, yet the tag makes it rank 1's
    "ltx-gpu0-oom-tagged-rank1-names-rank1": (LTX_GPU0_OOM_RANK1, 4, 4, 1, "cuda-oom"),
}
BATCHED = Batched("b370", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_diffusion_training_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_gpu0_oom_of_four_processes_is_a_rankless_cuda_oom(tmp_path):
    """LTX-2#57 as collected: one critical oom-cascade, cuda-oom, no rank — no tag, and GPU 0 is no rank's."""
    assert _gist(LTX_GPU0_OOM, tmp_path / "a", None, None) == [("oom-cascade", "critical", "cuda-oom", [])]
    assert _gist(LTX_GPU0_OOM, tmp_path / "b", 4, 4) == [("oom-cascade", "critical", "cuda-oom", [])]


def test_bracketless_rank_prefix_is_read_as_the_rank(tmp_path):
    """DiffSynth-Studio#411 (NOT_YET as collected, read right since session 60): ``rank4]: torch.OutOfMemoryError``
    names rank 4 at warning, medium, as the same line with ``[rank4]:`` does."""
    assert _gist(WAN_OOM, tmp_path / "a", 8, 8) == [("oom-cascade", "warning", "cuda-oom", [4])]
    findings = pasted_findings(WAN_OOM_BRACKETED, tmp_path / "b", 8, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("oom-cascade", "warning", "cuda-oom", [4])
    ]
    assert findings[0]["confidence"] == "medium"


def test_lone_no_grad_fn_error_is_its_ranks_suspect_only(tmp_path):
    """DiffSynth-Studio#703 (NOT_YET as collected; read right since session 60): rank 0's lone autograd error is rank
    0's suspect at info, confidence low (low_why lone-paste-autograd-graph): a loss without a trainable path is the same
    on every data-parallel rank."""
    findings = pasted_findings(VACE_NO_GRAD, tmp_path, 2, 2, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "info", "python-exception", [0])
    ]
    assert findings[0]["confidence"] == "low"
