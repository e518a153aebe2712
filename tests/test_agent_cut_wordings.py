"""torchrun's agent report cut after the local rank (real incidents batch 38, InternImage-82;
parsers/log_patterns.py ``AGENT_FAILED``, docs/parsers-logs.md).

The elastic agent reports a failed worker as ``failed (exitcode: -6) local_rank: 1 (pid: 223) of binary: …``.
A paste can end right after the local rank: an issue title or a one-line paste that quotes the line up to
``local_rank: 1``, a line cut at the terminal's edge. That line still names the failed local rank and its
exit status; the pid is then unknown. Only a line that ENDS after the number is read so: prose that goes on
(``… local_rank: 1 and then …``) or a different number format is not an agent report.
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

PREFILTER = re.compile(PREFILTER_EVENT)


def _agent(line: str) -> list[tuple]:
    return [(e.get("exit_code"), e.get("local_rank"), e.get("pid"))
            for e in classify(line) if e["kind"] == "torchrun_failure"]


@pytest.mark.parametrize("line, want", [
    # the batch 38 case: torch 1.x's logger name, cut after the rank
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 1", (-6, 1, None)),
    # the same with trailing blanks, as a paste keeps them
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3   ", (-9, 3, None)),
    # torch 2.x's glog prefix
    ("E1119 08:26:02.715000 28705 site-packages/torch/distributed/elastic/multiprocessing/api.py:882] "
     "failed (exitcode: -11) local_rank: 0", (-11, 0, None)),
    # the whole line still reads its pid
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: 4242) of binary: /usr/bin/python",
     (1, 2, 4242)),
])
def test_an_agent_line_cut_after_the_local_rank_names_it(line, want):
    assert PREFILTER.search(line)
    assert _agent(line) == [want]


@pytest.mark.parametrize("line", [
    "the run failed (exitcode: -6) local_rank: 1 and then every other worker stopped",  # prose that goes on
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: x",  # no number
])
def test_a_line_that_goes_on_after_the_rank_is_not_an_agent_report(line):
    assert _agent(line) == []
