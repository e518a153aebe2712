"""Multi-GPU training jobs failing at the pod level on Kubernetes operators (real incidents batch 325), pinned as read.
Three incidents collected blind, all read right as collected (3/3 both ways, no NOT_YET): a Kubeflow Trainer TrainJob on
the OpenMPI ``deepspeed-distributed`` runtime whose launcher cannot resolve its own name (kubeflow/trainer#3783:
``[pod/…-launcher-0-0-…/node] ssh: Could not resolve hostname …``, ``ORTE was unable to reliably start one or more
daemons``, a launcher DNS race of the runtime's wiring) names no one and raises nothing; KAI Scheduler's gang condition
on a JobSet's second rack-job (kai-scheduler/KAI-Scheduler#1217: ``Resources were found for 12 pods while 16 are required
for gang scheduling.``, stale scheduler state, the pods Pending on idle nodes) names no one (a pending warning since
session 56, raising nothing before); rank 4's
``[rank4]:`` traceback through ZeRO-3's parameter all-gather into ``torch.OutOfMemoryError … GPU 4``, the message wrapped
mid-word onto an untagged line (modelscope/ms-swift#4023) names rank 4, cuda-oom, a warning. Contrasts: mpirun's ``process
rank 2 … exited on signal 9`` after the launcher's lines names rank 2 (host-oom-kill) and an Open MPI ``[1,1]<stderr>:``
CUDA error rank 1 (cuda-error); a ``[rank3]:`` CUDA error after the gang condition names rank 3; the OOM renumbered
``[rank6]`` names rank 6; the OOM line alone still rank 4; without the exception line rank 4 is an info suspect only;
without any ``[rankN]:`` tag the OOM is critical and names no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import (
    Batched,
    assert_info_suspect,
    assert_one_rank,
    pasted,
    pasted_cases,
)
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)

MPI_DNS_RACE = corpus_lines("trainer-3783-")
GANG_PENDING = corpus_lines("kai-scheduler-1217-")
ALLGATHER_OOM = corpus_lines("ms-swift-4023-")

#: the launcher's lines, then mpirun's own report of a process killed by signal 9
MPI_SIGNAL_9 = MPI_DNS_RACE + [
    "mpirun noticed that process rank 2 with PID 0 on node mb532a472e2a-node-0-0 exited on signal 9 (Killed)."
]
#: the launcher's lines, then an Open MPI ``[1,1]<stderr>:`` tagged CUDA error of process 1
MPI_RANK1_CUDA = MPI_DNS_RACE + [
    "[1,1]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered"
]
#: the gang condition, then kube-scheduler's event for the same pods
GANG_WITH_SCHEDULER_EVENT = GANG_PENDING + [
    "  Warning  FailedScheduling  2m  default-scheduler  0/18 nodes are available: 18 Insufficient nvidia.com/gpu."
]
#: the gang condition, then a rank's own CUDA error
GANG_THEN_RANK3 = GANG_PENDING + [
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"
]
#: the same traceback and OOM for rank 6 on GPU 6
OOM_RANK6 = [
    line.replace("[rank4]", "[rank6]").replace("GPU 4 ", "GPU 6 ")
    for line in ALLGATHER_OOM
]
#: the OOM line and its wrapped tail alone
OOM_LINE_ONLY = ALLGATHER_OOM[-2:]
#: rank 4's frames without the OOM line and its tail
OOM_NO_EXCEPTION = ALLGATHER_OOM[:-2]
#: the whole paste with no ``[rank4]:`` tag
OOM_UNTAGGED = [line.replace("[rank4]: ", "") for line in ALLGATHER_OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "mpi-dns-race-as-pasted": (MPI_DNS_RACE, None, None, None, None),
    "mpi-dns-race-four-ranks": (MPI_DNS_RACE, 4, 4, None, None),
    "gang-pending-as-pasted": (GANG_PENDING, None, None, None, None),
    "gang-pending-sixteen-pods": (GANG_PENDING, 4, 64, None, None),
    "allgather-oom-as-pasted": (ALLGATHER_OOM, None, None, 4, "cuda-oom"),
    "allgather-oom-eight-gpus": (ALLGATHER_OOM, 8, 8, 4, "cuda-oom"),
    # contrasts
    "mpi-signal-9-names-rank2": (MPI_SIGNAL_9, 4, 4, 2, "host-oom-kill"),
    "mpi-rank1-cuda-error-names-rank1": (MPI_RANK1_CUDA, 2, 2, 1, "cuda-error"),
    "gang-with-scheduler-event-names-none": (
        GANG_WITH_SCHEDULER_EVENT,
        4,
        64,
        None,
        None,
    ),
    "gang-then-rank3-names-rank3": (GANG_THEN_RANK3, 4, 64, 3, "cuda-error"),
    "allgather-oom-rank6-names-rank6": (OOM_RANK6, 8, 8, 6, "cuda-oom"),
    "allgather-oom-line-only-names-rank4": (OOM_LINE_ONLY, 8, 8, 4, "cuda-oom"),
    "allgather-oom-untagged-names-none": (OOM_UNTAGGED, 8, 8, None, None),
}
BATCHED = Batched("b325", list(CASES))
_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_k8s_operator_pod_failure_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_launcher_dns_race_raises_nothing_and_gang_condition_is_pending(tmp_path):
    """The MPI launcher's unresolvable own name with ORTE's daemon-start failure is not read from a paste (no finding).
    A gang scheduler's ``Resources were found for 12 pods while 16 are required`` with its nodes' reasons beneath (and
    kube-scheduler's ``0/18 nodes are available`` after it) is the job's pending since session 56 (parsers/
    log_sched_pending.py): a warning naming no rank, the cause from the nodes' reason (it raised nothing before)."""
    assert _findings(MPI_DNS_RACE, tmp_path / "a", None, None) == []
    assert _findings(GANG_PENDING, tmp_path / "b", 4, 64) == [("pending", "warning", "insufficient-gpu", [])]
    assert _findings(GANG_WITH_SCHEDULER_EVENT, tmp_path / "c", 4, 64) == [("pending", "warning", "insufficient-gpu", [])]
    assert _findings(GANG_PENDING[:1], tmp_path / "d", 4, 64) == [("pending", "warning", "unschedulable", [])]


def test_allgather_oom_is_a_warning_of_rank4_and_untagged_a_critical_of_no_rank(
    tmp_path,
):
    """Rank 4's tagged OOM is an oom-cascade warning of rank 4 (the paste holds that rank's lines only); the same lines
    with no rank tag are an oom-cascade critical of no rank."""
    assert _findings(ALLGATHER_OOM, tmp_path / "a", 8, 8) == [
        ("oom-cascade", "warning", "cuda-oom", [4])
    ]
    assert _findings(OOM_UNTAGGED, tmp_path / "b", 8, 8) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]


def test_allgather_frames_without_exception_are_an_info_suspect(tmp_path):
    """Rank 4's all-gather frames cut before the OOM line: an info python-exception suspect of rank 4, nothing louder."""
    from k10s_forensics.analyze.runner import analyze

    assert_info_suspect(
        analyze(pasted(OOM_NO_EXCEPTION, tmp_path, 8, NOW, world=8))["findings"], 4
    )
