"""A rank's exit 1 with no traceback where torch's ``[rankN]:`` tags show the job's tracebacks (the forty-first launcher
set, session 39; queries/_failure_line.sql ``rank_tag_shown``). DeiT/timm/MAE's loss check prints ``Loss is nan, stopping
training`` and calls ``sys.exit(1)``: torchrun reports the rank's exit code 1 and no traceback of it exists. Since
PyTorch 2.2 a rank's uncaught exception is printed with each line tagged ``[rankN]:``, so where the job's log holds
such tagged tracebacks and the rank's own training lines, the rank raised nothing: ``exit-1``. What keeps the old
reading (exit status 1 alone: ``python-exception``): the rank's own traceback anywhere, no tagged traceback in the job
(older torch, or tags taken off), no line of the rank's own (``--local-ranks-filter`` hid it), the script's excepthook
that logged an exception it did not handle. The recorded runs themselves (pasted node logs, no timestamps), each
variant imported through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from torch_runs_kit import RUNS, plain

NOW = dt.datetime(2026, 12, 3, 7, 0, tzinfo=dt.timezone.utc)


def _run(version: str, node: int) -> list[str]:
    return plain((RUNS / version / "t41-trun-2x2-nan-exit-rank1" / f"node{node}.log").read_text()).splitlines()


def _both(version: str) -> list[str]:
    return _run(version, 0) + _run(version, 1)


def _untagged(lines: list[str]) -> list[str]:
    """As torch before 2.2 printed a rank's uncaught exception: no ``[rankN]:`` tag."""
    return [re.sub(r"^\[rank\d+\]: ?", "", line) for line in lines]


def _without_rank1_lines(lines: list[str]) -> list[str]:
    """Rank 1's own output hidden (``--local-ranks-filter 0``): its ``[rank 1]`` records and its NaN line gone."""
    return [line for line in lines if "[rank 1]" not in line and not line.startswith("Loss is")]


def _rank1_traceback(lines: list[str]) -> list[str]:
    """Rank 1 raised after all: its tagged traceback where its NaN line was."""
    tb = ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "/workspace/train.py", line 96, in <module>',
          "[rank1]:     main()", "[rank1]: FloatingPointError: Loss is nan, stopping training"]
    return [x for line in lines for x in (tb if line.startswith("Loss is") else [line])]


def _hook_logged(lines: list[str]) -> list[str]:
    """The script's excepthook logged the exception it did not handle as one record of rank 1 (no traceback)."""
    rec = "2026-12-03 06:34:18,179 [rank 1] ERROR train: uncaught KeyError: 'labels'"
    return [rec if line.startswith("Loss is") else line for line in lines]


def _sys_exit_msg(lines: list[str]) -> list[str]:
    """``sys.exit("ERROR: …")``: the message on stderr, status 1, no traceback."""
    return ["ERROR: eval split 'validation' has no examples" if line.startswith("Loss is") else line for line in lines]


#: key: (the pasted lines, the rank a warning/critical finding must name alone, its cause)
CASES = {
    "2.14.1-both-nodes": (_both("2.14.1"), 1, "exit-1"),
    "2.13.0-both-nodes": (_both("2.13.0"), 1, "exit-1"),
    "2.13.0-node0-alone": (_run("2.13.0", 0), 1, "exit-1"),  # rank 0's tagged traceback is in node 0's log
    "2.14.1-sys-exit-message": (_sys_exit_msg(_both("2.14.1")), 1, "exit-1"),
    # contrasts: status 1 alone reads as an uncaught exception's
    "2.14.1-node0-alone-no-tagged-traceback": (_run("2.14.1", 0), 1, "python-exception"),
    "2.14.1-untagged": (_untagged(_both("2.14.1")), 1, "python-exception"),
    # untagged, node 0's log holds rank 0's teardown traceback above the table: an untagged traceback the failed rank's
    # pod shows could be its own, so no one is named (the reading of an untagged traceback beside a launcher's report)
    "2.13.0-untagged": (_untagged(_both("2.13.0")), None, None),
    "2.14.1-rank1-lines-hidden": (_without_rank1_lines(_both("2.14.1")), 1, "python-exception"),
    "2.14.1-rank1-own-traceback": (_rank1_traceback(_both("2.14.1")), 1, "python-exception"),
    "2.14.1-hook-logged": (_hook_logged(_both("2.14.1")), 1, "python-exception"),
}
BATCHED = Batched("s39silent", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 2, NOW, world=4)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_silent_exit_rank_tags_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1], CASES[key][2])
    assert all(f["cause"] == CASES[key][2] for f in named if f["rule"] == "rank-failure"), [(f["rule"], f["cause"]) for f in named]
