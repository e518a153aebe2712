"""Robotics and reinforcement-learning training on several GPUs, 2024-2026 (real incidents batch 379), pinned as read.
Two controls, collected blind (few usable threads: most IsaacLab/skrl/rsl_rl/LeRobot multi-GPU threads paste a
screenshot, an unsettled log, or are already in the corpus). One was read right as collected: the inline-quoted
``NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device`` of an rl_games continuous A2C run under
``torchrun --nproc_per_node=2`` (Denys88/rl_games#284: ``torch.cuda.set_device(local_rank)`` was never called before
the parameter broadcast, so both processes sat on one GPU; fixed by the merged PR) gives no finding, as pasted or laid
out as its 2 processes. The other (NOT_YET as collected, batch 379) was read with a culprit: rank 0's lone
``lerobot-train`` traceback through ``accelerator.prepare`` ending ``[rank0]: ValueError: You can't train a model that
has been loaded with `device_map='auto'` in any distributed mode.`` (huggingface/lerobot#2270: SmolVLA's VLM loaded with
a device_map, Accelerate's guard raised on every process alike; fixed in the shared loading code) names rank 0
(rank-failure, python-exception, warning, medium), where no rank is at fault. Scored 1/2 both ways as collected.
Contrasts: the same traceback untagged, or rank 1's copy beside rank 0's, names no one; the duplicate-GPU line tagged
``[rank1]:`` or with NCCL's host:pid prefix names no one; rank 1's own CUDA OOM after the duplicate-GPU line names
rank 1 (cuda-oom). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

DEVICE_MAP = corpus_lines("lerobot-2270-")
DUPLICATE_GPU = corpus_lines("rl_games-284-")

#: the same traceback without the rank tags (a paste of the untagged console)
DEVICE_MAP_UNTAGGED = [line.replace("[rank0]: ", "") for line in DEVICE_MAP]
#: rank 1's copy of the same traceback beside rank 0's: the check is every rank's
DEVICE_MAP_TWO_COPIES = [line.replace("[rank0]", "[rank1]") for line in DEVICE_MAP] + DEVICE_MAP
#: the duplicate-GPU warning tagged by rank 1 (torchrun's prefix)
DUPLICATE_GPU_RANK1_TAGGED = ["[rank1]: " + line for line in DUPLICATE_GPU]
#: the same warning with NCCL's own host:pid:tid [device] init.cc prefix and the bus id
DUPLICATE_GPU_NCCL_PREFIX = ["ws:4006:4043 [0] init.cc:521 " + DUPLICATE_GPU[0] + " 40"]
#: rank 1's own CUDA OOM after the duplicate-GPU warning
DUPLICATE_GPU_RANK1_OOM = DUPLICATE_GPU + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of "
    "23.65 GiB of which 3.06 MiB is free.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "duplicate-gpu-as-pasted": (DUPLICATE_GPU, None, None, None, None),
    "duplicate-gpu-two-processes": (DUPLICATE_GPU, 2, 2, None, None),
    # NOT_YET as collected (batch 379): read with rank 0 as culprit, the truth is no one
    # read right since session 60: rank 0 a suspect only (lone-paste-setup-refusal)
    "device-map-as-pasted-names-none": (DEVICE_MAP, None, None, None, None),
    "device-map-four-processes-names-none": (DEVICE_MAP, 4, 4, None, None),
    # variants that must not name anyone
    "device-map-untagged-names-none": (DEVICE_MAP_UNTAGGED, 4, 4, None, None),
    "device-map-two-copies-names-none": (DEVICE_MAP_TWO_COPIES, 4, 4, None, None),
    "duplicate-gpu-rank1-tagged-names-none": (DUPLICATE_GPU_RANK1_TAGGED, 2, 2, None, None),
    "duplicate-gpu-nccl-prefix-names-none": (DUPLICATE_GPU_NCCL_PREFIX, 2, 2, None, None),
    # a contrast that must name a rank
    "duplicate-gpu-rank1-oom-names-rank1": (DUPLICATE_GPU_RANK1_OOM, 2, 2, 1, "cuda-oom"),
}
BATCHED = Batched("b379", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_robotics_rl_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_lone_duplicate_gpu_warning_gives_no_finding(tmp_path):
    """rl_games#284 as collected: NCCL's duplicate-GPU warning alone, without ``ncclInvalidUsage`` or any rank's
    exception, names no one — the two ranks it names are the colliding pair, not a culprit and a victim; since session 62
    one rankless nccl-error warning saying the launch's placement (tests/test_nccl_duplicate_gpu_placement.py)."""
    want = [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(DUPLICATE_GPU, tmp_path / "a", None, None) == want
    assert _gist(DUPLICATE_GPU, tmp_path / "b", 2, 2) == want


def test_lone_device_map_guard_is_rank0_s_suspect_only(tmp_path):
    """lerobot#2270 (NOT_YET as collected, batch 379; read right since session 60): rank 0's lone traceback out of
    ``accelerator.prepare`` is rank 0's suspect only, info, confidence low (low_why lone-paste-setup-refusal): Accelerate's
    ``device_map`` guard is a deterministic configuration check every process raises alike before any training step."""
    findings = pasted_findings(DEVICE_MAP, tmp_path, 4, 4, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "info", "python-exception", [0])
    ]
    assert findings[0]["confidence"] == "low"
