"""Ranks failed together known only by launchers' exit tables (docs/rules.md, "Session 66: exit tables alone").

Under ``torchrun --redirects 3 --log-dir D`` each node's console holds only the agent's lines and its ChildFailedError
table (``exitcode : 1``, ``error_file: <N/A>``): the ranks' own output is in D's files. The sixty-first set's
``--redirects`` runs, imported as a user would (tests/torch_runs_kit.import_run), both versions: the summary says the
ranks exited with their status (not "raised a Python exception"), that the statuses alone cannot tell which failed
first (not "a node- or job-wide cause"), and that their own output is elsewhere: give k10s the ``--log-dir`` folder.
Contrasts: a ``--tee`` run whose failing ranks' tracebacks are in the consoles keeps the old wording, so does a run
whose every rank printed the same ValueError; a clean run stays unnamed. Which rank is named, the severity and the
cause are unchanged (tests/torch_runs_not_yet_t61.py keeps what k10s said).
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import analyze
from torch_runs_kit import import_run, load_runs

ELSEWHERE = "The ranks' own output (their exceptions and errors) is not in these logs"
ALONE = "the exit statuses alone cannot tell which failed first or which one caused it"
OLD = "no single culprit (a node- or job-wide cause)"

#: run id -> (cause, the status its failed ranks exited with)
TABLES_ONLY = {
    "t61-trun-3x2-never-joins-rank5-w2-uncaught-logging-paren-redirects": ("python-exception", 1),
    "t61-trun-2x2-abort-rank1-shutdown-w0-print-exc-logging-paren-redirects": ("python-exception", 1),
    "t61-static-3x2-monitored-barrier-rank4-step5-train-w2-error-deepspeed-redirects": ("exit-2", 2),
}
#: the failing ranks' own lines are in the consoles: the wording as before (the cause's words kept)
OWN_LINES = {
    "t61-trun-3x2-size-mismatch-rank4-step1-eval-w2-uncaught-deepspeed-tee": "did not match the other ranks' collectives",
    "t61-trun-2x3-config-every-rank-step6-ckpt-rank0-w0-exception-norank": "raised a Python exception",
}
CONTROL = "t61-trun-2x2-clean-w2-exception-logging-slash"
RUNS = {(r.version, r.name): r for r in load_runs()}
VERSIONS = sorted({v for v, name in RUNS if name in TABLES_ONLY})


def _run(version: str, name: str):
    return RUNS[version, name]


def _rank_failures(run, tmp) -> list[dict]:
    return [f for f in analyze(import_run(run, tmp))["findings"] if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("run_id", sorted(TABLES_ONLY))
def test_exit_tables_alone_say_where_the_output_is(tmp_path, version, run_id):
    cause, status = TABLES_ONLY[run_id]
    [f] = _rank_failures(_run(version, run_id), tmp_path)
    assert (f["ranks"], f["severity"], f["cause"]) == ([], "warning", cause)  # the decision unchanged
    assert f"exited with status {status};" in f["summary"]
    assert "raised a Python exception" not in f["summary"] and "job-wide cause" not in f["summary"]
    assert ALONE in f["summary"] and ELSEWHERE in f["summary"] and "`--log-dir` folder" in f["summary"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("run_id", sorted(OWN_LINES))
def test_ranks_own_lines_keep_the_wording(tmp_path, version, run_id):
    [f] = _rank_failures(_run(version, run_id), tmp_path)
    assert f["ranks"] == [] and OWN_LINES[run_id] in f["summary"]
    assert ELSEWHERE not in f["summary"] and ALONE not in f["summary"]
    if version == "2.13.0" and "size-mismatch" in run_id:  # two ranks' tracebacks alike within a second
        assert OLD in f["summary"]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_clean_run_stays_unnamed(tmp_path, version):
    findings = analyze(import_run(_run(version, CONTROL), tmp_path))["findings"]
    assert not [f for f in findings if f["severity"] in ("critical", "warning") and f.get("ranks")]
    assert not any(ELSEWHERE in (f.get("summary") or "") for f in findings)
