"""nccl-tests' own failure line printed alike on two or more hosts is common mode (docs/rules.md, "Session 69: named
controls"): nccl-tests prints ``HOST: Test NCCL failure FILE.cu:LINE 'message'`` once per failing process
(parsers/log_nccl_tests.py: a ``nccl_test_failure`` event with the host); the same NCCL result that a process's own
calls return (``unhandled cuda error``, ``invalid usage``, ``invalid argument``) on two or more hosts, beside nothing
but launchers' exit reports, is the build, settings and stack every host shares, so Open MPI's first exit among them
names no one (NVIDIA/nccl-tests#322, a corpus control, as pasted).

Contrasts that keep naming the launcher's first exit: one host's processes alike (that host's: nccl-tests-219's shape,
the culprit there is the host's ranks), a peer's loss (``unhandled system error``: every survivor of one host's fault
prints it), two hosts' different messages, and a rank's own exception beside the lines (its own path). The contrasts
are synthetic variations (marked) of the real paste's lines. Pasted logs through ``k10s import-logs``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import assert_one_rank, pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 7, 3, 0, tzinfo=dt.timezone.utc)

#: NVIDIA/nccl-tests#322 as the corpus holds it: six hosts' `Test NCCL failure common.cu:1204 'unhandled cuda error …'`,
#: then Open MPI's `The first process to do so was: Process name: [[44912,1],251]`
SIX_HOSTS = corpus_lines("nccl-tests-322-")
_FAILURES = [line for line in SIX_HOSTS if "Test NCCL failure" in line or "Test failure" in line]
_REPORT = SIX_HOSTS[len(_FAILURES):]

#: synthetic: only the first host's lines (HCA-14), twice (two of its processes), before the same first-exit report
ONE_HOST = [_FAILURES[0], _FAILURES[1], _FAILURES[0], _FAILURES[1].replace("1015577", "1015578")] + _REPORT
#: synthetic: two hosts alike, but with NCCL's `unhandled system error` (a peer's loss shows it on every survivor)
TWO_HOSTS_SYSTEM_ERROR = [line.replace("unhandled cuda error", "unhandled system error") for line in _FAILURES[:4]] + _REPORT
#: synthetic: two hosts with different NCCL results
TWO_HOSTS_APART = [_FAILURES[0], _FAILURES[1], _FAILURES[2].replace("unhandled cuda error", "internal error"), _FAILURES[3]] + _REPORT
#: synthetic: the six hosts' lines and a process's own Python exception under Open MPI's tag of rank 251
RANK_OWN_EXCEPTION = _FAILURES + ["[1,251]<stderr>:ValueError: bad buffer size for this rank"] + _REPORT

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    "six-hosts-as-pasted-names-none": (SIX_HOSTS, None, None, None),
    "two-hosts-names-none": (_FAILURES[:4] + _REPORT, None, None, None),
    "one-host-names-first-exit": (ONE_HOST, None, None, 251),
    "two-hosts-system-error-names-first-exit": (TWO_HOSTS_SYSTEM_ERROR, None, None, 251),
    "two-hosts-apart-names-first-exit": (TWO_HOSTS_APART, None, None, 251),
    "rank-own-exception-names-it": (RANK_OWN_EXCEPTION, None, None, 251),
}


@pytest.mark.parametrize("key", list(CASES))
def test_nccl_tests_failure_lines_as_read(key, tmp_path: Path):
    lines, nproc, world, want = CASES[key]
    named = naming_findings(pasted_findings(lines, tmp_path, nproc, world, NOW))
    assert_one_rank(named, want)


def test_the_line_is_an_event_of_its_host():
    """The real line is one ``nccl_test_failure`` event: the host nccl-tests printed, NCCL's result by name and in words
    (its `(run with NCCL_DEBUG=INFO …)` hint and empty last-error ` / ` left out); its follow-up is no event."""
    (ev,) = [e for e in classify(_FAILURES[0]) if e["kind"] == "nccl_test_failure"]
    assert (ev["subkind"], ev["error_message"], ev["nccl_host"]) == ("ncclUnhandledCudaError", "unhandled cuda error", "HCA-14")
    assert not [e for e in classify(_FAILURES[1]) if e["kind"] == "nccl_test_failure"]
    tagged = "[1,5]<stdout>:node-b: Test NCCL failure all_reduce.cu:44 'invalid usage'"  # synthetic, Open MPI's tag
    (ev,) = [e for e in classify(tagged) if e["kind"] == "nccl_test_failure"]
    assert (ev["subkind"], ev["nccl_host"]) == ("ncclInvalidUsage", "node-b")


def test_the_line_through_a_rich_text_editor():
    """Pasted through a rich-text editor (tests/paste_damage.editor_typography) the quote after ` / ` opens (``‘``):
    the same event."""
    from paste_damage import editor_typography

    (ev,) = [e for e in classify(editor_typography(_FAILURES[0])) if e["kind"] == "nccl_test_failure"]
    assert (ev["subkind"], ev["error_message"], ev["nccl_host"]) == ("ncclUnhandledCudaError", "unhandled cuda error", "HCA-14")
