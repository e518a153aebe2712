"""``kubectl exec``'s own line on the command it ran, ``command terminated with exit code N`` (parsers/log_launchers.py,
real incidents batch 56): where a launcher that starts each rank through ``kubectl exec`` (Horovod's elastic runner on
Kubernetes) tagged the line with the rank it relays (``[0]<stderr>:``, mpirun's ``[1,0]<stderr>:``), it is that rank's
exit status (128 + N: signal N, read by queries/_incident.sql). Untagged it is a launcher's own ``kubectl exec`` of a
daemon (MPIJob's ``kubexec.sh`` starting ``orted``): no rank, only the generic exit-code event it always was.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT


def _exits(line: str) -> list[tuple]:
    return [(e["subkind"], e.get("rank"), e.get("exit_code")) for e in classify(line) if e["kind"] == "process_exit"]


@pytest.mark.parametrize(("line", "rank", "code"), [
    ("[0]<stderr>:command terminated with exit code 137", 0, 137),  # horovodrun's tag (gloo runner)
    ("[2]<stdout>:command terminated with exit code 1", 2, 1),
    ("[1,3]<stderr>:command terminated with exit code 139", 3, 139),  # mpirun --tag-output
    ("Tue Dec  7 12:41:26 2021[3]<stderr>:command terminated with exit code 137", 3, 137),  # horovodrun's timestamps
    ("[0]<stderr>:command terminated with exit code 137 ", 0, 137),  # a trailing blank of the paste
])
def test_a_rank_tagged_line_is_that_ranks_exit_status(line, rank, code):
    assert _exits(line) == [("kubectl_exec", rank, code)]


@pytest.mark.parametrize("line", [
    "command terminated with exit code 137",  # the launcher's own kubectl exec (orted in a worker pod)
    "worker-1: command terminated with exit code 137",  # a pod name, not a rank tag
    "[0]<stderr>:the command terminated with exit code 137 twice",  # not kubectl's line
    "[0]<stderr>:command terminated with exit code",  # cut before the status
])
def test_lines_that_are_no_ranks_kubectl_exec_exit(line):
    assert not [e for e in classify(line) if e.get("subkind") == "kubectl_exec"]


def test_an_untagged_line_keeps_its_generic_rankless_reading():
    assert _exits("command terminated with exit code 137") == [("exit_code", None, 137)]


@pytest.mark.parametrize("line", ["[0]<stderr>:command terminated with exit code 137", "[1,3]<stderr>:command terminated with exit code 139"])
def test_the_prefilter_lets_each_wording_through(line):
    """In both engines that read it: Python's re and pyarrow's RE2 (the bulk scan, parsers/logs.py)."""
    assert re.search(PREFILTER_EVENT, line)
    assert pc.match_substring_regex(pa.array([line]), PREFILTER_EVENT).to_pylist() == [True]
