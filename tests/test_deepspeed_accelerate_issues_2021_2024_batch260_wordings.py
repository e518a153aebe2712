"""DeepSpeed / accelerate GitHub issues of 2021-2024 (real incidents batch 260), pinned as read. Four controls that name
no one, as pasted and laid out by their own nproc/world: DeepSpeed ZeRO-3 ``zero.Init`` with both processes' NCCL
``Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40`` (deepspeedai/DeepSpeed#1604: zero.Init ran before
set_device, fixed by PR #1605), read as nothing; eight RTX 3090 under ``accelerate launch`` with ranks 2 and 7 timing out
in the same ``SeqNum=48490`` ALLREDUCE (huggingface/accelerate#2174: the consumer-card P2P path, closed by PR #2195
disabling P2P/IB), read as an info nccl-hang with no single culprit; ``prepare_pippy(split_points="auto")`` raising
``Number of ranks is larger than number of stages`` in every process (huggingface/accelerate#2497), read as an alike
python-exception naming no rank; three of four Azure A100s failing NCCL init with ``XML Import Channel : dev 3 not
found.`` (huggingface/accelerate#1993, settled by NVIDIA/nccl#1008: the image's 4-GPU graph file), read as an nccl-error
naming no rank. Scored 4/4 both ways as collected; no rule changed (measure only).
Contrasts: one of the two Duplicate-GPU lines alone still names no one, while one such NCCL WARN line with ``Cuda
failure 'out of memory'`` names its device's rank 0 (cuda-oom); the 3090 watchdogs after a ``[rank5]:`` CUDA OOM name
rank 5; the PiPPy traceback tagged ``[rank1]:`` names rank 1, and its first traceback alone names no one; the Azure
error block tagged ``[rank2]:`` names rank 2 (nccl-error). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 15, 0, tzinfo=dt.timezone.utc)

DUPLICATE_GPU = corpus_lines("DeepSpeed-1604-")
P2P_WATCHDOG = corpus_lines("accelerate-2174-")
PIPPY_STAGES = corpus_lines("accelerate-2497-")
GRAPH_FILE = corpus_lines("accelerate-1993-")

#: rank 0's Duplicate-GPU warning alone, rank 1's mirror line left out
DUPLICATE_FIRST_ONLY = DUPLICATE_GPU[:1]
#: the same NCCL WARN line (pid, tid, device [0]) with a CUDA OOM instead of the duplicate-device check
WARN_CUDA_OOM = [DUPLICATE_GPU[0].replace(
    "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40", "Cuda failure 'out of memory'")]
#: the 3090 watchdogs after one rank's own CUDA OOM, as torch tags a rank's exception
PEER_OOM_FIRST = [
    "[rank5]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total "
    "capacity of 23.69 GiB of which 1.06 GiB is free."
] + P2P_WATCHDOG
#: the first process's traceback alone, the second one's opening frame left out
PIPPY_FIRST_ONLY = PIPPY_STAGES[:-2]
#: the first traceback as rank 1 would print it under torchrun (``[rank1]:`` on every line), launcher note left out
PIPPY_RANK1_TAGGED = ["[rank1]: " + line for line in PIPPY_STAGES[1:-2]]
#: the Azure error block (exception, NCCL reason, ``Last error:``, graph import) tagged as rank 2's
GRAPH_RANK2_TAGGED = GRAPH_FILE[:4] + ["[rank2]: " + line for line in GRAPH_FILE[4:8]] + GRAPH_FILE[8:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "duplicate-gpu-as-pasted": (DUPLICATE_GPU, None, None, None, None),
    "duplicate-gpu-two-gpus": (DUPLICATE_GPU, 2, 2, None, None),
    "p2p-watchdog-as-pasted": (P2P_WATCHDOG, None, None, None, None),
    "p2p-watchdog-one-node-of-8": (P2P_WATCHDOG, 8, 8, None, None),
    "pippy-stages-as-pasted": (PIPPY_STAGES, None, None, None, None),
    "pippy-stages-two-gpus": (PIPPY_STAGES, 2, 2, None, None),
    "graph-file-as-pasted": (GRAPH_FILE, None, None, None, None),
    "graph-file-three-gpus": (GRAPH_FILE, 3, 3, None, None),
    # contrasts
    "duplicate-first-only-names-none": (DUPLICATE_FIRST_ONLY, 2, 2, None, None),
    "warn-cuda-oom-names-rank0": (WARN_CUDA_OOM, 2, 2, 0, "cuda-oom"),
    "peer-oom-first-names-rank5": (PEER_OOM_FIRST, 8, 8, 5, "cuda-oom"),
    "pippy-first-only-names-none": (PIPPY_FIRST_ONLY, 2, 2, None, None),
    "pippy-rank1-tagged-names-rank1": (PIPPY_RANK1_TAGGED, 2, 2, 1, "python-exception"),
    "graph-rank2-tagged-names-rank2": (GRAPH_RANK2_TAGGED, 3, 3, 2, "nccl-error"),
}
BATCHED = Batched("b260", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_deepspeed_accelerate_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(findings):
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_duplicate_gpu_lines_read_as_nothing(tmp_path):
    """Both processes' symmetric Duplicate-GPU warnings: neither rank 0 nor rank 1 blamed; since session 62 one rankless
    nccl-error warning saying the launch's placement (tests/test_nccl_duplicate_gpu_placement.py), before it nothing."""
    assert _read(pasted_findings(DUPLICATE_GPU, tmp_path, 2, 2, NOW)) == [("rank-failure", "warning", "nccl-error", [])]


def test_p2p_watchdogs_are_a_hang_with_no_single_culprit(tmp_path):
    """Ranks 2 and 7 timing out in the same ALLREDUCE: one info nccl-hang naming no rank, nothing louder."""
    assert _read(pasted_findings(P2P_WATCHDOG, tmp_path, 8, 8, NOW)) == [
        ("nccl-hang", "info", "no-single-culprit", [])]


def test_peer_oom_before_the_watchdogs_is_critical(tmp_path):
    """With a rank's own OOM before the same watchdogs the hang has a cause: rank 5, critical."""
    read = _read(pasted_findings(PEER_OOM_FIRST, tmp_path, 8, 8, NOW))
    assert ("oom-cascade", "critical", "cuda-oom", [5]) in read, read
    assert all(ranks in ([], [5]) for _, _, _, ranks in read), read


@pytest.mark.parametrize("lines,nproc,cause", [
    (PIPPY_STAGES, 2, "python-exception"),
    (GRAPH_FILE, 3, "nccl-error"),
], ids=["pippy-stages", "graph-file"])
def test_alike_failures_are_said_with_no_rank(lines, nproc, cause, tmp_path):
    """The PiPPy configuration error and the Azure graph-file NCCL error: a rank-failure warning of the right cause that
    names no rank (every process fails alike)."""
    assert _read(pasted_findings(lines, tmp_path, nproc, nproc, NOW)) == [("rank-failure", "warning", cause, [])]
