"""Slurm srun / Open MPI pastes (real incidents batch 305), pinned as read.
Two culprits and two controls, collected blind. Open MPI's lone ``mpirun noticed that process rank 140 ... exited on
signal 9 (Killed).`` (PaddlePaddle/Paddle#13288: the maintainer says a node failed at random) names rank 140 as a host
OOM kill: rank right, cause not (NOT_YET, batch 305: a bare SIGKILL cannot tell a lost node from an OOM kill).
slurmstepd's cgroup ``oom-kill event(s)`` with ``srun: error: node107: task 0: Out Of Memory`` (brain-score/vision#950)
names task 0 (host-oom-kill). Eleven ``srun: error: node25: task N: Killed`` lines of one job killed past its time
(tonyyxliu/CUHKSZ-CSC4005#51) read as a host-OOM failure of no single rank, and TensorFlow's
``CUDA_ERROR_OUT_OF_MEMORY`` then ``Horovod has been shut down`` (horovod/horovod#552) reads as nothing at all: both
controls name no one. Scored 4/4 by rank both ways as collected, 3/4 with cause; no rule changed (measure only).
Contrasts: signal 11 gives a segfault; the rank or task renumbered names the new one; one ``task 11: Killed`` alone names
task 11; slurmstepd's line without srun's names no one; even under Open MPI's ``[1,3]<stderr>:`` tag the TensorFlow
allocator's OOM names no one, where PyTorch's ``OutOfMemoryError`` under the same tag names rank 3 (cuda-oom).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.timezone.utc)

MPIRUN_RANK140 = corpus_lines("paddle-13288-")
SRUN_TIME_KILLS = corpus_lines("csc4005-51-")
TF_OOM_HOROVOD = corpus_lines("horovod-552-")
SRUN_CGROUP_OOM = corpus_lines("vision-950-")

#: the same mpirun notice for a segmentation fault
MPIRUN_SIGNAL_11 = [
    MPIRUN_RANK140[0].replace("signal 9 (Killed)", "signal 11 (Segmentation fault)")
]
#: the same mpirun notice for rank 7
MPIRUN_RANK7 = [MPIRUN_RANK140[0].replace("rank 140", "rank 7")]
#: one task's ``Killed`` alone
SRUN_ONE_KILL = SRUN_TIME_KILLS[:1]
#: one task's segmentation fault alone
SRUN_ONE_SEGFAULT = [SRUN_TIME_KILLS[0].replace("Killed", "Segmentation fault")]
#: every line under Open MPI's ``--tag-output`` prefix of rank 3
TF_OOM_TAGGED = ["[1,3]<stderr>:" + line for line in TF_OOM_HOROVOD]
#: PyTorch's OOM under the same prefix
TORCH_OOM_TAGGED = [
    "[1,3]<stderr>:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
]
#: srun's line for task 3
SRUN_TASK3_OOM = [line.replace("task 0", "task 3") for line in SRUN_CGROUP_OOM]
#: slurmstepd's cgroup line without srun's task line
STEPD_ONLY = SRUN_CGROUP_OOM[:1]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "mpirun-rank140-as-pasted": (MPIRUN_RANK140, None, None, 140, "host-oom-kill"),
    "mpirun-rank140-eight-per-node": (MPIRUN_RANK140, 8, 256, 140, "host-oom-kill"),
    "srun-time-kills-as-pasted": (SRUN_TIME_KILLS, None, None, None, None),
    "srun-time-kills-thirty-two-tasks": (SRUN_TIME_KILLS, 32, 32, None, None),
    "tf-oom-horovod-as-pasted": (TF_OOM_HOROVOD, None, None, None, None),
    "tf-oom-horovod-four-ranks": (TF_OOM_HOROVOD, 4, 4, None, None),
    "srun-cgroup-oom-as-pasted": (SRUN_CGROUP_OOM, None, None, 0, "host-oom-kill"),
    "srun-cgroup-oom-one-task": (SRUN_CGROUP_OOM, 1, 1, 0, "host-oom-kill"),
    # contrasts
    "mpirun-signal-11-names-rank140-segfault": (
        MPIRUN_SIGNAL_11,
        8,
        256,
        140,
        "segfault",
    ),
    "mpirun-rank7-names-rank7": (MPIRUN_RANK7, 8, 16, 7, "host-oom-kill"),
    "srun-one-kill-names-task11": (SRUN_ONE_KILL, 32, 32, 11, "host-oom-kill"),
    "srun-one-segfault-names-task11": (SRUN_ONE_SEGFAULT, 32, 32, 11, "segfault"),
    "tf-oom-tagged-still-names-none": (TF_OOM_TAGGED, 4, 4, None, None),
    "torch-oom-tagged-names-rank3": (TORCH_OOM_TAGGED, 4, 4, 3, "cuda-oom"),
    "srun-task3-oom-names-task3": (SRUN_TASK3_OOM, 4, 4, 3, "host-oom-kill"),
    "stepd-without-srun-names-none": (STEPD_ONLY, 4, 4, None, None),
}
BATCHED = Batched("b305", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_srun_mpirun_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["severity"] != "info"
    ]


def test_every_task_killed_is_a_failure_of_no_rank(tmp_path):
    """Eleven tasks' ``Killed`` read as one host-OOM failure (warning) of no single rank: no culprit is named."""
    assert _failures(SRUN_TIME_KILLS, tmp_path, 32) == [
        ("warning", "host-oom-kill", [])
    ]


def test_tensorflow_allocator_oom_is_not_read(tmp_path):
    """TensorFlow's ``cuda_driver.cc ... CUDA_ERROR_OUT_OF_MEMORY`` and Horovod's shutdown raise nothing today."""
    assert _failures(TF_OOM_HOROVOD, tmp_path, 4) == []
