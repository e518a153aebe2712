"""One GPU's (or one node's) hardware fault in multi-GPU training (real incidents batch 236), pinned as read. One
culprit and three controls, as pasted and laid out by their own nproc/world: a TORCH_DISTRIBUTED_DEBUG desync-report
tail where rank 1 started ``_REDUCE_SCATTER_BASE`` #330 and rank 0 only finished #329, then rank 0's info-level
``INTERNAL ASSERT FAILED`` watchdog line (pytorch/pytorch#105287: the author's bisection puts it on GPU 2 = rank 0; read
as nothing, NOT_YET); worker-1's processes on local GPUs 4, 5 and 0 each warning ``Cuda failure 'initialization
error'`` (NVIDIA/nccl#1029: the node's driver, fixed by upgrade and reboot; read as rank 1's CUDA error as collected,
no one since session 43: NCCL's WARN of one CUDA failure in two or more processes is their failing alike);
device 0's lone ``Cuda failure 999 'unknown error'`` at NCCL init under WSL2 (huggingface/finetrainers#344: the same on
one GPU alone, a platform error; read as rank 0's CUDA error once laid out as one node of 2, NOT_YET); a faulthandler stack at DDP's first broadcast on
two RTX 5090 (Lightning-AI/pytorch-lightning#20757: NCCL on that GPU generation; read as nothing). Scored 1/4 both ways
as collected; no rule changed (measure only).
Contrasts: a ``[rankN]:``-tagged CUDA error added to a paste names that rank (cuda-error); the WSL2 failure printed by
both processes alike names no one; worker-1's WARN left from one process only names rank 1. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 4, 15, tzinfo=dt.timezone.utc)

DESYNC_BEHIND = corpus_lines("pytorch-105287-")
WORKER1_INIT = corpus_lines("nccl-1029-worker1-")
WSL_999 = corpus_lines("finetrainers-344-")
RTX5090_STACK = corpus_lines("pytorch-lightning-20757-")

#: rank 0's own CUDA error, tagged as torch tags a rank's exception, after the desync report
RANK0_ECC_TAGGED = DESYNC_BEHIND + [
    "[rank0]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
]
#: the 5090 stack followed by rank 1's tagged illegal memory access
RANK1_IMA_TAGGED = RTX5090_STACK + [
    "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered",
]
#: the WSL2 allocation failure printed by the second process too (device 1), the same CUDA error alike
WSL_999_BOTH = WSL_999[:1] + [WSL_999[0].replace(":2852:3596 [0]", ":2853:3597 [1]")] + WSL_999[1:]

#: worker-1's WARN from one process only (pid 2918): a lone process's NCCL CUDA failure, its pod's rank
WORKER1_ONE = [line for line in WORKER1_INIT if "NCCL WARN" not in line or ":2918:" in line]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, as pasted and laid out as the threads say
    "desync-behind-as-pasted": (DESYNC_BEHIND, None, None, None, None),
    "desync-behind-one-node-of-2": (DESYNC_BEHIND, 2, 2, None, None),
    "worker1-init-as-pasted": (WORKER1_INIT, None, None, None, None),
    "wsl-999-as-pasted": (WSL_999, None, None, None, None),
    "wsl-999-one-node-of-2": (WSL_999, 2, 2, 0, "cuda-error"),
    "rtx5090-stack-as-pasted": (RTX5090_STACK, None, None, None, None),
    "rtx5090-stack-one-node-of-2": (RTX5090_STACK, 2, 2, None, None),
    # contrasts
    "rank0-ecc-tagged-names-rank0": (RANK0_ECC_TAGGED, 2, 2, 0, "cuda-error"),
    "rank1-ima-tagged-names-rank1": (RANK1_IMA_TAGGED, 2, 2, 1, "cuda-error"),
    "wsl-999-both-names-none": (WSL_999_BOTH, 2, 2, None, None),
    "worker1-one-process-names-rank1": (WORKER1_ONE, None, None, 1, "cuda-error"),
}
BATCHED = Batched("b236", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hardware_fault_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_contrast_lines_are_real_edits():
    """Each contrast differs from its paste by the edit it names, so a reading that changes is the edit's doing."""
    assert RANK0_ECC_TAGGED[:-1] == DESYNC_BEHIND
    assert RANK1_IMA_TAGGED[:-1] == RTX5090_STACK
    assert len(WSL_999_BOTH) == len(WSL_999) + 1 and "[1] include/alloc.h:112" in WSL_999_BOTH[1]
    assert len(WORKER1_ONE) == len(WORKER1_INIT) - 2
