"""Cray MPICH's report of a rank's fatal MPI error (parsers/log_mpich.py, real incidents batch 57): ``MPICH ERROR [Rank N]
[job id …] [date] [node] - Abort(code) (rank N in comm C): Fatal error in PMPI_X: Other MPI error, error stack:`` is rank
N's own communication-library failure (``nccl-error``); the other error classes and the program's own ``MPI_Abort`` are
not read by it. And Slurm's and MPICH's own lines start a record of their own: two long lines of one width above them
are no terminal's cut (parsers/log_unwrap.py).
"""

from __future__ import annotations

import datetime as dt
import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from incident_kit import named_in_paste
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_mpich import mpich_fatal
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT
from k10s_forensics.parsers.log_unwrap import unwrap

NOW = dt.datetime(2026, 11, 30, 3, 0, tzinfo=dt.timezone.utc)
HEAD = "MPICH ERROR [Rank {r}] [job id 4242.0] [Mon Nov 30 02:58:01 2026] {extra}[nid000{n}] - Abort(404347151) (rank {r} in comm 0): "
OTHER = "Fatal error in {op}: Other MPI error, error stack:"


def _line(rank: int, op: str = "PMPI_Send", extra: str = "", tail: str | None = None) -> str:
    return HEAD.format(r=rank, n=100 + rank, extra=extra) + (tail if tail is not None else OTHER.format(op=op))


@pytest.mark.parametrize(("line", "rank", "op"), [
    (_line(5), 5, "PMPI_Send"),
    (_line(0, "PMPI_Gatherv"), 0, "PMPI_Gatherv"),
    (_line(1534, "PMPI_Isend", extra="[unknown] "), 1534, "PMPI_Isend"),  # a field more before the node
    ("3: " + _line(3, "PMPI_Waitall"), 3, "PMPI_Waitall"),  # srun --label in front
    (_line(7).replace(" (rank 7 in comm 0)", ""), 7, "PMPI_Send"),  # no communicator rank
])
def test_other_mpi_error_is_the_ranks_own_communication_failure(line, rank, op):
    ev = mpich_fatal(line)
    assert ev == {"kind": "nccl_error_other", "subkind": "mpich_other", "rank": rank, "error_message": f"Fatal error in {op}: Other MPI error"}
    assert [(e["kind"], e["subkind"], e["rank"]) for e in classify(line)] == [("nccl_error_other", "mpich_other", rank)]


@pytest.mark.parametrize("line", [
    _line(0, tail="Fatal error in PMPI_Waitall: Invalid count, error stack:"),  # a program's misuse: another class
    _line(2, tail="Fatal error in PMPI_Recv: Message truncated, error stack:"),
    "MPICH ERROR [Rank 1800] [job id 2932607.0] [Fri Feb 17 14:38:57 2023] [nid001179] - Abort(1): Internal error",
    "MPICH ERROR [Rank 2047] [job id 57638547.0] [Fri Aug 28 22:45:13 2026] [nid004069] - Abort(1) (rank 2047 in comm 432): "
    "application called MPI_Abort(comm=0xC4000001, 1) - process 2047",  # the program's own abort
    "Fatal error in PMPI_Send: Other MPI error, error stack:",  # the stack's repeat after `aborting job:`: no rank
    "MPIDI_OFI_handle_cq_error(1059): OFI poll failed (ofi_events.c:1061:MPIDI_OFI_handle_cq_error:Input/output error)",
])
def test_lines_this_reading_leaves(line):
    assert mpich_fatal(line) is None
    assert not [e for e in classify(line) if e.get("subkind") == "mpich_other"]


@pytest.mark.parametrize("line", [_line(5), _line(1534, "PMPI_Isend", extra="[unknown] ")])
def test_the_prefilter_lets_the_wording_through(line):
    """In both engines that read it: Python's re and pyarrow's RE2 (the bulk scan, parsers/logs.py)."""
    assert re.search(PREFILTER_EVENT, line)
    assert pc.match_substring_regex(pa.array([line]), PREFILTER_EVENT).to_pylist() == [True]


def _srun_job(rank: int, world: int, op: str = "PMPI_Send") -> list[str]:
    node = {r: f"nid00{1096 + r % 2}" for r in range(world)}
    others = [r for r in range(world) if r != rank]
    return ["step 120: reading input", _line(rank, op), "PMPI_Send(163)........: MPI_Send(buf=0x2857bb8, count=1, dest=0) failed",
            "MPIDI_OFI_send_lightweight(34): OFI tagged injectdata failed (ofi_send.h:34:MPIDI_OFI_send_lightweight:Invalid argument)",
            "", "aborting job:", OTHER.format(op=op),
            f"srun: error: {node[rank]}: task {rank}: Exited with exit code 255",
            "srun: Terminating StepId=4242.0",
            "slurmstepd: error: *** STEP 4242.0 ON nid001096 CANCELLED AT 2026-11-30T02:58:01 ***",
            *(f"srun: error: {node[r]}: task {r}: Terminated" for r in others)]


@pytest.mark.parametrize(("rank", "world"), [(5, 6), (0, 4), (2, 4)])
def test_an_srun_job_names_the_rank_mpich_aborted_from(tmp_path, rank, world):
    assert named_in_paste(tmp_path, "\n".join(_srun_job(rank, world)) + "\n", 2, world, NOW) == [("rank-failure", "nccl-error", [rank])]


LONG = " io_utils::check_validity:: reading boundary data from file /scratch/run/input/lbc_{}.nc for date: 2020-12-10T0{}:00:00.000"


@pytest.mark.parametrize("record", [
    "MPICH ERROR [Rank 5] [job id 1.0] [Tue Dec 12 17:52:24 2023] [nid001097] - Abort(1) (rank 5 in comm 0): Fatal error in PMPI_Send",
    "srun: error: nid001097: task 5: Exited with exit code 255",
    "slurmstepd: error: *** STEP 40341.0 ON nid001096 CANCELLED AT 2023-12-12T17:52:24 ***",
    "salloc: Job 24928305 has exceeded its time limit and its allocation has been revoked.",
])
def test_slurm_and_mpich_lines_are_no_wrapped_tail(record):
    """Two lines of one length (one message printed twice) above such lines are not a terminal's cut rows."""
    a, b = LONG.format("0000", 6), LONG.format("0300", 9)
    assert len(a) == len(b)
    lines = [a, record, "other output", b, record, "done"]
    assert unwrap(lines) == (lines, None)


def test_a_row_cut_at_the_width_still_joins():
    """A terminal's cut rows are still joined where the tail starts no record (the rule's other side)."""
    width = 60
    rows = ["x" * width, "tail of the first row", "y" * width, "tail of the second row", "srun: error: n1: task 0: Exited with exit code 1"]
    out, note = unwrap(rows)
    assert note is not None and out == ["x" * width + "tail of the first row", "y" * width + "tail of the second row", rows[-1]]
