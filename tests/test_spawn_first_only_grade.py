"""mp.spawn's one-process report is not a confident culprit (docs/rules.md, "Session 70: mp.spawn's one report graded medium").

``torch.multiprocessing.spawn``/``start_processes`` (torch 2.13/2.14 ``spawn.py``): a child's uncaught exception is
written by ``_wrap`` to its error file, not printed; the parent's ``join`` raises ``ProcessRaisedException`` (``-- Process N
terminated with the following error:`` and that child's traceback) for the FIRST failed child it reaps only, and
SIGTERMs the others. However many processes raised alike, the console shows one traceback. A culprit named by that
report alone (no victim, no watchdog, no line of that rank but the report and its traceback) keeps its rank, said at
warning, confidence medium, ``medium_why`` ``spawn-first-only``, in a captured PyTorchJob's pod logs as in an import.
Where other evidence names it (a signal, another process's failure beside it) the grade stays.

Recorded runs: tests/data/torch-runs (both versions, both ways); synthetic pastes below are marked so.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from torch_runs_kit import findings_both_ways, load_runs

_RUNS = {r.id: r for r in load_runs()}
_VERSIONS = ("2.13.0", "2.14.1")
_CONTROL = "t23-procs-1x4-spawn-nojoin-common-mode-valueerror"  # every process raised the same ValueError
#: lone spawn culprits: one report, the other processes SIGTERMed by spawn without a line
_LONE = ["spawn-exception", "spawn-2-exception", "t40-spawn-1x4-keyerror-rank3", "t18-spawn-8-exception-rank7"]
#: other evidence beside the report: its own signal (spawn's ProcessExitedException), another process's failure
_KEPT = ["t57-spawn-2x2-segfault-rank2-step8", "t25-trun-2x2-role-run-path-keyerror-rank2"]
_IDS = [f"{v}/{n}" for v in _VERSIONS for n in [_CONTROL, *_LONE, *_KEPT]]
_SENTENCE = "mp.spawn reports only the first failed process"


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory) -> dict[str, dict[str, list]]:
    runs = [_RUNS[rid] for rid in _IDS]
    return findings_both_ways(runs, tmp_path_factory.mktemp("spawn-first-only"))


def _naming(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f.get("ranks")]


def _why(finding: dict) -> str | None:
    return ((finding.get("evidence") or [{}])[0] or {}).get("medium_why")


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("version", _VERSIONS)
def test_the_common_mode_control_has_no_confident_culprit(both_ways, how, version):
    named = _naming(both_ways[how][f"{version}/{_CONTROL}"])
    assert named, "the reported process is still named (no line tells the control from a lone culprit)"
    for f in named:
        assert f["severity"] not in ("critical", "error") and f.get("confidence") != "high", (how, f["severity"], f.get("confidence"))
    assert any(_why(f) == "spawn-first-only" and _SENTENCE in f["summary"] for f in named)


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("rid", [f"{v}/{n}" for v in _VERSIONS for n in _LONE])
def test_a_lone_spawn_culprit_is_named_at_medium(both_ways, how, rid):
    want = _RUNS[rid].truth["culprit_ranks"]
    (f,) = [f for f in _naming(both_ways[how][rid]) if f["rule"] == "rank-failure"]
    assert f["ranks"] == want
    assert (f["severity"], f["confidence"], _why(f)) == ("warning", "medium", "spawn-first-only")
    assert _SENTENCE in f["summary"]


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("rid", [f"{v}/{n}" for v in _VERSIONS for n in _KEPT])
def test_other_evidence_keeps_the_grade(both_ways, how, rid):
    want = _RUNS[rid].truth["culprit_ranks"]
    (f,) = [f for f in _naming(both_ways[how][rid]) if f["rule"] == "rank-failure"]
    assert f["ranks"] == want and (f["severity"], f["confidence"]) == ("critical", "high")
    assert _why(f) is None


# ---- synthetic pastes (SYNTHETIC lines, written for this test, not from a real log) ----------------------------------
NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)
_REPORT = [  # SYNTHETIC: spawn's report of process 1, the shape of torch 2.14's spawn.py join
    "Traceback (most recent call last):",
    '  File "/opt/train.py", line 90, in <module>',
    "    mp.spawn(worker, nprocs=4, args=(cfg,))",
    '  File "/opt/venv/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 211, in join',
    "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
    "torch.multiprocessing.spawn.ProcessRaisedException: ",
    "",
    "-- Process 1 terminated with the following error:",
    "Traceback (most recent call last):",
    '  File "/opt/venv/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 87, in _wrap',
    "    fn(i, *args)",
    '  File "/opt/train.py", line 41, in worker',
    "    batch = next(loader)",
    "ValueError: shard 17 has no samples",
]
_SIGTERMS = [  # SYNTHETIC: spawn's SIGTERMs of the processes still alive
    f"W1207 05:59:59.{i:06d} 4200 torch/multiprocessing/spawn.py:165] Terminating process {4240 + i} via signal SIGTERM"
    for i in (0, 2, 3)]
_PEER = [  # SYNTHETIC: another process's own failure beside the report (a peer's closed connection)
    "[rank0]:[E1207 05:59:58.000000 4241 ProcessGroupGloo.cpp:143] Gloo connectFullMesh failed with "
    "[../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
    "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:31337",
]


@pytest.mark.parametrize("lines", [_REPORT, _SIGTERMS + _REPORT], ids=["report", "sigterms-report"])
def test_a_pasted_lone_report_says_spawn_first_only(tmp_path, lines):
    (f,) = _naming(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert f["ranks"] == [1] and (f["severity"], f["confidence"], _why(f)) == ("warning", "medium", "spawn-first-only")


def test_a_peers_failure_beside_the_report_keeps_it_critical(tmp_path):
    (f,) = _naming(pasted_findings(_PEER + _REPORT, tmp_path, 4, 4, NOW))
    assert f["ranks"] == [1] and (f["severity"], f["confidence"]) == ("critical", "high") and _why(f) is None
