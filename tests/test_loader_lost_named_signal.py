"""A rank that lost its DataLoader worker mid-handover takes the signal its own process named before (session 70,
docs/rules.md "a DataLoader worker's death its rank named before"; queries/_failure_line.sql ``loader_said``).

When a loader worker dies while the rank receives a batch, the rank raises a connection error from the loader's queue
(``ConnectionRefusedError`` under ``_try_get_data``: parsers/log_owners.py's "DataLoader worker lost while handing a
batch over"), read as the loader's own ``killed by signal: Killed`` (``host-oom-kill``) since that error says nothing of
how the worker died. Where the same process said so before (the worker's own handler line, ``ERROR: Unexpected bus
error encountered in worker.``, or the rank's ``... is killed by signal: Bus error.``), that signal is the cause.

The lines are rank 2's own stderr of a recorded run (tests/data/torch-runs/2.13.0/t71-trun-3x2-loader-sigbus-rank2-
step8-train-w2-uncaught-deepspeed-redirects, its --log-dir file), behind a SYNTHETIC ``[default0]:`` prefix (``--tee
3``'s) and its ``[rank2]:`` tag made ``[rank0]:`` (a one-node paste: a paste's untagged lines are placed on node 0), with
marked SYNTHETIC variants: through ``k10s import-logs``, batched.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)
RUN = (Path(__file__).parent / "data" / "torch-runs" / "2.13.0"
       / "t71-trun-3x2-loader-sigbus-rank2-step8-train-w2-uncaught-deepspeed-redirects")
(STDERR,) = [p for p in (RUN / "log-dir").glob("*/attempt_0/0/stderr.log") if "Bus error" in p.read_text("utf-8")]
RANK2 = STDERR.read_text("utf-8").splitlines()
WORKER_LINE = "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."
assert RANK2[1] == WORKER_LINE and RANK2[-1] == "[rank2]: RuntimeError: DataLoader worker (pid(s) 32680) exited unexpectedly"
assert any(line.endswith("ConnectionRefusedError: [Errno 111] Connection refused") for line in RANK2)


IGNORED = RANK2[2:10]  # 2.13.0: the SIGCHLD handler's RuntimeError under `Exception ignored in: <function _releaseLock …>`
assert IGNORED[0].endswith("Exception ignored in: <function _releaseLock at 0x7f538866a5c0>")
assert IGNORED[-1].startswith("RuntimeError: DataLoader worker (pid 32680) is killed by signal: Bus error.")
SAID = [WORKER_LINE, *IGNORED]  # what rank 2's process said of its worker's death, before the lost handover
BEFORE, AFTER = RANK2[:1], RANK2[10:]


def _tee(lines: list[str], said_prefix: str = "[default0]:") -> list[str]:
    """SYNTHETIC: rank 2's lines as rank 0's behind --tee's prefix of local rank 0; what it said of its worker behind
    ``said_prefix``."""
    return [(said_prefix if line in SAID else "[default0]:") + line.replace("[rank2]:", "[rank0]:") for line in lines]


def _signal(handler_words: str, signal_name: str) -> list[str]:
    """SYNTHETIC: the worker's handler line and the kill's signal of another signal (torch's own wordings)."""
    return _tee(BEFORE + [f"ERROR: Unexpected {handler_words} encountered in worker."]
                + [line.replace("signal: Bus error.", f"signal: {signal_name}.") for line in IGNORED] + AFTER)


#: key: (lines, nproc, world, the rank named, the cause of its finding)
CASES = {
    # the worker's own bus error, the handler's kill report, or both, above the rank's lost handover: sigbus
    "t71-rank2-as-printed": (_tee(RANK2), 2, 2, 0, "sigbus"),
    "t71-rank2-worker-line-only": (_tee(BEFORE + [WORKER_LINE] + AFTER), 2, 2, 0, "sigbus"),
    "t71-rank2-ignored-kill-only": (_tee(BEFORE + IGNORED + AFTER), 2, 2, 0, "sigbus"),
    "synthetic-segmentation-fault": (_signal("segmentation fault", "Segmentation fault"), 2, 2, 0, "segfault"),
    "synthetic-floating-point-exception": (_signal("floating point exception", "Floating point exception"), 2, 2, 0, "sigfpe"),
    # contrasts: no word of the worker's death before it (a SIGKILL says nothing): host-oom-kill, as before
    "synthetic-nothing-said": (_tee(BEFORE + AFTER), 2, 2, 0, "host-oom-kill"),
    # another process's worker (local rank 1's prefix): not this rank's
    "synthetic-other-process-said": (_tee(RANK2, "[default1]:"), 2, 2, 0, "host-oom-kill"),
}
BATCHED = Batched("loader-lost-named-signal", list(CASES))
MAKE = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_lost_loader_worker_takes_the_signal_its_process_named(key, tmp_path_factory):
    *_, rank, cause = CASES[key]
    findings = BATCHED.findings(key, tmp_path_factory, MAKE)
    assert_one_rank(naming_findings(findings), rank, cause)
    named = [f for f in naming_findings(findings) if f["rule"] == "rank-failure"]
    assert named and all(f["cause"] == cause for f in named), [(f["rule"], f["cause"]) for f in named]


@pytest.mark.parametrize("key", [k for k, v in CASES.items() if v[4] != "host-oom-kill"])
def test_its_summary_says_the_rank_lost_its_worker_to_that_signal(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, MAKE)
    (failure,) = [f for f in findings if f["rule"] == "rank-failure" and f["ranks"] == [0]]
    assert "lost a DataLoader worker to " in failure["summary"] and "(exit -" not in failure["summary"], failure["summary"]
