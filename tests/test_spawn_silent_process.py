"""An mp.spawn node whose process ended without a line of its own (docs/rules.md, "Session 72: mp.spawn's silent
process: which of a node's processes printed nothing is not in the logs").

``ProcessContext.join`` (torch 2.13/2.14 ``spawn.py``) reaps the first child whose sentinel is ready, SIGTERMs the ones
still alive (``Terminating process P via signal SIGTERM``, by pid), joins them all, and only then raises
``ProcessExitedException: process N terminated with exit code K``: every line the node's processes printed is above the
report. Where the node's log holds one teardown traceback (no process named) for two processes, one of them printed
nothing, and the lines cannot say which: t75's SIGKILL run's node 1 (rank 2's gloo timeout, then its spawner's 'process 0
terminated with exit code 1'; rank 3 SIGKILLed, silent, reaped late behind its forked DataLoader workers) and a process
0 that ``sys.exit(1)``-ed silently (reaped first) under its peer's gloo error print the same lines. Naming the reported
process (before session 71) names t75's victim; naming the other names that silent culprit's victim: neither is named.
A report with no traceback above it (its peer SIGTERMed by the spawner, or none printed) stays the reported process's
own exit, named as before.

Synthetic pastes (SYNTHETIC lines in the shape of the recorded runs' tracebacks and torch 2.14's spawn warning, marked so).
"""

from __future__ import annotations

import pytest

from bundle_batch import pasted_findings
from spawn_paste_kit import GLOO as _GLOO, NOW, TIMEOUT as _TIMEOUT, exited as _exited, traceback as _tb

#: SYNTHETIC: torch 2.14's spawn.py warning for a process still alive when another's failure was reaped
_TERM = "W1207 19:49:53.969000 10539 torch/multiprocessing/spawn.py:165] Terminating process 10687 via signal SIGTERM"


def _named(lines: list[str], tmp_path) -> list[tuple]:
    return [(f["ranks"], f["severity"], f.get("confidence")) for f in pasted_findings(lines, tmp_path, 2, 2, NOW)
            if f.get("ranks")]


@pytest.mark.parametrize("lines", [_tb(_TIMEOUT) + _exited(0), _tb(_GLOO) + _exited(0), _tb(_TIMEOUT) + _exited(1),
                                   _tb(_GLOO) + [_TERM] + _exited(0)],
                         ids=["timeout-report0", "closed-report0", "timeout-report1", "closed-terminated-report0"])
def test_one_teardown_for_two_processes_names_neither(tmp_path, lines):
    # the silent one may be the reported process (a silent exit 1 reaped first: the culprit) or the other (t75's
    # SIGKILLed rank 3, reaped late: the reported one a victim); the lines are the same, so no process is named
    assert _named(lines, tmp_path) == []


@pytest.mark.parametrize("lines", [[_TERM] + _exited(0), _exited(0)], ids=["peer-terminated", "report-alone"])
def test_a_report_with_no_traceback_above_it_stays_its_own_exit(tmp_path, lines):
    # nothing above the report says another process failed: the reported process ended first on its own (its peer,
    # alive, SIGTERMed by the spawner; or a lone process): named as before session 71, at medium, never high
    assert _named(lines, tmp_path) == [([0], "warning", "medium")]


def test_a_control_where_both_processes_printed_the_same_teardown_names_no_one(tmp_path):
    # control: every process printed the same teardown (a network loss, no single culprit); each report a victim's
    assert _named(_tb(_TIMEOUT) + _tb(_TIMEOUT) + _exited(0), tmp_path) == []
