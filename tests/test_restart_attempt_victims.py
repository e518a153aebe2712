"""A restart attempt's victim is not a second culprit (docs/rules.md, "Session 63: a restart attempt's victim is not a
second culprit").

The fifty-sixth set's ``--max-restarts 1 --redirects 3`` run, 3 agents x 2: rank 0 aborts (SIGABRT) at step 8 on both
attempts; in the first, node 2's agent reports its rank 5 exiting 1 (its gloo error after rank 0 died, unseen under
--redirects) 0.8 s after node 0's agent reported rank 0's abort, and torchrun restarted. The first attempt's abort is
left out of the incident (its attempt was restarted: the job ended with the last attempt's failure), but rank 5's bare
exit, in a log that shows no restart, stayed, and outranked the last attempt's abort as "another rank's failure before
it": rank 5 was named beside rank 0's crash loop. Within one attempt, a bare exit status (no error line of the rank's
own) reported within seconds after another rank's own death is that death's victim, as in a run of one attempt.
The same shape in a run of one attempt names rank 0 alone too (it named rank 5: a SIGABRT within a second before
another rank's failure was read as the teardown's). Contrasts: rank 5's exit reported BEFORE rank 0's abort, or over
10 seconds after it, is no victim of it; rank 5's own traceback in the first attempt leaves it a suspect, as before; a
later attempt's own failure is still named.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names, findings_of
from test_t51_launcher_shapes import AGENT, SIGTERM, _stamp, _table, _tb
from torch_runs_kit import CAPTURED, load_runs, import_run, podlog_run, score_findings

T56 = "2.13.0/t56-trun-3x2-restarts1-abort-rank0-step8-redirects"
VALUE = "[rank{r}]: ValueError: batch 8 has 0 samples"
def _attempt(node: int, t: str, failed: tuple[int, int] | None, pids: tuple[int, int]) -> list[tuple[str, str]]:
    """One node's agent lines for one attempt's end at ``t`` (``MM:SS.ffffff``): its SIGTERM to the local ranks that
    did not fail, and its report of the one that did (``(local rank, exit code)``; None: none failed, both SIGTERMed)."""
    agent = 27554 + node
    if failed is None:
        return [(t, SIGTERM.format(t=t, agent=agent, pid=pids[0])), (t, SIGTERM.format(t=t, agent=agent, pid=pids[1]))]
    lr, code = failed
    return [(t, SIGTERM.format(t=t, agent=agent, pid=pids[1 - lr])),
            (t, AGENT.format(t=t, agent=agent, code=code, lr=lr, pid=pids[lr]))]


def _restarts(rank5_at: str | None = "07:09.297000", rank5_error: bool = False, attempts: int = 2,
              second: str = "rank0") -> list[str]:
    """Node 0's rank 0 aborting at 07:08.493 (and at 07:23.519 on the second attempt, reported in its failure table);
    node 2's rank 5 exiting 1 in the first attempt at ``rank5_at`` (None: SIGTERMed like node 1's ranks), after its own
    ValueError where ``rank5_error``; ``attempts`` 1: the first attempt is the job's end (rank 0's table). ``second``:
    who ends the second attempt, rank 0's abort or rank 5's own ValueError ("rank5-error": its exit 1 at 07:23.3 in node
    2's failure table, rank 0's exit 1 2.2 s later)."""
    node0 = _attempt(0, "07:08.493000", (0, -6), (27565, 27569))
    node1 = _attempt(1, "07:08.894000", None, (27568, 27570))
    node2 = _tb("07:09.100000", 5, VALUE) if rank5_error else []
    node2 += _attempt(2, rank5_at, (1, 1), (27566, 27567)) if rank5_at else _attempt(2, "07:09.261000", None, (27566, 27567))
    if attempts == 2 and second == "rank0":
        node0 += _attempt(0, "07:23.519000", (0, -6), (27592, 27594))
        node1 += _attempt(1, "07:24.082000", None, (27595, 27596))
        node2 += _attempt(2, "07:24.698000", None, (27593, 27597))
        node0 += _table("07:23.537000", (0, 0, 27592, -6), (1, 1, 27594, -15))
    elif attempts == 2:
        node2 += _tb("07:23.100000", 5, VALUE)
        node2 += _attempt(2, "07:23.300000", (1, 1), (27593, 27597))
        node2 += _table("07:23.320000", (5, 1, 27597, 1), (4, 0, 27593, -15))
        node0 += _attempt(0, "07:25.482000", (0, 1), (27592, 27594))  # its rank 0's exit 1, a victim's (unseen)
        node1 += _attempt(1, "07:24.089000", None, (27595, 27596))
    else:
        node0 += _table("07:08.537000", (0, 0, 27565, -6), (1, 1, 27569, -15))
    return [_stamp(n) for n in (node0, node1, node2)]


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("restarted-abort-rank5-exit-after", _restarts(), [0], "abort"),
    ("restarted-abort-rank5-sigtermed", _restarts(rank5_at=None), [0], "abort"),
    # rank 5's exit reported before rank 0's abort: no victim of it (rank 0's abort within the second after it is the
    # teardown's, as before)
    ("restarted-abort-rank5-exit-before", _restarts(rank5_at="07:07.900000"), [5], None),
    # over 10 seconds after rank 0's abort: no longer the same failure (crashloop's span), rank 5 a suspect as before
    ("restarted-abort-rank5-exit-late", _restarts(rank5_at="07:19.600000"), [0, 5], None),
    # rank 5's own ValueError in the first attempt: a failure of its own, a suspect as before
    ("restarted-abort-rank5-own-error", _restarts(rank5_error=True), [0, 5], None),
    # one attempt: rank 0's abort first, rank 5's exit its victim (as before)
    ("one-attempt-abort-rank5-exit-after", _restarts(attempts=1), [0], "abort"),
]


#: a later attempt's own failure (rank 5's ValueError; rank 0's exit 1 2.2 s after it its victim's): the job ended with
#: the last attempt's, rank-failure names rank 5 (the restarts' "different rank on each attempt" shape); crashloop's
#: warning (failures differ) names the first failure's rank, as before
LATER = ("restarted-abort-then-rank5-own-error", _restarts(rank5_at=None, second="rank5-error"))


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets([*NODE_SETS, LATER], tmp_path_factory.mktemp("attemptvictims"), CAPTURED, nproc=lambda name: 2)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_a_restart_attempt_s_victim(findings, i, want, cause):
    assert_names(findings, i, want, cause)


def test_a_later_attempt_s_own_failure_is_still_named(findings):
    named = [(f["severity"], f["ranks"], f["cause"]) for f in findings_of(findings, len(NODE_SETS))
             if f["rule"] == "rank-failure" and f["severity"] in ("critical", "warning")]
    assert named == [("critical", [5], "python-exception")], named


@pytest.mark.parametrize("how", ["import", "podlog"])
def test_the_recorded_run_names_rank_0_alone(tmp_path, how):
    from k10s_forensics.analyze.runner import analyze

    run = next(r for r in load_runs() if r.id == T56)
    bundle = import_run(run, tmp_path) if how == "import" else podlog_run(run, tmp_path)
    found = analyze(bundle)["findings"]
    assert score_findings(run, found) is None, score_findings(run, found)
