"""Open MPI's two wordings of a process's fatal signal (real incidents batch 52, the Open MPI users/devel archive):
mpirun's ``process rank N with PID P on node H exited on signal S (Name).`` cut in two where a mail or a terminal
wrapped it (parsers/log_cut_wordings.py), and the process's own signal handler, ``[host:pid] Signal: Name (S)``
(parsers/log_failures.py, kind ``native_signal``: queries/_incident.sql ``signal_alike`` counts the processes).
Each wording variant is a case; the shapes that must stay as they are are cases too.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from k10s_forensics.parsers.log_paste import repair_paste

NOTICED = "mpirun noticed that process rank 6 with PID 25353 on node hpc1 exited on signal 11 (Segmentation fault)."
LONG_HOST = "mpirun noticed that process rank 3 with PID 25433 on node compute-0-7.local exited on signal 11 (Segmentation fault)."
ORTERUN = "orterun noticed that process rank 14 with PID 4257 on node compute-0-2.local exited on signal 9 (Killed)."


def _cut(line: str, after: str) -> list[str]:
    """``line`` cut after ``after``, the space the cut fell on dropped (a mail's wrap)."""
    at = line.index(after) + len(after)
    return [line[:at].rstrip(" "), line[at:].lstrip(" ")]


@pytest.mark.parametrize(("line", "after"), [
    (NOTICED, "on node hpc1"),  # users/2009/03/8294: wrapped after the host
    (NOTICED, "exited on"),  # users/2012/04/19026: wrapped before "signal 11"
    (LONG_HOST, "on node"),  # users/2009/10/10843: the host on the next line
    (LONG_HOST, "with PID"),
    (ORTERUN, "rank 14"),
    (ORTERUN, "exited"),
])
def test_mpirun_notice_cut_in_two_is_one_line_again(line, after):
    lines, note = rejoin_cut_wordings(["--------------", *_cut(line, after), "--------------"])
    assert note == "a known wording cut in two (1 lines joined)"
    assert lines == ["--------------", line, "--------------"]
    assert P.MPI_NOTICED.search(lines[1])


def test_pieces_a_console_padded_to_its_width_are_joined_without_the_padding():
    head, tail = _cut(NOTICED, "exited on")
    lines, note = rejoin_cut_wordings([head.ljust(100), tail.ljust(100)])
    assert note and [ln.rstrip() for ln in lines] == [NOTICED]


@pytest.mark.parametrize("lines", [
    [NOTICED, "--------------------------------------------------------------------------"],  # whole: nothing to join
    ["mpirun noticed that process rank 6 with PID 25353 on node hpc1", "    exited on signal 11"],  # indented further
    ["mpirun noticed that process rank 6 with PID 25353 on node hpc1", "Any idea what could be wrong here?"],  # no signal
])
def test_lines_that_do_not_complete_the_notice_stay_apart(lines):
    assert rejoin_cut_wordings(lines) == (lines, None)


def test_a_quoted_mail_with_the_notice_wrapped_reads_as_one_notice():
    pasted = "\n".join(["> [hpc1:25353] *** End of error message ***", "> " + "-" * 74,
                        "> mpirun noticed that process rank 6 with PID 25353 on node hpc1",
                        "> exited on signal 11 (Segmentation fault).", "> " + "-" * 74])
    text = repair_paste(pasted).text
    assert NOTICED in text.split("\n")
    [event] = classify(NOTICED)
    assert (event["kind"], event["subkind"], event["rank"], event["pid"], event["exit_code"]) == ("process_exit", "mpirun_noticed", 6, 25353, -11)


@pytest.mark.parametrize(("line", "host", "pid", "code", "message"), [
    ("[compute-0-7:25433] Signal: Bus error (7)", "compute-0-7", 25433, -7, "Bus error (7)"),
    ("[hpc1:25353] Signal: Segmentation fault (11)", "hpc1", 25353, -11, "Segmentation fault (11)"),
    ("> [hpc1:25353] Signal: Segmentation fault (11)", "hpc1", 25353, -11, "Segmentation fault (11)"),  # still quoted
    # the handler's four lines joined into one by a mail (devel/2013/09/12847)
    ("[compute-0-4:04752] *** Process received signal *** [compute-0-4:04752] Signal: Segmentation fault (11) "
     "[compute-0-4:04752] Signal code: Address not mapped (1) [compute-0-4:04752] Failing at address: 0x28",
     "compute-0-4", 4752, -11, "Segmentation fault (11)"),
    ("[gpu-node.cluster.local:9] Signal: Aborted (6)", "gpu-node.cluster.local", 9, -6, "Aborted (6)"),
    ("[n1:77] Signal: Floating point exception (8)", "n1", 77, -8, "Floating point exception (8)"),
])
def test_open_mpi_signal_handler_line_is_the_process_signal(line, host, pid, code, message):
    [event] = classify(line)
    assert event["kind"] == "native_signal" and event["subkind"] == "ompi"
    assert (event["nccl_host"], event["pid"], event["exit_code"], event["error_message"]) == (host, pid, code, message)
    assert event["rank"] is None  # the handler names a process, never a rank


@pytest.mark.parametrize("line", [
    "[compute-0-7:25433] Signal code:  (2)",  # the code, not the signal
    "[compute-0-7:25433] *** Process received signal ***",
    "[compute-0-7:25433] Failing at address: 0x4217b8",
    "Signal: Segmentation fault (11)",  # no process
    "[rank0]: Signal: a user's message (3)",  # a rank tag, no host:pid
])
def test_other_handler_lines_are_no_signal(line):
    assert not [e for e in classify(line) if e["kind"] == "native_signal"]
