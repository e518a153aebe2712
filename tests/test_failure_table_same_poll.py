"""Session 52: a failure-table entry's whole-second ``time`` and the agent's poll. torch elastic's agent logs one
``failed (exitcode: N) local_rank: L (pid: P)`` line, to the millisecond, for the first failure its poll found; its
table lists every process that failed, each with a whole-second ``time``. An entry of that pid takes the line's time
(as since the first launcher recordings); so does another entry of the same second that failed by itself (an exit
status of its own, not the agent's SIGTERM): the same poll found it. A SIGTERMed entry, or one of another second, keeps
its whole second. Found by a fresh 2.14.1 recording of t41's pickle-gather run under ``--redirects 3``: node 0's two
processes (both exit 1, the victims) read 0.96 s after node 1's rank 3 through their whole-second ``02:18:55``, a
failure "together" with it, where the agent's line said 1.07 s.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events, table_entry

NOW = dt.datetime(2026, 12, 5, 3, 0, tzinfo=dt.timezone.utc)
AGENT = ("E1205 02:18:55.107000 28652 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
         "local_rank: 0 (pid: 28662) of binary: /opt/venv/bin/python3")
SIGTERM = ("W1205 02:18:55.001000 28652 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 28664 "
           "closing signal SIGTERM")
RULE = "=" * 60


def _entry(index: int, rank: int, when: str, code: int, pid: int) -> list[str]:
    return table_entry(index, rank, rank, "node-0", when, code, pid)


def _table(other: tuple[int, str, int, int]) -> list[str]:
    return ["/workspace/train.py FAILED", RULE, "Failures:", *_entry(1, *other), "-" * 60,
            "Root Cause (first observed failure):", *_entry(0, 0, "2026-12-05_02:18:55", 1, 28662), RULE]


def _times(lines: list[str]) -> dict[int, dt.datetime]:
    return {e["rank"]: e["ts"] for e in body_events(lines, NOW) if e["kind"] == "torchrun_failure" and e["subkind"] != "agent"}


AGENT_TS = dt.datetime(2026, 12, 5, 2, 18, 55, 107000, tzinfo=dt.timezone.utc)
SECOND = dt.datetime(2026, 12, 5, 2, 18, 55, tzinfo=dt.timezone.utc)
SIGTERM_TS = dt.datetime(2026, 12, 5, 2, 18, 55, 1000, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("code", [1, -6, -9, -11])
def test_an_entry_that_failed_by_itself_in_the_agent_s_second_takes_its_line_s_time(code):
    assert _times([AGENT, *_table((1, "2026-12-05_02:18:55", code, 28664))]) == {0: AGENT_TS, 1: AGENT_TS}


@pytest.mark.parametrize("other,want", [
    pytest.param((1, "2026-12-05_02:18:55", -15, 28664), SECOND, id="sigtermed-by-the-agent"),
    pytest.param((1, "2026-12-05_02:18:56", 1, 28664), SECOND + dt.timedelta(seconds=1), id="another-second"),
])
def test_a_sigtermed_entry_or_another_second_keeps_its_whole_second(other, want):
    # (session 70) the root's time is the teardown's start, the first SIGTERM line above the agent's line, in its
    # second (tests/test_redirected_tables.py); without one, the agent's line's, as the other tests here
    assert _times([SIGTERM, AGENT, *_table(other)]) == {0: SIGTERM_TS, 1: want}


def test_without_the_agent_s_line_every_entry_keeps_its_whole_second():
    assert _times(_table((1, "2026-12-05_02:18:55", 1, 28664))) == {0: SECOND, 1: SECOND}
