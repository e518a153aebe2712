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


def _case(folder: Path, name: str, text: str, culprits: tuple[int, ...] = (1,)) -> Case:
    (folder / name).mkdir()
    (folder / name / "log.txt").write_text(text, encoding="utf-8")
    return Case(incident=name, cause="python-exception" if culprits else None, culprit_ranks=list(culprits),
                victim_ranks=[], nproc_per_node=None, folder=folder)


AGENT = ("[2026-12-04 05:00:07,200] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: {code}) "
         "local_rank: 1 (pid: 4242) of binary: /usr/bin/python\n")
#: the agent's SIGTERM of the other worker (a victim: the paste holds more than the failed rank's lines)
SIGTERM = ("[2026-12-04 05:00:07,100] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4243 closing "
           "signal SIGTERM\n")


@pytest.mark.parametrize("text", ["", "\n\n   \n"], ids=["empty", "blank-lines"])
def test_a_refused_input_is_a_miss_with_its_reason(bench, tmp_path, text):
    full, rank, worst = bench.scored(_case(tmp_path, "refused", text), {})
    assert worst is None
    assert full == rank and full.startswith("refused by the importer: ")
    assert "\n" not in full and "no log lines" in full


def test_a_refused_input_is_counted_and_the_run_goes_on(bench, tmp_path, monkeypatch, capsys):
    cases = [_case(tmp_path, f"refused-{i}", "") for i in range(2)]
    monkeypatch.setattr(bench, "corpora", lambda: [("some corpus", c) for c in cases])
    assert bench.main(["-v"]) == 0
    out = capsys.readouterr().out
    assert "| some corpus | 2 | routed | 0/2 (0.0 %) | 0/2 (0.0 %) | 0 of 0 (0) |" in out
    assert "| some corpus | 2 | one pod + API timestamps | 0/2 (0.0 %) | 0/2 (0.0 %) | 0 of 0 (0) |" in out
    assert "| all | 2 | routed | 0/2 (0.0 %) | 0/2 (0.0 %) | 0 of 0 (0) |" in out
    assert out.count("refused by the importer: ") == 4  # each case, both ways


def test_controls_named_are_counted_with_those_a_critical_finding_names(bench, tmp_path, monkeypatch, capsys):
    # a SIGKILL without the launcher's SIGTERM first, its sibling SIGTERMed after: host-oom-kill, critical; a lone exit
    # status 1: warning
    cases = [_case(tmp_path, "killed-control", SIGTERM + AGENT.format(code=-9), culprits=()),
             _case(tmp_path, "exit-1-control", AGENT.format(code=1), culprits=()),
             _case(tmp_path, "exit-1-culprit", AGENT.format(code=1))]
    assert [bench.scored(c, {})[2] for c in cases] == ["critical", "warning", None]
    monkeypatch.setattr(bench, "corpora", lambda: [("some corpus", c) for c in cases])
    assert bench.main([]) == 0
    assert "| some corpus | 3 | routed | 1/3 (33.3 %) | 1/3 (33.3 %) | 2 of 2 (1) |" in capsys.readouterr().out
