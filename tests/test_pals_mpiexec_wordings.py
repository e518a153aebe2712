"""HPE Cray PALS' ``mpiexec`` (Aurora, Polaris, Sunspot; real incidents batch 34, ezpz-210) on each process
of the job that ended, in the order it saw them: ``x4512c5s2b0n0: rank 6 exited with code 1`` (an exit
status), ``rank 0 died from signal 11 and dumped core`` and ``rank 11 died from signal 15`` (a signal). The
number is the process's global (MPI) rank; a paste may drop the host prefix. The first line is the first
process to end; SIGTERM / SIGKILL lines after it are the launcher tearing the job down (the incident's
ordering: ezpz-210 in tests/data/real-incidents names rank 0's SIGSEGV, not rank 4's SIGKILL, end to end).
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_launchers import launcher_report
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT


@pytest.mark.parametrize(("line", "rank", "code", "core"), [
    ("rank 0 died from signal 11 and dumped core", 0, -11, True),
    ("rank 4 died from signal 9", 4, -9, False),
    ("x4512c5s2b0n0: rank 11 died from signal 15", 11, -15, False),
    ("x3200c0s19b1n0.hsn.cm.sirius.alcf.anl.gov: rank 0 exited with code 134", 0, 134, False),
    ("      x4512c5s2b0n0: rank 6 exited with code 1", 6, 1, False),  # indented inside a quoted block
    ("x1921c0s0b0n0: rank 23 died from signal 6 and dumped core", 23, -6, True),
    ("2026-08-10 12:00:01 x1921c0s0b0n0: rank 7 exited with code 255", 7, 255, False),  # a collector's clock before it
])
def test_the_rank_and_how_it_ended(line, rank, code, core):
    ev = launcher_report(line)
    assert (ev["kind"], ev["subkind"], ev["rank"], ev["exit_code"]) == ("process_exit", "pals_mpiexec", rank, code)
    assert ("dumped core" in ev.get("error_message", "")) is core
    assert re.search(PREFILTER_EVENT, line)


@pytest.mark.parametrize("line", [
    "rank 2 exited with code 0",  # a clean exit says nothing
    "frank 3 exited with code 1",  # not a word of its own
    "[rank3]: RuntimeError: child process exited with code 1",  # a rank's own message, not the launcher's
    "Global rank 0 (PID 208865) exited with code -11",  # Composer's launcher (its own event)
])
def test_other_lines_are_not_pals(line):
    ev = launcher_report(line)
    assert ev is None or ev.get("subkind") != "pals_mpiexec"

