"""benchmarks/bench_real_incidents.py: an input the importer refuses is a counted miss with its
one-line reason, not the end of the run (no analysis is made: the refusal comes first)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from incident_kit import Case

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_real_incidents.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_real_incidents", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _case(folder: Path, name: str, text: str) -> Case:
    (folder / name).mkdir()
    (folder / name / "log.txt").write_text(text, encoding="utf-8")
    return Case(incident=name, cause="python-exception", culprit_ranks=[1], victim_ranks=[], nproc_per_node=None,
                folder=folder)


@pytest.mark.parametrize("text", ["", "\n\n   \n"], ids=["empty", "blank-lines"])
def test_a_refused_input_is_a_miss_with_its_reason(bench, tmp_path, text):
    full, rank = bench.scored(_case(tmp_path, "refused", text), {})
    assert full == rank and full.startswith("refused by the importer: ")
    assert "\n" not in full and "no log lines" in full


def test_a_refused_input_is_counted_and_the_run_goes_on(bench, tmp_path, monkeypatch, capsys):
    cases = [_case(tmp_path, f"refused-{i}", "") for i in range(2)]
    monkeypatch.setattr(bench, "corpora", lambda: [("some corpus", c) for c in cases])
    assert bench.main(["-v"]) == 0
    out = capsys.readouterr().out
    assert "| some corpus | 2 | routed | 0/2 (0 %) | 0/2 (0 %) |" in out
    assert "| some corpus | 2 | one pod + API timestamps | 0/2 (0 %) | 0/2 (0 %) |" in out
    assert out.count("refused by the importer: ") == 4  # each case, both ways
