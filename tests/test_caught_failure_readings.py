"""Programs that catch their own failure and print it bare (docs/rules.md, "Session 64: a caught failure's bare traceback
takes its agent's rank"): the fifty-ninth set's ``traceback.print_exc()`` runs without ``--tee``, through import-logs.

Each node's log holds its ranks' tracebacks with no ``[rankN]:`` tag and no clock; the culprit's own exception (a
``KeyError``, a ``RuntimeError`` of the program's) is the only raised one in its node's log, its node peer's gloo
``Connection reset by peer`` a teardown, and the agent's ``failed (exitcode: 1) local_rank: N`` below it names the
process: that rank is the culprit, as the pod-logs way (the lines stamped) already read it. Contrasts, made from the
recorded keyerror run's logs: every rank's own error alike (no one), only peers' errors (no one), and the agent naming
the other local rank first (the bare exception is not given to the agent's rank: not the culprit named).
"""

from __future__ import annotations

import pytest

from torch_runs_kit import assert_reading, findings_of_texts, import_run, load_runs, plain, score_findings
from k10s_forensics.analyze.runner import analyze

POSITIVES = [f"{v}/t59-trun-2x2-{n}" for v in ("2.13.0", "2.14.1")
             for n in ("keyerror-rank2-step5-print-exc-deepspeed", "raise-runtime-rank0-step8-print-exc-lightning")]
KEY_RUN = "2.13.0/t59-trun-2x2-keyerror-rank2-step5-print-exc-deepspeed"
KEY = "KeyError: 'labels'"
RESET = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
         "[127.0.0.1]:34440: Connection reset by peer. This is typically caused by a remote worker hanging or bugs in "
         "the application. Check the logs of the remote worker before reporting an error.")


def _runs() -> dict:
    return {r.id: r for r in load_runs()}


@pytest.mark.parametrize("rid", POSITIVES)
def test_the_bare_traceback_of_a_caught_failure_takes_its_agent_s_rank(rid, tmp_path):
    run = _runs()[rid]
    assert score_findings(run, analyze(import_run(run, tmp_path))["findings"]) is None


def _key_logs() -> list[str]:
    run = _runs()[KEY_RUN]
    return [plain(t) for t in run.stamped()]


def _every_line_ending(text: str, start: str, new: str) -> str:
    """``text`` with each line that starts with ``start`` replaced by ``new``."""
    return "".join(new + "\n" if line.startswith(start) else line + "\n" for line in text.splitlines())


def test_every_rank_s_own_error_alike_names_no_one(tmp_path):
    logs = [_every_line_ending(t, "RuntimeError: [/__w/pytorch", KEY) for t in _key_logs()]
    assert sum(t.count(KEY) for t in logs) == 4
    assert_reading(findings_of_texts(tmp_path, logs), [], None)


def test_only_peers_errors_name_no_one(tmp_path):
    logs = [_every_line_ending(t, KEY, RESET) for t in _key_logs()]
    assert not any(KEY in t for t in logs)
    assert_reading(findings_of_texts(tmp_path, logs), [], None)


def test_the_agent_naming_the_other_local_rank_first_does_not_give_it_the_bare_exception(tmp_path):
    node0, node1 = _key_logs()
    # node 1's agent and table say local rank 1 (rank 3, pid 11161) failed first, local rank 0 (rank 2) after it
    swapped = (node1.replace("local_rank: 0 (pid: 11159)", "local_rank: 1 (pid: 11161)")
               .replace("Sending process 11161 closing signal", "Sending process 11159 closing signal")
               .replace("rank      : 3 (local_rank: 1)", "rank      : @R2@").replace("rank      : 2 (local_rank: 0)", "rank      : 3 (local_rank: 1)")
               .replace("rank      : @R2@", "rank      : 2 (local_rank: 0)")
               .replace("exitcode  : 1 (pid: 11161)", "exitcode  : 1 (pid: @P@)").replace("exitcode  : 1 (pid: 11159)", "exitcode  : 1 (pid: 11161)")
               .replace("exitcode  : 1 (pid: @P@)", "exitcode  : 1 (pid: 11159)"))
    assert "failed (exitcode: 1) local_rank: 1 (pid: 11161)" in swapped
    findings = findings_of_texts(tmp_path, [node0, swapped])
    assert not any(2 in f["ranks"] and f["cause"] == "python-exception" for f in _naming(findings)), findings


def _naming(findings: list) -> list:
    from incident_kit import naming_findings
    return naming_findings(findings)
