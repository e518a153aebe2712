"""Programs that catch their own failure and print it bare (docs/rules.md, "Session 65: a caught failure's bare traceback
takes its agent's rank, where nothing else places it"): the fifty-ninth set's ``traceback.print_exc()`` runs without
``--tee``, through import-logs.

Each node's log holds its ranks' tracebacks with no ``[rankN]:`` tag, no pid record and no clock; the culprit's own
exception (a ``KeyError``, a ``RuntimeError`` of the program's) is the only raised one in its node's log, its node peer's
gloo ``Connection reset by peer`` a teardown, no other rank's error alike, and the agent's ``failed (exitcode: 1)
local_rank: N`` below it names the process: that rank is the culprit, as the pod-logs way (the lines stamped) reads it.

Contrasts, made from the recorded runs' logs: every rank's own error alike (in one log, or one per node: no one), the
same error with other numbers on another node (no one), only peers' errors (no one), the agent naming the other local
rank first (the bare exception is not given to the agent's rank), and a pid record above the traceback placing it at
another rank (the pid record wins over the agent's report, as tests/test_log_torch8.py's record).
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import analyze
from torch_runs_kit import assert_reading, findings_of_texts, import_run, load_runs, plain, score_findings

POSITIVES = [f"{v}/t59-trun-2x2-{n}" for v in ("2.13.0", "2.14.1")
             for n in ("keyerror-rank2-step5-print-exc-deepspeed", "raise-runtime-rank0-step8-print-exc-lightning")]
KEY_RUN = "2.13.0/t59-trun-2x2-keyerror-rank2-step5-print-exc-deepspeed"
RT_RUN = "2.13.0/t59-trun-2x2-raise-runtime-rank0-step8-print-exc-lightning"
KEY = "KeyError: 'labels'"
NAN = "RuntimeError: non-finite loss at step {}: loss is nan for batch 17 (fp32 overflow in layer 2)"
GLOO = "RuntimeError: [/__w/pytorch"
RESET = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
         "[127.0.0.1]:34440: Connection reset by peer. This is typically caused by a remote worker hanging or bugs in "
         "the application. Check the logs of the remote worker before reporting an error.")


def _runs() -> dict:
    return {r.id: r for r in load_runs()}


@pytest.mark.parametrize("rid", POSITIVES)
def test_the_bare_traceback_of_a_caught_failure_takes_its_agent_s_rank(rid, tmp_path):
    run = _runs()[rid]
    assert score_findings(run, analyze(import_run(run, tmp_path))["findings"]) is None


def _logs(rid: str) -> list[str]:
    return [plain(t) for t in _runs()[rid].stamped()]


def _each_line_starting(text: str, start: str, new: str, first_only: bool = False) -> str:
    """``text`` with each line that starts with ``start`` (only the first: ``first_only``) replaced by ``new``."""
    out, done = [], False
    for line in text.splitlines():
        hit = line.startswith(start) and not (first_only and done)
        done = done or hit
        out.append((new if hit else line) + "\n")
    return "".join(out)


def test_every_rank_s_own_error_alike_names_no_one(tmp_path):
    logs = [_each_line_starting(t, GLOO, KEY) for t in _logs(KEY_RUN)]
    assert sum(t.count(KEY) for t in logs) == 4
    assert_reading(findings_of_texts(tmp_path, logs), [], None)


def test_the_same_error_on_the_other_node_names_no_one(tmp_path):
    """One raised error in each node's log, each the only one there, the two alike: not the culprit's alone."""
    node0, node1 = _logs(KEY_RUN)
    node0 = _each_line_starting(node0, GLOO, KEY, first_only=True)
    assert node0.count(KEY) == 1 and node1.count(KEY) == 1
    assert_reading(findings_of_texts(tmp_path, [node0, node1]), [], None)


def test_the_same_error_with_other_numbers_on_the_other_node_names_no_one(tmp_path):
    """Rank 0's ``non-finite loss at step 8`` and node 1's ``... at step 7`` (as every rank's device message, ``cuda:0``,
    ``cuda:3``, differs in its number only): the same error, no one's."""
    node0, node1 = _logs(RT_RUN)
    assert NAN.format(8) in node0
    node1 = _each_line_starting(node1, GLOO, NAN.format(7), first_only=True)
    assert_reading(findings_of_texts(tmp_path, [node0, node1]), [], None)


def test_only_peers_errors_name_no_one(tmp_path):
    logs = [_each_line_starting(t, KEY, RESET) for t in _logs(KEY_RUN)]
    assert not any(KEY in t for t in logs)
    assert_reading(findings_of_texts(tmp_path, logs), [], None)


def _swapped(node1: str) -> str:
    """Node 1's agent and table saying local rank 1 (rank 3, pid 11161) failed first, local rank 0 (rank 2) after it."""
    return (node1.replace("local_rank: 0 (pid: 11159)", "local_rank: 1 (pid: 11161)")
            .replace("Sending process 11161 closing signal", "Sending process 11159 closing signal")
            .replace("rank      : 3 (local_rank: 1)", "rank      : @R2@").replace("rank      : 2 (local_rank: 0)", "rank      : 3 (local_rank: 1)")
            .replace("rank      : @R2@", "rank      : 2 (local_rank: 0)")
            .replace("exitcode  : 1 (pid: 11161)", "exitcode  : 1 (pid: @P@)").replace("exitcode  : 1 (pid: 11159)", "exitcode  : 1 (pid: 11161)")
            .replace("exitcode  : 1 (pid: @P@)", "exitcode  : 1 (pid: 11159)"))


def test_the_agent_naming_the_other_local_rank_first_does_not_give_it_the_bare_exception(tmp_path):
    node0, node1 = _logs(KEY_RUN)
    swapped = _swapped(node1)
    assert "failed (exitcode: 1) local_rank: 1 (pid: 11161)" in swapped
    assert_reading(findings_of_texts(tmp_path, [node0, swapped]), [], None)  # as before session 65: no one


def test_a_pid_record_placing_the_traceback_at_another_rank_wins(tmp_path):
    """A ``logging`` record of pid 11161 (rank 3, local 1) just above the KeyError's traceback: the traceback is that
    process's, not the agent's ``local_rank: 0`` (rank 2)."""
    node0, node1 = _logs(KEY_RUN)
    lines = node1.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last):"))
    node1 = "".join([*lines[:at], "2026-12-06 20:47:03,800 [11161] ERROR trainer: training failed\n", *lines[at:]])
    # as before session 65: no one (rank 2 not named from the agent's report)
    assert_reading(findings_of_texts(tmp_path, [node0, node1]), [], None)
