"""A rank's message-only handler line stands when its own stdout, flushed at exit, reaches the console after it
(docs/rules.md, "Session 71: a handler's message before its stdout's flush"; parsers/log_error_records.py ``_flushed``).

The recorded t73 run (torch 2.13.0, ``--tee 3 --log-dir``): rank 5's handler logs ``rank 5: bad batch at step 6: sample
17 has no tokens`` (``logger.error(f'rank {rank}: {e}')``, stderr) then ``sys.exit(2)``; its ``print``ed start-up line
(stdout, block-buffered into --tee's file) is flushed at that exit and lands 0.1 ms AFTER the message in the console.
Session 68's reading took the message only as the rank's LAST own line, so k10s said ``exit-2``; 2.14.1's run, where
the start-up line came first, read python-exception.

A line of the rank's own after the message is that flush, not output going on, where by their clocks it comes at most
0.5 s after the message; where either has no clock, the ONE line after it (as queries/_failure_line.sql's progress lines
after a record). Contrasts: a line 2 s later, two lines without clocks (the message is no longer the rank's end: the
status alone, as before); the victims' own 'Connection closed by peer' messages stay victims'.

The node logs below are SYNTHETIC (tests/torchrun_node_kit.py, clocks added here), the recorded run real.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched
from incident_kit import naming_findings
from torch_runs_kit import load_runs, score_findings
from torchrun_node_kit import case_maker, node_log

NOW = dt.datetime(2026, 12, 7, 10, 0, tzinfo=dt.timezone.utc)
RAISE = "2.13.0/t73-trun-2x3-raise-rank5-init-w0-error-norank-logdir"
RUNS = {r.id: r for r in load_runs() if r.id == RAISE}
BAD = "[default3]:rank 3: bad batch at step 3: sample 17 has no tokens"
START = "[default3]:starting (local rank 3, pid 10263)"
SHARD = "[default3]:rank 3: could not open shard 7: no such file"
T0 = dt.datetime(2026, 12, 7, 9, 45, 38, tzinfo=dt.timezone.utc)


def _stamped(text: str, after: list[float]) -> str:
    """``text`` as ``kubectl logs --timestamps`` shows it: the 12 progress lines before :38, the test's own message at
    :38.000, the ``after`` lines that follow it those seconds later, the agent's lines and table from :40.9."""
    lines = text.rstrip("\n").split("\n")
    stamps = [T0 - dt.timedelta(seconds=8 - i * 0.1) for i in range(12)] + [T0] + [T0 + dt.timedelta(seconds=s) for s in after]
    stamps += [T0 + dt.timedelta(seconds=2.9 + i * 0.001) for i in range(len(lines) - len(stamps))]
    return "\n".join(f"{t.strftime('%Y-%m-%dT%H:%M:%S.%f')}000Z {line}" for t, line in zip(stamps, lines)) + "\n"


#: name: (node log, the ranks named, the cause)
CASES = {
    # the recorded shape: the message, then the rank's own stdout line flushed at its exit
    "flush-unstamped": (node_log([BAD, START], 3, 2, day="1207 09", lag=2), [3], "python-exception"),
    "flush-stamped": (_stamped(node_log([BAD, START], 3, 2, day="1207 09", lag=2), [0.0001]), [3], "python-exception"),
    "flush-stamped-several": (_stamped(node_log([SHARD, START, "[default3]:loaded the tokenizer from /models/tok"], 3, 2,
                                                day="1207 09", lag=2), [0.0001, 0.0002]), [3], "python-exception"),
    # contrasts: the rank's output went on after the message: the status alone
    "later-stamped": (_stamped(node_log([BAD, START], 3, 2, day="1207 09", lag=2), [2.0]), [3], "exit-2"),
    "two-after-unstamped": (node_log([BAD, START, "[default3]:loaded the tokenizer from /models/tok"], 3, 2, day="1207 09",
                                     lag=2), [3], "exit-2"),
}
_BATCH = Batched("handler-flushed", [*RUNS, *CASES])


_make = case_maker(RUNS, CASES, NOW)


@pytest.mark.parametrize("key", _BATCH.params(list(RUNS), name=str))
def test_the_recorded_handler_message_before_its_stdout_flush(tmp_path_factory, key):
    findings = _BATCH.findings(key, tmp_path_factory, _make)
    assert score_findings(RUNS[key], findings) is None, score_findings(RUNS[key], findings)
    named = naming_findings(findings)
    assert [(f["cause"], f["ranks"]) for f in named] == [("python-exception", [5])], named  # the victims stay victims
    said = " ".join(f["summary"] for f in named)
    assert "rank 5: bad batch at step 6: sample 17 has no tokens" in said and "a message alone" in said, said


@pytest.mark.parametrize("key", _BATCH.params(list(CASES), name=str))
def test_a_message_then_its_own_flushed_line(tmp_path_factory, key):
    _, want, cause = CASES[key]
    named = naming_findings(_BATCH.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert sorted({r for f in named for r in f["ranks"]}) == want, got
    assert any(f["cause"] == cause and f["ranks"] == want for f in named), got
    said = " ".join(f["summary"] for f in named)
    assert (cause == "python-exception") == ("a message alone" in said), said
