"""Kubeflow / KubeRay / Ray Train / Volcano issue threads 2020-2024 (real incidents batch 266), pinned as read. Five
controls that name no one, as pasted and laid out by their own nproc/world: RaySGD's four workers on one machine where
rank 3's ring connect prints ``NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported`` under a
rankless ``RuntimeError: NCCL error`` (ray-project/ray#16979: RaySGD's per-worker device isolation on GPUs without peer
access, read as a rankless nccl-error); Ray Train's five workers on two hosts that set up their process group and go
silent (ray-project/ray#23060: an NCCL misconfiguration between the hosts, Gloo works, read as nothing); Ray's Horovod
release test aborting on ``Wait timeout after 30 seconds for key(s): 0`` (ray-project/ray#25866: the Gloo rendezvous
timeout raised to 120 s, read as nothing); a PyTorchJob's mnist that stops after ``Done!`` (kubeflow/trainer#1601: the
base image's versions, read as nothing); horovodrun rejecting Volcano's host file with a ``ValueError`` before any rank
starts (volcano-sh/volcano#1321, read as a rankless python-exception). Scored 5/5 both ways as collected; no rule
changed (measure only). Contrasts: the same RuntimeError on a ``[rank3]:``-tagged line names rank 3; a ``[rank4]:``
NCCL error after the five set-up lines names rank 4; Horovod's ``Process 1 exit with status code 134.`` names rank 1
(abort); a ``[rank1]:`` CUDA OOM after the mnist output names rank 1 (cuda-oom); the ValueError tagged ``[1,1]<stderr>:``
by mpirun names rank 1. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 18, 30, tzinfo=dt.timezone.utc)

P2P_IPC = corpus_lines("ray-16979-")
SILENT_NCCL = corpus_lines("ray-23060-")
GLOO_KEY0 = corpus_lines("ray-25866-")
MNIST_HANG = corpus_lines("kubeflow-trainer-1601-")
HOST_FORMAT = corpus_lines("volcano-1321-")

#: the rankless RuntimeError re-printed on a line torch tags with the failing rank
RANK3_TAGGED = ["[rank3]: " + P2P_IPC[0]] + P2P_IPC[1:]
#: after the five set-up lines, rank 4's own NCCL error (its driver line dropped)
RANK4_ERROR = SILENT_NCCL[:-1] + [
    "(BaseWorkerMixin pid=25345, ip=10.0.100.14) [rank4]: RuntimeError: NCCL error in: "
    "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3",
]
#: Horovod's runner reporting the process that aborted
PROCESS1_EXIT = GLOO_KEY0 + ["Process 1 exit with status code 134."]
#: one rank's CUDA OOM after the shared output
RANK1_OOM = MNIST_HANG + ["[rank1]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"]
#: the launcher's traceback as mpirun --tag-output prints a rank's stderr
MPIRUN_TAGGED = ["[1,1]<stderr>:" + line for line in HOST_FORMAT]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "p2p-ipc-as-pasted": (P2P_IPC, None, None, None, None),
    "p2p-ipc-one-node-of-4": (P2P_IPC, 4, 4, None, None),
    "silent-nccl-as-pasted": (SILENT_NCCL, None, None, None, None),
    "silent-nccl-world-5": (SILENT_NCCL, None, 5, None, None),
    "silent-nccl-5-per-node": (SILENT_NCCL, 5, 5, None, None),
    "gloo-key0-as-pasted": (GLOO_KEY0, None, None, None, None),
    "gloo-key0-4-workers": (GLOO_KEY0, 4, 4, None, None),
    "mnist-hang-as-pasted": (MNIST_HANG, None, None, None, None),
    "mnist-hang-pods-of-1-world-2": (MNIST_HANG, 1, 2, None, None),
    "host-format-as-pasted": (HOST_FORMAT, None, None, None, None),
    # contrasts
    "rank3-tagged-names-rank3": (RANK3_TAGGED, None, None, 3, "nccl-error"),
    "rank3-tagged-one-node-of-4": (RANK3_TAGGED, 4, 4, 3, "nccl-error"),
    "rank4-error-names-rank4": (RANK4_ERROR, None, 5, 4, "nccl-error"),
    "process1-exit-names-rank1": (PROCESS1_EXIT, 4, 4, 1, "abort"),
    "rank1-oom-names-rank1": (RANK1_OOM, None, None, 1, "cuda-oom"),
    "mpirun-tagged-names-rank1": (MPIRUN_TAGGED, 1, 2, 1, "python-exception"),
}
BATCHED = Batched("b266", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_kubeflow_kuberay_volcano_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[dict]:
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]


def test_p2p_ipc_reads_a_rankless_nccl_error(tmp_path):
    """RaySGD's P2P/IPC failure is said (a warning nccl-error) without pinning it on rank 3, whose ring connect the
    NCCL WARN prints: the RuntimeError line carries no rank."""
    findings = _findings(P2P_IPC, tmp_path, 4, 4)
    said = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["cause"] == "nccl-error"]
    assert said and all(ranks == [] for *_, ranks in said), said
    assert any(sev == "warning" for _, sev, _, _ in said), said


def test_host_format_reads_a_rankless_launcher_exception(tmp_path):
    """horovodrun's ValueError pasted as is: a python-exception warning that names no rank (no process ever ran)."""
    findings = _findings(HOST_FORMAT, tmp_path, None, None)
    said = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["severity"] == "warning"]
    assert said == [("rank-failure", "warning", "python-exception", [])], said
