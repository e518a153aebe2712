"""A failed job whose only failure lines are its victims' gets one finding naming no rank (docs/rules.md, "Session 72: a
failed job whose only failure lines are its victims'").

t75's ``mp.spawn`` SIGKILL run: rank 3 is SIGKILLed and prints nothing; every other process prints a gloo send/recv
timeout, and each spawner reports a process ``terminated with exit code 1`` under only those waits (a victim's report
since session 71). No rank failed on its own, so no rule spoke; now rank-failure says so (``victims-only``, warning, no
rank, the culprit explicitly absent), never naming a victim. A clean run says nothing; a run whose culprit printed its
own error names it as before and gets no such finding beside it.

Recorded runs: tests/data/torch-runs (t75's SIGKILL and raise runs, spawn-clean, both versions, both ways); synthetic
pastes below are marked so.
"""

from __future__ import annotations

import pytest

from bundle_batch import pasted_findings
from spawn_paste_kit import GLOO as _GLOO, NOW, OWN as _OWN, TIMEOUT as _TIMEOUT, exited as _exited, traceback as _tb
from torch_runs_kit import findings_both_ways, load_runs

_RUNS = {r.id: r for r in load_runs()}
_VERSIONS = ("2.13.0", "2.14.1")
_SIGKILL = "t75-spawn-3x2-sigkill-rank3-step8-eval-w2-print-exc-norank"
_RAISE = "t75-spawn-2x2-raise-rank2-step1-ckpt-rank0-w2-print-exc-logging-norank"
_CLEAN = "spawn-clean"
_IDS = [f"{v}/{n}" for v in _VERSIONS for n in (_SIGKILL, _RAISE, _CLEAN)]
SAID = "no single rank: the failing rank printed nothing; its peers' waits are all that was logged"


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory) -> dict[str, dict[str, list]]:
    return findings_both_ways([_RUNS[rid] for rid in _IDS], tmp_path_factory.mktemp("victims-only"))


def _victims_only(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["rule"] == "rank-failure" and f["cause"] == "victims-only"]


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("version", _VERSIONS)
def test_the_silent_kill_gets_one_finding_naming_no_rank(both_ways, how, version):
    findings = both_ways[how][f"{version}/{_SIGKILL}"]
    assert [(f["rule"], f["severity"], f["ranks"]) for f in findings] == [("rank-failure", "warning", [])]
    (f,) = _victims_only(findings)
    assert f["pods"] == [] and f["nodes"] == [] and f["gpus"] == []
    assert SAID in f["summary"] and "Culprit: ---" in f["summary"] and "Timed out waiting 3000ms" in f["summary"]
    assert f["title"].startswith("The job failed") and "no single rank" in f["title"]


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("version", _VERSIONS)
def test_a_clean_run_gets_no_finding(both_ways, how, version):
    assert both_ways[how][f"{version}/{_CLEAN}"] == []


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("version", _VERSIONS)
def test_a_culprit_with_its_own_line_is_named_without_the_extra_finding(both_ways, how, version):
    findings = both_ways[how][f"{version}/{_RAISE}"]
    assert sorted({r for f in findings for r in f["ranks"]}) == [2]
    assert _victims_only(findings) == []


# ---- synthetic pastes (SYNTHETIC lines, written for this test, in the recorded runs' shapes) --------------------------
def _gist(lines: list[str], tmp_path) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, tmp_path, 2, 2, NOW)]


@pytest.mark.parametrize("last", [_TIMEOUT, _GLOO], ids=["timeout", "closed"])
def test_a_report_under_only_a_peers_wait_is_said_with_no_rank(tmp_path, last):
    assert _gist(_tb(last) + _exited(0), tmp_path) == [("rank-failure", "warning", "victims-only", [])]


def test_a_report_under_its_own_error_names_it_and_not_victims_only(tmp_path):
    got = _gist(_tb(_OWN) + _exited(1), tmp_path)
    assert [g for g in got if g[2] == "victims-only"] == [] and any(g[3] == [1] for g in got), got


def test_waits_with_no_failed_exit_report_get_no_finding(tmp_path):
    # the waits alone, no launcher's error exit: nothing says the job failed (its report may be cut): said as before
    assert [g for g in _gist(_tb(_TIMEOUT) + _tb(_TIMEOUT), tmp_path) if g[2] == "victims-only"] == []
