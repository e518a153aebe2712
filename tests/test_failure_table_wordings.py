"""torch elastic's ChildFailedError table in torch 1.9's layout (real incidents batch 22, SCTNet-47):
its sections are titled ``Root Cause:`` and ``Other Failures:`` (not ``Root Cause (first observed
failure):`` / ``Failures:``), its rows are ``key: value`` with one space (``  time: 2025-02-20_22:01:20``,
``  rank: 0 (local_rank: 0)``) and each entry ends in a ``msg:`` row. It is read as the later layout:
one ``torchrun_failure`` per entry, ``root_cause`` / ``failures`` by section, the entry's time from its
``time`` row, so entries of one second are ranks that failed together.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import named_in_paste
from parser_kit import body_events
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
RULE = "=" * 39


def _entry(index: int, rank: int, when: str, code: int = 1, pid: int = 866229, pad: str = "") -> list[str]:
    return [f"[{index}]:", f"  time{pad}: {when}", f"  rank{pad}: {rank} (local_rank: {rank})",
            f"  exitcode{pad}: {code} (pid: {pid + rank})", f"  error_file{pad}: <N/A>", f'  msg{pad}: "Process failed with exitcode {code}"']


def _table(first: tuple[int, str], other: tuple[int, str], code: int = 1, head: str = "tools/train.py FAILED",
           root: str = "Root Cause:", failures: str = "Other Failures:", pad: str = "") -> list[str]:
    return [head, RULE, root, *_entry(0, first[0], first[1], code, pad=pad), RULE, failures,
            *_entry(1, other[0], other[1], code, pad=pad), RULE]


def _events(lines: list[str]) -> list[tuple]:
    return [(e["subkind"], e["rank"], e["local_rank"], e["exit_code"], e["ts"]) for e in body_events(lines, NOW) if e["kind"] == "torchrun_failure"]


T20 = dt.datetime(2025, 2, 20, 22, 1, 20, tzinfo=dt.timezone.utc)
T25 = T20 + dt.timedelta(seconds=5)


@pytest.mark.parametrize("lines", [
    _table((0, "2025-02-20_22:01:20"), (1, "2025-02-20_22:01:25")),
    _table((0, "2025-02-20_22:01:20"), (1, "2025-02-20_22:01:25"), head="\u201ctools/train.py FAILED         "),  # curly-quoted paste
    _table((0, "2025-02-20_22:01:20"), (1, "2025-02-20_22:01:25"), root="  Root Cause:  ", failures=" Other Failures:"),
    _table((0, "2025-02-20_22:01:20"), (1, "2025-02-20_22:01:25"), pad="      "),  # the later layout's padded keys
    _table((0, "2025-02-20_22:01:20"), (1, "2025-02-20_22:01:25"), root="Root Cause (first observed failure):", failures="Failures:"),
])
def test_each_entry_is_read_with_its_section_and_time(lines):
    assert _events(lines) == [("root_cause", 0, 0, 1, T20), ("failures", 1, 1, 1, T25)]


@pytest.mark.parametrize("line", ["Root Cause:", "Other Failures:", "  time: 2025-02-20_22:01:20", "  time      : 2025-02-20_22:01:20"])
def test_the_prefilter_lets_each_row_through(line):
    assert re.search(PREFILTER_EVENT, line)


@pytest.mark.parametrize("prose", [
    "Root Cause: the config's data root is wrong",  # prose that starts like a section title
    "See Other Failures: below for more",
])
def test_prose_sets_no_section(prose):
    lines = [prose, *_entry(0, 3, "2025-02-20_22:01:20")]
    assert _events(lines) == [("table", 3, 3, 1, T20)]


def _named(tmp_path, lines: list[str]):
    return named_in_paste(tmp_path, "\n".join(lines) + "\n", 2, 2, NOW)


@pytest.mark.parametrize("layout", [("Root Cause:", "Other Failures:"), ("Root Cause (first observed failure):", "Failures:")])
def test_two_ranks_failing_in_one_second_name_no_one(tmp_path, layout):
    lines = _table((0, "2025-02-20_22:01:20"), (1, "2025-02-20_22:01:20"), root=layout[0], failures=layout[1])
    assert _named(tmp_path, lines) == []


@pytest.mark.parametrize("layout", [("Root Cause:", "Other Failures:"), ("Root Cause (first observed failure):", "Failures:")])
def test_the_old_layout_names_what_the_new_one_names(tmp_path, layout):
    """The root cause a minute before the other failure: both layouts give the same finding."""
    lines = _table((1, "2025-02-20_22:00:20"), (0, "2025-02-20_22:01:20"), root=layout[0], failures=layout[1])
    want = named_in_paste(tmp_path / "new", "\n".join(_table((1, "2025-02-20_22:00:20"), (0, "2025-02-20_22:01:20"),
                                                              root="Root Cause (first observed failure):", failures="Failures:")) + "\n", 2, 2, NOW)
    assert want and _named(tmp_path / "old", lines) == want


@pytest.mark.parametrize("line, want", [
    ("  rank      : 3 (local_rank: 1)", (3, 1)),
    ("  rank: 3 (local_rank: 1)", (3, 1)),  # torch 1.9's unpadded rows
    ("  rank      : 3 (local rank: 1)", (3, 1)),  # torch 1.9-1.10 wrote "local rank"
    ("2025-02-20T22:01:20.123456789Z   rank      : 12 (local_rank: 4)", (12, 4)),  # a pipeline's time first
    ("[2025-02-20T22:01:20Z]   rank      : 12 (local_rank: 4)", (12, 4)),
    ("  rank      : 3 (local_rank: N/A)", None),
    ("the rank: 3 (local_rank: 1) said", None),  # prose, not a table row
])
def test_an_entry_row_is_read_in_every_layout(line, want):
    from k10s_forensics.parsers.log_agents import table_entries, table_rank
    assert table_rank(line) == want
    assert table_entries(f"head\n{line}\ntail\n") == ([want] if want else [])


def test_processes_per_node_come_from_both_wordings():
    """Two node logs whose tables say ``local_rank`` and ``local rank``: the second node's first rank is 4."""
    from k10s_forensics.parsers.log_layout import _table_step
    node0 = "\n".join(_table((1, "2025-02-20_22:01:20"), (0, "2025-02-20_22:01:25")))
    node1 = node0.replace("rank: 1 (local_rank: 1)", "rank: 5 (local rank: 1)").replace("rank: 0 (local_rank: 0)", "rank: 4 (local rank: 0)")
    assert _table_step([node0, node1]) == 4
    assert _table_step([node0, node0]) is None
