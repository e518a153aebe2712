"""MindSpore's ``msrun`` (parsers/log_launchers.py, real incidents batch 50): its scheduler names a worker whose
heartbeat it lost (``The node: 3 is timed out. …``), and msrun's own analysis of a failed job lists those nodes
(``Time out nodes are ['3']``). A node id is the worker's global rank; one node is that rank's exit (how it ended is
not said); two or more timed out together and a node id that is not a number name no one.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

ME = "[ERROR] ME(162078:281473590168608,MainProcess):2025-03-10-09:40:38.722.000 [mindspore/parallel/cluster/process_entity/_api.py:431] "
SCHED = "[ERROR] DISTRIBUTED(162146,ffffb85d0c80,python):2025-03-10-09:40:30.507.316 [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:412] UpdateTopoState] "
NODE = "The node: {} is timed out. It may exit with exception, please check this node's log."


def _exits(line: str) -> list[tuple]:
    return [(e["subkind"], e.get("rank"), e.get("exit_code")) for e in classify(line) if e["kind"] == "process_exit"]


@pytest.mark.parametrize(("line", "rank"), [
    (ME + "Time out nodes are ['3']", 3),
    ("Time out nodes are ['12']", 12),  # msrun's line without its logger prefix
    (ME + "Time out nodes are [\u20183\u2019]", 3),  # a chat editor's typographic quotes (too few for log_quotes)
    (SCHED + NODE.format(5), 5),
    (NODE.format(0), 0),
    ("scheduler.log-61-" + SCHED + NODE.format(7), 7),  # msrun's grep of scheduler.log, a line-number prefix
])
def test_one_timed_out_node_is_its_global_ranks_exit(line, rank):
    assert _exits(line) == [("msrun_timed_out", rank, None)]


@pytest.mark.parametrize("line", [
    ME + "Time out nodes are ['1', '3']",  # two at once: they timed out together
    ME + "Time out nodes are []",  # the scheduler lost no node
    ME + "Time out nodes are ['b1c3e1a0-node']",  # MindSpore's own node id, not a rank
    NODE.format("worker-3"),
    "[ERROR] ME(130371:281473296949264,MainProcess):2024-12-26-14:22:26.839.923 [_api.py:268] Worker process 130673 exit with exception.",
    "connection to node 3 timed out after 30 s",  # not the scheduler's wording
])
def test_lines_that_name_no_failed_rank(line):
    assert not [e for e in classify(line) if e.get("subkind") == "msrun_timed_out"]


@pytest.mark.parametrize("line", [ME + "Time out nodes are ['3']", ME + "Time out nodes are [\u20183\u2019]", SCHED + NODE.format(5)])
def test_the_prefilter_lets_each_wording_through(line):
    """In both engines that read it: Python's re and pyarrow's RE2 (the bulk scan, parsers/logs.py)."""
    assert re.search(PREFILTER_EVENT, line)
    assert pc.match_substring_regex(pa.array([line]), PREFILTER_EVENT).to_pylist() == [True]
