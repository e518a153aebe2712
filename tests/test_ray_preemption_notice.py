"""Ray Train v2's preemption notice (docs/rules.md, "Session 61: Ray Train's preemption notice"): a worker's own ``Rank N
received preemption signal (this_worker_preempted=True, preempted_ranks=[N], ...)`` and the PreemptionWatcher's
``preemption detected — ... preempted_ranks=[N]`` name rank N (rank-failure, warning, rank-dead: its node is being
drained), ray-project/ray#64099's shape. Contrasts: a worker told of another's loss (``this_worker_preempted=False``)
is never named; the watcher's list of several ranks alone names no one here, and two ranks' own notices at once are a
common loss naming no rank (as any two ranks lost together); a
preemption word elsewhere (Kueue's, a drain line) is not this; ray#63807's dead-actor report still names rank 1.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 11, 0, tzinfo=dt.timezone.utc)


def _told(rank: int, pid: int, preempted: bool, ranks: str = "[1]") -> str:
    return (f"(RayTrainWorker pid={pid}) Rank {rank} received preemption signal (this_worker_preempted={preempted}, "
            f"preempted_ranks={ranks}, deadline_ms=1781557864905).")


WATCHER = ("(PreemptionWatcher pid=99150) PreemptionWatcher: preemption detected — preempted_node_ids=['62e4d889'], "
           "preempted_ranks=[{}], deadline_ms=1781557864905")


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize("lines", [
    [_told(0, 99129, False), _told(1, 99128, True)],
    [_told(1, 99128, True)],
    [WATCHER.format(1)],
    [_told(0, 99129, False), WATCHER.format(1)],
], ids=["both-workers", "own-notice-alone", "watcher-alone", "told-worker-and-watcher"])
def test_the_preempted_rank_is_named(tmp_path, lines):
    findings = pasted_findings(lines, tmp_path, 2, 2, NOW)
    assert _gist(naming_findings(findings)) == [("rank-failure", "warning", "rank-dead", [1])], _gist(findings)


def test_ray_64099_as_collected_names_rank1(tmp_path):
    findings = pasted_findings(corpus_lines("ray-64099-"), tmp_path, None, None, NOW)
    assert _gist(naming_findings(findings)) == [("rank-failure", "warning", "rank-dead", [1])], _gist(findings)


def test_two_preempted_ranks_by_their_own_notices_are_a_common_loss(tmp_path):
    """Two ranks' own notices at once read as the incident rules read any two ranks lost together (no one alone
    first): a rank-dead warning naming no rank; rank 0 and 2, told of the others' loss, are never named."""
    lines = [_told(r, 100 + r, r in (1, 3), "[1, 3]") for r in range(4)] + [WATCHER.format("1, 3")]
    findings = pasted_findings(lines, tmp_path, 4, 4, NOW)
    assert _gist(findings) == [("rank-failure", "warning", "rank-dead", [])], _gist(findings)


@pytest.mark.parametrize("lines", [
    [_told(0, 99129, False)],  # told of another's loss: not preempted itself
    [_told(0, 99129, False), _told(2, 99130, False)],
    [WATCHER.format("1, 3")],  # several ranks in the watcher's list alone: which is whose is not read here
    ["[14:10:49.909 PDT] [drain] node=62e4d889... drained via GCS, deadline=+15s (14:11:04.905 PDT)"],
    ["(RayTrainWorker pid=99129) [rank 0] PREEMPT signal: this=False ranks=[1] sec_left=13.7"],
    ["Workload team-a/train was preempted: Preempted to accommodate a workload (UID: 1234) due to prioritization"],
], ids=["told-worker", "two-told-workers", "watcher-several", "drain-line", "script-echo", "kueue-word"])
def test_no_one_is_named_without_the_notice_of_a_rank_s_own_loss(tmp_path, lines):
    findings = pasted_findings(lines, tmp_path, 2, 4, NOW)
    assert naming_findings(findings) == [], _gist(findings)


def test_ray_63807_dead_actor_report_still_names_rank1(tmp_path):
    findings = pasted_findings(corpus_lines("ray-63807-"), tmp_path, None, None, NOW)
    assert _gist(naming_findings(findings)) == [("rank-failure", "warning", "rank-dead", [1])], _gist(findings)
