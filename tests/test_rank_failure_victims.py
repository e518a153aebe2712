"""How many ranks rank-failure says were torn down (real incidents batch 21: MiniGPT-4-237, nanoGPT-545).

Ranks that failed together (no single culprit) are not victims of their own failure, and a job has no
more victims than ranks besides its failing ones: a SIGTERMed pid the log ties to no rank may be a rank
the log already showed (nanoGPT-545: two processes, one SIGTERM, read as two victims).
"""

from __future__ import annotations

import pytest

from test_rules_rank_failure import FAILED, findings, rank_failure, sigterm, table

TOGETHER = {  # every listed rank failed in the same second: no culprit, and no one torn down after "it"
    "two ranks, exit 1": (table([(1, 1, 78971, "2023-05-19_16:39:58")], (0, 1, 78970, "2023-05-19_16:39:58")), 2),
    "three ranks, SIGABRT": (table([(1, -6, 11, "2023-06-14_22:36:10"), (2, -6, 12, "2023-06-14_22:36:10")],
                                   (0, -6, 10, "2023-06-14_22:36:10")), 3),
}


@pytest.mark.parametrize("name", sorted(TOGETHER))
def test_ranks_failing_together_are_not_victims(tmp_path, name):
    lines, nproc = TOGETHER[name]
    found = [f for f in rank_failure(findings(tmp_path, lines, nproc)) if not f["ranks"]]
    assert found, "expected a no-single-culprit finding"
    assert found[0]["evidence"][0].get("victims", 0) == 0
    assert "torn down after it" not in found[0]["summary"]


def test_victims_never_exceed_the_other_ranks_of_the_job(tmp_path):
    """Two processes: rank 0 raises, rank 1's traceback is printed and the agent SIGTERMs one pid."""
    lines = ["[rank0]: Traceback (most recent call last):", '[rank0]:   File "train.py", line 253, in <module>',
             "[rank0]: AttributeError: module 'wandb' has no attribute 'init'",
             "[rank1]: Traceback (most recent call last):", '[rank1]:   File "train.py", line 306, in <module>', sigterm(265741)]
    found = rank_failure(findings(tmp_path, lines, 2, 2))
    assert [f["ranks"] for f in found] == [[0]]
    assert found[0]["evidence"][0]["victims"] == 1
    assert "1 other rank(s)/processes were torn down after it" in found[0]["summary"]


def test_sigtermed_pids_of_a_larger_job_still_count(tmp_path):
    """Three SIGTERMed pids no line ties to a rank, in a job of four: three victims (unchanged)."""
    lines = [sigterm(101), sigterm(103), sigterm(104), FAILED.format(code=-9, local=1, pid=102)]
    found = rank_failure(findings(tmp_path, lines, 4))
    assert [f["ranks"] for f in found] == [[1]] and found[0]["evidence"][0]["victims"] == 3
