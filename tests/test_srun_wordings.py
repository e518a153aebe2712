"""Slurm's srun reports how its tasks ended, one line per exit status and group of tasks (the
task id is the global rank; docs/parsers-logs.md "srun"). Each wording is read as the tasks'
exits; the rules then tell the task that failed on its own from the ones srun took down.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize(("line", "ranks", "code", "subkind"), [
    ("srun: error: r10i0n8: task 3: Exited with exit code 255", [3], 255, "srun"),
    ("srun: error: r10i0n8: tasks 0-2: Terminated", [0, 1, 2], -15, "srun"),
    ("srun: error: nid00042: tasks 0-2,5: Terminated", [0, 1, 2, 5], -15, "srun"),
    ("srun: error: gpu-[01-02]: tasks 4,6-7: Exited with exit code 1", [4, 6, 7], 1, "srun"),
    ("srun: error: node17: task 1: Killed", [1], -9, "srun_killed"),
    ("srun: error: node17: task 0: Out Of Memory", [0], -9, "srun_oom"),
    ("srun: error: node17: task 2: Segmentation fault (core dumped)", [2], -11, "srun"),
    ("srun: error: node17: task 2: Segmentation fault", [2], -11, "srun"),
    ("srun: error: node17: task 5: Aborted (core dumped)", [5], -6, "srun"),
    ("srun: error: node17: task 6: Bus error", [6], -7, "srun"),
])
def test_srun_task_wordings(line, ranks, code, subkind):
    got = [(e["kind"], e["subkind"], e["rank"], e["exit_code"]) for e in classify(line)]
    assert got == [("process_exit", subkind, r, code) for r in ranks]


@pytest.mark.parametrize("line", [
    "srun: Terminating job step 1751099.0",
    "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    "slurmstepd: error: *** STEP 1751099.0 ON r10i0n8 CANCELLED AT 2021-02-03T10:11:12 ***",
    "srun: error: Unable to create step for job 1751099: Job/step already completing or completed",
    "+ srun --unbuffered --mpi=pmi2 -o mesh_nbody_%t.log python -u train.py",
])
def test_srun_lines_that_are_no_task_exit(line):
    assert not [e for e in classify(line) if e["kind"] == "process_exit"]


def _named(tmp_path, text: str, world: int = 4):
    bundle, _ = import_logs([LogSource("slurm-1751099.out", text)], tmp_path / "b", nproc_per_node=world, world_size=world,
                            job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


STEP = "srun: Terminating job step 1751099.0\n"


@pytest.mark.parametrize(("text", "culprit", "cause"), [
    # the task that exited on its own, then the ones srun terminated
    ("srun: error: r10i0n8: task 3: Exited with exit code 255\n" + STEP + "srun: error: r10i0n8: tasks 0-2: Terminated\n", [3], None),
    # srun's SIGKILL of the tasks that outlived its SIGTERM is its teardown, not an outside kill
    ("srun: error: n1: task 2: Exited with exit code 1\n" + STEP + "srun: error: n1: tasks 0,3: Terminated\nsrun: error: n1: task 1: Killed\n",
     [2], "python-exception"),
    ("srun: error: n1: task 1: Killed\nsrun: error: n1: task 2: Exited with exit code 1\n" + STEP, [2], "python-exception"),
    # the cgroup OOM killer
    ("srun: error: n1: task 2: Out Of Memory\n" + STEP + "srun: error: n1: tasks 0-1,3: Terminated\n", [2], "host-oom-kill"),
    ("srun: error: n1: task 1: Segmentation fault (core dumped)\n" + STEP + "srun: error: n1: tasks 0,2-3: Terminated\n", [1], "segfault"),
])
def test_srun_report_names_the_task_that_failed_on_its_own(tmp_path, text, culprit, cause):
    named = _named(tmp_path, text)
    assert named and all(r == culprit for _, _, r in named), named
    assert cause is None or cause in [c for _, c, _ in named], named


@pytest.mark.parametrize("text", [
    # every task exited the same way: srun's order of reports is no order of failures
    "srun: error: n2: task 3: Exited with exit code 1\nsrun: error: n1: tasks 0-1: Exited with exit code 1\n"
    "srun: error: n1: task 2: Exited with exit code 1\n",
    # the step cancelled (scancel, time limit): every task killed or terminated alike
    "slurmstepd: error: *** STEP 1751099.0 ON n1 CANCELLED AT 2021-02-03T10:11:12 ***\nsrun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
    "srun: error: n1: tasks 0-3: Killed\n",
    "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\nsrun: error: n1: tasks 0-3: Terminated\n",
])
def test_srun_report_of_every_task_alike_names_no_one(tmp_path, text):
    assert _named(tmp_path, text) == []


def test_srun_tasks_are_launchers_where_torchrun_reports(tmp_path):
    """srun started one torchrun per node: its task 0 is node 0's launcher, not rank 0."""
    text = ("E0116 18:04:01.000000 16600 api.py:869] failed (exitcode: -7) local_rank: 3 (pid: 16612) of binary: /usr/bin/python\n"
            "srun: error: lexun-1: task 0: Exited with exit code 1\n")
    named = _named(tmp_path, text)
    assert named and all(r == [3] for _, _, r in named), named
