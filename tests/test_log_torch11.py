"""What the eleventh set of real launcher runs (tests/data/torch-runs, ``t11-*``) brought: a rank's exit status
that its own "Connection closed/reset by peer" explains is a victim's, not a first failure before the collective
timed out (queries/nccl_hang.sql); the failure tables of several node logs tell the processes per node when no
line states them (k10s_forensics/parsers/log_layout.py). c10d's per-call wait timeout ("Operation timed out!")
is in tests/test_gloo_hang.py with gloo's other wait wordings."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource
from k10s_forensics.parsers.log_layout import infer_layout
from torch_runs_kit import RUNS, Run, import_run, podlog_run

#: 3 agents x 2 (``--nnodes 1:3``): node 2 killed; ranks 0, 2 and 3 saw their connections close, rank 3's agent
#: reported its exit status 1 before rank 1's gloo send timed out; the job re-formed smaller and finished
ELASTIC = RUNS / "2.13.0" / "t11-trun-elastic-1to3-node-leaves"
RANK3_CLOSED = re.compile(r"(\[rank3\]: )RuntimeError: \[[^\]]*pair\.cc:\d+\] Connection closed by peer [^\n]*")


def _variant(tmp_path, replace) -> Run:
    """The elastic recording with rank 3's exception line rewritten by ``replace`` (a match -> the new line)."""
    folder = tmp_path / "run"
    shutil.copytree(ELASTIC, folder)
    log = folder / "node1.log"
    text, n = RANK3_CLOSED.subn(replace, log.read_text(encoding="utf-8"))
    assert n == 1
    log.write_text(text, encoding="utf-8")
    return Run("2.13.0", ELASTIC.name, folder, json.loads((folder / "truth.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("wording", [
    "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:27020",
    "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:27020: Connection reset by peer",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.9.0.7]:31662",  # torch < 2.1
], ids=["closed", "reset", "closed-older-path"])
def test_an_exit_its_own_closed_connection_explains_is_no_first_failure(tmp_path, wording):
    run = _variant(tmp_path, lambda m: m.group(1) + wording)
    named = naming_findings(analyze(podlog_run(run, tmp_path / "p"))["findings"])
    assert named == [], [(f["rule"], f["cause"], f["ranks"]) for f in named]


def test_an_exit_after_a_rank_s_own_error_is_still_its_failure(tmp_path):
    """The same run with rank 3's exception its own (a KeyError, no peer's word): rank 3 failed first."""
    run = _variant(tmp_path, lambda m: m.group(1) + "KeyError: 'labels'")
    named = [(f["cause"], f["ranks"]) for f in naming_findings(analyze(podlog_run(run, tmp_path / "p"))["findings"])]
    assert named and all(ranks == [3] for _, ranks in named), named


def _table(rank: int, local: int) -> str:
    return ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n" + "=" * 60 + "\nentry FAILED\n"
            "Root Cause (first observed failure):\n[0]:\n  time      : 2026-11-29_14:40:47\n  host      : localhost\n"
            f"  rank      : {rank} (local_rank: {local})\n  exitcode  : 1 (pid: 1234)\n" + "=" * 60 + "\n")


@pytest.mark.parametrize("tables, nproc", [
    ([(0, 0), (2, 0)], 2),  # two nodes x 2, each node's local rank 0 reported (elastic_launch's first failed process)
    ([(1, 1), (5, 1)], 4),  # two nodes x 4, local rank 1 of each
    ([(0, 0), (3, 0), (7, 1)], 3),  # three nodes x 3
    ([(0, 0), None, (4, 0)], 2),  # three nodes x 2, the middle one killed before its table: two logs apart
    ([(2, 0)], 1),  # one log: nothing to compare (the default)
    ([(0, 0), (0, 0)], 1),  # the same first rank in both: no step
    ([(2, 0), (0, 0)], 1),  # not in node order: no step
    ([(0, 0), (2, 0), (6, 0)], 1),  # the pairs disagree (2, 3, 4): none is trusted
], ids=["2x2", "2x4", "3x3", "middle-node-lost", "one-log", "same-first", "out-of-order", "disagree"])
def test_failure_tables_of_several_node_logs_give_the_processes_per_node(tables, nproc):
    sources = [LogSource(f"node{i}.log", "step 2 loss 0.5\n" + (_table(*t) if t else "")) for i, t in enumerate(tables)]
    layout = infer_layout(sources)
    assert layout.nproc_per_node == nproc, layout
    if nproc > 1:
        assert layout.hints["nproc_per_node"] == "the failure tables' ranks, log by log"


def test_a_stated_layout_wins_over_the_failure_tables():
    sources = [LogSource(f"node{i}.log", f"--nproc_per_node=4\n{_table(r, 0)}") for i, r in enumerate((0, 2))]
    assert infer_layout(sources).nproc_per_node == 4


def test_elastic_launch_victims_are_not_named(tmp_path):
    """elastic_launch (forkserver) printed only each node's local rank 0 (a victim's gloo error) in the failure
    table; the culprit (rank 1) never printed its KeyError. Node 1's victim is rank 2 (not 1: one process per
    node was read before), so its own teardown explains its exit status and nothing is named."""
    run = next(r for r in _runs() if r.name == "t11-elaunch-forkserver-keyerror-rank1" and r.version == "2.13.0")
    named = naming_findings(analyze(import_run(run, tmp_path))["findings"])
    assert named == [], [(f["rule"], f["cause"], f["ranks"]) for f in named]


def _runs() -> list[Run]:
    from torch_runs_kit import load_runs

    return load_runs()
