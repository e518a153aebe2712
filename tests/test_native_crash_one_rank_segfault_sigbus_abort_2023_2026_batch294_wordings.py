"""One rank's native crash (segfault, SIGBUS) in a multi-GPU run (real incidents batch 294), pinned as read.
Three incidents, collected blind; scored 2/3 both ways as collected (no rule changed, measure only), both controls
named by no one. Open MPI's signal-handler block of one process (``[HOST:12252] *** Process received signal ***``,
``Signal: Segmentation fault (11)``) with mpirun's ``Primary job  terminated normally, but 1 process returned`` banner
(horovod/horovod#585: the coordinator's race, rank 0, fixed by #619) is read as nothing at all, not even an unranked
crash: the block's ``host:pid`` names no rank and mpirun's ``process rank 0`` line was cut by the excerpt (NOT_YET,
batch 294). The same block under horovodrun's ``[1,2]<stderr>:`` tag (horovod/horovod#1197: Horovod built with GCC 7
against TensorFlow 1.14, every rank) names no one either: right for a control, but the tag does not make rank 2's
signal block a finding (renumbered to ``[1,5]``, still none). A gdb session's ``received signal SIGBUS, Bus error.``
in NCCL's ``ncclShmOpen`` (NVIDIA/JAX-Toolbox#183: the container's /dev/shm too small) names no one. Contrasts: mpirun's
``process rank 0 ... exited on signal 11`` (or ``signal 7``) after the block names rank 0 (segfault, sigbus);
horovodrun's ``Process 2 exit with status code 139.`` after the tagged block names rank 2 (segfault); the agent's
``failed (exitcode: -7) local_rank: 3`` after the gdb session names rank 3 (sigbus); faulthandler's ``Fatal Python
error: Bus error`` before it is an unranked SIGBUS. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 5, 30, tzinfo=dt.timezone.utc)

OMPI_SIGNAL_BLOCK = corpus_lines("horovod-585-")
TAGGED_SIGNAL_BLOCK = corpus_lines("horovod-1197-")
GDB_SIGBUS = corpus_lines("JAX-Toolbox-183-")

#: the block with mpirun's own verdict after it (the line the excerpt cut): rank 0 exited on signal 11
OMPI_MPIRUN_RANK0 = OMPI_SIGNAL_BLOCK + [
    "mpirun noticed that process rank 0 with PID 12252 on node HOST exited on signal 11 (Segmentation fault)."
]
#: the same verdict worded as a bus error
OMPI_MPIRUN_RANK0_SIGBUS = OMPI_SIGNAL_BLOCK + [
    "mpirun noticed that process rank 0 with PID 12252 on node HOST exited on signal 7 (Bus error)."
]
#: horovodrun's own exit report of the tagged process after its block
TAGGED_PROCESS_EXIT = TAGGED_SIGNAL_BLOCK + ["Process 2 exit with status code 139."]
#: the tagged block renumbered to rank 5
TAGGED_RANK5 = [line.replace("[1,2]", "[1,5]") for line in TAGGED_SIGNAL_BLOCK]
#: horovodrun's tag on the shell's one-line report alone
TAGGED_CORE_DUMPED = ["[1,2]<stderr>:Segmentation fault (core dumped)"]
#: the elastic agent's report of the process after the gdb session
GDB_AGENT_RANK3 = GDB_SIGBUS + [
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 3 (pid: 3925) of binary: "
    "/usr/bin/python"
]
#: faulthandler's line before the gdb session
GDB_FATAL_BUS = ["Fatal Python error: Bus error"] + GDB_SIGBUS

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ompi-signal-block-as-pasted": (OMPI_SIGNAL_BLOCK, None, None, None, None),
    "ompi-signal-block-eight-gpus": (OMPI_SIGNAL_BLOCK, 8, 8, None, None),
    "tagged-signal-block-as-pasted": (TAGGED_SIGNAL_BLOCK, None, None, None, None),
    "tagged-signal-block-eight-ranks": (TAGGED_SIGNAL_BLOCK, 8, 8, None, None),
    "gdb-sigbus-as-pasted": (GDB_SIGBUS, None, None, None, None),
    "gdb-sigbus-eight-gpus": (GDB_SIGBUS, 8, 8, None, None),
    # contrasts
    "ompi-mpirun-rank0-names-rank0": (OMPI_MPIRUN_RANK0, 8, 8, 0, "segfault"),
    "ompi-mpirun-rank0-bus-error-names-rank0": (
        OMPI_MPIRUN_RANK0_SIGBUS,
        8,
        8,
        0,
        "sigbus",
    ),
    "tagged-process-exit-139-names-rank2": (TAGGED_PROCESS_EXIT, 8, 8, 2, "segfault"),
    "tagged-rank5-names-none": (TAGGED_RANK5, 8, 8, None, None),
    "tagged-core-dumped-names-none": (TAGGED_CORE_DUMPED, 8, 8, None, None),
    "gdb-agent-local-rank3-names-rank3": (GDB_AGENT_RANK3, 8, 8, 3, "sigbus"),
    "gdb-fatal-bus-names-none": (GDB_FATAL_BUS, 8, 8, None, None),
}
BATCHED = Batched("b294", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_native_crash_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_signal_blocks_and_gdb_session_are_no_failure(tmp_path):
    """Open MPI's signal-handler block (untagged or under horovodrun's ``[1,2]<stderr>:``) and a gdb session's
    ``received signal SIGBUS`` are not read as a crash at all, not even one of no rank."""
    assert _failures(OMPI_SIGNAL_BLOCK, tmp_path / "a", 8) == []
    assert _failures(TAGGED_SIGNAL_BLOCK, tmp_path / "b", 8) == []
    assert _failures(GDB_SIGBUS, tmp_path / "c", 8) == []


def test_fatal_python_bus_error_is_a_sigbus_of_no_rank(tmp_path):
    """faulthandler's ``Fatal Python error: Bus error`` before the gdb session reads as a SIGBUS crash (warning) of no
    rank."""
    assert _failures(GDB_FATAL_BUS, tmp_path, 8) == [("warning", "sigbus", [])]
