"""A torchrun failure table cut before its Root Cause (real incidents batch 27, pytorch-image-models-1724;
queries/_incident.sql ``root_unseen``, docs/rules.md rank-failure).

torchrun's ChildFailedError table lists the first failure under ``Root Cause (first observed failure):`` as
``[0]`` and every other failure of the same poll under ``Failures:`` as ``[1]``, ``[2]``, … (none is written
``<NO_OTHER_FAILURES>``). A paste that ends inside ``Failures:`` therefore shows a worker that failed beside
another one it does not show: the entry it holds is neither alone nor known to be first, so no rank is
named from it. The same entry beside an earlier Root Cause names the Root Cause's rank, and an entry ``[0]``
the paste left without its section title still names its rank.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
RULE = "=" * 60
DASH = "-" * 60
HEAD = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", RULE, "train.py FAILED", DASH]


def _entry(index: int, rank: int, code: int, when: str = "2023-03-16_22:39:06", pad: str = "      ") -> list[str]:
    return [f"[{index}]:", f"  time{pad}: {when}", f"  host{pad}: node-a", f"  rank{pad}: {rank} (local_rank: {rank})",
            f"  exitcode{pad[:-4]}: {code} (pid: {37880 + rank})"]


def _named(tmp_path, lines: list[str]) -> list[tuple]:
    return named_in_paste(tmp_path, "\n".join(lines) + "\n", 4, 4, NOW)


@pytest.mark.parametrize("lines", [
    [*HEAD, "Failures:", *_entry(1, 1, 2)],  # the batch 27 case: argparse's exit 2, cut after entry [1]
    [*HEAD, "Failures:", *_entry(2, 3, -9)],  # a signal says why, but not that it came first
    ["Other Failures:", *_entry(1, 2, 1, pad="")],  # torch 1.9's section title and unpadded rows
], ids=["exit-2", "sigkill", "torch-1.9-layout"])
def test_a_failures_entry_without_its_root_cause_names_no_one(tmp_path, lines):
    assert _named(tmp_path, lines) == []


def test_the_same_entry_beside_an_earlier_root_cause_names_the_root_cause(tmp_path):
    lines = [*HEAD, "Failures:", *_entry(1, 1, 2), DASH, "Root Cause (first observed failure):",
             *_entry(0, 3, -9, when="2023-03-16_22:38:06"), RULE]
    assert [ranks for _, _, ranks in _named(tmp_path, lines)] == [[3]]


def test_a_root_cause_entry_whose_title_was_cut_still_names_its_rank(tmp_path):
    """``[0]`` after ``<NO_OTHER_FAILURES>`` with the ``Root Cause`` title lost: read under ``Failures:``, but ``[0]``
    is the Root Cause's own index (a table with only a Root Cause names its rank: test_failure_table_wordings)."""
    lines = [*HEAD, "Failures:", "  <NO_OTHER_FAILURES>", DASH, *_entry(0, 2, -9)]
    assert [ranks for _, _, ranks in _named(tmp_path, lines)] == [[2]]
