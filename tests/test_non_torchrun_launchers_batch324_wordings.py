"""Failures under launchers other than torchrun (real incidents batch 324), pinned as read.
Four controls, collected blind; three were read right as collected and one is read with a culprit (NOT_YET, batch 324)
and pinned here as read so a change of reading is seen: under ``accelerate launch --num_processes 8`` with DeepSpeed
ZeRO-3, the tail of one ``[rank0]:`` traceback ending ``Expected all tensors to be on the same device, but found at
least two devices, cuda:0 and cpu!`` (FreedomIntelligence/HuatuoGPT-o1#9: a package-version mismatch every rank hits)
names rank 0 (python-exception, warning). Lightning's own ``mp.spawn`` DDP launcher on ``VISIBLE GPUS: 6,7`` with two
unlabelled ``THCudaCheck FAIL ... invalid device ordinal`` lines (Lightning-AI/pytorch-lightning#1540) raises no
finding; DeepSpeed's pdsh output ``xxx1: [rank18]:`` / ``[rank22]:`` from ``torch.cuda.set_device(dist.get_rank())``
(tdrussell/diffusion-pipe#397) and spawn's ``-- Process 2 terminated`` into the same ``invalid device ordinal``
(pytorch/examples#885) are each read as a CUDA failure of no rank. Scored 3/4 both ways as collected; no rule changed
(measure only). Contrasts: rank 0's traceback renumbered names the new rank, and without its exception line nothing is
named; a CUDA OOM in its place names rank 0 (cuda-oom); an illegal memory access under spawn's ``-- Process 1
terminated`` after Lightning's start-up lines names rank 1; rank 18's block alone still names no one, but with a CUDA
OOM in place of the ordinal error names rank 18 (cuda-oom); under spawn's ``Process 2`` an illegal memory access names
rank 2 (cuda-error) and a ``KeyError`` names rank 2 (python-exception). Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 17, 30, tzinfo=dt.timezone.utc)

ZERO3_RANK0 = corpus_lines("huatuogpt-o1-9-")
LIGHTNING_SPAWN = corpus_lines("pytorch-lightning-1540-")
PDSH_GLOBAL_RANK = corpus_lines("diffusion-pipe-397-")
SPAWN_PROCESS_2 = corpus_lines("examples-885-")

#: rank 0's traceback renumbered as rank 5's
ZERO3_RANK5 = [line.replace("[rank0]", "[rank5]") for line in ZERO3_RANK0]
#: rank 0's traceback frames without its ``RuntimeError`` line
ZERO3_NO_ERROR = ZERO3_RANK0[:-1]
#: the same frames ending in a CUDA OOM of rank 0
ZERO3_OOM = ZERO3_RANK0[:-1] + [
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.10 GiB of which 1.02 GiB is free."
]
#: Lightning's start-up lines, then spawn's report of process 1 with an illegal memory access
LIGHTNING_PROCESS_1 = LIGHTNING_SPAWN[:6] + [
    "-- Process 1 terminated with the following error:",
    "Traceback (most recent call last):",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
]
#: rank 18's block alone (without rank 22's)
PDSH_RANK18_ONLY = PDSH_GLOBAL_RANK[:10]
#: rank 18's block with a CUDA OOM in place of the ordinal error
PDSH_RANK18_OOM = [
    line.replace(
        "RuntimeError: CUDA error: invalid device ordinal",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
    )
    for line in PDSH_RANK18_ONLY
]
#: spawn's process 2 ending in an illegal memory access (the author's closing backtick kept)
SPAWN_ILLEGAL_ACCESS = SPAWN_PROCESS_2[:-1] + [
    "RuntimeError: CUDA error: an illegal memory access was encountered`"
]
#: spawn's process 2 ending in a ``KeyError``
SPAWN_KEY_ERROR = SPAWN_PROCESS_2[:-1] + ["KeyError: 'image_size'`"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (the ZeRO-3 control read right since session 61: tensors on
    # two devices in a lone paste are a suspect at info, low_why lone-paste-program-structure)
    "zero3-rank0-as-pasted": (ZERO3_RANK0, None, None, None, None),
    "zero3-rank0-eight-processes": (ZERO3_RANK0, 8, 8, None, None),
    "lightning-spawn-as-pasted": (LIGHTNING_SPAWN, None, None, None, None),
    "lightning-spawn-two-processes": (LIGHTNING_SPAWN, 2, 2, None, None),
    "pdsh-global-rank-as-pasted": (PDSH_GLOBAL_RANK, None, None, None, None),
    "spawn-process2-as-pasted": (SPAWN_PROCESS_2, None, None, None, None),
    "spawn-process2-four-processes": (SPAWN_PROCESS_2, 4, 4, None, None),
    # contrasts
    "zero3-renumbered-suspect-only": (ZERO3_RANK5, 8, 8, None, None),
    "zero3-without-error-line-names-none": (ZERO3_NO_ERROR, 8, 8, None, None),
    "zero3-cuda-oom-names-rank0": (ZERO3_OOM, 8, 8, 0, "cuda-oom"),
    "lightning-spawn-process1-illegal-access-names-rank1": (
        LIGHTNING_PROCESS_1,
        2,
        2,
        1,
        "cuda-error",
    ),
    "pdsh-rank18-alone-names-none": (PDSH_RANK18_ONLY, None, None, None, None),
    "pdsh-rank18-oom-names-rank18": (PDSH_RANK18_OOM, 8, 32, 18, "cuda-oom"),
    "spawn-process2-illegal-access-names-rank2": (
        SPAWN_ILLEGAL_ACCESS,
        4,
        4,
        2,
        "cuda-error",
    ),
    "spawn-process2-key-error-names-rank2": (
        SPAWN_KEY_ERROR,
        4,
        4,
        2,
        "python-exception",
    ),
}
BATCHED = Batched("b324", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_non_torchrun_launcher_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_invalid_device_ordinal_is_a_cuda_failure_of_no_rank(tmp_path):
    """``invalid device ordinal`` under a rank tag (pdsh's ``[rank18]:``) or under spawn's ``-- Process 2`` is read as a
    CUDA failure (warning) of no rank: a device index that cannot exist is a launch configuration every rank shares."""
    assert _failures(PDSH_GLOBAL_RANK, tmp_path / "a", None) == [
        ("warning", "cuda-error", [])
    ]
    assert _failures(SPAWN_PROCESS_2, tmp_path / "b", 4) == [
        ("warning", "cuda-error", [])
    ]


def test_thcudacheck_ordinal_lines_raise_no_rank_failure(tmp_path):
    """Lightning's start-up lines and two unlabelled ``THCudaCheck FAIL ... invalid device ordinal`` lines over the
    parent's ``mp.spawn`` traceback raise no rank failure at all."""
    assert _failures(LIGHTNING_SPAWN, tmp_path, 2) == []
