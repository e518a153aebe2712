"""torchrun's failure report flattened onto one line (real incidents batch 23, hf-space-daresearch):
a page that collapsed the log's line breaks (a Hugging Face Space's runtime-error box, a rendered
page's text) fuses the agent's ``failed (exitcode: 1) local_rank: 1 (pid: 77) of binary: …`` line,
its traceback and its ``ChildFailedError`` table (``Failures: [1]: time : … rank : 3 (local_rank: 3)
exitcode : 1 (pid: 79) error_file: <N/A>``) into one line. The table entry was read and the agent's
report in front of it was lost: the one listed failure was charged alone; a section title fused in
front of an entry took the whole line, entry and all. Both are read now (the title is the entry's
section), and failures one line reports the same way are not ordered: they failed together.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste
from parser_kit import body_events

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
AGENT = "failed (exitcode: {code}) local_rank: {local} (pid: {pid}) of binary: /usr/bin/python"
TRACE = ('Traceback (most recent call last): File "/usr/local/bin/torchrun", line 8, in <module> sys.exit(main()) '
         "raise ChildFailedError( torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "
         "============================================================ train.py FAILED "
         "------------------------------------------------------------")
ROW = "[{idx}]: time : 2024-12-23_03:39:43 host : node-a rank : {rank} (local_rank: {rank}) exitcode : {code} (pid: {pid}) error_file: <N/A>"


def _line(front: str = "Exit code: 1. Reason: iprocessing/api.py:869] ", local: int = 1, code: int = 1, other: int = 3,
          other_code: int = 1, section: str = "Failures:") -> str:
    return (f"{front}{AGENT.format(code=code, local=local, pid=77)} {TRACE} {section} "
            f"{ROW.format(idx=1, rank=other, code=other_code, pid=79)} traceback : To enable traceba")


def _failures(text: str) -> list[tuple]:
    return [(e["subkind"], e["rank"], e["local_rank"], e["exit_code"], e["pid"]) for e in body_events(text.splitlines(), NOW) if e["kind"] == "torchrun_failure"]


@pytest.mark.parametrize("line, section", [
    (_line(), "table"),  # a Space's box: the log's tail, cut at its start
    (_line(front=""), "table"),  # the agent's line first
    (_line(front="ERROR:torch.distributed.elastic.multiprocessing.api:"), "table"),  # the older logger's prefix
    (_line(front="E1223 03:39:43.512000 140 torch/distributed/elastic/multiprocessing/api.py:869] "), "table"),  # glog prefix
    # a title fused in front of the entry is its section (it used to take the whole line, entry and all)
    (_line(section="Root Cause (first observed failure):"), "root_cause"),
    (_line(section="Failures: <NO_OTHER_FAILURES> ---- Root Cause (first observed failure):"), "root_cause"),
    (_line(section="Root Cause (first observed failure): [0]: ---- Failures: <NO OTHER FAILURES>"), "failures"),
])
def test_the_agent_report_in_front_of_a_flattened_entry_is_read(line, section):
    assert _failures(line) == [("agent", None, 1, 1, 77), (section, 3, 3, 1, 79)]


@pytest.mark.parametrize("line", [
    ROW.format(idx=1, rank=3, code=1, pid=79),  # an entry alone on its line
    "Failures: " + ROW.format(idx=1, rank=3, code=1, pid=79),
    "the agent had failed (exitcode of 1 in the docs) " + ROW.format(idx=0, rank=3, code=1, pid=79),  # prose, no agent report
])
def test_an_entry_without_the_agent_report_is_read_alone(line):
    assert _failures(line) == [("table", 3, 3, 1, 79)]


@pytest.mark.parametrize("nproc", [None, 4])
def test_two_workers_one_line_reports_failing_alike_name_no_one(tmp_path, nproc):
    assert named_in_paste(tmp_path, _line() + "\n", nproc, nproc, NOW) == []


def test_a_flattened_report_of_two_different_failures_names_the_one_that_says_why(tmp_path):
    """Same line, different ways: the -11 of local rank 1 is a segfault, the other's exit 1 only a status."""
    named = named_in_paste(tmp_path, _line(code=-11) + "\n", 4, 4, NOW)
    assert named == [("rank-failure", "segfault", [1])]
