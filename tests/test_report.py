"""The HTML report without a browser: registry, contexts, self-containment, escaping,
absent data, the fleet's idle ordering, and the CLI."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from _analyze_kit import at, gang, samples, table_bundle
from k10s_forensics.store.bundle import BundleWriter, new_manifest
from k10s_forensics.cli import cli
from k10s_forensics.reports import SECTIONS, build_contexts, plotly_js, render_report, section_module
from k10s_forensics.reports.common import Absent, Plot, script_safe_json, sql_names, sql_text
from report_helpers import (ALL_PAYLOADS, copy_sample, external_refs, hostile_analysis, hostile_bundle,
                            parse_html, sample_names)

REPORTS = Path(__file__).resolve().parents[1] / "reports"
HELPER_MODULES = {"__init__", "common", "plots", "matrix", "browser"}


@pytest.fixture(scope="module")
def oom_report(tmp_path_factory) -> tuple[Path, str, Path]:
    """(report, its HTML, the rebuilt bundle) of the oom-crashloop sample."""
    if "oom-crashloop" not in sample_names():
        pytest.skip("sample-bundles/oom-crashloop is absent")
    root = tmp_path_factory.mktemp("report")
    bundle_dir = copy_sample("oom-crashloop", root)
    out = render_report(bundle_dir, None, root / "oom.html")
    return out, out.read_text(encoding="utf-8"), bundle_dir


# -- registry and contracts ------------------------------------------------------------------


def test_every_section_module_is_registered_and_has_a_template():
    modules = {p.stem for p in REPORTS.glob("*.py")} - HELPER_MODULES
    assert modules == {s.module for s in SECTIONS}, "a section module is missing from SECTIONS (or listed but absent)"
    for s in SECTIONS:
        assert (REPORTS / "templates" / s.template).is_file(), s.template
        assert callable(section_module(s).build)


def test_every_sql_file_is_used_and_documented():
    used = " ".join(p.read_text() for p in REPORTS.glob("*.py"))
    for name in sql_names():
        text = sql_text(name)
        assert text.startswith(f"-- name: {name}\n"), f"{name}.sql: header must start with its name"
        assert "-- description:" in text and "-- columns:" in text, f"{name}.sql: header incomplete"
        assert f'"{name}"' in used, f"reports/sql/{name}.sql is not used by any section"
    referenced = set(re.findall(r'query(?:_table)?\(con, "([a-z_]+)"', used))
    assert referenced <= set(sql_names()), referenced - set(sql_names())


def test_package_data_ships_templates_sql_and_static():
    files = resources.files("k10s_forensics.reports")
    assert files.joinpath("templates", "base.html.j2").is_file()
    assert files.joinpath("sql", "job_gpu_bins.sql").is_file()
    assert files.joinpath("static", "report.css").is_file()
    pyproject = (REPORTS.parent / "pyproject.toml").read_text()
    assert '"sql/*.sql"' in pyproject and '"templates/*.j2"' in pyproject and '"static/*"' in pyproject


def test_context_fields_are_documented(oom_report):
    """Every field of every section context (and nested row dataclass) carries a help text."""
    from k10s_forensics.store.bundle import Bundle

    contexts = build_contexts(Bundle.open(oom_report[2]), {"findings": [], "skipped": []})
    assert set(contexts) == {s.id for s in SECTIONS}
    seen = set()

    def check(obj):
        if dataclasses.is_dataclass(obj) and not isinstance(obj, (Absent, Plot)) and type(obj) not in seen:
            seen.add(type(obj))
            for f in dataclasses.fields(obj):
                assert f.metadata.get("help"), f"{type(obj).__name__}.{f.name} has no help text"
                check(getattr(obj, f.name))
        elif isinstance(obj, list):
            for item in obj[:3]:
                check(item)

    for ctx in contexts.values():
        check(ctx)
    assert len(seen) >= 10


# -- the page ----------------------------------------------------------------------------------


def test_report_is_self_contained(oom_report):
    path, html, _ = oom_report
    assert html.count(plotly_js()) == 1, "plotly.js must be embedded exactly once"
    assert external_refs(html) == [], "the page must reference nothing outside itself"
    page = parse_html(html)
    assert page.tags.get("link", 0) == 0 and page.tags.get("iframe", 0) == 0 and page.tags.get("img", 0) == 0
    code = [s for s in page.scripts if s.get("type") != "application/json"]
    assert len(code) == 2 and all(s.get("nonce") and not s.get("src") for s in code)
    assert "default-src 'none'" in html and "connect-src 'none'" in html
    assert path.stat().st_size < 10_000_000


def test_report_has_every_section_and_plot_data(oom_report):
    _, html, _ = oom_report
    for s in SECTIONS:
        assert f'<section id="{s.id}"' in html
    blocks = re.findall(r'<script type="application/json" data-plot="([^"]+)">(.*?)</script>', html, re.S)
    assert len(blocks) >= 3
    for anchor, data in blocks:
        assert f'id="{anchor}"' in html
        fig = json.loads(data)
        assert fig["data"], anchor


def test_findings_link_to_existing_plots(oom_report):
    _, html, _ = oom_report
    links = re.findall(r'<p class="links">See: (.*?)</p>', html)
    assert links, "each finding links to its plot"
    for group in links:
        for href in re.findall(r'href="#([^"]+)"', group):
            assert f'id="{href}"' in html, f"finding links to #{href}, which is not in the page"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_script_safe_json_round_trips_and_cannot_close_a_script(text):
    encoded = script_safe_json(json.dumps({"t": text}))
    assert "<" not in encoded and ">" not in encoded
    assert json.loads(encoded) == {"t": text}


def test_hostile_cluster_text_is_escaped_in_the_source(tmp_path):
    if "oom-crashloop" not in sample_names():
        pytest.skip("sample-bundles/oom-crashloop is absent")
    bundle, hostile = hostile_bundle(tmp_path)
    job = "team-a/" + hostile
    for analysis in (None, hostile_analysis(job)):
        html = render_report(bundle, analysis, tmp_path / "xss.html").read_text(encoding="utf-8")
        page = parse_html(html)
        assert page.tags.get("img", 0) == 0 and page.event_handlers == 0
        code = [s for s in page.scripts if s.get("type") != "application/json"]
        assert len(code) == 2, "no script element may come from cluster text"
        text_only = html.replace(plotly_js(), "")
        assert "&lt;script&gt;window.__pwned" in text_only, "payloads must be shown, as text"
        for payload in ALL_PAYLOADS:
            assert payload not in text_only


# -- absent data -------------------------------------------------------------------------------


def test_empty_bundle_renders_with_reasons_not_blanks(tmp_path):
    manifest = new_manifest(cluster={"context": "prod", "server": None, "kubernetes_version": None})
    writer = BundleWriter(tmp_path / "b", manifest)
    writer.record_collector({"name": "dcgm", "status": "failed", "errors": ["forbidden: services/proxy in gpu-operator"]})
    writer.record_collector({"name": "kueue", "status": "skipped", "errors": ["kueue.x-k8s.io not served by this cluster"]})
    writer.close()
    html = render_report(tmp_path / "b", None, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Traceback" not in html and "could not be built" not in html
    assert "forbidden: services/proxy in gpu-operator" in html, "a failed collector's reason is shown"
    assert "Kueue not present" in html and "kueue.x-k8s.io not served by this cluster" in html
    assert "not captured: no ss collector ran" in html
    assert "no ranks of a training job in this bundle" in html
    assert html.count('<span class="absent">---</span>') >= 8
    assert "<td></td>" not in html.replace(" ", ""), "an empty cell must say --- and why"


def test_missing_gpu_metrics_show_why_in_jobs(tmp_path):
    g = gang(pods=2, per_pod=2)
    bundle = table_bundle(tmp_path / "b", g)
    html = render_report(bundle, {"findings": [], "skipped": []}, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "no GPU samples in this bundle" in html
    assert "no ss samples in this bundle" in html


# -- fleet ---------------------------------------------------------------------------------------


def test_fleet_lists_idle_nodes_first_amber_then_red_after_six_hours(tmp_path):
    g = gang(pods=3, per_pod=1)
    # pod 0 idle since 8 h before the window (red), pod 1 idle since 2 h (amber), pod 2 busy
    g["pods"][0]["started_at"] = at(-8 * 3600)
    g["pods"][1]["started_at"] = at(-2 * 3600)

    def idle(rank, t, row):
        if rank in (0, 1):
            row.update(tensor_active=0.0, sm_active=0.0, util_pct=0.0, power_w=60.0)

    tables = {**g, "gpu_samples": samples(g, minutes=10, override=idle)}
    bundle = table_bundle(tmp_path / "b", tables)
    ctx = build_contexts(bundle, {"findings": [], "skipped": []})["fleet"]
    assert [r.node for r in ctx.rows] == ["gpu-node-0", "gpu-node-1", "gpu-node-2"]
    assert [r.status for r in ctx.rows] == ["idle-red", "idle-amber", ""]
    assert ctx.idle_nodes == 2 and ctx.idle_gpus == 2
    assert "8.2 h" in ctx.rows[0].status_text and "2.2 h" in ctx.rows[1].status_text
    assert ctx.rows[0].workload == "team-a/llama"


def test_culprit_rank_is_outlined_in_the_job_heatmap(tmp_path):
    g = gang(pods=4, per_pod=2)

    def slow(rank, t, row):
        if rank == 5:
            row.update(tensor_active=0.9, sm_clock_mhz=1100.0, temp_c=88.0)

    bundle = table_bundle(tmp_path / "b", {**g, "gpu_samples": samples(g, override=slow)})
    analysis = {"findings": [{"rule": "straggler", "severity": "warning", "title": "rank 5 is slow", "job": "team-a/llama",
                              "ranks": [5], "pods": [], "nodes": [], "gpus": [], "evidence": []}], "skipped": []}
    job = build_contexts(bundle, analysis)["jobs"].jobs[0]
    fig = json.loads(job.gpu_plot.figure_json)
    shapes = [s for s in fig["layout"]["shapes"] if s.get("name") == "culprit"]
    assert shapes and all(s["y0"] == 4.5 and s["y1"] == 5.5 for s in shapes)
    assert len(shapes) == len([t for t in fig["data"] if t["type"] == "heatmap"])
    assert any("rank 5" in a["text"] for a in fig["layout"]["annotations"])
    assert job.rank_rows[0].rank == 5 and job.rank_rows[0].culprit == "straggler"
    assert job.lines_plot is not None


# -- CLI ---------------------------------------------------------------------------------------


def test_cli_report_writes_the_file(tmp_path):
    bundle = table_bundle(tmp_path / "b", gang(pods=2))
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(bundle.path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and "wrote" in result.output


def test_cli_report_uses_a_saved_analysis(tmp_path):
    bundle = table_bundle(tmp_path / "b", gang(pods=2))
    saved = tmp_path / "a.json"
    saved.write_text(json.dumps(hostile_analysis("team-a/llama")))
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(bundle.path), "-o", str(out), "--analysis", str(saved)])
    assert result.exit_code == 0, result.output
    assert "Title &lt;/script&gt;" in out.read_text()
    saved.write_text("[1, 2]")
    bad = CliRunner().invoke(cli, ["report", str(bundle.path), "-o", str(out), "--analysis", str(saved)])
    assert bad.exit_code == 2 and "no findings list" in bad.output


def test_cli_report_bad_input_is_one_line(tmp_path):
    import subprocess

    k10s = [sys.executable, "-m", "k10s_forensics"]  # this interpreter's k10s, on PATH or not
    missing = subprocess.run([*k10s, "report", str(tmp_path / "nope"), "-o", str(tmp_path / "r.html")], capture_output=True, text=True)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    bundle = table_bundle(tmp_path / "b", gang(pods=1))
    no_dir = subprocess.run([*k10s, "report", str(bundle.path), "-o", str(tmp_path / "no" / "r.html")], capture_output=True, text=True)
    assert no_dir.returncode == 1 and "does not exist" in no_dir.stderr and "Traceback" not in no_dir.stderr


def test_analyze_html_writes_the_report(tmp_path):
    bundle = table_bundle(tmp_path / "b", gang(pods=2))
    out = tmp_path / "a.html"
    result = CliRunner().invoke(cli, ["analyze", str(bundle.path), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and '<section id="findings"' in out.read_text()

