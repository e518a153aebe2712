"""Kubernetes training jobs (PyTorchJob, KubeRay, OpenPAI, torchelastic pods) where one pod or GPU failed (real incidents
batch 317), pinned as read. Three culprits and one control, collected blind; the control was read right and the three
culprits were missed as collected (NOT_YET, batch 317) and are pinned here as read so a change of reading is seen: a
PyTorchJob worker-1's DataLoader ``killed by signal: Bus error`` pasted in inline backticks (pytorch/pytorch#108861)
reads as a sigbus of no rank as pasted and of rank 0 on one process per pod (worker-1 is rank 2 only by the operator's
numbering); the kernel's ``NVRM: RmInitAdapter failed!`` / ``rm_init_adapter failed for device bearing minor number 0``
(microsoft/pai#4344: GPU 0 of a node dead, node cordoned) read as nothing at all (since session 54: a critical
GPU-health finding of no rank, ``gpu-init-failed``); a torchelastic ClassyVision run's last
progress lines after the group_rank 0 pod was deleted (pytorch/elastic#115) read as nothing. The control, Ray-folded
NCCL init lines of rank 6 of 16 showing ``aws-ofi-nccl initialization failed [repeated 15x across cluster]`` and a
socket fallback (awslabs/awsome-distributed-ai#386), names no one. Scored 1/4 both ways as collected; no rule changed
(measure only). Contrasts: the bus error under a ``[rank2]:`` tag names rank 2, without its ``RuntimeError`` line
nothing; an ``Xid ... 79`` line in place of the adapter lines is a GPU-health finding (critical) of no rank, and a
rank 0 ``CUDA error`` after them names rank 0; torchrun's failure table for the deleted pod's rank names it
(host-oom-kill), renumbered the new rank; rank 6's own NCCL error or CUDA OOM after the OFI lines names rank 6.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 14, 30, tzinfo=dt.timezone.utc)

BUS_ERROR = corpus_lines("pytorch-108861-")
ADAPTER_INIT = corpus_lines("microsoft-pai-4344-")
OFI_FALLBACK = corpus_lines("awsome-distributed-ai-386-")
POD_DELETED = corpus_lines("pytorch-elastic-115-")

#: the traceback under a ``[rank2]:`` tag (worker-1's rank): the tag names the rank
BUS_ERROR_RANK2 = [f"[rank2]: {line}" for line in BUS_ERROR[1:]]
#: the traceback without its ``RuntimeError ... Bus error`` line: frames only
BUS_ERROR_NO_ERROR = BUS_ERROR[:-1]
#: the kernel's Xid 79 for the same node in place of the adapter-init lines
XID_79 = [
    "[   38.773764] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."
]
#: the adapter-init lines, then rank 0's own CUDA error
ADAPTER_INIT_RANK0_CUDA = ADAPTER_INIT + [
    "[rank0]: RuntimeError: CUDA error: no CUDA-capable device is detected"
]
#: rank 6's own NCCL error after the OFI fallback lines
OFI_RANK6_NCCL = OFI_FALLBACK + [
    "(RayTrainWorker pid=954, ip=10.67.132.202) [rank6]: torch.distributed.DistBackendError: NCCL error in: "
    "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for "
    "details), NCCL version 2.20.5"
]
#: rank 6's NCCL WARN of a CUDA out-of-memory after the OFI fallback lines
OFI_RANK6_OOM = OFI_FALLBACK + [
    "(RayTrainWorker pid=954, ip=10.67.132.202) ini-worker-ray-worker-p5:954:3133 [6] NCCL WARN Cuda failure "
    "'out of memory'"
]
#: torchrun's failure table for the deleted pod's process (rank 0, SIGKILL) after the survivors' last lines
FAILURE_TABLE = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "train.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2020-08-03_07:55:02",
    "  host      : cv-test-0",
    "  rank      : 0 (local_rank: 0)",
    "  exitcode  : -9 (pid: 61)",
    "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 61",
    "============================================================",
]
POD_DELETED_TABLE = POD_DELETED + FAILURE_TABLE
POD_DELETED_TABLE_RANK1 = POD_DELETED + [
    line.replace("rank      : 0 (local_rank: 0)", "rank      : 1 (local_rank: 0)")
    for line in FAILURE_TABLE
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (today's reading of the three NOT_YET culprits and the control)
    "bus-error-as-pasted": (BUS_ERROR, None, None, None, None),
    "bus-error-one-per-pod-four-pods": (BUS_ERROR, 1, 4, 0, "sigbus"),
    "adapter-init-as-pasted": (ADAPTER_INIT, None, None, None, None),
    "adapter-init-four-gpus": (ADAPTER_INIT, 4, 4, None, None),
    "ofi-fallback-as-pasted": (OFI_FALLBACK, None, None, None, None),
    "ofi-fallback-eight-by-sixteen": (OFI_FALLBACK, 8, 16, None, None),
    "pod-deleted-as-pasted": (POD_DELETED, None, None, None, None),
    # contrasts
    "bus-error-rank2-tag-names-rank2": (BUS_ERROR_RANK2, 1, 4, 2, "sigbus"),
    "bus-error-without-error-line-names-none": (BUS_ERROR_NO_ERROR, 1, 4, None, None),
    "adapter-init-then-rank0-cuda-error-names-rank0": (
        ADAPTER_INIT_RANK0_CUDA,
        4,
        4,
        0,
        "cuda-error",
    ),
    "ofi-then-rank6-nccl-error-names-rank6": (OFI_RANK6_NCCL, 8, 16, 6, "nccl-error"),
    "ofi-then-rank6-cuda-oom-names-rank6": (OFI_RANK6_OOM, 8, 16, 6, "cuda-oom"),
    "pod-deleted-failure-table-names-rank0": (
        POD_DELETED_TABLE,
        1,
        2,
        0,
        "host-oom-kill",
    ),
    "pod-deleted-failure-table-rank1-names-rank1": (
        POD_DELETED_TABLE_RANK1,
        1,
        2,
        1,
        "host-oom-kill",
    ),
}
BATCHED = Batched("b317", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kubernetes_pod_failure_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _read(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_bus_error_as_pasted_is_a_sigbus_of_no_rank(tmp_path):
    """As pasted (no layout), worker-1's bus error is still read as a sigbus failure (warning), of no rank."""
    assert _read(BUS_ERROR, tmp_path, None, None) == [
        ("rank-failure", "warning", "sigbus", [])
    ]


def test_adapter_init_failure_and_xid_79_are_gpu_health_findings_of_no_rank(tmp_path):
    """The driver's ``RmInitAdapter failed`` lines are a critical GPU-health finding of no rank since session 54
    (``gpu-init-failed``: the GPU is missing, no rank ran on it; tests/test_gpu_init_failed.py), as an ``Xid ... 79``
    line for the node is (``xid-79``)."""
    assert _read(ADAPTER_INIT, tmp_path / "a", 4, 4) == [
        ("gpu-health", "critical", "gpu-init-failed", [])
    ]
    assert _read(XID_79, tmp_path / "b", 4, 4) == [
        ("gpu-health", "critical", "xid-79", [])
    ]


def test_ofi_fallback_and_deleted_pod_give_no_finding(tmp_path):
    """The OFI plugin's failed init and socket fallback, and the survivors' last progress lines, give no finding."""
    assert _read(OFI_FALLBACK, tmp_path / "a", 8, 16) == []
    assert _read(POD_DELETED, tmp_path / "b", None, None) == []
