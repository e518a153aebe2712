"""Open MPI's ``MPI_Abort`` reports read as the calling rank's abort, and its help-message count as that many aborts
(real incidents batch 54; parsers/log_ompi.py, queries/_incident.sql ``signal_alike``, docs/parsers-logs.md).

``MPI_ABORT was invoked on rank R in communicator C`` is the text Open MPI prints for the process that called
``MPI_Abort`` (the job ends: mpirun kills the rest): ``process_exit`` ``mpi_abort`` of rank R, read as an abort. Open MPI
prints a help text once and counts the others that sent it: ``[host:pid] N more processes have sent help message
help-mpi-api.txt / mpi-abort`` says N + 1 processes aborted alike (``native_signal`` ``ompi_abort``, no rank), so the
rank in the printed text is only the first of several. Other help messages, and prose about MPI_Abort, are neither.
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_ompi import aborts_counted, mpi_abort
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

PREFILTER = re.compile(PREFILTER_EVENT)


@pytest.mark.parametrize("line, rank, message", [
    ("MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD",  # the errorcode wrapped to the next line
     1, "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD"),
    ("MPI_ABORT was invoked on rank 7 in communicator MPI_COMM_WORLD ",  # a trailing blank before the wrap (abinit's log)
     7, "MPI_ABORT was invoked on rank 7 in communicator MPI_COMM_WORLD"),
    ("MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD with errorcode 14.",  # one line
     0, "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD with errorcode 14"),
    ("> MPI_ABORT was invoked on rank 12 in communicator MPI_COMM_WORLD",  # behind a mail's quote
     12, "MPI_ABORT was invoked on rank 12 in communicator MPI_COMM_WORLD"),
    ("MPI_ABORT was invoked on rank 3 in communicator MPI COMMUNICATOR 4 SPLIT FROM 0",  # a split communicator
     3, "MPI_ABORT was invoked on rank 3 in communicator MPI"),
])
def test_mpi_abort_is_the_rank_s_own_abort(line, rank, message):
    assert PREFILTER.search(line)
    ev = mpi_abort(line)
    assert ev is not None and (ev["kind"], ev["subkind"], ev["rank"], ev["exit_code"]) == ("process_exit", "mpi_abort", rank, -6)
    assert ev["error_message"] == message


def test_the_tag_of_a_tagged_run_does_not_replace_the_aborting_rank():
    (ev,) = classify("[1,2]<stderr>:MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD")
    assert (ev["kind"], ev["subkind"], ev["rank"]) == ("process_exit", "mpi_abort", 2)


@pytest.mark.parametrize("line, host, pid, processes", [
    ("[compute-0-0.local:06030] 7 more processes have sent help message help-mpi-api.txt / mpi-abort",
     "compute-0-0.local", 6030, 8),  # the batch 54 line
    ("[node01:12345] 1 more process has sent help message help-mpi-api.txt / mpi-abort", "node01", 12345, 2),
    ("> [n342:77960] 199 more processes have sent help message help-mpi-api.txt / mpi-abort", "n342", 77960, 200),
])
def test_the_help_count_says_how_many_processes_aborted(line, host, pid, processes):
    assert PREFILTER.search(line)
    ev = aborts_counted(line)
    assert ev is not None and (ev["kind"], ev["subkind"], ev["nranks"], ev["exit_code"]) == ("native_signal", "ompi_abort", processes, -6)
    assert (ev["nccl_host"], ev["pid"]) == (host, pid)
    (classified,) = classify(line)
    assert classified["rank"] is None and classified["nranks"] == processes


@pytest.mark.parametrize("line", [
    "[vic20:04339] 3 more processes have sent help message help-mpi-btl-openib.txt / no active ports found",
    "[host:1] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages",
    "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.",
    "So I tried to use MPI_Abort(), and observed two different behaviors",
    "MPI_ABORT was invoked on rank",  # cut before the rank's number
])
def test_other_help_messages_and_prose_are_not_aborts(line):
    assert mpi_abort(line) is None and aborts_counted(line) is None
