"""Fresh samples of recorded torchrun runs whose timing differed from the committed recording's
(tests/data/torch-resample/README.md): each is read right both ways, through ``k10s import-logs`` and as the pod logs
of a captured PyTorchJob.

The two here are the late-peer shape: every rank but one timed out waiting in gloo, and the one that did not raised
only gloo's ``Connection closed by peer`` seconds after them, before its agent's SIGTERM; the agent's table then
reports it ``exitcode : -15``. That report is the agent tearing it down, not a failure of its own, so the rank is the
one that never joined the collective (queries/_evidence_logs.sql ``k10s_logs_late_peer_ev``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from torch_runs_kit import Run, import_run, podlog_run, score

from k10s_forensics.analyze.runner import analyze

SAMPLES = Path(__file__).resolve().parent / "data" / "torch-resample"
RUNS = [Run(t.parent.parent.name, t.parent.name, t.parent, json.loads(t.read_text(encoding="utf-8")))
        for t in sorted(SAMPLES.glob("*/*/truth.json"))]


def test_the_samples_are_there_with_their_truth():
    assert {r.id for r in RUNS} >= {"2.13.0/t45-trun-2x2-json-hang-rank1-tee", "2.13.0/t44-trun-2x2-eval-slow-rank0"}
    for run in RUNS:
        assert run.truth["culprit_ranks"] and run.truth["cause"] == "never-joined", run.id


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r.id)
def test_a_resampled_run_reads_right_imported(tmp_path, run):
    assert score(run, import_run(run, tmp_path)) is None


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r.id)
def test_a_resampled_run_reads_right_as_pod_logs(tmp_path, run):
    assert score(run, podlog_run(run, tmp_path)) is None


def _edited(run: Run, tmp: Path, edit) -> Run:
    """The run with ``edit(text)`` applied to each node log, in a folder of its own."""
    folder = tmp / "edited"
    folder.mkdir()
    for name, text in zip(run.truth["node_logs"], run.stamped()):
        (folder / name).write_text(edit(text), encoding="utf-8")
    return Run(run.version, run.name, folder, run.truth)


def _named(run: Run, tmp: Path) -> list[tuple]:
    findings = analyze(import_run(run, tmp))["findings"]
    return [(f["cause"], f["ranks"]) for f in findings if f["severity"] in ("critical", "warning") and f["ranks"]]


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r.id)
def test_the_late_rank_ending_on_its_own_is_no_late_peer(tmp_path, run):
    """Contrast: where the late rank's table entry says it ended by itself (exit 1, not the agent's SIGTERM), its
    exit is a failure of its own beside the closed connection: the late-peer reading does not name it never-joined."""
    late = run.truth["culprit_ranks"][0]
    local = late % run.truth["nproc_per_node"]

    def exit_one(text: str) -> str:
        return re.sub(rf"(rank      : {late} \(local_rank: {local}\)\n.*?exitcode  : )-15 (\(pid: \d+\))  \(SIGTERM\)",
                      r"\g<1>1 \2", text)

    edited = _edited(run, tmp_path, exit_one)
    assert sum(t.count("(SIGTERM)") for t in edited.stamped()) == sum(t.count("(SIGTERM)") for t in run.stamped()) - 1
    assert ("never-joined", [late]) not in _named(edited, tmp_path)
