"""What the fifteenth set of real launcher runs (tests/data/torch-runs, ``t15-*``) brought: the exception a
``torch.distributed.rpc`` caller raises when the callee's process ended (TensorPipe's peer-closed wordings:
``eof (this error originated at tensorpipe/transport/…)``) is a peer's teardown, not the caller's own failure
(k10s_forensics/parsers/log_patterns.py ``PY_TEARDOWN``): the SIGKILLed callee is named, not the caller."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_failures import py_exception


@pytest.mark.parametrize("line", [
    # torch 2.13.0 / 2.14.1's rpc_sync to a worker that was SIGKILLed, as recorded (shared-memory transport)
    "RuntimeError: eof (this error originated at tensorpipe/transport/shm/connection_impl.cc:259)",
    # the same over TCP (the uv transport: workers on other hosts)
    "RuntimeError: eof (this error originated at tensorpipe/transport/uv/connection_impl.cc:132)",
    "RuntimeError: ECONNRESET: connection reset by peer (this error originated at tensorpipe/transport/uv/connection_impl.cc:157)",
    "RuntimeError: EPIPE: broken pipe (this error originated at tensorpipe/transport/uv/connection_impl.cc:150)",
    "RuntimeError: pipe closed (this error originated at tensorpipe/core/pipe_impl.cc:356)",
], ids=["shm-eof", "uv-eof", "uv-econnreset", "uv-epipe", "pipe-closed"])
def test_tensorpipe_s_peer_closed_wordings_are_a_teardown(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "teardown", ev


@pytest.mark.parametrize("line", [
    # TensorPipe's own failures (no peer ended): the rank's own
    "RuntimeError: ENOENT: no such file or directory (this error originated at tensorpipe/transport/uv/listener_impl.cc:10)",
    "RuntimeError: EADDRINUSE: address already in use (this error originated at tensorpipe/transport/uv/listener_impl.cc:35)",
    # an exception of the program whose message merely starts alike
    "ValueError: eof in header of shard 3 (this error originated at tensorpipe/x.cc:1)",
], ids=["enoent", "eaddrinuse", "other-message"])
def test_tensorpipe_s_other_errors_stay_the_rank_s_own(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "raised", ev
