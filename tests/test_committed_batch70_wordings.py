"""Batch 70's committed job-log shapes (tests/data/real-incidents, ``"batch": 70``, family ``committed``), each with
variants at other ranks, sizes and cuts, as one pasted log through ``k10s import-logs``. The batch was met as collected
(6/6 both ways, with the cause; benchmarks/results/real-incidents.md, "Batch 70"); these tests keep the shapes met:

* controls: torchrun's failure table alone (the tail of a Slurm output) listing several ranks ``exitcode : 1`` in one
  second, its Root Cause one of them and the one worker left SIGTERMed by the agent; Lightning Fabric's
  ``[rank: R] Child process … terminated with code 1`` below two ranks' identical exception (the third rank killed);
  a committed nohup output cut at a later rank's traceback, every rank shown raising the same ``TypeError`` at
  evaluation and the agent's table naming a subset; a detectron2 job's progress ended by Slurm's ``CANCELLED … DUE TO
  TIME LIMIT`` (the job or the step line alone) — none names a rank;
* culprits, the contrasts: the same table with ``<NO_OTHER_FAILURES>`` and every other worker SIGTERMed — its Root
  Cause rank; Fabric's child line below one rank's exception alone — that rank, ``python-exception``.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 1, 0, tzinfo=dt.timezone.utc)


TABLE = corpus_log("torchcell-committed-slurm-out-torchrun-ranks1-3-exit1-same-second-control")
FABRIC = corpus_log("keys-values-ai-dev-fabric-three-procs-ranks1-2-nccl-assert-control")
EVAL = corpus_log("llama-factory-committed-train-out-eight-ranks-eval-typeerror-control")
LIMIT = corpus_log("dynamichead-vega-two-nodes-detectron2-time-limit-control")
AGENT = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
STAMP = "2025-12-09_15:48:30"
PID = 312735  # local rank 0's pid; local rank r's is PID + r


def _entry(i: int, rank: int) -> list[str]:
    return [f"[{i}]:", f"  time      : {STAMP}", "  host      : compute-3-3.localdomain",
            f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : 1 (pid: {PID + rank})",
            "  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]


def _table(root: int, failures: tuple[int, ...], nproc: int) -> str:
    """The agent's lines of the Slurm output: SIGTERM to every worker not in the table, the failure line of the root
    cause, the torchrun traceback as committed, then the table (Failures, or <NO_OTHER_FAILURES>, and the Root Cause)."""
    listed = {root, *failures}
    term = [f"W1209 15:48:30.921000 312666 {AGENT}:900] Sending process {PID + r} closing signal SIGTERM"
            for r in range(nproc) if r not in listed]
    fail = (f"E1209 15:48:30.986000 312666 {AGENT}:874] failed (exitcode: 1) local_rank: {root} (pid: {PID + root}) of binary: "
            "/home/a-m/mjvolk3/miniconda3/envs/torchcell/bin/python")
    lines = TABLE.splitlines()
    stack = lines[lines.index("Traceback (most recent call last):"):lines.index("Failures:") + 1]
    body = [line for i, r in enumerate(failures, 1) for line in _entry(i, r)] if failures else ["  <NO_OTHER_FAILURES>"]
    tail = ["------------------------------------------------------------", "Root Cause (first observed failure):",
            *_entry(0, root)[1:], "============================================================"]
    return "\n".join(lines[:8] + term + [fail] + stack + body + tail) + "\n"


def _fabric(first: int, alone: bool) -> str:
    """Fabric's three processes: rank 2's and rank 1's tracebacks of the same assertion (or ``first``'s alone), then
    the launcher's child line naming ``first``."""
    lines = FABRIC.splitlines()
    head, two, one = lines[:16], lines[16:45], lines[45:74]
    blocks = {2: two, 1: one}
    order = [first] if alone else [first, 3 - first]
    child = lines[74].replace("[rank: 1]", f"[rank: {first}]")
    return "\n".join(head + [line for r in order for line in blocks[r]] + [child, lines[75]]) + "\n"


def _eval_cut(start_rank: int) -> str:
    """The committed nohup output cut where ``start_rank``'s traceback begins (a shorter paste of the same file)."""
    lines = EVAL.splitlines()
    return "\n".join(lines[lines.index(f"[rank{start_rank}]: Traceback (most recent call last):"):]) + "\n"


def _limit(which: str, node: str) -> str:
    lines = [line.replace("ON gn55", f"ON {node}") for line in LIMIT.splitlines()]
    drop = {"job": "*** STEP ", "step": "*** JOB "}.get(which)
    return "\n".join(line for line in lines if drop is None or drop not in line) + "\n"


# key: (shape, parameter, …); the expected culprit
CULPRITS = {("table", 1, (), 4): 1, ("table", 3, (), 4): 3, ("table", 6, (), 8): 6,
            ("fabric", 2, True): 2, ("fabric", 1, True): 1}
CONTROLS = [("table", 1, (2, 3), 4), ("table", 2, (0, 3), 4), ("table", 5, (2, 6), 8),
            ("fabric", 1, False), ("fabric", 2, False),
            ("eval", 1), ("eval", 5), ("eval", 6),
            ("limit", "both", "gn55"), ("limit", "job", "gn57"), ("limit", "step", "gn55")]
BUILD = {"table": _table, "fabric": _fabric, "eval": _eval_cut, "limit": _limit}
BATCHED = Batched("committed-batch70", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    return pasted(BUILD[key[0]](*key[1:]), folder, None, NOW)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_one_rank_failing_alone_is_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert named and all(f["ranks"] == [CULPRITS[key]] for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]
    if key[0] == "fabric":
        assert any(f["cause"] == "python-exception" for f in named), [(f["rule"], f["cause"]) for f in named]


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_the_committed_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders change ranks, sizes and cuts, not the wording the tests are about."""
    original = _table(1, (2, 3), 4)
    assert original.count("closing signal SIGTERM") == 1 and "rank      : 3 (local_rank: 3)" in original
    assert original.splitlines()[:8] == TABLE.splitlines()[:8]  # the `<sys>--- Logging error ---` lines kept
    alone = _table(6, (), 8)
    assert alone.count("closing signal SIGTERM") == 7 and "<NO_OTHER_FAILURES>" in alone
    pair = _fabric(2, False)
    assert pair.count("INTERNAL ASSERT FAILED") == 2 and "[rank: 2] Child process with PID 2053468" in pair
    assert _fabric(1, True).count("INTERNAL ASSERT FAILED") == 1 and "[rank2]:" not in _fabric(1, True)
    assert _eval_cut(6).startswith("[rank6]: Traceback") and _eval_cut(6).count("iteration over a 0-d tensor") == 4
    assert _limit("job", "gn57").count("DUE TO TIME LIMIT") == 1 and "JOB 49072312 ON gn57" in _limit("job", "gn57")
