"""Batch 69's shapes (tests/data/real-incidents, ``"batch": 69``: frameworks with few corpus cases), each with its variants:

* torch elastic's failure-table entry whose ``exitcode`` row has no ``(pid: …)`` (``  exitcode  : 1 ``, `colossalai run`
  over torch-elastic): the entry's status all the same (parser calls only, the prefilter included);
* every rank of the job known only by a launcher's report of its exit, every one with the same status and nothing saying
  why any failed (horovod.run's ``Process 3 exit with status code 250.`` … ``Process 0 …``): the same end in every
  process, no single culprit, whichever the launcher reported first; a status the others do not share, a rank the
  launcher does not report, or a rank's own error keeps the culprit.

The as-collected misses are in docs/rules.md, "Session 24: batch 69". The analyses go through tests/bundle_batch.py
(several inputs per analysis).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched
from incident_kit import naming_findings
from parser_kit import body_events
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 30, 23, 0, tzinfo=dt.timezone.utc)


def _table(exitcode_row: str) -> list[str]:
    return ["train.py FAILED", "------------------------------------------------------------",
            "Root Cause (first observed failure):", "[0]:", "  time      : 2023-04-17_17:02:33", "  host      : gpu21",
            "  rank      : 1 (local_rank: 0)", exitcode_row, "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]


def _entries(lines: list[str]) -> list[tuple]:
    return [(e["subkind"], e["rank"], e["exit_code"], e["pid"]) for e in body_events(lines, NOW) if e["kind"] == "torchrun_failure"]


@pytest.mark.parametrize(("row", "want"), [
    ("  exitcode  : 1 ", ("root_cause", 1, 1, None)),  # the bare status, a trailing blank (ColossalAI-3582)
    ("  exitcode  : 1", ("root_cause", 1, 1, None)),
    ("  exitcode  : -9   ", ("root_cause", 1, -9, None)),
    ("  exitcode: 2", ("root_cause", 1, 2, None)),  # torch 1.9's unpadded key
    ("  exitcode  : 1 (pid: 2062900)", ("root_cause", 1, 1, 2062900)),  # with its pid, as before
])
def test_a_table_entry_status_without_its_pid_is_read(row, want):
    assert _entries(_table(row)) == [want]


@pytest.mark.parametrize("row", ["  exitcode  : 1 (see above)", "  exitcode  : one"])
def test_an_exitcode_row_that_is_no_status_gives_none(row):
    assert _entries(_table(row)) == [("root_cause", 1, None, None)]


def _horovod(key: tuple) -> str:
    """horovod.run's Gloo launcher: its rendezvous dumps, then one exit report per process (``order``: rank order of
    the reports, ``codes``: each rank's status, None: not reported), and the driver's traceback cut after a frame.
    ``raised``: a rank that printed its own exception first (its ``[N]<stderr>:`` lines)."""
    _, world, order, codes, raised = key
    seen = [str(r) for r in order] + [str(r) for r in range(world) if r not in order]
    lines = [f"{scope} dict_keys({seen[:n]})" for scope in ("global_", "local_0") for n in range(1, world + 1)]
    if raised is not None:
        lines += [f"[{raised}]<stderr>:Traceback (most recent call last):", f'[{raised}]<stderr>:  File "train.py", line 9, in <module>',
                  f"[{raised}]<stderr>:ValueError: shard {raised} is empty"]
    lines += [f"Process {r} exit with status code {codes[r]}." for r in order if codes[r] is not None]
    lines += ["KVStoreServer INFO: KVStore server finishes.", "Traceback (most recent call last):",
              '  File "Conv1D_hpc.py", line 177, in <module>', "    np=4)[0]"]
    return "\n".join(lines) + "\n"


#: (name, world, report order, statuses by rank, rank that raised)
ALIKE = [
    ("reverse", 4, (3, 2, 1, 0), (250,) * 4, None),  # horovod-2097
    ("forward", 4, (0, 1, 2, 3), (250,) * 4, None),
    ("two", 2, (1, 0), (1, 1), None),
    ("eight", 8, (5, 0, 7, 1, 6, 2, 4, 3), (2,) * 8, None),
]
CULPRIT = [
    ("one-status", 4, (2, 0, 1, 3), (143, 143, 1, 143), None, (2,)),  # the others' status is another one
    ("one-unreported", 4, (3, 2, 1), (None, 250, 250, 250), None, (3,)),  # rank 0 not reported: not every rank alike
    ("one-raised", 4, (3, 2, 1, 0), (250,) * 4, 1, (1,)),  # rank 1 said why: its own exception
]
BATCHED = Batched("frameworks-batch69", ALIKE + [c[:5] for c in CULPRIT])


def _make(key: tuple, folder) -> object:
    world = key[1]
    return import_logs([LogSource("log.txt", _horovod(key))], folder / "b", nproc_per_node=world, world_size=world,
                       job="train", namespace="team-a", now=NOW, derive=False)[0]


@pytest.mark.parametrize("key", [pytest.param(k, id=k[0], marks=BATCHED.mark(k)) for k in ALIKE])
def test_every_rank_reported_ending_with_one_status_names_no_one(tmp_path_factory, key):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert naming_findings(findings) == [], [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings)]
    assert any(f["rule"] == "rank-failure" for f in findings)  # the failure is still reported, with no culprit


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0], marks=BATCHED.mark(c[:5])) for c in CULPRIT])
def test_a_rank_that_ended_otherwise_or_said_why_stays_the_culprit(tmp_path_factory, case):
    named = naming_findings(BATCHED.findings(case[:5], tmp_path_factory, _make))
    assert named and all(f["ranks"] == list(case[5]) for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]
