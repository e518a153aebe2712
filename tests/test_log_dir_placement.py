"""Placing a torchrun ``--log-dir`` tree's agent folders when no line names a global rank (docs/rules.md, "Session 68:
placing --log-dir agent folders"; parsers/log_torchrun_place.py, parsers/log_torchrun_dir.py).

Each agent folder ``<run_id>_<random>`` is one node's, but which node is in no line of a tree whose workers print no
rank. The folders' random names were the guess (2.14.1's t66 3 x 2 run named rank 4 for rank 2). Now: a console that
holds the folder's own lines under ``--tee``'s tags, or whose failure table fits the folder's tracebacks and no other
folder's, places it; a console naming the folder (an ``error_file:`` path) still does; nothing else does: an unplaced
folder is left out beside the consoles, and a tree with no console at all reads as one log that names no rank.

The trees and consoles below are synthetic (marked so); the recorded runs are real (tests/data/torch-runs).
"""

from __future__ import annotations

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs, read_sources
from k10s_forensics.parsers.log_torchrun_dir import merge_tree
from torch_runs_kit import CAPTURED, load_runs, plain, score

_AGENT = "E1206 17:03:17.466000 26112 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) " \
         "local_rank: {lr} (pid: 1) of binary: python3"


def _console(node: int, rows: list[tuple[int, int]], tee: list[str] = (), error_file: str = "<N/A>") -> str:
    """A synthetic agent console: its --tee lines, the agent's report and a failure table of 2 local ranks a node."""
    lines = list(tee) + [_AGENT.format(lr=rows[0][0]), "Failures:"]
    for lr, code in rows:
        lines += [f"  rank      : {node * 2 + lr} (local_rank: {lr})", f"  exitcode  : {code} (pid: {100 + lr})",
                  f"  error_file: {error_file}"]
    return "\n".join(lines) + "\n"


def _tree(root, folders: dict[str, dict[int, str]]):
    """Synthetic agent folders: ``{folder: {local rank: stderr text}}``."""
    for folder, ranks in folders.items():
        for lr, text in ranks.items():
            (root / folder / "attempt_0" / str(lr)).mkdir(parents=True)
            (root / folder / "attempt_0" / str(lr) / "stderr.log").write_text(text, encoding="utf-8")
    return read_sources(str(root))


_TB = "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    main()\n{err}\n"
_PEER = _TB.format(err="RuntimeError: Connection closed by peer")


def _findings(sources, tmp):
    bundle, layout = import_logs(sources, tmp / "b", job="train", namespace="team-a", now=CAPTURED)
    return [f for f in analyze(bundle)["findings"] if f.get("ranks")], layout


def test_the_lines_a_console_holds_under_tee_place_its_folder(tmp_path):
    # synthetic: folder job_aaaaaaaa is node 1's (its lines are in node1.log under --tee), job_bbbbbbbb node 0's
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: "step 1 loss 0.4121\n" + _TB.format(err="ValueError: bad shard 7"),
                                                      1: "step 1 loss 0.3313\n" + _PEER},
                                     "job_bbbbbbbb": {0: "step 1 loss 0.2980\n" + _PEER, 1: "step 1 loss 0.1011\n" + _PEER}})
    consoles = [LogSource("node0.log", _console(0, [(0, 1), (1, 1)], ["[default0]:step 1 loss 0.2980", "[default1]:step 1 loss 0.1011"])),
                LogSource("node1.log", _console(1, [(0, 1), (1, -15)], ["[default0]:step 1 loss 0.4121", "[default1]:step 1 loss 0.3313"]))]
    merged, how, _ = merge_tree(consoles + tree, LogSource)
    assert "node 0: job_bbbbbbbb by the lines its console holds (--tee); node 1: job_aaaaaaaa by the lines its console holds" in how
    assert "[default0]:ValueError: bad shard 7" in merged[1].text and "ValueError" not in merged[0].text
    # a line every folder has at one local rank (a common frame, 'starting') places nothing
    same = _tree(tmp_path / "same", {"job_aaaaaaaa": {0: "starting\n"}, "job_bbbbbbbb": {0: "starting\n"}})
    _, how, _ = merge_tree([LogSource("node0.log", "[default0]:starting\n"), LogSource("node1.log", "[default0]:starting\n")]
                           + same, LogSource)
    assert "not placed" in how and "by the lines" not in how


def test_a_failure_table_that_fits_one_folder_only_places_it(tmp_path):
    # synthetic: node 1's table: local rank 1 exit 1, local rank 0 SIGTERM; node 0's: local rank 0 exit 1, 1 SIGTERM
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: "step 3\n", 1: _TB.format(err="KeyError: 'labels'")},
                                     "job_bbbbbbbb": {0: _PEER, 1: "step 3\n"}})
    consoles = [LogSource("node0.log", _console(0, [(1, -15), (0, 1)])), LogSource("node1.log", _console(1, [(0, -15), (1, 1)]))]
    merged, how, _ = merge_tree(consoles + tree, LogSource)
    assert "node 0: job_bbbbbbbb by its console's failure table; node 1: job_aaaaaaaa by its console's failure table" in how
    assert "[default1]:KeyError: 'labels'" in merged[1].text
    ranked, _ = _findings(consoles + tree, tmp_path)
    assert ranked and ranked[0]["ranks"] == [3] and "KeyError" in ranked[0]["summary"], [f["summary"] for f in ranked]


def test_the_pids_its_agent_names_place_its_folder_unless_two_agents_name_one(tmp_path):
    # synthetic: each worker prints its pid; node 1's agent names pid 4242 at local rank 0 (its table), node 0's 5151
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: "starting (pid 4242)\n" + _PEER, 1: "starting (pid 4243)\n"},
                                     "job_bbbbbbbb": {0: "starting (pid 5151)\n" + _PEER, 1: "starting (pid 5152)\n"}})
    consoles = [LogSource("node0.log", _console(0, [(0, 1)]).replace("(pid: 100)", "(pid: 5151)")),
                LogSource("node1.log", _console(1, [(0, 1)]).replace("(pid: 100)", "(pid: 4242)"))]
    _, how, _ = merge_tree(consoles + tree, LogSource)
    assert "node 0: job_bbbbbbbb by the pids its console's agent names; node 1: job_aaaaaaaa by the pids" in how, how
    # pods have pid namespaces of their own: one pid in both agents' tables places neither folder by it
    both = [LogSource(c.name, c.text.replace("(pid: 5151)", "(pid: 4242)")) for c in consoles]
    _, how, _ = merge_tree(both + tree, LogSource)
    assert "by the pids" not in how and "not placed" in how, how
    # a pid the console ties to another local rank contradicts it
    other = [consoles[0], LogSource("node1.log", _console(1, [(1, 1)]).replace("(pid: 101)", "(pid: 4242)"))]
    _, how, _ = merge_tree(other + tree, LogSource)
    assert "job_aaaaaaaa by the pids" not in how, how


def test_an_error_file_path_places_its_folder_before_anything_else(tmp_path):
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: _PEER, 1: "step 3\n"}, "job_bbbbbbbb": {0: _PEER, 1: "step 3\n"}})
    path = "/tmp/logs/job_aaaaaaaa/attempt_0/0/error.json"  # synthetic: node 1's table names job_aaaaaaaa's file
    consoles = [LogSource("node0.log", _console(0, [(0, 1)])), LogSource("node1.log", _console(1, [(0, 1)], error_file=path))]
    _, how, _ = merge_tree(consoles + tree, LogSource)
    assert "node 1: job_aaaaaaaa by its console's path" in how and "node 0: job_bbbbbbbb by the one node left" in how


def test_two_folders_that_fit_alike_are_not_placed_and_name_no_rank(tmp_path):
    # synthetic: both tables say local rank 0 exit 1, both folders hold a traceback there: no console tells them apart
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: _TB.format(err="ValueError: bad shard 7"), 1: "step 3\n"},
                                     "job_bbbbbbbb": {0: _PEER, 1: "step 3\n"}})
    consoles = [LogSource("node0.log", _console(0, [(0, 1), (1, -15)])), LogSource("node1.log", _console(1, [(0, 1), (1, -15)]))]
    merged, how, _ = merge_tree(consoles + tree, LogSource)
    assert "job_aaaaaaaa, job_bbbbbbbb not placed" in how and "its local ranks name no global rank" in how
    # kept on a node unknown since session 69 (tests/test_log_dir_unplaced.py): the ValueError is in that source only
    assert "folders' order" not in how and all("ValueError" not in m.text for m in merged if "node unknown" not in m.name)
    ranked, _ = _findings(consoles + tree, tmp_path)
    assert not any("ValueError" in f["summary"] for f in ranked), [f["summary"] for f in ranked]


def test_the_tree_alone_with_no_rank_reads_as_one_log_naming_none(tmp_path):
    tree = _tree(tmp_path / "logs", {"job_aaaaaaaa": {0: "step 1\n", 1: _TB.format(err="ValueError: bad shard 7")},
                                     "job_bbbbbbbb": {0: "step 1\n", 1: "step 1\n"}})
    merged, how, nproc = merge_tree(tree, LogSource)
    assert len(merged) == 1 and nproc is None and "none placed" in how and "[default" not in merged[0].text
    ranked, layout = _findings(tree, tmp_path)
    assert not ranked and layout.hints["nodes"].startswith("torchrun --log-dir tree (2 agents")


_RUNS = {r.id: r for r in load_runs() if (r.folder / "log-dir").is_dir()}


def _real(run_id: str, tmp):
    run = _RUNS[run_id]
    consoles = []
    for name, text in zip(run.truth["node_logs"], run.stamped()):
        (tmp / name).write_text(plain(text), encoding="utf-8")
        consoles.append(read_sources(str(tmp / name))[0])
    return run, consoles + read_sources(str(run.folder / "log-dir"))


def test_t66s_tree_is_placed_by_its_tee_lines_and_names_rank_2(tmp_path):
    run, sources = _real("2.14.1/t66-trun-3x2-raise-rank2-step8-eval-w0-print-exc-norank-logdir", tmp_path)
    _, how, _ = merge_tree(sources, LogSource)
    assert how.count("by the lines its console holds (--tee)") == 3, how
    assert f"node 1: {run.id.split('/')[1]}_h377t3z0 by the lines its console holds (--tee)" in how, how
    bundle, _ = import_logs(sources, tmp_path / "b", job="train", namespace="team-a", now=CAPTURED)
    assert score(run, bundle) is None


def test_a_table_a_folder_contradicts_places_nothing(tmp_path):
    # real: the culprit (rank 2) exits 1 with no traceback while SIGTERMed victims print theirs: node 1's folder fits
    # node 0's table (local rank 0 quiet, 1 a traceback) and node 0's folder fits none: the table reading is not used
    run, sources = _real("2.14.1/t55-trun-2x2-health-exit1-rank2-step250-redirects", tmp_path)
    _, how, _ = merge_tree(sources, LogSource)
    assert "failure table" not in how, how
