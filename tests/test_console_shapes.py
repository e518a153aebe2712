"""Readers of what newest-first consoles, ML platforms' log commands and OpenShift's inspect hand a user
(tests/console_shapes.py: Logs Explorer rows and a message column copied newest first, CloudWatch Logs Insights' table,
Determined's ``det trial logs``, Run:ai's master-pod log, ``oc adm inspect``'s files), each on a few lines of its format;
a sample of recorded runs read in one analysis. The whole sweep: ``tests/tools/score_export_shapes.py --family console``."""

from __future__ import annotations

import pytest

import console_shapes
from k10s_forensics.parsers.log_launcher_prefix import split_launcher
from k10s_forensics.parsers.log_newest_first import newest_first
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_paste import repair_paste

T = "2026-11-28T12:05:03.010223000Z"
WRITTEN = ["[rank1]: step 4", "[rank1]: Traceback (most recent call last):", '[rank1]:   File "/w/train.py", line 3, in <module>',
           "[rank1]:     main()", "[rank1]: KeyError: 'labels'", "[rank0]: RuntimeError: Connection closed by peer"]


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert console_shapes.shapes([node, node], 1) == console_shapes.shapes([node, node], 1)
    assert set(console_shapes.shapes([node], 1)) == set(console_shapes.SHAPES)


@pytest.mark.parametrize("lines,turned", [
    (WRITTEN[::-1], True),  # the message column alone: the traceback's header below its frame
    ([f"2026-11-28 12:05:0{9 - i}.281 UTC\t{line}" for i, line in enumerate(["a", "b", "c", "d"])], True),  # Logs Explorer's rows
    ([f"2026-11-28 12:05:0{i}.281 UTC\t{line}" for i, line in enumerate(WRITTEN)], False),  # oldest first
    (WRITTEN, False),
    ([f"2026-11-28 12:05:0{i}.281 {line}" for i, line in enumerate(WRITTEN[::-1])], False),  # times rising, tracebacks turned: no order
    (["2026-11-28 12:05:09 a", "2026-11-28 12:05:08 b", "2026-11-28 12:05:07 c"], False),  # two falls: too few to tell
    (["Traceback (most recent call last):", '  File "/w/a.py", line 1, in f', "KeyError: 1",
      "During handling of the above exception, another exception occurred:", "", "Traceback (most recent call last):",
      '  File "/w/b.py", line 9, in g', "ValueError: 2"], False),  # a chained traceback, as written
])
def test_a_paste_listed_newest_first_is_turned_back(lines, turned):
    out, note = newest_first(lines + [""])
    assert (note is not None) == turned
    assert out == (lines[::-1] + [""] if turned else lines + [""])


def test_the_repaired_paste_notes_the_order():
    repaired = repair_paste("\n".join(WRITTEN[::-1]) + "\n")
    assert repaired.notes == ["newest first (6 lines reversed)"] and repaired.text.split("\n")[:6] == WRITTEN


@pytest.mark.parametrize("line", ["2026-11-28 12:05:03.281 UTC\t[default1]:[rank3]: KeyError: 1",
                                  "2026-11-28 12:05:03 GMT [default1]:[rank3]: KeyError: 1"])
def test_a_consoles_zone_after_the_time_is_peeled(line):
    n = normalize(line)
    assert (n.text, n.rank, n.local_rank) == ("KeyError: 1", 3, 1)


DET = ("[2026-11-28T12:05:01.000000Z]          || INFO: Scheduling Trial 139 (Experiment 138)\n"
       "[2026-11-28T12:05:02.100000Z] 9f00aa11 [rank=3] || step 4\n"
       "[2026-11-28T12:05:02.200000Z] 1b2c3d4e [rank=0] || step 4\n"
       "[2026-11-28T12:05:02.300000Z] 9f00aa11 || E1128 12:05:02.300000 77 torch/distributed/elastic/multiprocessing/api.py:1] failed "
       "(exitcode: 1) local_rank: 1 (pid: 80) of binary: python\n"
       "[2026-11-28T12:05:02.400000Z] 9f00aa11 [rank=2] || step 4\n"
       + "".join(f"[2026-11-28T12:05:03.{i}00000Z] 1b2c3d4e [rank=1] || step 5\n" for i in range(6)))


def test_determined_trial_logs_are_split_by_container_in_rank_order():
    """The container is the node (its workers' lowest rank orders it); the time stays in front, ``[rank=R] ||`` for the
    parser; the master's own lines (no container) are no node's."""
    logs, how = split_launcher("trial.log", DET)
    assert how == "det logs: one node per task (2: 1b2c3d4e, 9f00aa11)"
    assert [t.split("\n") for _, t in logs] == [
        ["2026-11-28T12:05:02.200000Z [rank=0] || step 4"] + [f"2026-11-28T12:05:03.{i}00000Z [rank=1] || step 5" for i in range(6)],
        ["2026-11-28T12:05:02.100000Z [rank=3] || step 4",
         "2026-11-28T12:05:02.300000Z E1128 12:05:02.300000 77 torch/distributed/elastic/multiprocessing/api.py:1] failed "
         "(exitcode: 1) local_rank: 1 (pid: 80) of binary: python", "2026-11-28T12:05:02.400000Z [rank=2] || step 4"]]
    web = DET.replace("[2026-11-28T12:05:02.", "<>        [2026-11-28 12:05:02.")  # the web UI's copy: ``<>`` and a spaced time
    assert [t.split("\n")[0] for _, t in split_launcher("trial.log", web)[0]] == ["2026-11-28T12:05:02.200000Z [rank=0] || step 4",
                                                                                "2026-11-28T12:05:02.100000Z [rank=3] || step 4"]


#: one recorded run for each shape a reader was changed for (as generated, each named a wrong rank), read in one
#: analysis (tests/bundle_batch.py); every shape on a sample of runs: the scoring tool's sweep (--family console)
SAMPLE = {"logs-explorer-newest-first": "2.13.0/t7-torchx-2x2-keyerror-rank3", "messages-newest-first": "2.14.1/t3-faulthandler-segfault",
          "determined-trial-logs": "2.13.0/t8-trun-bad-env-rank3"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_console_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(console_shapes.shapes, SAMPLE, tmp_path) == {}
