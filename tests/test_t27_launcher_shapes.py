"""The twenty-seventh launcher set's shapes (docs/rules.md, "Twenty-seventh launcher set"), in one analysis of node-log
sets made from its recordings, and pdb's ``bdb.BdbQuit`` as a traceback's last line (parser level).

* The elastic ``--nnodes 1:2`` scale-down: node 1 was killed, node 0's ranks failed on ``Connection closed by peer``, its
  agent re-formed alone and rank 1 raised ``KeyError``. As recorded rank 1 is named; the first attempt alone (the lost
  node's victims, no failure of their own) names no one.
* The wrapper calling ``torch.distributed.run.main`` that logs the ``ChildFailedError`` (its table inside a logging
  record): with the agent's own ``failed (exitcode …)`` and ``Sending process`` lines taken out, the logged table alone
  names rank 1's segfault.
* ``logging.exception`` to stdout, then ``sys.exit(1)`` (rank 3, untagged): the workers' lines alone (no agent line, no
  table) name no innocent rank.
* A rank hung at interpreter exit (rank 2): no innocent rank named (not read today: only its pid says which rank it is).
* ``torch.distributed.breakpoint()`` left in: the workers' lines alone (rank 0's tagged ``bdb.BdbQuit``, no table) name
  rank 0 (before this set ``bdb.BdbQuit`` was no exception line: no one was named).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import analyze_node_sets, assert_names, findings_of
from incident_kit import naming_findings
from k10s_forensics.parsers.log_failures import py_exception
from parser_kit import body_events
from torch_runs_kit import AGENT_FIRST, CAPTURED, load_runs, until

AGENT_LINE = re.compile(r"^\S+ [EW]\d{4} .*(?:failed \(exitcode|Sending process)")


def _shapes() -> list[tuple]:
    runs = {r.id: r.stamped() for r in load_runs() if "/t27-" in r.id}
    shapes = []
    for v in ("2.13.0", "2.14.1"):
        down = runs[f"{v}/t27-trun-elastic-1to2-scale-down-keyerror-rank1"]
        wrapper = runs[f"{v}/t27-runmain-2x2-segfault-rank1"]
        logged = runs[f"{v}/t27-trun-2x2-logging-exception-stdout-rank3"]
        brk = runs[f"{v}/t27-trun-2x2-dist-breakpoint-rank0"]
        #: (name, node logs, the ranks warning/critical findings name ([]: none), a cause; None: no rank but the culprit's)
        shapes += [
            (f"{v}-scale-down", down, [1], "python-exception"),
            (f"{v}-scale-down-first-attempt", [until(down[0], "(attempt 1)"), down[1]], [], None),
            (f"{v}-wrapper-logged-table", ["".join(ln + "\n" for ln in t.splitlines() if not AGENT_LINE.match(ln)) for t in wrapper],
             [1], "segfault"),
            (f"{v}-logging-exception-workers", [until(t, AGENT_FIRST) for t in logged], None, 3),
            (f"{v}-exit-hang", runs[f"{v}/t27-trun-2x2-exit-hang-nondaemon-rank2"], None, 2),
            (f"{v}-breakpoint-workers", [until(t, AGENT_FIRST) for t in brk], [0], "python-exception"),
        ]
    return shapes


SHAPES = _shapes()


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(SHAPES, tmp_path_factory.mktemp("t27shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(SHAPES)], ids=[s[0] for s in SHAPES])
def test_the_twenty_seventh_set_s_shapes(findings, i, want, cause):
    if want is None:  # no innocent rank: the culprit (``cause`` holds its rank) alone, or no one
        named = naming_findings(findings_of(findings, i))
        assert {r for f in named for r in f["ranks"]} <= {cause}, [(f["rule"], f["ranks"], f.get("cause")) for f in named]
    else:
        assert_names(findings, i, want, cause)


def test_the_shapes_differ_as_described():
    """The cut shapes hold what they say: no re-formed attempt, no agent line, no failure table."""
    by = {s[0]: s[1] for s in SHAPES}
    for v in ("2.13.0", "2.14.1"):
        assert "(attempt 1)" in by[f"{v}-scale-down"][0] and "(attempt 1)" not in by[f"{v}-scale-down-first-attempt"][0]
        assert "Connection closed by peer" in by[f"{v}-scale-down-first-attempt"][0]
        table = "".join(by[f"{v}-wrapper-logged-table"])
        assert "ERROR launcher: distributed training failed:" in table and "(SIGSEGV)" in table and "failed (exitcode" not in table
        for name in ("logging-exception-workers", "breakpoint-workers"):
            text = "".join(by[f"{v}-{name}"])
            assert "Root Cause" not in text and AGENT_FIRST not in text
        assert "[rank0]: bdb.BdbQuit" in "".join(by[f"{v}-breakpoint-workers"])


@pytest.mark.parametrize("line", ["bdb.BdbQuit", "BdbQuit"])
def test_pdb_s_quit_ends_a_traceback(line):
    """pdb on a closed stdin (a breakpoint left in) quits: ``bdb.BdbQuit``, no message, is the rank's own exception and
    passes the prefilter (behind a timestamp and torch's rank tag, as logged)."""
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "raised" and ev["error_type"] == line and ev["error_message"] is None
    now = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    events = body_events([f"2026-12-01T06:52:34.100000000Z [rank0]: {line}"], now)
    assert [(e["kind"], e["error_type"]) for e in events if e["kind"] == "python_exception"] == [("python_exception", line)]
    assert py_exception("bdb.BdbQuitter") is None and py_exception("BdbQuitting now") is None
