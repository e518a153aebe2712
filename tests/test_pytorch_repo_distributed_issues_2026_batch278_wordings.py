"""PyTorch-repository distributed issues of 2025-26 (real incidents batch 278), pinned as read.
Two controls and one culprit, collected blind. ``mp.spawn``'s report of a ``symm_mem.rendezvous`` failure
(``Terminating process 326046 via signal SIGTERM``, ``-- Process 1 terminated with the following error:``, the CUDA
driver error past the excerpt; pytorch/pytorch#174030: no peer-memory path on an RTX 2080 Ti pair without NVLink, every
process alike) names rank 1 (python-exception, warning): NOT_YET. A CI run's NVSHMEM NVLS setup failing
``cuMemMap failed to map 137438953472 bytes ... on device N`` on all four devices (pytorch/pytorch#169879, a CI-job fix)
names no one, right. GPU 7's lone ``NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl- (size 0)``
and its ``NCCL INFO <file>:<line> -> 2`` unwind, the other GPUs importing their peers' buffers (NVIDIA/nccl#2190:
asymmetric cuMem host-NUMA support, GPU 7's process fell back to /dev/shm) names no one: NOT_YET. Scored 1/3 both ways
as collected; no rule changed (measure only). Contrasts: without spawn's ``-- Process 1`` line nothing is named; the
same report for process 3 names rank 3; one device's ``cuMemMap`` failure alone still names no one (the NVSHMEM wording
is not read), a ``[rank2]:`` CUDA OOM in its place names rank 2 (cuda-oom); the shared-memory attach failure is not
read even under ``[rank7]:`` tags, a ``NCCL WARN Cuda failure`` on the same line is (rank 7, info), and a
``DistBackendError ... unhandled system error`` under ``[rank3]:`` names rank 3 although the WARN is GPU 7's.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 0, 30, tzinfo=dt.timezone.utc)

SPAWN_SYMM_MEM = corpus_lines("pytorch-174030-")
NVSHMEM_CUMEMMAP = corpus_lines("pytorch-169879-")
SHM_ATTACH = corpus_lines("nccl-2190-")

#: spawn's report without its ``-- Process 1 terminated with the following error:`` line: no process is named
SPAWN_NO_PROCESS = [line for line in SPAWN_SYMM_MEM if "-- Process 1 " not in line]
#: the same report for process 3
SPAWN_PROCESS_3 = [
    line.replace("-- Process 1 ", "-- Process 3 ") for line in SPAWN_SYMM_MEM
]
#: only spawn's SIGTERM of the other process: no one
SPAWN_SIGTERM_ONLY = SPAWN_SYMM_MEM[:1]
#: the test header and device 3's line (the four status-401 lines and its cuMemMap failure) alone
NVSHMEM_ONE_DEVICE = NVSHMEM_CUMEMMAP[:2]
#: device 2's cuMemMap line replaced by rank 2's own CUDA out-of-memory in PyTorch's wording
NVSHMEM_RANK2_OOM = (
    NVSHMEM_CUMEMMAP[:4]
    + [
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 GiB. GPU 2 has a total capacity of "
        "79.19 GiB of which 78.60 GiB is free."
    ]
    + NVSHMEM_CUMEMMAP[5:]
)
#: GPU 7's failing lines under ``[rank7]:`` tags, the other GPUs' imports as pasted
SHM_RANK7_TAGS = ["[rank7]: " + line for line in SHM_ATTACH[:11]] + SHM_ATTACH[11:]
#: GPU 7's WARN worded as NCCL's CUDA failure (an invalid argument) instead of the shared-memory attach
SHM_CUDA_FAILURE_7 = [
    SHM_ATTACH[0].replace(
        "misc/shmutils.cc:132 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl- (size 0), error: No "
        "such file or directory (2)",
        "misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'",
    )
] + SHM_ATTACH[1:]
DIST_BACKEND = (
    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:3699, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
    "2.27.3"
)
#: the paste with rank 7's framework error after it
SHM_RANK7_BACKEND = SHM_ATTACH + ["[rank7]: " + DIST_BACKEND]
#: the paste with rank 3's framework error after it: rank 3 is named, GPU 7's WARN is not read
SHM_RANK3_BACKEND = SHM_ATTACH + ["[rank3]: " + DIST_BACKEND]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "spawn-symm-mem-as-pasted": (SPAWN_SYMM_MEM, None, None, 1, "python-exception"),
    "spawn-symm-mem-two-gpus": (SPAWN_SYMM_MEM, 2, 2, 1, "python-exception"),
    "nvshmem-cumemmap-as-pasted": (NVSHMEM_CUMEMMAP, None, None, None, None),
    "nvshmem-cumemmap-four-gpus": (NVSHMEM_CUMEMMAP, 4, 4, None, None),
    "shm-attach-as-pasted": (SHM_ATTACH, None, None, None, None),
    "shm-attach-eight-gpus": (SHM_ATTACH, 8, 8, None, None),
    # contrasts
    "spawn-without-process-line-names-none": (SPAWN_NO_PROCESS, 2, 2, None, None),
    "spawn-process3-names-rank3": (SPAWN_PROCESS_3, 4, 4, 3, "python-exception"),
    "spawn-sigterm-only-names-none": (SPAWN_SIGTERM_ONLY, 2, 2, None, None),
    "nvshmem-one-device-names-none": (NVSHMEM_ONE_DEVICE, 4, 4, None, None),
    "nvshmem-rank2-oom-names-rank2": (NVSHMEM_RANK2_OOM, 4, 4, 2, "cuda-oom"),
    "shm-attach-rank7-tags-names-none": (SHM_RANK7_TAGS, 8, 8, None, None),
    "shm-attach-rank7-backend-error-names-rank7": (
        SHM_RANK7_BACKEND,
        8,
        8,
        7,
        "nccl-error",
    ),
    "shm-attach-rank3-backend-error-names-rank3": (
        SHM_RANK3_BACKEND,
        8,
        8,
        3,
        "nccl-error",
    ),
}
BATCHED = Batched("b278", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_pytorch_repo_wordings_as_read(key, tmp_path_factory):
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


def test_nccl_cuda_failure_on_gpu7_is_an_info_suspect(tmp_path):
    """NCCL's ``Cuda failure 'invalid argument'`` on device [7] is read (rank 7, cuda-error) but only as an info suspect:
    an invalid argument is the call's or the platform's, not the GPU's. The shared-memory attach failure on the same line
    is not read at all."""
    assert _failures(SHM_CUDA_FAILURE_7, tmp_path / "a", 8) == [
        ("info", "cuda-error", [7])
    ]
    assert _failures(SHM_ATTACH, tmp_path / "b", 8) == []


def test_nvshmem_cumemmap_failures_are_no_failure(tmp_path):
    """NVSHMEM's ``cuMemMap failed to map ... on device N`` lines make no rank failure at all, on four devices or one."""
    assert _failures(NVSHMEM_CUMEMMAP, tmp_path / "a", 4) == []
    assert _failures(NVSHMEM_ONE_DEVICE, tmp_path / "b", 4) == []
