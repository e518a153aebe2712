"""A culprit's or a rank's node that is unknown shows as ``--- (why)`` in every output (k10s_forensics/analyze/node_unknown.py):
``k10s analyze`` text, markdown and JSON (``node_unknown``), ``k10s report`` and ``k10s view``'s jobs, rank and findings
views. A log that names rank 1534 and gives no layout (a tagged traceback, no host): ``import-logs`` puts the rank on
no node. Where the node is known, nothing changes: batch 57's real Cray MPICH abort of rank 1534 names its host on its
own line (``[nid001192]``), so the rank is on that node."""

from __future__ import annotations

import datetime as dt
import html
import re
from pathlib import Path

import duckdb
import pytest

from k10s_forensics.analyze.node_unknown import WHY, annotate, nodes_count, shown
from k10s_forensics.analyze.render import to_markdown, to_text
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs, read_sources
from k10s_forensics.reports import render_report
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.view.screens.jobs import JobsScreen

from conftest import SAMPLE_BUNDLES
from view_helpers import command, run_app, settle, table_text

NOW = dt.datetime(2026, 11, 30, 3, 0, tzinfo=dt.timezone.utc)
LOG = Path(__file__).parent / "data" / "real-incidents" / "archer2-docs-ucx-reg-mr-rank1534-isend-abort" / "log.txt"
NO_HOST = ("[rank1534]: Traceback (most recent call last):\n[rank1534]:   File \"train.py\", line 88, in <module>\n"
           "[rank1534]:     loss.backward()\n[rank1534]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
NO_LAYOUT = "--- (node unknown: the log gives no layout; `--nproc-per-node` places the ranks)"


@pytest.fixture(scope="module")
def unplaced(tmp_path_factory):
    """A log naming rank 1534 with no layout and no host imported as it is: rank 1534 on no node, and its analysis."""
    bundle, layout = import_logs([LogSource("log.txt", NO_HOST)], tmp_path_factory.mktemp("u") / "b", now=NOW)
    assert layout.placed == [1534]
    return bundle, analyze(bundle)


def test_analyze_json_text_and_markdown_say_why_the_node_is_unknown(unplaced):
    _, analysis = unplaced
    failure = next(f for f in analysis["findings"] if f["rule"] == "rank-failure")
    assert (failure["ranks"], failure["nodes"], failure["node_unknown"]) == ([1534], [], WHY["named-ranks"])
    assert analysis["incidents"][0]["node_unknown"] == WHY["named-ranks"]
    text = to_text(analysis, width=400)
    assert f"   nodes: {NO_LAYOUT}" in text.splitlines()
    assert f"· rank 1534 · node {NO_LAYOUT}" in text  # the incident's one line
    assert f"- **Culprit nodes:** {NO_LAYOUT}" in to_markdown(analysis).splitlines()


def test_report_says_why_for_the_culprit_the_job_and_the_rank(unplaced, tmp_path):
    bundle, analysis = unplaced
    page = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", "", render_report(bundle, analysis, tmp_path / "r.html").read_text(), flags=re.S)))
    page = re.sub(r"\s+", " ", page)
    assert f"rank 1534 pod imported/imported-worker-1533 node {NO_LAYOUT}" in page
    assert f"1 ranks seen on --- nodes ({NO_LAYOUT[5:-1]})" in page
    assert f"imported-worker-1533 {NO_LAYOUT} · GPU ---" in page


def test_view_jobs_rank_and_findings_say_why(unplaced):
    bundle, _ = unplaced

    async def script(app, pilot):
        await command(app, pilot, "jobs")
        assert isinstance(app.screen, JobsScreen)
        rows = table_text(app.screen)
        assert "--- nodes (no layout)" in rows[0] and "0 nodes" not in rows[0]
        assert rows[1].split(" | ")[3] == "--- (no layout)"
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert NO_LAYOUT in app.screen.info
        await pilot.press("escape")
        await command(app, pilot, "findings")
        assert any(NO_LAYOUT in row for row in table_text(app.screen))

    run_app(bundle.path, script)


def test_the_real_log_names_the_host_of_its_rank_so_its_node_is_known(tmp_path):
    """Batch 57's ``MPICH ERROR [Rank 1534] … [nid001192] - Abort(…)`` imported with no option: rank 1534 on nid001192."""
    bundle, layout = import_logs(read_sources(str(LOG)), tmp_path / "b", now=NOW)
    assert (layout.placed, layout.hosts) == ([1534], {1534: "nid001192"})
    analysis = analyze(bundle)
    failure = next(f for f in analysis["findings"] if f["rule"] == "rank-failure")
    assert (failure["ranks"], failure["nodes"]) == ([1534], ["nid001192"])
    assert not [f for f in analysis["findings"] + analysis["incidents"] if "node_unknown" in f]
    assert "   nodes: nid001192" in to_text(analysis, width=400).splitlines()


def test_a_placed_rank_and_the_samples_say_nothing_new(tmp_path):
    bundle, _ = import_logs(read_sources(str(LOG)), tmp_path / "placed", nproc_per_node=8, now=NOW)
    failure = next(f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure")
    assert failure["nodes"] and "node_unknown" not in failure
    analysis = analyze(Bundle.open(SAMPLE_BUNDLES / "oom-crashloop"))
    assert not [f for f in analysis["findings"] + analysis["incidents"] if "node_unknown" in f]


def _con(pods: list[tuple]) -> duckdb.DuckDBPyConnection:
    """ranks and pods tables: (pod, rank, node, rank_source, scheduled, phase) per pod, job ns/j."""
    con = duckdb.connect()
    con.execute("CREATE TABLE ranks (namespace VARCHAR, job VARCHAR, rank BIGINT, pod VARCHAR, pod_uid VARCHAR, node VARCHAR, rank_source VARCHAR)")
    con.execute("CREATE TABLE pods (pod_uid VARCHAR, scheduled BOOLEAN, phase VARCHAR)")
    for pod, rank, node, source, scheduled, phase in pods:
        con.execute("INSERT INTO ranks VALUES ('ns', 'j', ?, ?, ?, ?, ?)", [rank, pod, "uid-" + pod, node, source])
        con.execute("INSERT INTO pods VALUES (?, ?, ?)", ["uid-" + pod, scheduled, phase])
    return con


def test_each_reason_a_node_is_unknown_and_a_known_node_stays_unsaid():
    con = _con([("p0", 0, None, "env:RANK", False, "Pending"), ("p1", 1, None, "env:RANK", True, "Running"),
                ("p2", 2, "gpu-node-1", "env:RANK", True, "Running"), ("p3", 3, None, "named-ranks", None, "Running")])
    findings = [{"job": "ns/j", "ranks": [0], "pods": ["ns/p0"], "nodes": []},
                {"job": "ns/j", "ranks": [1], "pods": [], "nodes": []},
                {"job": "ns/j", "ranks": [2], "pods": ["ns/p2"], "nodes": []},  # its rule names no node: the node is known
                {"job": "ns/j", "ranks": [2, 3], "pods": ["ns/p2", "ns/p3"], "nodes": []},  # one of them placed
                {"job": "ns/j", "ranks": [3], "pods": ["ns/p3"], "nodes": []},
                {"job": "ns/j", "ranks": [0], "pods": ["ns/p0"], "nodes": ["gpu-node-9"]}]
    annotate(con, findings)
    assert [f.get("node_unknown") for f in findings] == [WHY["unscheduled"], WHY["no-node"], None, None, WHY["named-ranks"], None]


def test_shown_and_nodes_count():
    assert shown(None) == "---" and shown("named-ranks", short=True) == "--- (no layout)"
    assert nodes_count(4, 0, None) == "4 nodes"
    assert nodes_count(0, 3, "unscheduled") == f"--- nodes ({WHY['unscheduled']})"
    assert nodes_count(2, 1, "unscheduled", short=True) == "2 nodes, 1 ranks on --- (unscheduled)"


def test_ranks_of_pods_never_scheduled_say_so_in_the_jobs_queries():
    from k10s_forensics.view.data import ViewData

    data = ViewData.open(SAMPLE_BUNDLES / "pending-capacity")
    try:
        job = data.jobs()[0]
        assert (job["unplaced_n"], job["node_unknown"]) == (8, "unscheduled") and job["nodes_n"] == 2
        ranks = data.ranks(job["job_key"])
        assert {r["node_unknown"] for r in ranks if r["node"] is None} == {"unscheduled"}
        assert {r["node_unknown"] for r in ranks if r["node"] is not None} == {None}
    finally:
        data.close()


def test_diff_says_why_the_culprits_node_is_unknown(unplaced, tmp_path):
    """``k10s diff``'s culprit line and JSON carry the why where the culprit rank is on no node."""
    from k10s_forensics.diff import diff
    from k10s_forensics.diff.render import culprit_line, to_markdown as diff_markdown

    bundle, analysis = unplaced
    result = diff([bundle], bundle, baseline_given="b", bundle_given="b", analysis=analysis)
    assert result["culprits"]["ranks"] == [1534] and result["culprits"]["nodes"] == []
    assert result["culprits"]["node_unknown"] == WHY["named-ranks"]
    assert [f.get("node_unknown") for f in result["culprits"]["findings"] if f["rule"] == "rank-failure"] == [WHY["named-ranks"]]
    line = culprit_line(result)
    assert line.endswith(f"ranks 1534; node {NO_LAYOUT}")
    assert NO_LAYOUT.replace("|", "\\|") in diff_markdown(result)


def test_diff_of_a_placed_culprit_has_no_why(tmp_path):
    import shutil

    from k10s_forensics.diff import diff

    bundle = Bundle.open(shutil.copytree(SAMPLE_BUNDLES / "oom-crashloop", tmp_path / "b"))
    result = diff([bundle], bundle, baseline_given="b", bundle_given="b", analysis=analyze(bundle))
    assert result["culprits"]["nodes"] and "node_unknown" not in result["culprits"]
    assert all("node_unknown" not in f for f in result["culprits"]["findings"])
    # each culprit finding keeps how sure analyze was of it (docs/bundle-format.md, `confidence`)
    graded = {(f["rule"], f["title"]): f["confidence"] for f in analyze(bundle)["findings"]}
    assert [f["confidence"] for f in result["culprits"]["findings"]] == [graded[(f["rule"], f["title"])] for f in result["culprits"]["findings"]]
    assert ("oom-cascade", "high") in {(f["rule"], f["confidence"]) for f in result["culprits"]["findings"]}


def test_fleet_keeps_why_the_culprits_node_is_unknown(unplaced, tmp_path):
    """``k10s fleet index`` keeps the why in ``culprit_node_unknown`` (findings and incidents), null where known."""
    import shutil

    from k10s_forensics.fleet.engines import open_engine
    from k10s_forensics.fleet.index import index_fleet

    bundle, _ = unplaced
    placed = shutil.copytree(SAMPLE_BUNDLES / "oom-crashloop", tmp_path / "placed")
    index_fleet([str(bundle.path), str(placed)], tmp_path / "fleet", jobs=1)
    engine = open_engine("duckdb", str(tmp_path / "fleet"))
    try:
        for table in ("findings", "incidents"):
            rows = engine.rows(f"SELECT culprit_ranks, culprit_nodes, culprit_node_unknown FROM fleet_{table} "
                               "WHERE culprit_ranks <> '' ORDER BY culprit_ranks, culprit_nodes", "test")
            assert {(r["culprit_ranks"], r["culprit_node_unknown"]) for r in rows if r["culprit_ranks"] == "1534"} == {("1534", WHY["named-ranks"])}
            assert all(r["culprit_node_unknown"] is None for r in rows if r["culprit_nodes"])
    finally:
        engine.close()
