"""A clock in one file, none in the other (docs/rules.md, "Session 70: a clock in one file, none in the other";
queries/_incident_own.sql ``k10s_incident_unclocked``, the importer's pod label ``k10s.io/imported-file``).

``k10s import-logs`` given several files makes one pod of each. Session 69 read two failures of the same strength in
two files, neither with a clock, together. Where one file's failure line had a clock (a timestamped log, a glog prefix)
and the other's had none, the clocked one was still first: a line without a clock was ordered last, as if it had a
time. Now a line without a clock of its own is placed only by its own file's stamped lines (printed at or after the
last one above it, at or before the first one below it); where those bounds do not order it against the other file's
failure, the two failed together and no rank is named from the files' order. Bounds that do order them still name a
rank, one file's order still orders, two clocks still order, and two files without clocks read as session 69's.

The recorded runs are real (tests/data/torch-runs): one node's log as ``kubectl logs --timestamps`` gave it (its
recording), the other's as plain ``kubectl logs``. The other logs are synthetic (marked so): tracebacks as torch prints
them with ``[rankN]:``, torchrun's agent report in its glog form, a rank's step line.
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from torch_runs_kit import CAPTURED, load_runs, plain

_T68 = "2.13.0/t68-spawn-2x2-op-mismatch-rank2-init-w2-uncaught-logging-rank"  # mp.spawn 2 x 2, truth rank 2
_T25 = "2.13.0/t25-trun-2x2-role-run-path-keyerror-rank2"  # torchrun 2 x 2, rank 2's own KeyError, truth rank 2

_AT = "2026-11-28T11:50:05.000Z "  # SYNTHETIC: rank 0's stamped failure time
_UNORDERED = "a line without a clock of its own that its file's stamped lines do not place before or after the other's"


def _tb(rank: int, err: str, stamp: str = "") -> str:
    """SYNTHETIC: a rank's traceback as torch prints it with its ``[rankN]:`` prefix."""
    lines = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "    main()", err]
    return "".join(f"{stamp}[rank{rank}]: {line}\n" for line in lines)


def _step(rank: int, hms: str) -> str:
    """SYNTHETIC: a stamped training-step line of the rank's (a stamp above its failure: printed at or after it)."""
    return f"2026-11-28T{hms}.000Z [rank{rank}]: step 10 loss 1.0\n"


def _report(hms: str) -> str:
    """SYNTHETIC: torchrun's agent reporting its worker's exit, glog-stamped (a stamp below the failure: at or before it)."""
    return (f"[E1128 {hms}.000000 77 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
            "local_rank: 0 (pid: 12) of binary: /usr/bin/python\n")


def _clocked() -> str:
    return _tb(0, "ValueError: bad shard 7", _AT)


def _read(tmp, texts: list[str]) -> dict:
    bundle, _ = import_logs([LogSource(f"node{i}.log", t) for i, t in enumerate(texts)], tmp / "b", job="train",
                            namespace="team-a", now=CAPTURED, nproc_per_node=1)
    failure = [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]
    assert failure
    return failure[0]


def _one_stamped(tmp, run_id: str, stamped: int) -> dict:
    """The recorded run through import-logs, node ``stamped``'s log with its timestamps, the others' without."""
    run = next(r for r in load_runs() if r.id == run_id)
    texts = [t if i == stamped else plain(t) for i, t in enumerate(run.stamped())]
    bundle, _ = import_logs([LogSource(n, t) for n, t in zip(run.truth["node_logs"], texts)], tmp / "b", job="train",
                            namespace="team-a", now=CAPTURED)
    return [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"][0]


@pytest.mark.parametrize("stamped", [0, 1])
def test_the_recorded_spawn_run_with_one_file_stamped_names_no_rank(tmp_path, stamped):
    # was: the stamped file's first rank (rank 0 with node 0 stamped; rank 2 with node 1's, right only by which
    # file had the clock); the two consoles' failure lines are as strong and nothing orders them
    failure = _one_stamped(tmp_path, _T68, stamped)
    assert failure["ranks"] == [], failure["summary"]


def test_contrast_the_recorded_culprits_own_error_in_the_unstamped_file(tmp_path):
    # rank 2's own KeyError in node 1's plain log, node 0's stamped log holding only its workers' ends: rank 2
    failure = _one_stamped(tmp_path, _T25, 0)
    assert failure["ranks"] == [2], failure["summary"]


@pytest.mark.parametrize("clocked_first", [True, False])
def test_a_clocked_failure_and_an_unclocked_one_in_another_file_are_together(tmp_path, clocked_first):
    # SYNTHETIC: rank 0's traceback stamped, rank 1's in a file with no stamp at all; either order given
    texts = [_clocked(), _tb(1, "KeyError: 'labels'")]
    failure = _read(tmp_path, texts if clocked_first else texts[::-1])
    assert failure["ranks"] == [], failure["summary"]
    assert _UNORDERED in failure["summary"] and "no single culprit" in failure["summary"]
    assert failure["evidence"][0]["together_ranks"] == [0, 1]


def test_bounds_that_put_the_unclocked_failure_before_name_it(tmp_path):
    # SYNTHETIC: rank 1's traceback between its step at 11:49:00 and its agent's report at 11:49:02: before rank 0's
    failure = _read(tmp_path, [_clocked(), _step(1, "11:49:00") + _tb(1, "KeyError: 'labels'") + _report("11:49:02")])
    assert failure["ranks"] == [1], failure["summary"]


def test_a_stamp_below_alone_puts_it_before(tmp_path):
    # SYNTHETIC: only its agent's report below (11:49:02) bounds rank 1's traceback: printed before rank 0's 11:50:05
    failure = _read(tmp_path, [_clocked(), _tb(1, "KeyError: 'labels'") + _report("11:49:02")])
    assert failure["ranks"] == [1], failure["summary"]


def test_bounds_that_put_it_after_name_the_clocked_one(tmp_path):
    # SYNTHETIC: rank 1's step at 11:51:00 above its traceback: it failed after rank 0's 11:50:05
    failure = _read(tmp_path, [_clocked(), _step(1, "11:51:00") + _tb(1, "KeyError: 'labels'")])
    assert failure["ranks"] == [0], failure["summary"]


@pytest.mark.parametrize("below", ["", "11:50:09"])
def test_bounds_that_do_not_order_them_are_together(tmp_path, below):
    # SYNTHETIC: rank 1's traceback after its step at 11:49:00, and nothing below (no upper bound) or its agent's
    # report at 11:50:09 (after rank 0's 11:50:05): it may have failed before or after rank 0
    text = _step(1, "11:49:00") + _tb(1, "KeyError: 'labels'") + (_report(below) if below else "")
    failure = _read(tmp_path, [_clocked(), text])
    assert failure["ranks"] == [] and _UNORDERED in failure["summary"], failure["summary"]


def test_contrast_one_file_keeps_its_order(tmp_path):
    # SYNTHETIC: the stamped traceback and the unstamped one in ONE file (one stream's order): the first printed
    failure = _read(tmp_path, [_clocked() + _tb(1, "KeyError: 'labels'")])
    assert failure["ranks"] == [0], failure["summary"]


def test_contrast_both_clocked_the_earlier(tmp_path):
    # SYNTHETIC: rank 1's traceback stamped five seconds before rank 0's, in the second file
    failure = _read(tmp_path, [_clocked(), _tb(1, "KeyError: 'labels'", "2026-11-28T11:50:00.000Z ")])
    assert failure["ranks"] == [1], failure["summary"]


def test_contrast_both_unclocked_as_session_69(tmp_path):
    # SYNTHETIC: neither file stamped: session 69's reading and wording
    failure = _read(tmp_path, [_tb(0, "ValueError: bad shard 7"), _tb(1, "KeyError: 'labels'")])
    assert failure["ranks"] == [] and "different files with no clock between them" in failure["summary"]


def test_contrast_a_stronger_failure_still_names_its_rank(tmp_path):
    # SYNTHETIC: the clocked file holds only a victim's teardown error; the unclocked file rank 1's own exception
    failure = _read(tmp_path, [_tb(0, "RuntimeError: Connection closed by peer [10.0.0.2]:29500", _AT),
                               _tb(1, "KeyError: 'labels'")])
    assert failure["ranks"] == [1], failure["summary"]
