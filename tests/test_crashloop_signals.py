"""Session 29 (issue 18): crashloop counts a rank's death by a signal it raised itself. torchrun reports a worker killed by
a signal as a negative exitcode (``exitcode: -11``, ``Signal 11 (SIGSEGV) received by PID …``); the rule counted only exit
codes above 0, so a rank that segfaulted in every restarted container got no crashloop finding (queries/crashloop.sql,
docs/rules.md "Session 29: crashloop counts a rank's own signal"). SIGSEGV, SIGABRT, SIGBUS, SIGFPE and SIGILL count when
no other rank died of the same signal with it; the launcher's teardown (SIGTERM, SIGKILL) never counts, nor does one signal
every rank took together (every rank's SIGABRT after a watchdog timeout). Rule-level cases on hand-built tables, crashloop
alone (the thirty-first launcher set's real restart: tests/test_t31_launcher_shapes.py).
"""

from __future__ import annotations

import pytest

from _analyze_kit import analyze_tables as run
from _analyze_kit import gang, log_row
from _analyze_kit import rule_findings as by_rule


def _attempts(g, codes: dict[int, int]) -> list[dict]:
    """Two attempts of a 4-rank job, five minutes apart, each rank ending with ``codes[rank]`` (torchrun's exitcode), a
    worker-group restart between them."""
    logs = []
    for n, t0 in enumerate((60, 360)):
        logs += [log_row(g, r, "torchrun_failure", t0 + 0.1 * r, exit_code=code, pid=1000 + 100 * n + r) for r, code in codes.items()]
    logs.append(log_row(g, 0, "worker_group_restart", 200, attempts_left=2, attempts_max=3))
    return logs


@pytest.mark.parametrize(("code", "cause"), [(-11, "segfault"), (-6, "abort"), (-7, "sigbus"), (-8, "sigfpe"), (-4, "sigill")])
def test_a_rank_dying_of_its_own_signal_in_every_attempt_is_a_crash_loop(tmp_path, code, cause):
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _attempts(g, {0: -15, 1: -15, 2: code, 3: -15})
    (f,) = by_rule(run(tmp_path, g, ["crashloop"], minutes=10), "crashloop")
    assert (f["ranks"], f["cause"], f["severity"]) == ([2], cause, "critical")
    assert "twice" in f["title"] and "Restarting will not help" in f["recommendation"]


@pytest.mark.parametrize("codes", [
    {0: -15, 1: -15, 2: -9, 3: -15},  # the agent's teardown alone: SIGTERM, then SIGKILL
    {0: -6, 1: -6, 2: -6, 3: -6},  # every rank's SIGABRT together (a watchdog timeout on all): no one rank's
    {0: -11, 1: -11, 2: -15, 3: -15},  # two ranks' segfaults together: no one rank's
], ids=["teardown", "all-abort", "two-segfault"])
def test_no_rank_named_for_signals_it_did_not_raise_alone(tmp_path, codes):
    g = gang(pods=4, per_pod=1)
    g["log_events"] = _attempts(g, codes)
    named = [f for f in by_rule(run(tmp_path, g, ["crashloop"], minutes=10), "crashloop") if f["ranks"]]
    assert named == []
