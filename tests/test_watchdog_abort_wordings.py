"""A watchdog's abort pasted without torch's rank tag (real incidents batch 25, NaviLLM-34): the C++
stack the NCCL watchdog prints when it ends the process (``Exception raised from checkTimeout at …``,
``Exception raised from ncclCommWatchdog at …``), then the elastic agent's ``failed (exitcode: -6)
local_rank: 0``, wrapped by the terminal so that ``local_rank: 0 (pid: 223) …`` starts the next line
with the space the cut fell on.

* The wrapped agent line is joined back (``log_cut_wordings``: one leading space is the cut's);
* the stack's head is a watchdog line (``watchdog_exception_summary``, subkind ``watchdog_stack``);
* a SIGABRT the launcher reports right below watchdog lines that name no rank is the watchdog's abort
  (queries/_failure_line.sql ``watchdog_above``): a victim, as a rank's whose own watchdog fired.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import named_in_paste
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
HEAD = "[2026-01-17 06:10:35,778] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6)"
TAIL = " local_rank: 0 (pid: 223) of binary: /usr/bin/python3"
STACK = [
    "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1186 (mo",
    "st recent call first):",
    "frame \\#0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7fab1c8d7d87 in /usr/local/lib",
    "/python3.8/dist-packages/torch/lib/libc10.so)",
    "frame \\#4: clone + 0x43 (0x7fab687d6133 in /usr/lib/x86_64-linux-gnu/libc.so.6)",
    "",
]
SIGTERM = "W0117 06:10:30.112000 140 torch/distributed/elastic/multiprocessing/api.py:851] Sending process 224 closing signal SIGTERM"


@pytest.mark.parametrize(("head", "tail"), [
    (HEAD, TAIL),
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6)", " local_rank: 1 (pid: 5150) of binary: /usr/bin/python"),
    ("E0117 06:10:35.778000 140 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank:",
     " 3 (pid: 77) of binary: /opt/conda/bin/python"),
])
def test_a_wrap_that_left_its_space_on_the_next_line_is_joined(head, tail):
    lines, note = rejoin_cut_wordings([head, tail, "Traceback (most recent call last):"])
    assert lines == [head + tail, "Traceback (most recent call last):"] and note


@pytest.mark.parametrize("tail", [
    "  local_rank: 0 (pid: 223) of binary: /usr/bin/python3",  # indented further: not the cut's space
    '  File "/usr/local/bin/torchrun", line 8, in <module>',
    " ",
])
def test_an_indented_line_is_not_joined(tail):
    assert rejoin_cut_wordings([HEAD, tail]) == ([HEAD, tail], None)


@pytest.mark.parametrize("line", [
    STACK[0],
    "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):",
    "[rank1]:[E605 11:39:47.76 ProcessGroupNCCL.cpp:1595] Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/"
    "c10d/ProcessGroupNCCL.cpp:1521 (most recent call first):",
])
def test_the_watchdog_s_stack_head_is_a_watchdog_line(line):
    kinds = [(e["kind"], e.get("subkind")) for e in classify(line)]
    assert ("watchdog_exception_summary", "watchdog_stack") in kinds
    assert re.search(PREFILTER_EVENT, line)


@pytest.mark.parametrize("line", [
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
    "Exception raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:672 (most recent call first):",
    "frame #2: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7efff6e015c0 in libtorch_cuda.so)",
])
def test_other_stacks_are_no_watchdog_line(line):
    assert all(e["kind"] != "watchdog_exception_summary" for e in classify(line))


def _named(tmp_path, lines: list[str]):
    return named_in_paste(tmp_path, "\n".join(lines) + "\n", 2, 2, NOW)


def test_the_abort_below_the_watchdog_s_stack_names_no_one(tmp_path):
    assert _named(tmp_path, [*STACK, SIGTERM, HEAD, TAIL]) == []


def test_an_abort_without_a_watchdog_above_is_the_rank_s_own(tmp_path):
    """Without the stack the same report is rank 0's own SIGABRT (as before)."""
    assert _named(tmp_path, [SIGTERM, HEAD, TAIL]) == [("rank-failure", "abort", [0])]
