"""Launchers that report only their first failed process (docs/rules.md, "Session 70: launchers that report one process
(no general reading; the evidence kept)").

``torch.multiprocessing.spawn``/``start_processes`` reports only the first child it reaps (``-- Process N terminated with the
following error:``) and SIGTERMs the others still alive without a line of theirs. The recorded control
t23-procs-1x4-spawn-nojoin-common-mode-valueerror (every process raised the same ValueError) names that one reported process
in both versions, both ways (tests/test_torch_runs.py NOT_YET ``SPAWN_ONE_REPORTED``). Session 70 looked for what in the
lines tells it from a lone culprit and found nothing: these tests keep that evidence, so that a later reading that clears
the control is held to the culprits below, which read the same lines right.

* its console has the lone culprit's shape to the line: one report, a SIGTERM for every other process (spawn terminates
  only the processes still alive, and in every recorded spawn console that is all the others), no other child's traceback;
* its exception's very words are a lone culprit's in two recorded torchrun runs (rank 1 beside peers in a barrier, rank 4
  under ``--tee``), so the message marks no common mode;
* spawn's lone report names the culprit in the recorded runs and in the real pastes (the corpus' ~40 spawn culprits), and
  real spawn controls are read so only where their lines show more (two reports alike, an ordinal every process meets).

No torch needed: the logs are fixtures (tests/data/torch-runs, tests/data/real-incidents).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from incident_kit import analyze_incident, load_corpus, misses
from torch_runs_kit import findings_both_ways, load_runs, plain, score_findings

_RUNS = {r.id: r for r in load_runs()}
_CONTROL = "t23-procs-1x4-spawn-nojoin-common-mode-valueerror"
#: lone spawn culprits whose consoles hold the control's lines but the culprit's exception
_LONE = ["spawn-exception", "t40-spawn-1x4-keyerror-rank3", "t18-spawn-8-exception-rank7"]
#: torchrun runs whose lone culprit raised the control's very exception (its message to the letter)
_SAME_WORDS = ["t3-raise-others-in-barrier-logging", "t3-record-valueerror-2x3-tee"]
_MESSAGE = "ValueError: expected a config key 'lr_schedule' at step 3; got none"
_VERSIONS = ("2.13.0", "2.14.1")
_READ = [f"{v}/{name}" for v in _VERSIONS for name in _LONE + _SAME_WORDS]

_REPORT = re.compile(r"^-- Process (\d+) terminated with the following error:", re.M)
_TERMINATING = re.compile(r"torch/multiprocessing/spawn\.py:\d+\] Terminating process \d+ via signal SIGTERM")


def _console(rid: str) -> str:
    run = _RUNS[rid]
    return "".join(plain(t) for t in run.stamped())


@pytest.mark.parametrize("name", [_CONTROL, *_LONE])
@pytest.mark.parametrize("version", _VERSIONS)
def test_the_control_has_the_lone_culprits_shape(version, name):
    text = _console(f"{version}/{name}")
    nproc = _RUNS[f"{version}/{name}"].truth["nproc_per_node"]
    assert len(_REPORT.findall(text)) == 1  # one report: the first child reaped
    assert len(_TERMINATING.findall(text)) == nproc - 1  # every other process still alive, SIGTERMed without a line
    assert text.count("Traceback (most recent call last):") == 2  # the parent's and the reported child's, none other


@pytest.mark.parametrize("version", _VERSIONS)
def test_the_controls_words_are_a_lone_culprits_elsewhere(version):
    assert _MESSAGE in _console(f"{version}/{_CONTROL}")
    for name in _SAME_WORDS:
        run = _RUNS[f"{version}/{name}"]
        assert _MESSAGE in _console(run.id) and len(run.truth["culprit_ranks"]) == 1, run.id


@pytest.fixture(scope="module")
def read_both_ways(tmp_path_factory) -> dict[str, dict[str, list]]:
    """The runs' findings both ways, each way one analysis (tests/test_torch_runs.py's batching)."""
    runs = [_RUNS[rid] for rid in _READ]
    return findings_both_ways(runs, tmp_path_factory.mktemp("first-reported"))


@pytest.mark.slow
@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("rid", _READ)
def test_lone_reports_and_the_same_words_name_their_culprit(read_both_ways, how, rid):
    why = score_findings(_RUNS[rid], read_both_ways[how][rid])
    assert why is None, why


_CORPUS = Path(__file__).resolve().parent / "data" / "real-incidents"
#: real spawn pastes: lone reports that name their process (culprits), and controls whose lines show more than one report
_REAL = ["VNext-55-detectron2-spawn-process1-exception", "ADL-2-spawn-two-gpus-process0-raised-exception",
         "DynamicHead-out-srun-two-nodes-spawn-process3-typeerror-both-control",
         "TimeSformer-35-colab-spawn-process6-invalid-ordinal-control"]


@pytest.mark.slow
@pytest.mark.parametrize("incident", _REAL)
def test_real_spawn_pastes_read_as_before(tmp_path, incident):
    case = next(c for c in load_corpus(_CORPUS) if c.incident == incident)
    why = misses(case, analyze_incident(tmp_path, case))
    assert why is None, why


_WRONG_PEER = "2.13.0/t44-trun-2x2-send-wrong-peer-rank1"  # rank 3 named never-joined through import-logs (truth rank 1)
_RESAMPLE = Path(__file__).resolve().parent / "data" / "torch-resample" / "2.13.0" / "t44-trun-2x2-eval-slow-rank0"


def _order(text: str, rank: int) -> tuple[int, int, bool]:
    """(line of a peer's gloo timeout, line of ``rank``'s closed connection, its table row says SIGTERM) in one console."""
    lines = plain(text).splitlines()
    timeout = next(i for i, ln in enumerate(lines) if "Timed out waiting" in ln and not ln.startswith(f"[rank{rank}]"))
    closed = next(i for i, ln in enumerate(lines) if ln.startswith(f"[rank{rank}]") and "Connection closed by peer" in ln)
    row = re.search(rf"rank      : {rank} \(local_rank: \d\)\n\s*exitcode  : (-?\d+)", plain(text))
    return timeout, closed, bool(row) and row.group(1) == "-15"


def test_the_wrong_peers_closed_rank_reads_as_a_late_one_without_a_clock():
    """The other innocent name of the class (t44 send-wrong-peer, 2.13.0, import-logs): rank 3, a few ms late into the
    same p2p wait, saw its peers' connections close when they timed out; the resampled eval-slow run's rank 0 (pinned
    right by tests/test_torch_resample.py) reached the barrier seconds late. Without a clock both consoles say the same:
    a peer's timeout above the rank's closed connection in its log, its agent's row SIGTERM. Only the pod logs' clock
    (within 1 s, against 3 s) tells them apart, and the pod-log way reads both right."""
    wrong = _RUNS[_WRONG_PEER].stamped()[1]
    late = (_RESAMPLE / "node0.log").read_text(encoding="utf-8")
    for text, rank in ((wrong, 3), (late, 0)):
        timeout, closed, sigtermed = _order(text, rank)
        assert timeout < closed and sigtermed
