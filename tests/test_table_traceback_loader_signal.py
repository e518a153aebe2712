"""A failure table's ``traceback :`` field that ends in torch's DataLoader worker kill gives the rank the worker's signal
(session 70, docs/rules.md "a failure table's traceback field names the loader's kill").

With torch's ``@record`` the agent's failure table quotes the rank's error file: a ``traceback : Traceback (most recent
call last):`` field, its frames, and the exception the rank died of. parsers/log_failure_table.py keeps that last line in
the entry's line; where it is torch's ``DataLoader worker (pid N) is killed by signal: X`` the rank's exit is read as the
worker's signal (``k10s_loader_signal_cause``: Bus error → sigbus, Killed → host-oom-kill), not as a Python exception
known by its exit status alone, even where the rank's own lines are filtered out of the console
(``--local-ranks-filter``). Recorded runs' node consoles (tests/data/torch-runs) and marked SYNTHETIC variants, through
``k10s import-logs``, batched.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted_cases

NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)
RUNS = Path(__file__).parent / "data" / "torch-runs"
SIGBUS_RUN = "t72-trun-2x3-loader-sigbus-rank4-step5-train-w2-record-logging-slash-filter2"
SIGKILL_RUN = "t66-standalone-1x4-loader-sigkill-rank1-step8-train-w2-record-rank0only"


def _node(version: str, run: str, node: str) -> list[str]:
    return (RUNS / version / run / f"{node}.log").read_text("utf-8").splitlines()


def _kill_line_replaced(lines: list[str], new: str | None) -> list[str]:
    """SYNTHETIC: the table's last traceback line (torch's loader kill) replaced by ``new``, or dropped (None)."""
    out = [(line[:line.index("RuntimeError:")] + new if new is not None else None)
           if "is killed by signal: Bus error" in line and "RuntimeError:" in line else line for line in lines]
    assert out != lines
    return [line for line in out if line is not None]


#: key: (lines, nproc, world, rank, its rank-failure cause)
CASES = {
    # rank 4's lines filtered out of node 1's console (--local-ranks-filter 2); its table's traceback ends in the kill
    "t72-2.13.0-node1-sigbus": (_node("2.13.0", SIGBUS_RUN, "node1"), 3, 6, 4, "sigbus"),
    "t72-2.14.1-node1-sigbus": (_node("2.14.1", SIGBUS_RUN, "node1"), 3, 6, 4, "sigbus"),
    # a SIGKILLed worker: host-oom-kill, as the loader's own wording says elsewhere
    "t66-2.13.0-sigkill": (_node("2.13.0", SIGKILL_RUN, "node0"), 4, 4, 1, "host-oom-kill"),
    "t66-2.14.1-sigkill": (_node("2.14.1", SIGKILL_RUN, "node0"), 4, 4, 1, "host-oom-kill"),
    # contrasts: the traceback ends in another exception, or is cut before its exception: the rank's python-exception
    "synthetic-other-exception": (_kill_line_replaced(_node("2.13.0", SIGBUS_RUN, "node1"),
                                                      "RuntimeError: expected 4 samples, got 3"), 3, 6, 4, "python-exception"),
    "synthetic-traceback-cut": (_kill_line_replaced(_node("2.13.0", SIGBUS_RUN, "node1"), None), 3, 6, 4, "python-exception"),
}
BATCHED = Batched("table-traceback-loader-signal", list(CASES))
MAKE = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_table_s_traceback_gives_the_rank_its_cause(key, tmp_path_factory):
    *_, rank, cause = CASES[key]
    findings = BATCHED.findings(key, tmp_path_factory, MAKE)
    failures = [f for f in findings if f["rule"] == "rank-failure" and f["severity"] in ("critical", "warning")]
    assert [f["cause"] for f in failures] == [cause], [(f["cause"], f["ranks"], f["summary"]) for f in failures]
    # one node's console alone (t72's node 1) opens with a victim's traceback: a log cut at its head, its rank unnamed
    # but said; the whole job's consoles are tests/test_torch_runs.py's
    assert failures[0]["ranks"] == [rank] or (failures[0]["ranks"] == [] and f"rank {rank} " in failures[0]["summary"])
