"""Multi-process cryo-EM refinement under MPI (real incidents batch 206): their wordings, pinned as read.
Held culprits: mpirun's ``process rank 1 with PID 28325 on node ribos21l exited on signal 11 (Segmentation fault)``
after RELION's progress line glued to Open MPI's dashed rule (3dem/relion#194: rank 1, segfault; also unglued and in
a layout of 4), and ``process rank 44 ... exited on signal 9 (Killed)`` with slurmstepd's ``Detected 1 oom-kill
event(s)`` (3dem/relion#867: rank 44, host-oom-kill; also in a world of 50, without the Slurm line, and with it
first). Held controls: ``MPI_ABORT was invoked on rank 8`` followed by ``7 more processes have sent help message
help-mpi-api.txt / mpi-abort`` (3dem/relion#951: a setting every follower fails alike; also in a world of 9 and with
``1 more process`` in a world of 3), MPICH's ``application called MPI_Abort(MPI_COMM_WORLD, 1) - process 0`` after
``at least 2 MPI processes are required`` (3dem/relion#259: a one-process world; also in layouts of 1 and 3), and
MPICH's nemesis TCP assertion with ``internal ABORT - process 4`` (3dem/relion#672: several jobs on several nodes at
once; also in layouts of 5 and 8 x 2) name no one. Contrast: the same MPI_ABORT notice for rank 8 without the
aggregated ``more processes`` line names rank 8 (abort). No rule changed for the batch (all five met as collected).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


SEGV = corpus_lines("relion-194-")
OOM = corpus_lines("relion-867-")
ABORT = corpus_lines("relion-951-")
ONE = corpus_lines("relion-259-")
NEMESIS = corpus_lines("relion-672-")

#: relion-194's progress line split from Open MPI's dashed rule it was glued to
_BAR = '~~(,_,">'
SEGV_UNGLUED = [SEGV[0], SEGV[1].split(_BAR)[0] + _BAR, SEGV[1].split(_BAR)[1], SEGV[2]]
#: relion-951's notice with one aggregated abort instead of seven
ABORT_ONE_MORE = ABORT[:-2] + [
    ABORT[-2].replace("7 more processes have", "1 more process has"),
    ABORT[-1],
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # relion-194's shape: mpirun's signal-11 report for one rank
    "mpirun-rank1-sigsegv-as-pasted": (SEGV, None, None, 1, "segfault"),
    "mpirun-rank1-sigsegv-layout-4": (SEGV, 4, 4, 1, "segfault"),
    "mpirun-rank1-sigsegv-unglued": (SEGV_UNGLUED, 4, 4, 1, "segfault"),
    # relion-867's shape: mpirun's signal-9 report and Slurm's cgroup OOM kill
    "mpirun-rank44-sigkill-slurm-oom-as-pasted": (OOM, None, None, 44, "host-oom-kill"),
    "mpirun-rank44-sigkill-slurm-oom-world-50": (OOM, None, 50, 44, "host-oom-kill"),
    "mpirun-rank44-sigkill-no-slurm-line": (OOM[:-1], None, 50, 44, "host-oom-kill"),
    "mpirun-rank44-sigkill-slurm-line-first": (
        [OOM[-1]] + OOM[:-1],
        None,
        50,
        44,
        "host-oom-kill",
    ),
    # relion-951's shape: one MPI_ABORT notice and the aggregated others
    "mpi-abort-rank8-seven-more-as-pasted": (ABORT, None, None, None, None),
    "mpi-abort-rank8-seven-more-layout-9": (ABORT, 9, 9, None, None),
    "mpi-abort-one-more-layout-3": (ABORT_ONE_MORE, 3, 3, None, None),
    # relion-259's shape: a one-process MPI world aborting its start-up check
    "mpich-abort-process0-as-pasted": (ONE, None, None, None, None),
    "mpich-abort-process0-layout-1": (ONE, 1, 1, None, None),
    "mpich-abort-process0-layout-3": (ONE, 3, 3, None, None),
    # relion-672's shape: MPICH's nemesis TCP assertion, several jobs at once
    "nemesis-internal-abort-process4-as-pasted": (NEMESIS, None, None, None, None),
    "nemesis-internal-abort-process4-layout-5": (NEMESIS, 5, 5, None, None),
    "nemesis-internal-abort-process4-layout-8x2": (NEMESIS, 8, 16, None, None),
    # contrast: the MPI_ABORT notice alone, no aggregated others
    "mpi-abort-rank8-alone-contrast": (ABORT[:-2], 9, 9, 8, "abort"),
}
BATCHED = Batched("b206", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cryo_em_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
