"""Real incidents batch 31: wordings and shapes of a job's end that are teardown, not a rank's own failure,
and a paste's damage hiding a rank's own one (docs/rules.md, "Real incidents batch 31"; docs/parsers-logs.md).

* ProcessGroupNCCL's process-group tag ending a line its message was wrapped off (a blog's or a note's wrap);
* Slurm ending a job step (srun's SIGTERM and wait, the step daemon's cancellation): a task's exit status
  srun reports after that is the teardown's;
* a paste's own dated lines give the year of its yearless (glog) ones, not the day it is imported;
* a rank's own CUDA error before its SIGABRT is its cause; every rank aborting alike names no one; an
  unranked CUDA OOM beside the exit status of the one rank that failed on its own is that rank's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import findings_of, merge
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, _clock, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from k10s_forensics.parsers.log_time import dated_ts

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize(("head", "tail"), [
    ("[rank1]:[E810 15:36:05.945860779 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 1]",
     "Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered"),
    ("[rank7]:[E419 10:42:28.861967180 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 9 Rank 7]",
     "Exception (either an error or timeout) detected by watchdog at work: 4486"),
    ("[rank2]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 2]", "Process group watchdog thread terminated with exception: x"),
    ("[PG ID 0 PG GUID 0(default_pg) Rank 3] ", "Process group watchdog thread terminated with exception: y"),
])
def test_a_process_group_tag_cut_from_its_message_is_rejoined(head, tail):
    lines, note = rejoin_cut_wordings([head, tail, "next"])
    assert note and lines == [head.rstrip() + " " + tail if not head.endswith(" ") else head + tail, "next"]


@pytest.mark.parametrize("lines", [
    ["[PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated", "Next line"],  # whole already
    ["... [PG 0 Rank 2]", "  indented: a frame, a quote"],  # the next line is indented: not the tail
    ["[PG 0 Rank 2]", "lowercase continuation"],  # torch's messages start with a capital
    ["see [PG notes] below", "Process group watchdog thread terminated"],  # no rank tag
])
def test_lines_that_are_no_cut_process_group_tag_stay(lines):
    assert rejoin_cut_wordings(lines) == (lines, None)


@pytest.mark.parametrize(("line", "subkind"), [
    ("srun: launch/slurm: _step_signal: Terminating StepId=8867242.2", "srun"),
    ("srun: Terminating job step 1751099.0", "srun"),
    ("srun: Job step aborted: Waiting up to 62 seconds for job step to finish.", "srun"),
    ("slurmstepd: error: *** STEP 8867242.2 ON gra1177 CANCELLED AT 2023-07-09T19:18:33 ***", "slurmstepd"),
    ("slurmstepd: error: *** STEP 1943824.0 ON jean-zay-iam17 CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE, SEE", "slurmstepd"),
    ("slurmstepd-node12: error: *** STEP 45380617.0 ON nid008637 CANCELLED AT 2025-11-19T12:13:27 ***", "slurmstepd"),
])
def test_slurm_ending_a_step(line, subkind):
    assert [(e["kind"], e["subkind"], e["rank"]) for e in classify(line)] == [("step_end", subkind, None)]


@pytest.mark.parametrize("line", [
    "srun: Force Terminated StepId=8867242.2",  # the end of the teardown, after the tasks' reports
    "slurmstepd: error: *** JOB 608 ON n1 CANCELLED AT 2022-08-12T02:06:12 DUE TO JOB REQUEUE ***",  # the job, not a step
    "srun: error: Node failure on jean-zay-iam49",
    "echo 'srun: Terminating job step'",
])
def test_lines_that_are_no_step_end(line):
    assert not [e for e in classify(line) if e["kind"] == "step_end"]


@pytest.mark.parametrize(("line", "year"), [
    ("[rank0]:2025-04-01 00:25:59,617 - root - INFO - Training completed", 2025),
    ("        time      : 2025-04-01_00:26:06", 2025),
    ("Fri Aug 11 12:31:45 2023 rank 3 exited", 2023),
    ("W0401 00:26:06.901000 3016633 api.py:897] Sending process 3016738 closing signal SIGTERM", None),
    ("INFO 04-01 00:26:06 engine.py:12] started", None),
    ("no clock at all", None),
])
def test_the_lines_that_carry_their_year(line, year):
    ts = dated_ts(line)
    assert (ts.year if ts else None) == year


@pytest.mark.parametrize(("lines", "year"), [
    (["W0401 00:26:06.901000 1 api.py:897] Sending process 2 closing signal SIGTERM", "  time      : 2025-04-01_00:26:06"], 2025),
    (["W0401 00:26:06.901000 1 api.py:897] Sending process 2 closing signal SIGTERM"], 2026),  # nothing dated: the import's year
])
def test_a_yearless_clock_takes_the_paste_s_own_year(lines, year):
    first, last = _clock(lines, NOW)
    assert {first.year, last.year} == {year}


#: (log, world size, what the findings naming a culprit say): one analysis for all (tests/bundle_batch.py)
SHAPES = {
    # srun's task 2 exits 1 after srun ended the step (a SIGTERM handler's exit): the teardown's, task 0 alone failed
    "step-end": ("srun: error: n1: task 0: Exited with exit code 1\nsrun: launch/slurm: _step_signal: Terminating StepId=7.2\n"
                 "slurmstepd: error: *** STEP 7.2 ON n1 CANCELLED AT 2023-07-09T19:18:33 ***\n"
                 "srun: error: n2: task 2: Exited with exit code 1\nsrun: error: n1: task 1: Killed\nsrun: error: n2: task 3: Killed\n",
                 4, [("rank-failure", "python-exception", [0])]),
    # the OOM names no process; the one task that failed on its own is in its pod: the OOM is that task's
    "unranked-oom": ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 14.58 GiB total capacity; "
                     "8.50 GiB already allocated; 349.31 MiB free; 8.75 GiB reserved in total by PyTorch)\n"
                     "srun: error: n1: task 0: Exited with exit code 1\nsrun: Terminating job step 7.2\nsrun: error: n1: tasks 1-3: Terminated\n",
                     4, [("oom-cascade", "cuda-oom", [0])]),
    # the rank's own CUDA error, then the C++ runtime's abort of it: cuda-error, not abort
    "cuda-error-abort": ("[rank6]: torch.AcceleratorError: CUDA error: misaligned address\n"
                         "terminate called after throwing an instance of 'c10::AcceleratorError'\n"
                         "E0813 08:21:22.980000 1245483 api.py:984] failed (exitcode: -6) local_rank: 6 (pid: 1246013) of binary: python3\n",
                         8, [("rank-failure", "cuda-error", [6])]),
    # both ranks abort in the shutdown they share, seconds apart: no single culprit
    "all-aborted": ("[rank0]:2025-04-01 00:26:01,706 - root - INFO - Training completed\n[rank0]:terminate called without an active exception\n"
                    "[rank0]:Fatal Python error: Aborted\n"
                    "E0401 00:26:08.212000 3016633 api.py:869] failed (exitcode: -6) local_rank: 1 (pid: 3016739) of binary: python3\n",
                    2, []),
}


@pytest.fixture(scope="module")
def shapes_named(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shapes")
    bundles = [import_logs([LogSource("job.out", text)], tmp / name, nproc_per_node=world, world_size=world, job="train",
                           namespace="team-a", now=NOW)[0] for name, (text, world, _) in SHAPES.items()]
    findings = analyze(merge(bundles, tmp / "merged"))["findings"]
    return {name: [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings_of(findings, i))]
            for i, name in enumerate(SHAPES)}


@pytest.mark.parametrize("name", list(SHAPES))
def test_teardown_shapes(shapes_named, name):
    assert shapes_named[name] == SHAPES[name][2]
