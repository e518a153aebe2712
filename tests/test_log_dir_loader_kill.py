"""A DataLoader worker's kill in a torchrun ``--log-dir`` tree (docs/rules.md, "Session 69: a --log-dir tree's loader
kills and alike failures"; queries/_failure_line.sql said_loader_signal; parsers/log_error_records.py ``_loader_kill``).

torch's ``DataLoader worker (pid N) is killed by signal: Killed.`` names the worker's signal, read as its cause
(host-oom-kill, sigbus, segfault, sigfpe) where the rank raised it as ``RuntimeError:``. Now also where the rank's
output holds it otherwise: a handler's message-only ERROR record of it (2.14.1's t70 loader run: ``rank 2: DataLoader
worker (pid 22616) is killed by signal: Killed.``), or its kill printed under ``Exception ignored in:`` (torch's SIGCHLD
handler raising inside logging's lock) before the loader's next error names that worker (2.13.0's twin: ``rank 2:
DataLoader worker (pid(s) 13319) exited unexpectedly``). Both recorded runs through ``import-logs`` with their trees, and
contrasts built from them (SYNTHETIC edits of the recorded trees, marked below): the kill printed by another rank, the
kill of another worker pid, the wording quoted inside another message: the rank's exception, no worker signal.
"""

from __future__ import annotations

import re

import pytest

from log_dir_kit import case_findings
from torch_runs_kit import load_runs, named, score_findings

RUN = "t70-trun-2x2-loader-sigkill-rank2-step6-train-w2-error-deepspeed-redirects"
RUNS = {r.id: r for r in load_runs() if r.id.endswith("/" + RUN)}
OLD, NEW = RUNS[f"2.13.0/{RUN}"], RUNS[f"2.14.1/{RUN}"]
_IGNORED = re.compile(r"Exception ignored in: <function _releaseLock.*?killed by signal: Killed\. \n", re.S)


def _files(tree):
    return sorted(tree.rglob("stderr.log"))


def _own_file(tree, rank: int):
    return next(p for p in _files(tree) if f"] rank {rank}: " in p.read_text(encoding="utf-8"))


def _move_kill_to_rank3(tree):  # SYNTHETIC: the 'Exception ignored in:' block printed by rank 3, not rank 2
    two, three = _own_file(tree, 2), _own_file(tree, 3)
    block = _IGNORED.search(two.read_text(encoding="utf-8")).group(0)
    two.write_text(two.read_text(encoding="utf-8").replace(block, ""), encoding="utf-8")
    three.write_text(block + three.read_text(encoding="utf-8"), encoding="utf-8")


def _other_pid(tree):  # SYNTHETIC: the kill printed is of another worker (pid 13320) than the one that exited
    two = _own_file(tree, 2)
    two.write_text(two.read_text(encoding="utf-8").replace("(pid 13319) is killed", "(pid 13320) is killed"), encoding="utf-8")


def _quoted(tree):  # SYNTHETIC: rank 2's record quotes the wording inside its own message
    two = _own_file(tree, 2)
    two.write_text(two.read_text(encoding="utf-8").replace(
        "rank 2: DataLoader worker", "rank 2: stopping because the log said DataLoader worker"), encoding="utf-8")


def _bus_error(tree):  # SYNTHETIC: the same record for a worker's SIGBUS
    two = _own_file(tree, 2)
    two.write_text(two.read_text(encoding="utf-8").replace("by signal: Killed.", "by signal: Bus error."), encoding="utf-8")


def _every_rank(tree):  # SYNTHETIC: every rank's record its own loader worker's SIGKILL, in the same 100 ms (a host OOM of all)
    for p in _files(tree):
        text = p.read_text(encoding="utf-8")
        text = re.sub(r"\[2026-12-07 12:56:\d\d,\d+\] \[ERROR\] \[engine.py:112:step\] rank (\d): .*",
                      lambda m: f"[2026-12-07 12:56:36,5{m.group(1)}0] [ERROR] [engine.py:112:step] rank {m.group(1)}: "
                                f"DataLoader worker (pid 2261{m.group(1)}) is killed by signal: Killed. ", text)
        p.write_text(text, encoding="utf-8")


#: (run, SYNTHETIC edit of its tree or None, the reading: (cause, ranks) of the finding naming a rank, () none, None: its truth)
CASES = {
    "2.14.1-record": (NEW, None, None),
    "2.13.0-ignored-then-exited": (OLD, None, None),
    "2.13.0-kill-printed-by-rank3": (OLD, _move_kill_to_rank3, ("python-exception", [2])),
    "2.13.0-kill-of-another-pid": (OLD, _other_pid, ("python-exception", [2])),
    "2.14.1-wording-quoted": (NEW, _quoted, ("python-exception", [2])),
    "2.14.1-bus-error": (NEW, _bus_error, ("sigbus", [2])),
    # common mode: every rank's own loader killed alike (their pids apart), no rank named (k10s_incident_all_said)
    "2.14.1-every-rank-killed": (NEW, _every_rank, ()),
}
@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_a_loader_workers_kill_in_the_tree(tmp_path_factory, case):
    run, _, want = CASES[case]
    found = case_findings(tmp_path_factory, "loaderkill", CASES, case)
    if want is None:
        assert score_findings(run, found) is None, score_findings(run, found)
        assert ("host-oom-kill", [2]) in named(found)
    elif not want:
        assert named(found) == [], named(found)
    else:
        assert named(found) and all(got == want for got in named(found)), named(found)
