"""A restarted torchrun run's layout read from its agents' lines (``k10s import-logs``): each attempt's teardown names
its own pids, and the failure tables' ``rank : R (local_rank: L)`` lines are the authority on processes per node
(docs/rules.md "Session 72: a restarted run's SIGTERM pids counted per attempt, the failure tables the authority").

The positive: t79's every-attempt raise of rank 4 under ``--max-restarts 1 --redirects 3`` (both versions): node 0's
console holds only its agent's 'Sending process P closing signal SIGTERM' lines of two attempts back to back (3 + 2
pids in 2.13.0, 3 + 1 in 2.14.1), once counted as one teardown of 5 (4) processes, node 1's console then placed as node
0 and its 'local_rank: 1' read as rank 1. The contrast: t64's restarted 2 x 3 run under ``--redirects``, whose layout
comes from the processes the launcher names (wider than any local rank the lines show), still read 3 per node."""

from __future__ import annotations

import pytest
from torch_runs_kit import RUNS, import_run, load_runs, named, plain

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_layout import LogSource, infer_layout
from k10s_forensics.parsers.log_layout_counts import tables_fit, torn_down_max

T79 = "t79-trun-2x3-restarts1-raise-rank4-step4-ckpt-rank0-w0-exception-logging-norank-redirects"
T64 = "t64-trun-2x3-restarts1-recovered-sigbus-rank0-step8-ckpt-shards-w2-uncaught-deepspeed-redirects"
_GLOG = "W1207 23:{}000 22321 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {} closing signal SIGTERM"


def _texts(version: str, name: str) -> list[str]:
    folder = RUNS / version / name
    return [plain((folder / f"node{i}.log").read_text(encoding="utf-8")) for i in range(2)]


@pytest.mark.parametrize("version", ["2.13.0", "2.14.1"])
def test_each_attempts_teardown_is_counted_on_its_own(version):
    node0, node1 = _texts(version, T79)
    assert torn_down_max([node0]) == 3  # not 5 (4): the second attempt's pids are a teardown of their own
    layout = infer_layout([LogSource("node0.log", node0), LogSource("node1.log", node1)])
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (3, 2, 6)


def test_signal_lines_of_one_loop_are_one_teardown():
    one_loop = "\n".join(_GLOG.format(f"33:58.63{i}", 100 + i) for i in range(4))
    assert torn_down_max([one_loop]) == 4
    two_attempts = "\n".join([_GLOG.format("33:58.633", 100), _GLOG.format("33:58.634", 101),
                              _GLOG.format("34:34.364", 200), _GLOG.format("34:34.365", 201)])
    assert torn_down_max([two_attempts]) == 2


def test_the_failure_table_rules_out_a_count_it_contradicts():
    _, node1 = _texts("2.13.0", T79)
    assert tables_fit([node1], 3)
    assert not tables_fit([node1], 6)  # rank 4 (local_rank: 1): its node's first rank 3 is no whole node of 6 in
    assert not tables_fit([node1], 2)  # rank 5 (local_rank: 2): a node of 2 has no local rank 2


def test_a_table_contradicting_the_launchers_count_wins():
    _, node1 = _texts("2.13.0", T79)
    burst = "\n".join(_GLOG.format(f"33:58.63{i}", 300 + i) for i in range(6))  # six pids named by one teardown
    layout = infer_layout([LogSource("node0.log", burst), LogSource("node1.log", node1)])
    assert layout.nproc_per_node == 3


def test_a_restarted_runs_wider_layout_still_reads():
    for version in ("2.13.0", "2.14.1"):
        texts = _texts(version, T64)
        layout = infer_layout([LogSource(f"node{i}.log", t) for i, t in enumerate(texts)])
        assert (layout.nproc_per_node, layout.world_size) == (3, 6), version
        assert layout.hints["nproc_per_node"] == "processes the launcher names"


@pytest.mark.slow
@pytest.mark.parametrize("version", ["2.13.0", "2.14.1"])
def test_import_logs_names_rank_4_not_rank_1(tmp_path, version):
    run = next(r for r in load_runs() if r.id == f"{version}/{T79}")
    got = named(analyze(import_run(run, tmp_path))["findings"])
    assert any(ranks == [4] for _, ranks in got), got
    assert not any(1 in ranks for _, ranks in got), got
