"""A ``--log-dir`` agent folder nothing places, kept on a node unknown (docs/rules.md, "Session 69: failures with no
clock between files; unplaced --log-dir folders kept"; parsers/log_node_unknown.py, parsers/log_torchrun_dir.py).

Session 68 left such a folder out (its lines lost). Now it is one more pod of the job, labelled
``k10s.io/imported-layout: node-base-unknown``, on no node and of no node rank: its lines keep their local rank
(``[default<L>]:``) and name no global rank, so its errors count as evidence of what failed (an exception, a DataLoader
worker's SIGKILL) and never of which rank; the layout (nodes, world size) stays the consoles'.

The trees and consoles below are synthetic (marked so, built as tests/test_log_dir_placement.py builds them); the
recorded run is real (tests/data/torch-runs).
"""

from __future__ import annotations

import json

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs, read_sources
from k10s_forensics.parsers.log_torchrun_dir import merge_tree
from k10s_forensics.store.bundle import read_raw
from test_log_dir_placement import _TB, _console, _tree
from torch_runs_kit import CAPTURED, load_runs, plain

_LOADER = "2.13.0/t68-trun-3x2-loader-sigkill-rank5-step8-eval-w2-exception-norank-redirects"


def _read(sources, tmp):
    bundle, layout = import_logs(sources, tmp / "b", job="train", namespace="team-a", now=CAPTURED)
    return bundle, layout, [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]


def test_folders_that_fit_both_tables_are_kept_on_a_node_unknown(tmp_path):
    # SYNTHETIC: both folders' local rank 0 raise alike and both tables say local rank 0 exit 1: neither is placed
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: _TB.format(err="ValueError: bad shard 7"), 1: "step 1\n"},
                                     "job_bbbbbbbb": {0: _TB.format(err="ValueError: bad shard 7"), 1: "step 1\n"}})
    consoles = [LogSource("node0.log", _console(0, [(0, 1), (1, -15)])), LogSource("node1.log", _console(1, [(0, 1), (1, -15)]))]
    merged, how, _ = merge_tree(consoles + tree, LogSource)
    assert "not placed" in how and "kept on a node unknown" in how
    assert [s.name for s in merged[2:]] == ["job_aaaaaaaa [agent folder, node unknown]", "job_bbbbbbbb [agent folder, node unknown]"]
    assert "[default0]:ValueError: bad shard 7" in merged[2].text
    bundle, layout, failure = _read(consoles + tree, tmp_path)
    assert (layout.nodes, layout.world_size) == (2, 4)  # the consoles' layout: the folders are no node
    pods = {json.loads(r["body"])["metadata"]["name"]: json.loads(r["body"]) for r in read_raw(bundle, "objects").to_pylist()
            if r["kind"] == "Pod"}
    unknown = [p for name, p in pods.items() if "node-unknown" in name]
    assert len(unknown) == 2 and all("nodeName" not in p["spec"] for p in unknown)
    assert all(p["metadata"]["labels"]["k10s.io/imported-layout"] == "node-base-unknown" for p in unknown)
    # the tables' ranks (0 and 2, exit 1 alike) are the reading; no rank comes from the folders' ValueError
    assert failure and set(failure[0]["ranks"]) <= {0, 2}


def test_an_unplaced_folders_exception_counts_without_a_rank(tmp_path):
    # SYNTHETIC: consoles without a failure; one folder's local rank 1 raised: a finding, its cause, no global rank
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: "starting\n", 1: _TB.format(err="ValueError: bad shard 7")},
                                     "job_bbbbbbbb": {0: "starting\n", 1: "starting\n"}})
    consoles = [LogSource("node0.log", "[default0]:starting\nagent up\n"), LogSource("node1.log", "[default0]:starting\nagent up\n")]
    _, _, failure = _read(consoles + tree, tmp_path)
    assert failure and failure[0]["ranks"] == [] and failure[0]["cause"] == "python-exception"
    assert "local rank 1" in failure[0]["summary"] and "global rank is unknown" in failure[0]["summary"]


def test_an_unplaced_folders_loader_sigkill_gives_the_cause_not_a_rank(tmp_path):
    # SYNTHETIC: the DataLoader's SIGKILL line in an unplaced folder: the cause is read, no rank named
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: "starting\n", 1: "step 2\nRuntimeError: DataLoader worker (pid 4242) "
                                                      "is killed by signal: Killed.\n"},
                                     "job_bbbbbbbb": {0: "starting\n", 1: "starting\n"}})
    consoles = [LogSource("node0.log", "[default0]:starting\nagent up\n"), LogSource("node1.log", "[default0]:starting\nagent up\n")]
    _, _, failure = _read(consoles + tree, tmp_path)
    assert failure and failure[0]["ranks"] == [] and failure[0]["cause"] == "host-oom-kill"


def _loader(tmp_path, node: int):
    run = next(r for r in load_runs() if r.id == _LOADER)
    console = LogSource(f"node{node}.log", plain((run.folder / f"node{node}.log").read_text(encoding="utf-8")))
    return _read([console, *read_sources(str(run.folder / "log-dir"))], tmp_path)


def test_the_recorded_loader_run_with_one_console_names_no_victim(tmp_path):
    # real: node 0's console and the whole tree; node 0's folder is placed by its pids, the other two are not; rank 5's
    # DataLoader SIGKILL (local rank 1 of node 2's folder) is the cause, and neither rank 0 (node 0's table: exit 1, a
    # victim's) nor rank 5 is named from the folder
    _, layout, failure = _loader(tmp_path, 0)
    assert "kept on a node unknown" in layout.hints["nodes"]
    assert failure and failure[0]["ranks"] == [] and failure[0]["cause"] == "host-oom-kill", failure[0]["summary"]


def test_the_recorded_loader_run_with_its_culprits_console_places_it(tmp_path):
    # contrast, real: node 2's console places node 2's folder (its pids): rank 5 named, its cause the SIGKILL
    _, _, failure = _loader(tmp_path, 2)
    assert failure and failure[0]["ranks"] == [5] and failure[0]["cause"] == "host-oom-kill", failure[0]["summary"]
