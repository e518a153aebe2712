"""Exceptions whose class name ends in capitals before ``Error`` (``OSError``, ``BlockingIOError``, ``EOFError``,
``urllib.error.HTTPError``): the classifier read them, but the prefilter DuckDB runs over every line passed only a
lowercase letter before ``Error``, so they never reached it; a private class (``torch._C._LinAlgError``, the name
torch.linalg's errors print) the classifier did not read. Where no launcher reported the process's end (Azure ML's
per-process files, W&B's ``output.log``), the rank that raised one was named by nobody, or for a peer's teardown."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers import log_prefilter as PF

NOW = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.timezone.utc)
PEER = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:23181."


@pytest.mark.parametrize("line", ["OSError: [Errno 22] Invalid argument", "BlockingIOError: [Errno 11] Resource temporarily unavailable",
                                  "EOFError", "urllib.error.HTTPError: HTTP Error 404: Not Found",
                                  "torch._C._LinAlgError: linalg.inv: The diagonal element 1 is zero", "[rank2]: IOError: disk quota exceeded"])
def test_the_prefilter_passes_exceptions_named_in_capitals(line):
    assert re.search(PF.PREFILTER_EVENT, line)


@pytest.mark.parametrize("error", ["OSError: [Errno 22] Invalid argument", "BlockingIOError: [Errno 11] Resource temporarily unavailable",
                                   "torch._C._LinAlgError: linalg.inv: The diagonal element 1 is zero"])
def test_the_process_that_raised_it_is_named(tmp_path, error):
    tb = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 111, in _load', "    next(iter(loader))"]
    files = [LogSource(f"std_log_process_{r}.txt", "\n".join(["step 1", *tb, error if r == 2 else PEER]) + "\n") for r in range(4)]
    bundle, _ = import_logs(files, tmp_path / "b", now=NOW)
    named = [(f["ranks"], f["cause"]) for f in analyze(bundle)["findings"] if f["severity"] in ("critical", "warning") and f["ranks"]]
    assert named and all(r == [2] for r, _ in named), named
    assert ([2], "python-exception") in named
