"""torch elastic's ``@record`` on a worker that failed without an error file (parsers/log_launchers.py,
real incidents batch 13): ``local_rank 1 FAILED with no error file`` (PyTorch 1.x) and, from 2.x on, the
same message logged as an unformatted tuple ``('local_rank %s FAILED with no error file. …', 2)``. The
number is the failure's global rank (the failure table's ``rank``), how the process ended is not said:
alone it names that rank, exit-unknown (warning); where the agent's own report (``failed (exitcode: …)``,
its failure table) is in the log the line adds nothing: no rank, no cause, no victim made a culprit.
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

NOW = dt.datetime(2026, 11, 29, 4, 0, tzinfo=dt.timezone.utc)
TAIL = " Decorate your entrypoint fn with @record for traceback info. See: https://pytorch.org/docs/stable/elastic/errors.html"
TUPLE = "('local_rank %s FAILED with no error file." + TAIL + "', {rank})"


@pytest.mark.parametrize(("line", "rank"), [
    # PyTorch 2.x: the message and its argument logged as one tuple, through c10's glog layout
    ("I1128 21:22:31.866000 21730 torch/distributed/elastic/multiprocessing/errors/__init__.py:380] " + TUPLE.format(rank=2), 2),
    # behind NeMo-Run's role/replica tag and a container runtime's timestamp
    ("i.pretrain/0 I0215 08:29:11.027000 485 torch/distributed/elastic/multiprocessing/errors/__init__.py:368] "
     + TUPLE.format(rank=0), 0),
    ("2026-11-28T21:29:18.712874000Z I1128 21:29:18.712000 9096 torch/distributed/elastic/multiprocessing/errors/__init__.py:380] "
     + TUPLE.format(rank=13), 13),
    # PyTorch 1.x: the formatted message, even cut at the terminal's width
    ("INFO:torch.distributed.elastic.multiprocessing.errors:local_rank 1 FAILED with no error file. Decorate your entrypoint fn "
     "with @record for traceback in", 1),
    ("[2023-05-02 10:11:12,345] torch.distributed.elastic.multiprocessing.errors: [INFO] local_rank 7 FAILED with no error file."
     + TAIL, 7),
])
def test_the_record_wrapper_names_the_failed_global_rank(line, rank):
    assert re.search(PREFILTER_EVENT, line)
    assert [(e["kind"], e["subkind"], e["rank"], e["exit_code"]) for e in classify(line)] == [
        ("process_exit", "elastic_no_error_file", rank, None)]


@pytest.mark.parametrize("line", [
    "('local_rank %s FAILED with no error file.",  # the tuple cut before its argument: no rank
    "local_rank 3 FAILED to start",  # another sentence
    "WARNING: local_rank %s FAILED with no error file, see the docs",  # the template quoted in prose, no argument
])
def test_lines_that_name_no_rank(line):
    assert not [e for e in classify(line) if e.get("subkind") == "elastic_no_error_file"]


def _named(tmp_path, text: str, nproc: int | None, world: int | None):
    bundle, _ = import_logs([LogSource("log.txt", text)], tmp_path / "b", nproc_per_node=nproc, world_size=world,
                            job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


AGENT = ("E1128 21:22:31.865000 21730 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -11) local_rank: 1 "
         "(pid: 21929) of binary: /workspace/.venv/bin/python3\n")
RECORD = "I1128 21:22:31.866000 21730 torch/distributed/elastic/multiprocessing/errors/__init__.py:380] " + TUPLE + "\n"


def test_alone_it_names_the_rank_how_it_ended_unknown(tmp_path):
    assert _named(tmp_path, RECORD.format(rank=3), 4, 4) == [("rank-failure", "warning", "exit-unknown", [3])]


def test_beside_the_agent_line_it_adds_no_rank_and_no_cause(tmp_path):
    # at warning: the paste holds rank 1's lines only (docs/rules.md, "What a paste cannot prove")
    assert _named(tmp_path, AGENT + RECORD.format(rank=1), 2, 2) == [("rank-failure", "warning", "segfault", [1])]



@pytest.mark.parametrize(("agent", "rank", "named"), [
    (AGENT, 1, ("rank-failure", "warning", "segfault", [1])),  # a paste of rank 1's lines only
    (AGENT.replace("exitcode: -11", "exitcode: 1").replace("local_rank: 1", "local_rank: 0"), 0,
     ("rank-failure", "warning", "python-exception", [0]))])
def test_beside_the_agent_report_it_places_the_local_rank(tmp_path, agent, rank, named):
    """On a job of two nodes the agent's `local_rank: N` alone, in a paste nothing routes, names no rank (docs/rules.md,
    "Session 17: controls": an unplaced local rank); the @record line gives the failure's global rank, so that rank is
    named with the cause the agent's exit status says (a torn-down worker stays a victim: tests/data/torch-runs
    t5-evicted-node1-sigterm)."""
    assert _named(tmp_path / "agent", agent, 2, 4) == []
    assert _named(tmp_path / "both", agent + RECORD.format(rank=rank), 2, 4) == [named]
