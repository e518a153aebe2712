"""A finding's and an incident's ``confidence`` in the culprit they name (docs/bundle-format.md, ``confidence``).

Built from pastes whose reading is known: a rank's exception with its launcher's report of it (high), the same
exception alone in the paste (medium), a traceback cut before its exception (low), an OOM with the others' watchdogs
(high) and alone (medium). Each way is read through ``k10s import-logs`` and ``analyze`` as a user would.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from k10s_forensics.analyze.confidence import CONFIDENCES, culprit_confidence
from k10s_forensics.analyze.render import to_markdown, to_text
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.store.bundle import Bundle

NOW = dt.datetime(2026, 12, 4, 12, 0, tzinfo=dt.timezone.utc)
AGENT = "torch/distributed/elastic/multiprocessing/api.py"


def _traceback(rank: int, exc: str | None) -> list[str]:
    lines = [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "/app/train.py", line 42, in <module>',
             f"[rank{rank}]:     main()"]
    return lines + ([f"[rank{rank}]: {exc}"] if exc else [])


def _launcher_report(rank: int, pid: int, victims: tuple[int, ...]) -> list[str]:
    """torchrun's agent: SIGTERM to the others, its failure line, and the table naming ``rank``."""
    return ([f"W1204 10:00:01.000000 123 {AGENT}:900] Sending process {p} closing signal SIGTERM" for p in victims]
            + [f"E1204 10:00:02.000000 123 {AGENT}:874] failed (exitcode: 1) local_rank: {rank} (pid: {pid}) of binary: "
               "/usr/bin/python3",
               "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60,
               "Failures:", "  <NO_OTHER_FAILURES>", "-" * 60, "Root Cause (first observed failure):", "[0]:",
               "  time      : 2026-12-04_10:00:02", "  host      : node-0", f"  rank      : {rank} (local_rank: {rank})",
               f"  exitcode  : 1 (pid: {pid})", "  error_file: <N/A>", "=" * 60])


OOM = ("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
       "79.15 GiB of which 1.05 GiB is free.")
WATCHDOGS = [f"[rank{r}]:[E1204 10:10:00.000000 {r} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation "
             "timeout: WorkNCCL(SeqNum=100, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 "
             "milliseconds before timing out." for r in (0, 2, 3)]

#: name -> (pasted lines, the rule naming the culprit, its rank, its confidence)
PASTES = {
    "exception-with-launcher-report": (_traceback(3, "KeyError: 'labels'") + _launcher_report(3, 204, (201, 202, 203)),
                                       "rank-failure", 3, "high"),
    "exception-alone-in-paste": (_traceback(3, "KeyError: 'labels'"), "rank-failure", 3, "medium"),
    "traceback-cut-before-exception": (_traceback(3, None), "rank-failure", 3, "low"),
    "oom-with-watchdogs": (_traceback(1, None) + [OOM] + WATCHDOGS, "oom-cascade", 1, "high"),
    "oom-alone-in-paste": ([OOM], "oom-cascade", 1, "medium"),
}


def _analysis(tmp_path: Path, lines: list[str]) -> dict:
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(lines))], tmp_path / "b", nproc_per_node=4, world_size=4,
                            job="train", namespace="team-a", now=NOW)
    return analyze(bundle)


@pytest.fixture(scope="module")
def analyses(tmp_path_factory) -> dict[str, dict]:
    return {name: _analysis(tmp_path_factory.mktemp(name), lines) for name, (lines, *_rest) in PASTES.items()}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_the_culprit_finding_and_its_incident_carry_the_rules_grade(analyses, name):
    _, rule, rank, grade = PASTES[name]
    analysis = analyses[name]
    (f,) = [f for f in analysis["findings"] if f["rule"] == rule]
    assert f["ranks"] == [rank] and f["confidence"] == grade
    assert list(f).index("confidence") == list(f).index("cause") + 1
    (inc,) = [i for i in analysis["incidents"] if i["root"]["rule"] == rule or any(s["rule"] == rule for s in i["symptoms"])]
    assert inc["confidence"] == analysis["findings"][inc["root"]["finding"]]["confidence"] == grade
    assert f["severity"] == {"high": "critical", "medium": "warning", "low": "info"}[grade]


def test_every_finding_has_the_key_and_null_where_it_names_no_culprit(analyses):
    for analysis in analyses.values():
        for f in analysis["findings"]:
            named = f["ranks"] or f["pods"] or f["nodes"] or f["gpus"]
            assert f["confidence"] in CONFIDENCES or f["confidence"] is None
            if not named:
                assert f["confidence"] is None, f


def test_the_one_line_says_a_culprit_short_of_certain_and_only_then(analyses):
    lone = to_text(analyses["exception-alone-in-paste"], color=False)
    sure = to_text(analyses["exception-with-launcher-report"], color=False)
    assert re.search(r"rank 3 · node node-0 · confidence medium", lone)
    assert "confidence medium" not in sure and "confidence high" in sure  # the meta line names it, the one line does not
    assert "**confidence:** low" in to_markdown(analyses["traceback-cut-before-exception"])


def test_the_report_shows_the_grade_beside_the_cause(analyses, tmp_path):
    from k10s_forensics.reports import render_report

    analysis = analyses["exception-alone-in-paste"]
    html = render_report(Path(analysis["bundle"]["path"]), analysis, tmp_path / "r.html").read_text(encoding="utf-8")
    assert re.search(r"cause .{0,80}python-exception.{0,80} · confidence .{0,80}medium", html)


@pytest.mark.parametrize("rule, row, names, want", [
    ("rank-failure", {"confidence": "high"}, True, "high"),
    ("rank-failure", {"confidence": "none"}, False, None),      # no single culprit
    ("rank-failure", {"confidence": "medium"}, False, None),    # a grade without a named culprit is no culprit's
    ("nccl-hang", {"confidence": "low"}, True, "low"),
    ("oom-cascade", {"confidence": None}, True, "high"),        # the log's own OOM line
    ("oom-cascade", {"confidence": "medium"}, True, "medium"),  # lone-paste-oom
    ("straggler", {}, True, None),                              # measured, not graded
    ("crashloop", {"confidence": "bogus"}, True, None),
])
def test_culprit_confidence(rule, row, names, want):
    finding = {"ranks": [2] if names else [], "pods": [], "nodes": [], "gpus": []}
    assert culprit_confidence(rule, row, finding) == want


def test_fleet_keeps_the_grade_and_reads_an_index_written_before_it(tmp_path):
    """``k10s fleet index`` keeps ``culprit_confidence`` (findings and incidents); an index whose files predate the
    column (written by an older k10s) still opens, the column NULL, every other value as written."""
    import shutil

    import pyarrow.parquet as pq

    from conftest import SAMPLE_BUNDLES
    from k10s_forensics.fleet.engines import open_engine
    from k10s_forensics.fleet.index import index_fleet

    def rows(root: Path, table: str) -> list[dict]:
        engine = open_engine("duckdb", str(root))
        try:
            return engine.rows(f"SELECT rule, culprit_ranks, culprit_confidence FROM fleet_{table} ORDER BY rule, culprit_ranks",
                               "test")
        finally:
            engine.close()

    bundle = shutil.copytree(SAMPLE_BUNDLES / "oom-crashloop", tmp_path / "b")
    index_fleet([str(bundle)], tmp_path / "fleet", jobs=1)
    graded = {(f["rule"], ",".join(map(str, f["ranks"]))): f["confidence"] for f in analyze(Bundle.open(bundle))["findings"]}
    found = rows(tmp_path / "fleet", "findings")
    assert {(r["rule"], r["culprit_ranks"]): r["culprit_confidence"] for r in found} == graded
    assert ("oom-cascade", "5", "high") in {(r["rule"], r["culprit_ranks"], r["culprit_confidence"]) for r in rows(tmp_path / "fleet", "incidents")}
    for table in ("findings", "incidents"):  # as an older k10s wrote them: no such column in any file
        for f in (tmp_path / "fleet" / table).rglob("*.parquet"):
            pq.write_table(pq.read_table(f).drop_columns(["culprit_confidence"]), f)
    old = rows(tmp_path / "fleet", "findings")
    assert [(r["rule"], r["culprit_ranks"]) for r in old] == [(r["rule"], r["culprit_ranks"]) for r in found]
    assert {r["culprit_confidence"] for r in old} == {None}
