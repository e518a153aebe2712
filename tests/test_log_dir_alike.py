"""Every rank failing alike in a torchrun ``--log-dir`` tree beats the tables' first exit (docs/rules.md, "Session 69: a
--log-dir tree's loader kills and alike failures"; queries/_incident_own.sql ``k10s_incident_all_said``).

2.13.0's t69 control (every rank's configuration ValueError at step 6, ``logger.error`` then ``sys.exit(2)``): the tree
holds all four ranks' same record within 6 ms by their own clocks, but each node's table shows one rank exit 2 and the
other SIGTERMed, node 0's 0.56 s first: rank 1 was named. Every rank's own record alike (to the letter once its ``rank
N:`` lead is off, within ten seconds; or but for their numbers within one second) and every own failure one of them is
common mode, whichever exit the tables reported first. Contrasts (SYNTHETIC edits of the recorded tree, marked below):
two ranks' records replaced by gloo timeouts (peer wordings: only two of four alike) read as before, rank 1; the same
record an hour apart by the clock of one rank reads as before; a real culprit whose victims print a different error (the
t70 loader run's gloo timeouts) stays named.
"""

from __future__ import annotations


import pytest

from log_dir_kit import case_findings
from torch_runs_kit import load_runs, named, score_findings

RUNS = {r.id: r for r in load_runs()}
T69 = "t69-trun-2x2-config-every-rank-step6-train-w2-error-logging-norank-redirects"
OLD, NEW = RUNS[f"2.13.0/{T69}"], RUNS[f"2.14.1/{T69}"]
LOADER = RUNS["2.14.1/t70-trun-2x2-loader-sigkill-rank2-step6-train-w2-error-deepspeed-redirects"]
GLOO = "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"


def _own_file(tree, rank: int):
    return next(p for p in sorted(tree.rglob("stderr.log")) if f" rank {rank}: " in p.read_text(encoding="utf-8"))


def _two_peers(tree):  # SYNTHETIC: ranks 0 and 3 log a gloo timeout (a victim's wording) instead of the config error
    for rank in (0, 3):
        p = _own_file(tree, rank)
        lines = [f"{ln.split(' rank ')[0]} rank {rank}: {GLOO}" if f" rank {rank}: config:" in ln else ln
                 for ln in p.read_text(encoding="utf-8").split("\n")]
        p.write_text("\n".join(lines), encoding="utf-8")


def _an_hour_apart(tree):  # SYNTHETIC: rank 0's record stamped an hour before the others' (the same words)
    p = _own_file(tree, 0)
    p.write_text(p.read_text(encoding="utf-8").replace("2026-12-07 12:47:05,537 ERROR rank 0:",
                                                       "2026-12-07 11:47:05,537 ERROR rank 0:"), encoding="utf-8")


#: (run, SYNTHETIC edit of its tree or None, the reading: (cause, ranks) of the finding naming a rank, () none, None: truth)
CASES = {
    "2.13.0-every-rank-alike": (OLD, None, None),
    "2.14.1-every-rank-alike": (NEW, None, None),
    # (session 70) not the every-rank reading, and no longer rank 1 either: the tables' exits of ranks 1 and 2 are 0.56 s
    # apart by their agents' teardowns (rank 1's whole second 12:47:10 had read it 0.7 s earlier: docs/rules.md,
    # "Session 70: --redirects consoles"), so they are not ordered (test_not_the_every_rank_reading below)
    "2.13.0-two-ranks-peer-wording": (OLD, _two_peers, ()),
    "2.13.0-one-record-an-hour-apart": (OLD, _an_hour_apart, ()),
    "2.14.1-loader-culprit-gloo-victims": (LOADER, None, None),
}
@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_every_rank_alike_in_the_tree(tmp_path_factory, case):
    run, _, want = CASES[case]
    found = case_findings(tmp_path_factory, "alike", CASES, case)
    if want is None:
        assert score_findings(run, found) is None, score_findings(run, found)
    elif not want:
        assert named(found) == [], named(found)
    else:
        assert named(found) and all(got == want for got in named(found)), named(found)


def test_the_alike_reading_says_every_rank(tmp_path_factory):
    found = case_findings(tmp_path_factory, "alike", CASES, list(CASES)[0])
    summary = next(f["summary"] for f in found if f["rule"] == "rank-failure")
    assert "every rank (4) raised the same exception (logged error: config: optimizer.lr_schedule" in summary, summary


@pytest.mark.slow
@pytest.mark.parametrize("case", ["2.13.0-two-ranks-peer-wording", "2.13.0-one-record-an-hour-apart"])
def test_not_the_every_rank_reading(tmp_path_factory, case):
    found = case_findings(tmp_path_factory, "alike", CASES, case)
    summary = next(f["summary"] for f in found if f["rule"] == "rank-failure")
    assert "every rank (4) raised the same exception" not in summary and "within one second" in summary, summary
