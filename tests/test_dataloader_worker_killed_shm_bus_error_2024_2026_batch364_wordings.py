"""A DataLoader worker killed (shared memory, bus error, host RAM), 2024-2026 (real incidents batch 364), pinned as read.
Three controls, collected blind, all read right as collected: an unranked main-process traceback ending
``RuntimeError: DataLoader worker (pid 52) is killed by signal: Bus error. It is possible that dataloader's workers are
out of shared memory`` (codalab/codalab-worksheets#3742: the container's /dev/shm, "We need to make the shared memory
configurable") is a warning sigbus of no rank; an unranked, unindented traceback ending ``RuntimeError: DataLoader worker
(pid 108439) is killed by signal: Killed.`` on 8 A800s (Visual-AI/3DRS#7: host RAM OOM, the maintainer's answer and a
same-error ``oom_kill event`` confirming it) is a warning host-oom-kill of no rank; a tqdm line and PyTorch's lone
``ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).`` on an
A100*8 node (mosaicml/streaming#493: the container's shm, per the maintainer) is no finding at all (since session 59 a
warning sigbus of no rank, as the main process's untagged line). Scored 3/3 both ways
as collected; no rule changed (measure only). Each reads alike as pasted and laid out as the threads say (one node of
4 or 8), and with its indentation turned to tabs. Contrasts: the worker line tagged by one rank (``[rank3]:`` /
``[rank5]:``) names that rank with the same cause; the same traceback from every rank names no one; another rank's own
Python exception after the untagged bus error names that rank (python-exception); a worker's ``killed by signal: Bus
error`` traceback after the lone ``Unexpected bus error`` line is a sigbus of no rank. The gap pinned here until session
59 (the ``ERROR: Unexpected bus error encountered in worker`` line alone not read even when a rank tags it) is closed:
the line is that worker's death (tests/test_wrapped_failure_wordings.py). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

SHM_BUS = corpus_lines("codalab-worksheets-3742-")
HOST_RAM_KILL = corpus_lines("3drs-7-")
SHM_ONE_LINE = corpus_lines("streaming-493-")


def _tagged(lines: list[str], rank: int) -> list[str]:
    """``lines`` as torchrun (2.4+) prefixes one rank's output."""
    return [f"[rank{rank}]: {line}" for line in lines]


def _every_rank(lines: list[str], world: int) -> list[str]:
    """Every rank's copy of ``lines``, one after another."""
    return [line for rank in range(world) for line in _tagged(lines, rank)]


#: the traceback's indentation turned to tabs (a copy through another terminal)
SHM_BUS_TABS = [line.replace("  ", "\t") for line in SHM_BUS]
#: rank 1's own exception after the untagged bus error
SHM_BUS_THEN_RANK1_RAISES = SHM_BUS + [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "train.py", line 10, in <module>',
    "[rank1]: ValueError: bad batch",
]
#: the lone line followed by the main process's own report of the worker's SIGBUS, untagged
SHM_ONE_LINE_THEN_WORKER_BUS = SHM_ONE_LINE + [
    "Traceback (most recent call last):",
    '  File "train.py", line 10, in <module>',
    "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers"
    " are out of shared memory. Please try to raise your shared memory limit.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "shm-bus-as-pasted": (SHM_BUS, None, None, None, None),
    "shm-bus-four-gpus": (SHM_BUS, 4, 4, None, None),
    "shm-bus-eight-gpus": (SHM_BUS, 8, 8, None, None),
    "host-ram-kill-as-pasted": (HOST_RAM_KILL, None, None, None, None),
    "host-ram-kill-eight-a800": (HOST_RAM_KILL, 8, 8, None, None),
    "shm-one-line-as-pasted": (SHM_ONE_LINE, None, None, None, None),
    "shm-one-line-eight-a100": (SHM_ONE_LINE, 8, 8, None, None),
    # variants that must not change the reading
    "shm-bus-tabs": (SHM_BUS_TABS, None, None, None, None),
    "shm-one-line-eight-copies": (SHM_ONE_LINE[:1] + SHM_ONE_LINE[1:] * 8, 8, 8, None, None),
    "shm-bus-every-rank-names-none": (_every_rank(SHM_BUS, 4), 4, 4, None, None),
    "host-ram-kill-every-rank-names-none": (_every_rank(HOST_RAM_KILL, 8), 8, 8, None, None),
    "shm-one-line-then-worker-bus-names-none": (SHM_ONE_LINE_THEN_WORKER_BUS, 8, 8, None, None),
    # contrasts
    "shm-bus-rank3-names-rank3": (_tagged(SHM_BUS, 3), 4, 4, 3, "sigbus"),
    "host-ram-kill-rank5-names-rank5": (_tagged(HOST_RAM_KILL, 5), 8, 8, 5, "host-oom-kill"),
    "shm-bus-then-rank1-raises-names-rank1": (SHM_BUS_THEN_RANK1_RAISES, 4, 4, 1, "python-exception"),
}
BATCHED = Batched("b364", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_dataloader_worker_killed_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


@pytest.mark.parametrize(
    ("lines", "cause"),
    [(SHM_BUS, "sigbus"), (HOST_RAM_KILL, "host-oom-kill")],
    ids=["shm-bus", "host-ram-kill"],
)
def test_unranked_worker_death_is_a_warning_of_no_rank(lines, cause, tmp_path):
    """An unranked ``DataLoader worker (pid N) is killed by signal: …`` line is the job's failure, said at warning with
    the signal's cause (Bus error: sigbus; Killed: host-oom-kill) and no rank, as pasted or as one node of 8 — and
    nothing else is found."""
    for folder, nproc in ((tmp_path / "a", None), (tmp_path / "b", 8)):
        assert _failures(lines, folder, nproc, nproc) == [("rank-failure", "warning", cause, [])]


def test_every_rank_alike_is_still_a_warning_of_no_rank(tmp_path):
    """Every rank's copy of the worker's bus error: one failure of no rank (common mode), same cause."""
    assert _failures(_every_rank(SHM_BUS, 4), tmp_path, 4, 4) == [("rank-failure", "warning", "sigbus", [])]


def test_unexpected_bus_error_line_alone_is_the_worker_death(tmp_path):
    """PyTorch's worker-side line ``ERROR: Unexpected bus error encountered in worker. This might be caused by
    insufficient shared memory (shm).`` is read as the worker's death the main process's ``DataLoader worker (pid N) is
    killed by signal: Bus error`` reports (session 59; no finding before), tagged by one rank that rank's; untagged it
    stays no finding: a loader subprocess died, and nothing says the training process went with it (ray#34194's worker
    printed on after its segfault)."""
    assert _failures(SHM_ONE_LINE, tmp_path / "a", None, None) == []
    assert _failures(_tagged(SHM_ONE_LINE, 2), tmp_path / "b", 8, 8) == [("rank-failure", "warning", "sigbus", [2])]
