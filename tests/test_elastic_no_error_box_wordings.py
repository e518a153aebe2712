"""PyTorch 1.9's torch elastic ``@record`` wrapper on a worker that failed without an error file
(parsers/log_launchers.py, real incidents batch 35: CMT-83): instead of 1.10+'s one line
``local_rank 1 FAILED with no error file`` it warns with a box::

    **********************************************************************
                   CHILD PROCESS FAILED WITH NO ERROR_FILE
    **********************************************************************
    CHILD PROCESS FAILED WITH NO ERROR_FILE
    Child process 71952 (local_rank 0) FAILED (exitcode 1)
    Error msg: Process failed with exitcode 1

The number after ``local_rank`` is the failure's global rank (the key of ``ChildFailedError.failures``,
mislabelled alike in every version), then the worker's pid and its exit status (negative for a
signal): alone, the line names that rank with the cause its status says.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 30, 4, 0, tzinfo=dt.timezone.utc)
STARS = "*" * 70


@pytest.mark.parametrize(("line", "rank", "pid", "code"), [
    ("Child process 71952 (local_rank 0) FAILED (exitcode 1)", 0, 71952, 1),
    ("Child process 17057 (local_rank 3) FAILED (exitcode -9)", 3, 17057, -9),
    ("Child process 32378 (local_rank 12) FAILED (exitcode -11)", 12, 32378, -11),
    # behind a container runtime's timestamp, a pdsh host tag
    ("2022-02-05T10:11:12.345678901Z Child process 4242 (local_rank 1) FAILED (exitcode -6)", 1, 4242, -6),
    ("node-3: Child process 4243 (local_rank 5) FAILED (exitcode 2)", 5, 4243, 2),
    # a paste that masked the pid: the rank and the status stay
    ("Child process <pid> (local_rank 2) FAILED (exitcode 1)", 2, None, 1),
])
def test_the_box_names_the_failed_global_rank_and_its_status(line, rank, pid, code):
    assert re.search(PREFILTER_EVENT, line)
    assert [(e["kind"], e["subkind"], e["rank"], e["pid"], e["exit_code"]) for e in classify(line)] == [
        ("process_exit", "elastic_no_error_file", rank, pid, code)]


@pytest.mark.parametrize("line", [
    "Error msg: Process failed with exitcode 1",  # the box's next line: no rank
    "               CHILD PROCESS FAILED WITH NO ERROR_FILE                ",  # its title
    "Child process 71952 (local_rank 0) FAILED",  # cut before the status
    "Child process 71952 FAILED (exitcode 1)",  # no rank
    "Child process with PID 11479 terminated with code 1",  # Lightning's observer without its [rank: N] prefix
])
def test_lines_that_name_no_rank(line):
    assert not [e for e in classify(line) if e.get("rank") is not None or e.get("subkind") == "elastic_no_error_file"]


def _box(pid: int, rank: int, code: int) -> str:
    return "\n".join([STARS, "               CHILD PROCESS FAILED WITH NO ERROR_FILE                ", STARS,
                      "CHILD PROCESS FAILED WITH NO ERROR_FILE", f"Child process {pid} (local_rank {rank}) FAILED (exitcode {code})",
                      f"Error msg: Process failed with exitcode {code}", "Without writing an error file to <N/A>.", STARS, ""])


def test_alone_the_box_names_the_rank_with_its_status_cause(tmp_path):
    """One analysis (the suite's time): the status's cause (-11: a segfault; at warning, the paste holds that rank's box only: session 45) on the rank the box names;
    exit status 1 (python-exception) is the corpus's CMT-83."""
    bundle, _ = import_logs([LogSource("log.txt", _box(71952, 3, -11))], tmp_path / "b", nproc_per_node=4, world_size=4,
                            job="train", namespace="team-a", now=NOW)
    found = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]
    assert found == [("rank-failure", "warning", "segfault", [3])]
