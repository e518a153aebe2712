"""``k10s view``'s data layer and formatting, without a terminal: Fleet before the heavy
views, named SQL with headers (each file used), the y matching rules, gauges, sparklines."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from k10s_forensics.output import ABSENT
from k10s_forensics.view import data as data_module
from k10s_forensics.view.data import ViewData, view_sql
from k10s_forensics.view.diagnose import Target, diagnose, names
from k10s_forensics.view.fmt import bar, fmt_mib, spark

from conftest import SAMPLE_BUNDLES

VIEW_PKG = Path(data_module.__file__).parent


def _sql_names() -> list[str]:
    return sorted(p.name[:-4] for p in resources.files("k10s_forensics.view").joinpath("sql").iterdir() if p.name.endswith(".sql"))


@pytest.mark.parametrize("name", _sql_names())
def test_view_sql_has_a_header_and_is_used(name):
    text = view_sql(name)
    for key in ("name", "description", "inputs", "params", "columns", "grain"):
        assert re.search(rf"^-- {key}:", text, re.M), f"view/sql/{name}.sql: no '-- {key}:' header"
    assert re.search(rf"^-- name: {name}$", text, re.M)
    code = "".join(p.read_text() for p in VIEW_PKG.rglob("*.py"))
    assert f'"{name}"' in code, f"view/sql/{name}.sql is not used by any view module"


def test_fleet_answers_before_the_shared_views_and_rules():
    d = ViewData.open(SAMPLE_BUNDLES / "oom-crashloop")
    try:
        assert d.fleet()
        temp = d._connection().sql("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'k10s_%'").fetchall()[0][0]
        assert temp == 0, "Fleet built the shared views: it would wait for them on a big bundle"
        assert d.findings(), "the analysis then runs on the same connection"
        temp = d._connection().sql("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'k10s_%'").fetchall()[0][0]
        assert temp > 0
    finally:
        d.close()


def test_findings_are_the_analysis_not_a_copy():
    from k10s_forensics.analyze.runner import analyze

    d = ViewData.open(SAMPLE_BUNDLES / "straggler-network")
    try:
        assert d.findings() == analyze(d.bundle)["findings"]
    finally:
        d.close()


def test_red_after_hours_is_the_reports():
    from k10s_forensics.reports.fleet import RED_AFTER_HOURS as REPORT
    from k10s_forensics.view.screens.fleet import RED_AFTER_HOURS

    assert RED_AFTER_HOURS == REPORT


def test_names_matches_rank_pod_gpu_node_job():
    f = {"job": "ns/j", "ranks": [3], "pods": ["ns/p-1"], "nodes": ["n1"], "gpus": ["GPU-a"]}
    assert names(f, Target("rank", "", job_key="ns/j", rank=3))
    assert not names(f, Target("rank", "", job_key="ns/other", rank=3)), "rank 3 of another job"
    assert not names(f, Target("rank", "", job_key="ns/j", rank=4, pod="ns/p-2"))
    assert names(f, Target("rank", "", job_key="ns/j", rank=4, pod="ns/p-1")), "a rank sharing the culprit pod"
    assert names(f, Target("gpu", "", gpu_uuid="GPU-a"))
    assert names(f, Target("node", "", node="n1")) and not names(f, Target("node", "", node="n2"))
    assert names(f, Target("job", "", job_key="ns/j"))
    assert names(f, Target("workload", "", job_key="ns/j"))
    assert names(f, Target("finding", "", finding=f)) and not names(dict(f), Target("finding", "", finding=f))


def test_idle_node_diagnosis_names_the_idle_finding():
    d = ViewData.open(SAMPLE_BUNDLES / "idle-gpus")
    try:
        idle = [r for r in d.fleet() if r["idle_gpus"]]
        assert idle, "the idle sample has no idle node in Fleet"
        text = diagnose(d, Target("node", idle[0]["node"], node=idle[0]["node"])).text()
        assert "idle-gpu" in text and "idle GPU(s)" in text and "Fix: " in text
    finally:
        d.close()


def test_bar_spark_and_sizes():
    assert bar(None) == ABSENT and bar(float("nan")) == ABSENT
    assert bar(50, width=4) == "██░░  50%" and bar(250, width=4).startswith("████")
    assert spark([]) == ABSENT and spark([None, None]) == ABSENT
    assert spark([0, 50, 100], 0, 100) == "▁▅█" and spark([0, None, 100], 0, 100) == "▁ █"
    assert fmt_mib(81920) == "80.0GB" and fmt_mib(512) == "512MiB" and fmt_mib(None) == ABSENT


def test_every_view_has_a_fixed_width_per_column():
    from k10s_forensics.view.screens import events, findings, fleet, jobs, node, queue, rank

    screens = [events.EventsScreen, events.LogsScreen, findings.FindingsScreen, fleet.FleetScreen, jobs.JobsScreen,
               node.NodeScreen, queue.QueueScreen, rank.RankScreen]
    for cls in screens:
        assert len(cls.WIDTHS) == len(cls.COLUMNS) and all(w > 0 for w in cls.WIDTHS), cls.__name__


def test_y_reads_precomputed_facts_only():
    d = ViewData.open(SAMPLE_BUNDLES / "oom-crashloop")
    try:
        d.prefetch()
        r = next(r for r in d.ranks(d.jobs()[0]["job_key"]) if r["oom"])
        before = dict(d._cache)
        text = diagnose(d, Target("rank", "x", job_key=r["job_key"], rank=r["rank"], pod=f"{r['job_key'].split('/')[0]}/{r['pod']}",
                                  node=r["node"], gpu_uuid=r["gpu_uuid"])).text()
        assert "headroom" in text and set(d._cache) == set(before), "y ran a query after the prefetch"
    finally:
        d.close()


def test_from_memory_answers_only_what_is_computed_and_never_waits_for_the_connection():
    import threading

    from k10s_forensics.view.data import NotCached

    d = ViewData.open(SAMPLE_BUNDLES / "oom-crashloop")
    try:
        with d.from_memory(), pytest.raises(NotCached):
            d.fleet()
        assert d.fleet()
        d.prefetch()
        job = d.jobs()[0]["job_key"]
        r = next(r for r in d.ranks(job) if r["oom"])
        target = Target("rank", "x", job_key=job, rank=r["rank"], pod=f"{job.split('/')[0]}/{r['pod']}", node=r["node"],
                        gpu_uuid=r["gpu_uuid"])
        held, release = threading.Event(), threading.Event()

        def hold_the_connection() -> None:  # a worker in the middle of a long query
            with d._lock:
                held.set()
                release.wait(30)

        worker = threading.Thread(target=hold_the_connection)
        worker.start()
        try:
            assert held.wait(10)
            with d.from_memory():
                assert "headroom" in diagnose(d, target).text()   # y: every fact is in memory
                assert d.node_gpus(r["node"]) and d.fleet()
                with pytest.raises(NotCached):
                    d.ranks("no/such-job")                          # would need a query: refused at once
            assert not d._thread.__dict__.get("memory_only")
        finally:
            release.set()
            worker.join()
    finally:
        d.close()


@pytest.mark.parametrize("bundle", ["oom-crashloop", "pending-quota", "straggler-network"])
def test_after_the_prefetch_y_on_every_row_of_every_view_answers_from_memory(bundle):
    from k10s_forensics.view.screens import events, findings, fleet, jobs, queue

    d = ViewData.open(SAMPLE_BUNDLES / bundle)
    try:
        d.fleet()
        d.prefetch()
        targets = [r.target for cls in (fleet.FleetScreen, jobs.JobsScreen, queue.QueueScreen, findings.FindingsScreen,
                                        events.EventsScreen, events.LogsScreen) for r in cls.load(d) if r.target]
        nodes = [g["gpu_uuid"] for n in d.fleet() for g in d.node_gpus(n["node"])]
        assert targets and nodes
        with d.from_memory():
            for t in targets:
                assert diagnose(d, t).text()
            for n in d.fleet():
                assert d.node_gpus(n["node"]) is not None
    finally:
        d.close()


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    k10s = Path(sys.executable).with_name("k10s")
    (tmp_path / "empty").mkdir()
    for args in ([str(tmp_path / "missing")], [str(tmp_path / "empty")], [], ["--live", str(tmp_path / "empty")]):
        out = subprocess.run([str(k10s), "view", *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert out.returncode == 2, (args, out.stderr)
        assert "Traceback" not in out.stderr and out.stderr.strip(), args
    out = subprocess.run([str(k10s), "view", "--live", "--kubeconfig", str(tmp_path / "nope.kubeconfig")], capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode != 0 and "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_an_archive_opens_like_its_folder(tmp_path):
    from k10s_forensics.sharing.pack import pack

    archive = tmp_path / "oom.tar.gz"
    pack(SAMPLE_BUNDLES / "oom-crashloop", archive)
    d = ViewData.open(archive)
    try:
        assert [r["node"] for r in d.fleet()] == [r["node"] for r in ViewData.open(SAMPLE_BUNDLES / "oom-crashloop").fleet()]
        assert d.findings()[0]["rule"] == "oom-cascade"
    finally:
        d.close()
