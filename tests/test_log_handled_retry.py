"""A logged exception the program says it will retry (``logger.exception("… will retry")``: the record, then the
traceback it logs, written at once) is handled, not the process's end: alone in a process's own file (Azure ML's
``std_log_process_<N>.txt``, where no other rank's training steps follow it) it named the rank in a clean run.
A retry announced seconds before a traceback (the retries ran out), or lines before it, is no such record."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.timezone.utc)
TRACEBACK = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 133, in _push',
             '    raise ConnectionError("metrics push to http://127.0.0.1:9091 refused")',
             "ConnectionError: metrics push to http://127.0.0.1:9091 refused"]


def _named(tmp_path, lines: list[str], stamps: list[str] | None = None) -> list[tuple]:
    body = [f"{stamps[i]} {line}" if stamps else line for i, line in enumerate(lines)]
    files = [LogSource("std_log_process_0.txt", "rank 0 step 1\nrank 0 done\n"),
             LogSource("std_log_process_1.txt", "\n".join(body) + "\n")]
    bundle, _ = import_logs(files, tmp_path / "b", now=NOW)
    return [(f["rule"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"] if f["severity"] in ("critical", "warning") and f["ranks"]]


@pytest.mark.parametrize("record", [
    "2026-11-29 08:27:39,830 ERROR trainer: metrics push failed (attempt 1/3), will retry",
    "2026-11-29 08:27:39,830 - trainer - ERROR - metrics push failed; the batch will be retried",
    "WARNING:trainer:Retrying trainer._push in 2.0 seconds as it raised ConnectionError: refused.",
    "2026-11-29 08:27:39.830 | ERROR    | trainer:_push:131 - metrics push failed, retrying in 2s",
])
def test_a_traceback_logged_with_a_retry_names_no_one(tmp_path, record):
    assert _named(tmp_path, ["rank 1 step 1", record, *TRACEBACK, "rank 1 eval status=ok", "rank 1 done"]) == []


def test_a_retry_record_behind_a_rank_tag(tmp_path):
    lines = ["[default1]:rank 1 step 1", "[default1]:2026-11-29 08:27:39,830 ERROR trainer: push failed, will retry",
             *[f"[default1]:{line}" for line in TRACEBACK], "[default1]:rank 1 done"]
    assert _named(tmp_path, lines) == []


def test_a_traceback_seconds_after_the_retry_was_announced_is_named(tmp_path):
    """tenacity announces the retry, sleeps, and the last attempt's exception is raised: no record above it."""
    lines = ["WARNING:trainer:Retrying trainer._push in 5.0 seconds as it raised ConnectionError: refused.", *TRACEBACK]
    stamps = ["2026-11-29T08:27:34.000000000Z"] + ["2026-11-29T08:27:39.830000000Z"] * len(TRACEBACK)
    named = _named(tmp_path, lines, stamps)
    assert named and all(r == [1] for _, r, _ in named), named


def test_a_traceback_lines_after_the_retry_record_is_named(tmp_path):
    lines = ["ERROR trainer: push failed, will retry", "rank 1 step 2", "rank 1 step 3", "rank 1 step 4", *TRACEBACK]
    named = _named(tmp_path, lines)
    assert named and all(r == [1] for _, r, _ in named), named
