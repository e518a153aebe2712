"""torchrun's ``--tee`` prefix of a host-named role, ``[node1:4]:`` (docs/parsers-logs.md, "Session 62"): torch's
elastic agent prefixes each line of a worker it tees with ``[{role}{local_rank}]:`` (``[default3]:`` by default), and
``--role $(hostname -s):`` (stas00's ml-engineering, open-r1's and nanotron's SLURM scripts, accelerate's ``--role``)
makes it ``[<host>:<local rank>]:``. The number is the LOCAL rank (evaluate#481: ``[node2:7]:`` is process 15 of 2 x
8); the host is the node. Before session 62 the prefix was not read at all, so such pastes came back empty.

Read: the prefix is peeled and its number is the line's local rank; two or more hosts in one paste are as many nodes
(in the order they first appear), so their local ranks resolve to global ones; one host alone is one node of several,
which one unknown (read as ``[default7]:`` is). Contrasts: a source location in brackets (``[trainer.py:650]:``) is no
host; a lone ``[node1:4]:`` line with no processes-per-node hint reads as ``[default4]:`` does (one node assumed).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import gist, pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_layout import LogSource, infer_layout, route_lines, tee_hosts
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

METRIC_LOCKS = corpus_lines("evaluate-481-")
WATCHDOG = corpus_lines("open-r1-160-")


@pytest.mark.parametrize("line, local, text", [
    ("[node1:4]:ValueError: Couldn't acquire lock", 4, "ValueError: Couldn't acquire lock"),
    ("[alphagpu12:3]:  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] x", 3, "what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] x"),
    ("[gpu-a100-07.cluster.local:0]:Traceback (most recent call last):", 0, "Traceback (most recent call last):"),
    ("2026-12-06 04:50:00,100 [node2:7]:RuntimeError: boom", 7, "RuntimeError: boom"),
])
def test_the_prefix_is_peeled_as_a_local_rank(line, local, text):
    norm = normalize(line)
    assert (norm.local_rank, norm.rank, norm.text) == (local, None, text)


@pytest.mark.parametrize("line", ["[trainer.py:650]: (5/8) Computing validation loss",
                                  "[model.cc:12]: check failed", "[rank3]: ValueError: x"])
def test_a_source_location_or_torch_s_rank_tag_is_no_host_prefix(line):
    norm = normalize(line)
    assert norm.local_rank is None


def test_two_hosts_are_two_nodes_in_the_order_they_appear():
    source = LogSource("log.txt", "\n".join(METRIC_LOCKS))
    layout = infer_layout([source])
    assert tee_hosts(source.lines) == 2
    assert (layout.nproc_per_node, layout.nodes) == (8, 2)
    assert route_lines(source.lines, 8, 2, source.line_ranks) == [[0], [1]]


def test_one_host_of_several_nodes_is_not_placed():
    lines = METRIC_LOCKS[1:]
    assert route_lines(lines, 8, 2, [None]) == [[0], []]  # stays where a line of no node goes


@pytest.mark.parametrize("nproc, world", [(None, None), (8, 16)])
def test_the_metric_locks_of_two_nodes_read_as_their_processes(tmp_path, nproc, world):
    """evaluate#481 as collected: read, the two lock errors are processes 4 and 15 (the second's message says so), and
    both under one shared directory: no one named (tests/test_shared_dir_errors_several_ranks.py)."""
    findings = pasted_findings(METRIC_LOCKS, tmp_path, nproc, world, NOW)
    assert naming_findings(findings) == [], gist(findings)
    failure = [f for f in findings if f["rule"] == "rank-failure"]
    assert [(f["severity"], f["cause"], f["ranks"]) for f in failure] == [("warning", "python-exception", [])]
    assert "a directory the processes share (/.hf_cache/metrics/accuracy/default)" in failure[0]["summary"]


def test_two_hosts_one_rank_s_own_error_names_its_global_rank(tmp_path):
    """node2's local rank 1 raises; the second host is the second node: rank 9 of 2 x 8 (a lone paste of its error:
    said at warning)."""
    lines = ["2026-12-06 04:49:00,000 [node1:0]:step 10 loss 0.5", "2026-12-06 04:49:00,000 [node2:0]:step 10 loss 0.5",
             "2026-12-06 04:50:00,000 [node2:1]:Traceback (most recent call last):",
             '2026-12-06 04:50:00,000 [node2:1]:  File "/workspace/train.py", line 41, in <module>',
             "2026-12-06 04:50:00,000 [node2:1]:ValueError: expected 3 channels, got 4"]
    named = naming_findings(pasted_findings(lines, tmp_path, 8, 16, NOW))
    assert [(f["cause"], f["ranks"]) for f in named] == [("python-exception", [9])], gist(named)


def test_the_watchdog_of_a_host_tagged_paste_still_reads_alone(tmp_path):
    """open-r1#160 as collected (``[alphagpu12:3]:`` before every line): one waiter's watchdog, no culprit, as before."""
    findings = pasted_findings(WATCHDOG, tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], gist(findings)
    assert [(f["rule"], f["severity"]) for f in findings] == [("nccl-hang", "info")]


@pytest.mark.parametrize("tag", ["[node1:4]:", "[default4]:"])
def test_a_lone_line_reads_as_the_default_role_s(tmp_path, tag):
    line = METRIC_LOCKS[0].replace("[node1:4]:", tag)
    assert [(f["severity"], f["ranks"]) for f in pasted_findings([line], tmp_path, None, None, NOW)
            if f["rule"] == "rank-failure"] == [("warning", [4])]
