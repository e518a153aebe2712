"""The newest threads (2026) of multi-GPU / multi-node training failures (real incidents batch 272), pinned as read.
Three controls and one culprit, collected blind. Two are read right as collected: the Sunspot checkpoint write that
filled the filesystem (saforem2/ezpz#231: ``[rank23]: OSError: [Errno 28] No space left on device`` then PALS'
``rank 16 exited with code 1`` and ``rank 0 died from signal 15``) is read as ranks 16 and 23 failing alike, no single
culprit; TRL's DPO + FSDP2 maintainer repro (huggingface/trl#4812: a ``[rank0]:`` traceback into ``trainer =
DPOTrainer(`` cut before its exception) is rank 0 as an info suspect, no culprit. Two were missed as collected: the
``torch.compile`` + CUDA-graph reproducer (pytorch/pytorch#192000: ``[rank1]: torch.AcceleratorError: CUDA error:
invalid argument``, every rank alike, fixed by pytorch/pytorch#196919) named rank 1 (cuda-error, warning), and since
session 50 (a CUDA call refused as an invalid argument names a suspect only, ``low_why``) rank 1 is an info suspect; the
author's condensed OOM (NVIDIA-NeMo/Automodel#1393: ``GPU 1 total: 178.36 GiB | Free: 44.84 GiB | ...``, "crash on
rank1") is a critical cuda-oom of no rank (NOT_YET, batch 272). Scored 2/4 both ways as collected; 3/4 after.
Contrasts: without PALS' ``rank 16 exited with code 1`` the ENOSPC names rank 23 (its teardown line is what keeps it
from a culprit); rank 23's traceback alone names rank 23; both ranks' identical CUDA error names no one, renumbered it
names no one either, an illegal memory access in its place names rank 1, cut before its error line it is a suspect only; the DPO traceback with its exception names rank 0,
both ranks raising it names no one; PyTorch's own ``[rank1]:`` OOM wording names rank 1 (cuda-oom), the same wording
untagged names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 23, 30, tzinfo=dt.timezone.utc)

ENOSPC = corpus_lines("ezpz-231-")
COMPILE_CUDAGRAPH = corpus_lines("pytorch-192000-")
DPO_FSDP2 = corpus_lines("trl-4812-")
CONDENSED_OOM = corpus_lines("Automodel-1393-")

#: the ENOSPC paste without PALS' ``rank 16 exited with code 1`` (rank 0's ``died from signal 15`` kept)
ENOSPC_NO_RANK16 = [line for line in ENOSPC if "rank 16" not in line]
#: rank 23's three traceback lines alone
ENOSPC_RANK23_ONLY = ENOSPC[:3]
#: the reproducer's traceback as rank 0 and as rank 1 (both ranks' identical CUDA error)
COMPILE_BOTH_RANKS = COMPILE_CUDAGRAPH + [
    line.replace("[rank1]", "[rank0]") for line in COMPILE_CUDAGRAPH
]
#: the same traceback renumbered to rank 0
COMPILE_RANK0 = [line.replace("[rank1]", "[rank0]") for line in COMPILE_CUDAGRAPH]
#: a kernel's illegal memory access in place of the invalid argument (a fault of the kernel's run, not of the call)
COMPILE_ILLEGAL = [line.replace("CUDA error: invalid argument", "CUDA error: an illegal memory access was encountered")
                   for line in COMPILE_CUDAGRAPH]
#: the traceback without its ``torch.AcceleratorError`` line
COMPILE_NO_ERROR = [
    line for line in COMPILE_CUDAGRAPH if "AcceleratorError" not in line
]
#: the DPO traceback completed with an exception line (constructed, not the thread's)
DPO_EXCEPTION = "AttributeError: 'MixedPrecisionPolicy' object has no attribute '_module_classes_to_ignore'"
DPO_WITH_EXCEPTION = DPO_FSDP2 + [f"[rank0]: {DPO_EXCEPTION}"]
#: both processes' tracebacks with the same exception
DPO_BOTH_RANKS = DPO_WITH_EXCEPTION + [
    line.replace("[rank0]", "[rank1]") for line in DPO_WITH_EXCEPTION[6:]
]
#: PyTorch's own OOM wording for the same allocation (constructed), tagged ``[rank1]:`` and untagged
TORCH_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.51 GiB. GPU 1 has a total capacity of "
    "178.36 GiB of which 44.84 GiB is free. Including non-PyTorch memory, this process has 133.50 GiB memory in "
    "use. Of the allocated memory 130.43 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but "
    "unallocated."
)
#: the condensed OOM without its ``torch.OutOfMemoryError`` line
CONDENSED_NO_OOM = CONDENSED_OOM[1:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "enospc-as-pasted": (ENOSPC, None, None, None, None),
    "enospc-twelve-per-node": (ENOSPC, 12, None, None, None),
    "compile-cudagraph-as-pasted": (COMPILE_CUDAGRAPH, None, None, None, None),
    "compile-cudagraph-two-ranks": (COMPILE_CUDAGRAPH, 2, 2, None, None),
    "dpo-fsdp2-as-pasted": (DPO_FSDP2, None, None, None, None),
    "dpo-fsdp2-two-ranks": (DPO_FSDP2, 2, 2, None, None),
    "condensed-oom-as-pasted": (CONDENSED_OOM, None, None, None, None),
    "condensed-oom-four-gpus": (CONDENSED_OOM, 4, 4, None, None),
    # contrasts
    "enospc-without-rank16-exit-names-rank23": (
        ENOSPC_NO_RANK16,
        12,
        None,
        23,
        "python-exception",
    ),
    # rank 23's lines alone named rank 23; since session 59 a lone rank's full disk is a suspect only (info)
    "enospc-rank23-alone-names-none": (ENOSPC_RANK23_ONLY, 12, None, None, None),
    "compile-cudagraph-both-ranks-names-none": (COMPILE_BOTH_RANKS, 2, 2, None, None),
    "compile-cudagraph-rank0-names-none": (COMPILE_RANK0, 2, 2, None, None),
    "compile-cudagraph-illegal-access-names-rank1": (COMPILE_ILLEGAL, 2, 2, 1, "cuda-error"),
    "compile-cudagraph-without-error-names-none": (COMPILE_NO_ERROR, 2, 2, None, None),
    "dpo-fsdp2-with-exception-names-rank0": (
        DPO_WITH_EXCEPTION,
        2,
        2,
        0,
        "python-exception",
    ),
    "dpo-fsdp2-both-ranks-names-none": (DPO_BOTH_RANKS, 2, 2, None, None),
    "torch-oom-rank1-names-rank1": ([f"[rank1]: {TORCH_OOM}"], 4, 4, 1, "cuda-oom"),
    "torch-oom-untagged-names-none": ([TORCH_OOM], 4, 4, None, None),
    "condensed-oom-without-oom-line-names-none": (CONDENSED_NO_OOM, 4, 4, None, None),
}
BATCHED = Batched("b272", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_thread_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_enospc_reads_as_two_ranks_alike(tmp_path):
    """PALS' ``rank 16 exited with code 1`` is read as rank 16's failure beside rank 23's ``OSError``: two ranks failed
    alike in a log without a clock, no single culprit (a warning of no rank)."""
    assert _gist(ENOSPC, tmp_path, 12, None) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_cut_dpo_traceback_is_a_suspect(tmp_path):
    """Rank 0's traceback cut before its exception: an info suspect, not a culprit."""
    assert _gist(DPO_FSDP2, tmp_path, 2, 2) == [
        ("rank-failure", "info", "python-exception", [0])
    ]


def test_condensed_oom_is_critical_of_no_rank(tmp_path):
    """The author's condensed OOM (no rank tag, not PyTorch's wording): a critical cuda-oom of no rank."""
    assert _gist(CONDENSED_OOM, tmp_path, 4, 4) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
