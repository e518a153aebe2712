"""A torchrun ``--log-dir`` folder holding MANY runs' agent trees (a reused log dir, a parent folder) through the real
``k10s import-logs`` and analyze (docs/import.md, "torchrun's --log-dir tree"; docs/rules.md, "Session 66: import-logs
keeps one run of a --log-dir folder of many"; parsers/log_torchrun_runs.py).

Copies of recorded trees (tests/data/torch-runs/*/*/log-dir) put beside each other: with the consoles of one run, that
run is read as it is alone and the others are left out (counted); without a console to choose by, exit code 2 and one
line naming the runs found; ``--run-id`` picks one; one run's restarts stay one run; one run id launched twice is said
(or, where a console names its folder, the other launch left out); the note stays one short line for 30+ agents; a
tar/zip of the folder reads as the folder.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tarfile
import zipfile
from pathlib import Path

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.cli import main
from k10s_forensics.store.bundle import Bundle
from torch_runs_kit import load_runs, named, plain, score

RUNS = {r.id: r for r in load_runs() if (r.folder / "log-dir").is_dir()}
STANDALONE = RUNS["2.13.0/t60-standalone-1x6-sigkill-rank4-step3-record-rank0only-logdir"]  # its console names its folder
NEVER_JOINS = RUNS["2.13.0/t56-trun-2x2-never-joins-rank1-redirects"]  # its consoles name no folder, no run id
RESTARTS = RUNS["2.14.1/t56-trun-3x2-restarts1-abort-rank0-step8-redirects"]
STANDALONE_ID = "744df9a8-2bf2-41b9-8743-a4f795f55979"  # --standalone: a uuid4 run id
#: the longest the import's one line may be, whatever the number of agents or runs
LONGEST_LINE = 1000


def _shared_dir(root: Path, *runs) -> Path:
    """A log dir several runs wrote into: every run's agent folders side by side."""
    logs = root / "logs"
    for run in runs:
        for agent in sorted((run.folder / "log-dir").iterdir()):
            shutil.copytree(agent, logs / agent.name)
    return logs


def _consoles(run, root: Path) -> list[str]:
    paths = []
    for name, text in zip(run.truth["node_logs"], run.stamped()):
        (root / name).write_text(plain(text), encoding="utf-8")
        paths.append(str(root / name))
    return paths


def _k10s(root: Path, *args: str):
    """``k10s import-logs ARGS -o root/b`` as the command line runs it: (exit code, stdout and stderr, findings or None)."""
    out, code = io.StringIO(), 0
    shutil.rmtree(root / "b", ignore_errors=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(["import-logs", *args, "-o", str(root / "b")])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), None if code else analyze(Bundle.open(root / "b"))["findings"]


def _alone(run, root: Path) -> list[tuple]:
    """What the run's consoles and its own tree name, imported alone."""
    root.mkdir()
    code, output, findings = _k10s(root, *_consoles(run, root), str(run.folder / "log-dir"))
    assert code == 0, output
    return named(findings)


def _nodes_line(output: str) -> str:
    return next(line for line in output.splitlines() if "torchrun --log-dir tree" in line)


def test_the_run_the_consoles_name_is_read_as_it_is_alone(tmp_path):
    logs = _shared_dir(tmp_path, STANDALONE, NEVER_JOINS)
    code, output, findings = _k10s(tmp_path, *_consoles(STANDALONE, tmp_path), str(logs))
    assert code == 0, output
    line = _nodes_line(output)
    assert "(1 agent, 6 local ranks each; node 0: " in line and "by its console's path" in line, line
    assert f"run {STANDALONE_ID} by the consoles, 2 agent folder(s) of 1 other run left out" in line, line
    assert "t56-trun" not in line.split("; run ")[0]  # the other run's agents are not among the nodes
    assert named(findings) == _alone(STANDALONE, tmp_path / "alone") and named(findings)
    assert score(STANDALONE, Bundle.open(tmp_path / "b")) is None


def test_no_console_to_choose_by_is_one_line_naming_the_runs(tmp_path):
    logs = _shared_dir(tmp_path, STANDALONE, NEVER_JOINS)
    for given, why in (([str(logs)], "and no console to choose by"),
                       ([*_consoles(NEVER_JOINS, tmp_path), str(logs)], "and the consoles name none of them")):
        code, output, _ = _k10s(tmp_path, *given)
        assert code == 2 and len(output.strip().splitlines()) == 1, output
        assert f"holds 2 runs ({STANDALONE_ID} (1 agent), t56-trun-2x2-never-joins-rank1-redirects (2 agents)) {why}" in output
        assert "--run-id ID" in output


def test_run_id_keeps_that_runs_agents(tmp_path):
    logs = _shared_dir(tmp_path, STANDALONE, NEVER_JOINS)
    code, output, findings = _k10s(tmp_path, str(logs), "--run-id", "t56-trun-2x2-never-joins-rank1-redirects")
    assert code == 0, output
    line = _nodes_line(output)
    assert "(2 agents, 2 local ranks each;" in line and STANDALONE_ID not in line.split("; run ")[0], line
    assert "by --run-id, 1 agent folder(s) of 1 other run left out" in line
    assert score(NEVER_JOINS, Bundle.open(tmp_path / "b")) is None  # the tree alone names the rank that never joined
    # with the consoles too: as the run alone
    code, output, findings = _k10s(tmp_path, *_consoles(NEVER_JOINS, tmp_path), str(logs), "--run-id",
                                   "t56-trun-2x2-never-joins-rank1-redirects")
    assert code == 0 and named(findings) == _alone(NEVER_JOINS, tmp_path / "alone"), output
    code, output, _ = _k10s(tmp_path, str(logs), "--run-id", "none")  # no such run: one line, the runs listed
    assert code == 2 and len(output.strip().splitlines()) == 1 and "--run-id none: no agent folder of that run" in output


def test_one_runs_restarts_stay_one_run(tmp_path):
    logs = _shared_dir(tmp_path, RESTARTS)  # 3 agents of one run, a restart's attempt_0 and attempt_1
    assert list(logs.glob("*/attempt_1")) and len(list(logs.glob("*/attempt_0"))) == 3
    code, output, findings = _k10s(tmp_path, *_consoles(RESTARTS, tmp_path), str(logs))
    assert code == 0, output
    line = _nodes_line(output)
    assert "(3 agents, 2 local ranks each;" in line and "left out" not in line and "more than once" not in line, line
    assert score(RESTARTS, Bundle.open(tmp_path / "b")) is None


def test_one_run_id_launched_twice_is_said_or_chosen_by_the_console(tmp_path):
    # the same recorded run under both torch versions: one run id, two launches of 2 agents each
    logs = _shared_dir(tmp_path, NEVER_JOINS, RUNS["2.14.1/t56-trun-2x2-never-joins-rank1-redirects"])
    code, output, _ = _k10s(tmp_path, str(logs))
    assert code == 0, output
    line = _nodes_line(output)
    assert "the run id was launched more than once (run t56-trun-2x2-never-joins-rank1-redirects: node 0 2 folders, " \
           "node 1 2 folders)" in line and "cannot be told" in line and "all read" in line, line
    # a console that names its folder: the other launch's folder at that node is left out
    other = tmp_path / "other"
    other.mkdir()
    twice = _shared_dir(other, STANDALONE)
    second = RUNS["2.14.1/t60-standalone-1x6-sigkill-rank4-step3-record-rank0only-logdir"]
    shutil.copytree(next((second.folder / "log-dir").iterdir()), twice / f"{STANDALONE_ID}_zzzzzzzz")
    code, output, findings = _k10s(other, *_consoles(STANDALONE, other), str(twice))
    assert code == 0, output
    line = _nodes_line(output)
    assert "(1 agent," in line and "1 folder(s) of another launch of the same run id left out" in line, line
    assert score(STANDALONE, Bundle.open(other / "b")) is None


def _many_agents(root: Path, count: int) -> Path:
    """One run of ``count`` agents, one worker each printing its rank (a tree as --log-dir writes it)."""
    for n in range(count):
        worker = root / "big" / f"pretrain-llm-70b-{'x' * 40}_{n:08d}" / "attempt_0" / "0"
        worker.mkdir(parents=True)
        (worker / "stderr.log").write_text(f"rank {n}/{count} starting\n", encoding="utf-8")
    return root / "big"


def test_the_note_stays_one_short_line_for_many_agents_and_runs(tmp_path):
    code, output, _ = _k10s(tmp_path, str(_many_agents(tmp_path, 32)))
    assert code == 0, output
    line = _nodes_line(output)
    assert "(32 agents, 1 local ranks each;" in line and "… and 29 more)" in line and len(line) < LONGEST_LINE, line
    # a parent folder of many recorded runs (30+ agents): the refusal lists five runs, then how many more
    many = [r for r in RUNS.values() if r.version == "2.13.0"]
    logs = _shared_dir(tmp_path / "many", *many)
    assert len(list(logs.iterdir())) >= 30
    code, output, _ = _k10s(tmp_path / "many", str(logs))
    assert code == 2 and len(output.strip().splitlines()) == 1 and len(output) < LONGEST_LINE, output
    assert "more) and no console to choose by" in output and output.count(" agent") <= 5 + 1
    code, output, findings = _k10s(tmp_path / "many", *_consoles(STANDALONE, tmp_path / "many"), str(logs))
    assert code == 0 and len(_nodes_line(output)) < LONGEST_LINE, output
    assert f"run {STANDALONE_ID} by the consoles" in output and score(STANDALONE, Bundle.open(tmp_path / "many" / "b")) is None


def test_a_tar_or_zip_of_the_folder_reads_as_the_folder(tmp_path):
    logs = _shared_dir(tmp_path, STANDALONE, NEVER_JOINS)
    with tarfile.open(tmp_path / "logs.tar.gz", "w:gz") as tar:
        tar.add(logs, arcname="logs")
    with zipfile.ZipFile(tmp_path / "logs.zip", "w") as zf:
        for f in sorted(logs.rglob("*.log")):
            zf.write(f, f"logs/{f.relative_to(logs)}")
    for archive in ("logs.tar.gz", "logs.zip"):
        code, output, findings = _k10s(tmp_path, *_consoles(STANDALONE, tmp_path), str(tmp_path / archive))
        assert code == 0 and f"run {STANDALONE_ID} by the consoles, 2 agent folder(s) of 1 other run left out" in output, output
        assert score(STANDALONE, Bundle.open(tmp_path / "b")) is None
        code, output, _ = _k10s(tmp_path, str(tmp_path / archive))
        assert code == 2 and "holds 2 runs" in output and len(output.strip().splitlines()) == 1, output
