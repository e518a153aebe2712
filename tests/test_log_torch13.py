"""What the thirteenth set of real launcher runs (tests/data/torch-runs, ``t13-*``) brought: Python's own
``BrokenPipeError: [Errno 32] Broken pipe`` (the rank's write to a pipe whose reader ended) is the rank's own
failure, while c10d's and gloo's socket wordings of a broken pipe stay a peer's teardown
(k10s_forensics/parsers/log_failures.py); gloo's size check (``Received data size doesn't match expected size``)
is a collective-mismatch report of the RECEIVING rank, which names no sender (k10s_forensics/parsers/log_reports.py),
so its SIGABRT is no failure of its own (queries/_incident.sql)."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_reports import reports


@pytest.mark.parametrize("line", [
    "BrokenPipeError: [Errno 32] Broken pipe",  # the recording's: a metrics sink that had ended
    "OSError: [Errno 32] Broken pipe",
    "BrokenPipeError: [Errno 32] Broken pipe: '/run/metrics.fifo'",
], ids=["brokenpipeerror", "oserror", "with-path"])
def test_python_s_own_broken_pipe_is_the_rank_s_failure(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "raised", ev


@pytest.mark.parametrize("line", [
    "torch.distributed.DistNetworkError: sendBytes failed on SocketImpl(fd=3, addr=[::ffff:127.0.0.1]:44998, "
    "remote=[::ffff:127.0.0.1]:56721): Broken pipe",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Write error [10.0.0.2]:4242: Broken pipe",
    "RuntimeError: Broken pipe",
], ids=["c10d-store", "gloo-write", "bare"])
def test_a_socket_s_broken_pipe_stays_a_teardown(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "teardown", ev


@pytest.mark.parametrize("line", [
    # torch 2.13.0 and 2.14.1 (pair.cc:456 / :464), as the C++ runtime prints it before the abort
    "  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length "
    "<= op.nbytes. 8 vs 4. Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?",
    "[default1]:  what():  [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:464] op.preamble.length <= op.nbytes. "
    "16 vs 4. Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?",
], ids=["untagged", "tee-prefixed"])
def test_gloo_s_size_check_is_a_mismatch_report_naming_no_sender(line):
    assert reports(line) == [{"kind": "collective_mismatch", "subkind": "gloo_size"}]


def test_other_gloo_enforce_failures_are_no_mismatch_report():
    assert reports("  what():  [enforce fail at ../gloo/transport/tcp/pair.cc:333] op.nbytes > 0. 0 vs 0") == []


def test_the_receiver_gloo_aborted_is_not_named(tmp_path):
    """The recording (2.13.0, no --tee: the C++ runtime's lines are untagged): rank 0 aborted on gloo's size check,
    rank 1 sent the float64 gradient. Before, rank 0 was named (abort); the sender is in no line, so none is."""
    from torch_runs_kit import RUNS, findings_of_texts, named, plain

    run = RUNS / "2.13.0" / "t13-trun-dtype-mismatch-rank1"
    texts = [plain((run / f"node{i}.log").read_text(encoding="utf-8")) for i in (0, 1)]
    assert "Received data size doesn't match expected size" in texts[0]
    assert named(findings_of_texts(tmp_path, texts)) == []
