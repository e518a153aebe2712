"""Failures in different files with no clock between them (docs/rules.md, "Session 69: failures with no clock between
files; unplaced --log-dir folders kept"; queries/_incident_own.sql ``k10s_incident_unclocked``, the importer's pod label
``k10s.io/imported-file``).

``k10s import-logs`` given several files makes one pod of each; lines without a timestamp (plain ``kubectl logs``) have
an order inside their file only. The first failure was the one in the file given first (the pods' order), a wrong
confident name where another file's failure was as strong: 2.13.0's t68 ``mp.spawn`` 2 x 2 op mismatch read rank 0
(truth rank 2). Now two failures of the same strength in two files, neither with a clock, are together: no rank from
"first". One file's order still orders (a paste of one stream), a clock still orders, and one rank's own error beside
another's victim's report still names it.

The two-file logs below are synthetic (marked so); the recorded run is real (tests/data/torch-runs).
"""

from __future__ import annotations

import json

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.store.bundle import read_raw
from torch_runs_kit import CAPTURED, import_run, load_runs, podlog_run

_T68 = "2.13.0/t68-spawn-2x2-op-mismatch-rank2-init-w2-uncaught-logging-rank"


def _tb(rank: int, err: str, stamp: str = "") -> str:
    """SYNTHETIC: a rank's traceback as torch prints it with its ``[rankN]:`` prefix."""
    lines = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "    main()", err]
    return "".join(f"{stamp}[rank{rank}]: {line}\n" for line in lines)


def _read(tmp, texts: list[str]) -> list[dict]:
    bundle, _ = import_logs([LogSource(f"node{i}.log", t) for i, t in enumerate(texts)], tmp / "b", job="train",
                            namespace="team-a", now=CAPTURED, nproc_per_node=1)
    return [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]


def test_the_recorded_spawn_run_names_no_rank_from_the_files_order(tmp_path):
    run = next(r for r in load_runs() if r.id == _T68)
    (tmp_path / "import").mkdir()
    failure = [f for f in analyze(import_run(run, tmp_path / "import"))["findings"] if f["rule"] == "rank-failure"]
    assert failure and failure[0]["ranks"] == [], failure[0]["summary"]
    assert "different files with no clock between them" in failure[0]["summary"]
    assert failure[0]["cause"] == "collective-mismatch"
    # as pod logs (API timestamps 0.28 s apart) it already named no one: the two ways agree
    pods = [f for f in analyze(podlog_run(run, tmp_path / "pods"))["findings"] if f["rule"] == "rank-failure"]
    assert pods and pods[0]["ranks"] == []


def test_two_files_without_clocks_are_together(tmp_path):
    # SYNTHETIC: rank 0's ValueError in node0.log, rank 1's KeyError in node1.log, no timestamps
    failure = _read(tmp_path, [_tb(0, "ValueError: bad shard 7"), _tb(1, "KeyError: 'labels'")])
    assert failure[0]["ranks"] == [] and "no single culprit" in failure[0]["summary"]
    assert failure[0]["evidence"][0]["together_ranks"] == [0, 1]


def test_one_files_order_still_orders(tmp_path):
    # SYNTHETIC: the same two tracebacks in ONE file (one stream's order): the first printed is first
    failure = _read(tmp_path, [_tb(0, "ValueError: bad shard 7") + _tb(1, "KeyError: 'labels'")])
    assert failure[0]["ranks"] == [0], failure[0]["summary"]


def test_a_clock_still_orders_files(tmp_path):
    # SYNTHETIC: the same two files with timestamps, rank 1's five seconds before rank 0's
    failure = _read(tmp_path, [_tb(0, "ValueError: bad shard 7", "2026-11-28T11:50:05.000Z "),
                               _tb(1, "KeyError: 'labels'", "2026-11-28T11:50:00.000Z ")])
    assert failure[0]["ranks"] == [1], failure[0]["summary"]


def test_a_ranks_own_error_beside_a_victims_report_still_names_it(tmp_path):
    # SYNTHETIC: node1.log holds only a victim's teardown error: rank 0's own ValueError is the failure
    failure = _read(tmp_path, [_tb(0, "ValueError: bad shard 7"),
                               _tb(1, "RuntimeError: Connection closed by peer [10.0.0.2]:29500")])
    assert failure[0]["ranks"] == [0], failure[0]["summary"]


def test_only_files_given_apart_are_labelled(tmp_path):
    bundle, _ = import_logs([LogSource("a.log", _tb(0, "ValueError: x")), LogSource("b.log", _tb(1, "ValueError: x"))],
                            tmp_path / "two", job="train", namespace="team-a", now=CAPTURED, nproc_per_node=1)
    labels = [json.loads(r["body"])["metadata"].get("labels", {}) for r in read_raw(bundle, "objects").to_pylist() if r["kind"] == "Pod"]
    assert sorted(lab.get("k10s.io/imported-file") for lab in labels) == ["0", "1"]
    # one file routed to two pods by its rank prefixes: one stream, no label
    bundle, _ = import_logs([LogSource("a.log", _tb(0, "ValueError: x") + _tb(1, "ValueError: x"))], tmp_path / "one",
                            job="train", namespace="team-a", now=CAPTURED, nproc_per_node=1)
    labels = [json.loads(r["body"])["metadata"].get("labels", {}) for r in read_raw(bundle, "objects").to_pylist() if r["kind"] == "Pod"]
    assert len(labels) == 2 and all("k10s.io/imported-file" not in lab for lab in labels)
