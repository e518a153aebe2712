"""AMD Instinct (ROCm/HIP/RCCL) multi-GPU failures (real incidents batch 342), pinned as read. Three controls, collected
blind. One was read with a culprit as collected (NOT_YET, batch 342) and is pinned here as read so a change of reading
is seen: the tail of torchrun's failure summary on 8x MI350 (AMD-AGI/Primus#349: AMD's documented Llama 3.1 8B BF16
TorchTitan recipe OOMs on every rank) names rank 4, torchrun's ``Root Cause (first observed failure)``, as a Python
failure, while the failure entry's indented ``  torch.OutOfMemoryError: HIP out of memory ... GPU 7`` is not read at
all. The two others are read right, though only because k10s reads nothing in them: eight HSA lines ``Memory access
fault by GPU node-N (Agent handle: ...) on address ... Reason: Unknown.`` of an MI355x TP8 server, each behind a
Kubernetes/CRI ``<RFC3339Nano> stderr F `` prefix and a markdown ``> `` quote (ROCm/aiter#5192: an out-of-bounds write
in aiter's ``top_k_renorm_probs``, every GPU), and one untagged such line between vLLM workers' JIT imports
(vllm-project/vllm#43605: AITER's fused-MoE kernel on the 8k shape, TP8/EP8). Scored 2/3 both ways as collected; no
rule changed (measure only). Contrasts: without torchrun's ``rank :`` line nothing is named; renumbered it names rank
2, with ``exitcode: -9`` rank 4 as host-oom-kill; the OOM line tagged ``[rank7]:`` names rank 7 (cuda-oom); a fault line
followed by the agent's ``failed (exitcode: -6) local_rank: 1`` names rank 1 (abort), the vLLM fault followed by
``Worker proc VllmWorker-3 died unexpectedly`` rank 3; HIP's ``an illegal memory access was encountered`` under
``[rank3]:`` names rank 3 as a Python failure where CUDA's words name it as cuda-error. And, pinned as no finding at
all: HSA's memory-access-fault line and its ``HW Exception by GPU node-N ... reason :GPU Hang``, alone, tagged
``[rank3]:`` or followed by ``Aborted (core dumped)``. Pasted logs through ``k10s import-logs``, batched.
Since session 57 (the batch's suggestion): HIP's ``HIP error: …`` is read as CUDA's ``CUDA error: …`` (rank 3's
illegal access is a cuda-error), and HSA's fault lines are the printing process's cuda-error (of rank 3 under its tag,
of the agent's or the vLLM worker's rank after them, of no rank alone); the two controls still name no one.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 22, 30, tzinfo=dt.timezone.utc)

OOM_SUMMARY_TAIL = corpus_lines("Primus-349-")
CRI_FAULTS = corpus_lines("aiter-5192-")
FMOE_FAULT = corpus_lines("vllm-43605-")

#: the summary tail without its ``rank      : 4 (local_rank: 4)`` line: no rank is named
OOM_NO_ROOT_RANK = [line for line in OOM_SUMMARY_TAIL if "rank      :" not in line]
#: the same root cause renumbered: rank 2
OOM_ROOT_RANK_2 = [
    line.replace("4 (local_rank: 4)", "2 (local_rank: 2)") for line in OOM_SUMMARY_TAIL
]
#: the root cause killed by a signal 9 instead of exiting 1
OOM_ROOT_SIGNAL_9 = [
    line.replace("exitcode  : 1 (pid", "exitcode  : -9 (pid")
    for line in OOM_SUMMARY_TAIL
]
#: the failure entry's OOM line as the OOMing rank prints it itself, ``[rank7]:``-tagged
OOM_RANK_7_TAGGED = ["[rank7]: " + OOM_SUMMARY_TAIL[0].strip()]
#: one of the eight fault lines, without its quote and CRI prefixes, then the agent's report of a local rank's abort
AGENT_AFTER_FAULT = [
    CRI_FAULTS[1].split(" stderr F ", 1)[1],
    "E1205 22:30:00.000000 100 torch/distributed/elastic/multiprocessing/api.py:874] failed "
    "(exitcode: -6) local_rank: 1 (pid: 123) of binary: /usr/bin/python3",
]
#: the vLLM fault followed by the executor's report of the worker that died
WORKER_DIED_AFTER_FAULT = FMOE_FAULT + [
    "ERROR 05-25 10:00:00 [multiproc_executor.py:100] Worker proc VllmWorker-3 died unexpectedly, shutting down executor."
]
#: HIP's and CUDA's wording of the same illegal access on one rank
HIP_ILLEGAL_ACCESS = [
    "[rank3]: RuntimeError: HIP error: an illegal memory access was encountered"
]
CUDA_ILLEGAL_ACCESS = [
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (Primus#349 is NOT_YET: rank 4 is named)
    "oom-summary-tail-as-pasted": (OOM_SUMMARY_TAIL, None, None, 4, "python-exception"),
    "oom-summary-tail-eight-ranks": (OOM_SUMMARY_TAIL, 8, 8, 4, "python-exception"),
    "cri-faults-as-pasted": (CRI_FAULTS, None, None, None, None),
    "cri-faults-eight-ranks": (CRI_FAULTS, 8, 8, None, None),
    "fmoe-fault-as-pasted": (FMOE_FAULT, None, None, None, None),
    "fmoe-fault-eight-ranks": (FMOE_FAULT, 8, 8, None, None),
    # contrasts
    "oom-summary-without-rank-names-none": (OOM_NO_ROOT_RANK, 8, 8, None, None),
    "oom-summary-rank2-names-rank2": (OOM_ROOT_RANK_2, 8, 8, 2, "python-exception"),
    "oom-summary-signal-9-names-rank4": (OOM_ROOT_SIGNAL_9, 8, 8, 4, "host-oom-kill"),
    "oom-line-tagged-rank7-names-rank7": (OOM_RANK_7_TAGGED, 8, 8, 7, "cuda-oom"),
    "fault-then-agent-exit-6-names-rank1": (AGENT_AFTER_FAULT, 8, 8, 1, "cuda-error"),
    "fault-then-worker-died-names-rank3": (
        WORKER_DIED_AFTER_FAULT,
        8,
        8,
        3,
        "cuda-error",
    ),
    "hip-illegal-access-rank3-cuda-error": (
        HIP_ILLEGAL_ACCESS,
        8,
        8,
        3,
        "cuda-error",
    ),
    "cuda-illegal-access-rank3-cuda-error": (
        CUDA_ILLEGAL_ACCESS,
        8,
        8,
        3,
        "cuda-error",
    ),
}
BATCHED = Batched("b342", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_amd_multi_gpu_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, 8, 8, NOW)
    ]


MEMORY_ACCESS_FAULT = CRI_FAULTS[1].split(" stderr F ", 1)[1]
GPU_HANG = "HW Exception by GPU node-9 (Agent handle: 0x631351bb5a20) reason :GPU Hang"


@pytest.mark.parametrize(
    "lines, ranks",
    [
        ([MEMORY_ACCESS_FAULT], []),
        (["[rank3]: " + MEMORY_ACCESS_FAULT], [3]),
        ([MEMORY_ACCESS_FAULT, "Aborted (core dumped)"], []),
        ([GPU_HANG, "Aborted (core dumped)"], []),
    ],
    ids=["fault", "fault-rank3", "fault-aborted", "gpu-hang-aborted"],
)
def test_hsa_gpu_fault_lines_are_cuda_errors(lines, ranks, tmp_path):
    """ROCm's own GPU-fault words, HSA's ``Memory access fault by GPU node-N ... Reason: ...`` and ``HW Exception by
    GPU node-N ... reason :GPU Hang``, were read as nothing at all as collected; since session 57 they are the printing
    process's CUDA-style error (``node-N`` is the HSA agent, no rank): of rank 3 under its ``[rank3]:`` tag, of no rank
    untagged."""
    assert _gist(lines, tmp_path) == [("rank-failure", "warning", "cuda-error", ranks)]


def test_indented_oom_of_a_failure_entry_is_not_read(tmp_path):
    """The OOM line as torchrun's failure summary indents it under an entry's traceback is not read; the same words
    unindented are a critical cuda-oom of no rank."""
    assert _gist(OOM_SUMMARY_TAIL[:1], tmp_path / "a") == []
    assert _gist([OOM_SUMMARY_TAIL[0].strip()], tmp_path / "b") == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
