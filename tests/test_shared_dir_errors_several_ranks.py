"""One shared directory failing for several ranks (docs/rules.md, "Session 62: one shared directory failing for
several ranks"): two or more processes each raising that a file under ONE directory is missing or its lock is not to be
had (evaluate#481's metric rendezvous: ``Couldn't acquire lock on …/exp-16-rdv.lock from process 4.`` and ``Expected to
find locked file …/exp-16-0.arrow.lock from process 15 but it doesn't exist.``; a gathered ``part_N.pkl`` another rank
should have written) name no culprit: the file system they share, or their
coordination through it, fails them alike, whichever raised first — a rankless warning.

Contrasts: one rank alone whose file is missing stays its own failure (warning, named); two ranks missing files under
two different directories stay the first's; another rank failing first another way (GeneticTrading: rank 0's CUDA
error, then ranks 1-3's missing cache) is still named; a ``PermissionError`` on the shared directory is no such reading.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import gist, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

METRIC_LOCKS = corpus_lines("evaluate-481-")
#: the two lock errors as torch's rank-tagged lines (process 4 on node 1, process 15 on node 2)
METRIC_LOCKS_RANK_TAGGED = [METRIC_LOCKS[0].replace("[node1:4]:", "[rank4]: "),
                            METRIC_LOCKS[1].replace("[node2:7]:", "[rank15]: ")]


def _tail(rank: int, error: str, clock: str = "") -> list[str]:
    """Rank ``rank``'s traceback ending in ``error``; ``clock``: a time in front of each line (``04:50:05``)."""
    at = f"2026-12-06 {clock},100 " if clock else ""
    return [f"{at}[rank{rank}]: Traceback (most recent call last):",
            f'{at}[rank{rank}]:   File "/opt/conda/lib/python3.11/site-packages/train/collect.py", line 88, in gather_results',
            f"{at}[rank{rank}]: {error}"]


def _rank_failure(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]


#: (the pasted lines, processes per node, world)
SHARED_DIR = {
    "metric-locks-as-collected": (METRIC_LOCKS, None, None),
    "metric-locks-two-nodes": (METRIC_LOCKS, 8, 16),
    "metric-locks-rank-tagged": (METRIC_LOCKS_RANK_TAGGED, 8, 16),
    # the metric rendezvous' wordings with a clock that orders them (the first would be named by time alone)
    "metric-locks-clocked-two-ranks": (
        _tail(1, "ValueError: Couldn't acquire lock on /shared/hf_cache/metrics/bleu/default/run-4-rdv.lock from process 1.",
              "04:50:00")
        + _tail(3, "ValueError: Expected to find locked file /shared/hf_cache/metrics/bleu/default/run-4-0.arrow.lock from "
                   "process 3 but it doesn't exist.", "04:50:05"), 4, 4),
    "gathered-parts-missing-two-ranks": (
        _tail(2, "FileNotFoundError: [Errno 2] No such file or directory: '/nfs/eval/tmp_results/part_0.pkl'", "04:50:00")
        + _tail(5, "FileNotFoundError: [Errno 2] No such file or directory: '/nfs/eval/tmp_results/part_3.pkl'", "04:50:05"),
        8, 8),
}


@pytest.mark.parametrize("key", list(SHARED_DIR))
def test_errors_of_several_ranks_under_one_shared_directory_name_no_one(tmp_path, key):
    lines, nproc, world = SHARED_DIR[key]
    findings = pasted_findings(lines, tmp_path, nproc, world, NOW)
    assert naming_findings(findings) == [], gist(findings)
    failure = [f for f in findings if f["rule"] == "rank-failure"]
    assert [(f["severity"], f["ranks"]) for f in failure] == [("warning", [])], gist(findings)
    assert "a directory the processes share" in failure[0]["summary"]


def test_the_metric_rendezvous_names_the_shared_directory(tmp_path):
    findings = pasted_findings(METRIC_LOCKS, tmp_path, 8, 16, NOW)
    summary = [f for f in findings if f["rule"] == "rank-failure"][0]["summary"]
    assert "/.hf_cache/metrics/accuracy/default" in summary and "no single culprit" in summary


@pytest.mark.parametrize("error", [
    "FileNotFoundError: [Errno 2] No such file or directory: '/nfs/eval/tmp_results/part_3.pkl'",
    "ValueError: Couldn't acquire lock on /.hf_cache/metrics/accuracy/default/exp-16-rdv.lock from process 4.",
])
def test_one_rank_alone_whose_file_is_missing_stays_its_own(tmp_path, error):
    named = naming_findings(pasted_findings(_tail(4, error), tmp_path, 8, 8, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("warning", [4])], gist(named)


def test_each_alone_of_the_metric_locks_names_its_rank(tmp_path):
    assert _rank_failure(pasted_findings(METRIC_LOCKS_RANK_TAGGED[:1], tmp_path / "a", 8, 16, NOW)) == [
        ("warning", "python-exception", [4])]
    assert _rank_failure(pasted_findings(METRIC_LOCKS_RANK_TAGGED[1:], tmp_path / "b", 8, 16, NOW)) == [
        ("warning", "python-exception", [15])]


def test_missing_files_under_two_different_directories_stay_the_first_rank_s(tmp_path):
    lines = (_tail(2, "FileNotFoundError: [Errno 2] No such file or directory: '/data/rank2/shard_0002.parquet'", "04:50:00")
             + _tail(5, "FileNotFoundError: [Errno 2] No such file or directory: '/scratch/node1/cache/tok.json'", "04:50:05"))
    named = naming_findings(pasted_findings(lines, tmp_path, 8, 8, NOW))
    assert [f["ranks"] for f in named] == [[2]], gist(named)


def test_a_rank_failing_first_another_way_is_still_named(tmp_path):
    """GeneticTrading's shape: rank 0's own CUDA error, then ranks 1-3 find the cache rank 0 should have written
    missing: rank 0 is the culprit, the missing files its consequence."""
    lines = (["[rank0]: RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"]
             + [f"[rank{r}]: FileNotFoundError: [Errno 2] No such file or directory: './cached_data/train_data.parquet'"
                for r in (1, 2, 3)])
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert [(f["cause"], f["ranks"]) for f in named] == [("cuda-error", [0])], gist(named)


def test_a_permission_error_on_the_shared_directory_is_no_such_reading(tmp_path):
    lines = (_tail(2, "PermissionError: [Errno 13] Permission denied: '/nfs/eval/tmp_results/part_2.pkl'", "04:50:00")
             + _tail(5, "PermissionError: [Errno 13] Permission denied: '/nfs/eval/tmp_results/part_5.pkl'", "04:50:05"))
    findings = pasted_findings(lines, tmp_path, 8, 8, NOW)
    assert all("a directory the processes share" not in (f.get("summary") or "") for f in findings), gist(findings)
