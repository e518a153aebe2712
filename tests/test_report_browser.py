"""The report in a real headless Chromium (DevTools protocol): no console error, no network
request, the culprit in the findings and highlighted in the plots, hostile cluster text
never runs, and printing gives a readable PDF.

One Chromium serves the whole module. The default run opens a representative set of
sample bundles; the rest of sample-bundles/ is covered by the ``slow`` test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from k10s_forensics.reports import render_report
from k10s_forensics.reports.browser import CHROMIUM, Chromium, available
from k10s_forensics.reports.common import anchor
from report_helpers import PAYLOAD_LOG, PAYLOAD_NAME, copy_sample, hostile_analysis, hostile_bundle, sample_names, truth

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not available(), reason=f"{CHROMIUM} not found: install Debian's chromium to run the browser tests"),
]

DEFAULT = ("oom-crashloop", "straggler-compute", "idle-gpus")
OTHERS = tuple(n for n in sample_names() if n not in DEFAULT)


@pytest.fixture(scope="module")
def chromium():
    browser = Chromium()
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def report_of(tmp_path_factory):
    """name -> rendered report path (rendered once per module)."""
    root = tmp_path_factory.mktemp("reports")
    cache: dict[str, Path] = {}

    def render(name: str) -> Path:
        if name not in sample_names():
            pytest.skip(f"sample bundle {name} is absent")
        if name not in cache:
            cache[name] = render_report(copy_sample(name, root), None, root / f"{name}.html")
        return cache[name]

    return render


def open_clean(chromium: Chromium, path: Path):
    """Load the page; fail on any console error or request leaving the file."""
    visit = chromium.open_page(path)
    assert visit.console_errors == [], visit.console_errors
    assert visit.external_requests == [], f"the report tried to reach {visit.external_requests}"
    drawn = chromium.evaluate(
        "Array.from(document.querySelectorAll('script[data-plot]')).map(b => {"
        " const d = document.getElementById(b.dataset.plot);"
        " return [b.dataset.plot, !!(d && d.classList.contains('js-plotly-plot') && d.querySelector('svg.main-svg'))]; })"
    )
    assert drawn and all(ok for _, ok in drawn), f"plots not drawn: {[a for a, ok in drawn if not ok]}"
    return visit


def findings_text(chromium: Chromium) -> str:
    return chromium.evaluate("document.getElementById('findings').innerText")


def check_culprits(chromium: Chromium, name: str) -> None:
    """Every expected culprit is named in the findings and highlighted in its plot."""
    t = truth(name)
    text = findings_text(chromium)
    for exp in t["expected"]:
        assert exp["rule"] in text, f"{name}: no {exp['rule']} finding in the report"
        for pod in (exp.get("pods") or [])[:1]:
            assert pod.split("/", 1)[1] in text, f"{name}: culprit pod {pod} not in the findings"
        ranks = exp.get("ranks") or []
        if ranks and exp["rule"] != "idle-gpu":
            check_rank_highlight(chromium, name, t["job"], ranks)
        if exp["rule"] == "idle-gpu":
            check_idle_nodes(chromium, exp.get("nodes") or [])


def check_rank_highlight(chromium: Chromium, name: str, job: str, ranks: list[int]) -> None:
    plot_id = anchor("job", job) + "-gpu"
    found = chromium.evaluate(
        f"(() => {{ const gd = document.getElementById({json.dumps(plot_id)});"
        " if (!gd || !gd.layout) return null;"
        " const shapes = (gd.layout.shapes || []).filter(s => s.name === 'culprit').map(s => (s.y0 + s.y1) / 2);"
        " const drawn = Array.from(gd.querySelectorAll('.annotation-text')).map(e => e.textContent);"
        " return {shapes, drawn}; })()"
    )
    assert found is not None, f"{name}: no GPU heatmap #{plot_id} for job {job}"
    assert any(r in found["shapes"] for r in ranks), f"{name}: culprit ranks {ranks} not outlined (outlines at {found['shapes']})"
    assert any(f"rank {r} culprit" in d for r in ranks for d in found["drawn"]), f"{name}: no drawn culprit label in {found['drawn']}"


def check_idle_nodes(chromium: Chromium, nodes: list[str]) -> None:
    rows = chromium.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('table.fleet tbody tr'))"
        ".map(tr => [tr.cells[0].innerText.split('\\n')[0].trim(), tr.className]))"
    )
    for node in nodes:
        assert rows.get(node, "").startswith("idle-"), f"idle node {node} is not marked idle in the fleet ({rows.get(node)!r})"
    order = list(rows)
    assert order[: len(nodes)] and all(rows[n].startswith("idle-") for n in order[: len(nodes)]), "idle nodes come first"


@pytest.mark.parametrize("name", DEFAULT)
def test_sample_report_in_browser(chromium, report_of, name):
    open_clean(chromium, report_of(name))
    check_culprits(chromium, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", OTHERS)
def test_other_sample_reports_in_browser(chromium, report_of, name):
    open_clean(chromium, report_of(name))
    check_culprits(chromium, name)


def test_timeline_shows_the_cascade_left_to_right(chromium, report_of):
    open_clean(chromium, report_of("oom-crashloop"))
    t = truth("oom-crashloop")
    culprit = t["expected"][0]["ranks"][0]
    lanes = chromium.evaluate(
        "(() => { const gd = document.getElementById('timeline-plot');"
        " const oom = gd.data.find(tr => tr.name === 'OOM'); const nccl = gd.data.find(tr => tr.name === 'NCCL / watchdog');"
        " const labels = gd.layout.yaxis.ticktext;"
        " return {oomX: oom ? Array.from(oom.x) : [], oomY: oom ? Array.from(oom.y) : [], ncclX: nccl ? Array.from(nccl.x) : [],"
        " labels, tickvals: gd.layout.yaxis.tickvals,"
        " shaded: (gd.layout.shapes || []).filter(s => (s.name || '').startsWith('culprit')).map(s => s.name)}; })()"
    )
    assert lanes["oomX"] and lanes["ncclX"], "OOM and NCCL watchdog events are on the timeline"
    assert min(lanes["oomX"]) < min(lanes["ncclX"]), "the OOM comes before the watchdog timeouts it causes"
    first_oom_lane = lanes["labels"][lanes["tickvals"].index(lanes["oomY"][lanes["oomX"].index(min(lanes["oomX"]))])]
    assert first_oom_lane == f"rank {culprit}"
    assert f"culprit rank {culprit}" in lanes["shaded"]


def test_hostile_cluster_text_never_runs(chromium, tmp_path):
    if "oom-crashloop" not in sample_names():
        pytest.skip("sample-bundles/oom-crashloop is absent")
    bundle, hostile = hostile_bundle(tmp_path)
    for i, analysis in enumerate((None, hostile_analysis("team-a/" + hostile))):
        path = render_report(bundle, analysis, tmp_path / f"xss-{i}.html")
        open_clean(chromium, path)  # a blocked inline script would be a CSP console error
        state = chromium.evaluate(
            "({pwned: typeof window.__pwned, imgs: document.images.length,"
            " scripts: Array.from(document.scripts).filter(s => s.type !== 'application/json').length,"
            " findings: document.getElementById('findings').innerText,"
            " timeline: (document.getElementById('timeline-plot') || {textContent: ''}).textContent,"
            " page: document.body.innerText})"
        )
        assert state["pwned"] == "undefined", "an injected payload ran"
        assert state["imgs"] == 0 and state["scripts"] == 2
        assert PAYLOAD_NAME in state["findings"], "hostile names are shown literally in the findings"
        assert "qwen</script><script>window.__pwned=" in state["timeline"], "plot labels show hostile text literally"
        hover = chromium.evaluate(
            "(() => { const gd = document.getElementById('timeline-plot'); const i = gd.data.findIndex(t => t.name === 'OOM');"
            " Plotly.Fx.hover(gd, [{curveNumber: i, pointNumber: 0}]);"
            " return gd.querySelector('.hoverlayer').textContent; })()"
        )
        assert PAYLOAD_LOG in hover, f"a hostile log line must show as text when hovered: {hover!r}"
        assert chromium.evaluate("typeof window.__pwned") == "undefined"


def test_print_to_pdf_is_readable(chromium, report_of, tmp_path):
    if not shutil.which("pdftoppm") or not shutil.which("pdftotext"):
        pytest.skip("pdftoppm/pdftotext not found: install Debian's poppler-utils to check the printed report")
    open_clean(chromium, report_of("oom-crashloop"))
    pdf = chromium.print_pdf(tmp_path / "report.pdf")
    pages = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    n_pages = int(next(line.split()[-1] for line in pages.splitlines() if line.startswith("Pages:")))
    assert n_pages >= 3
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "k10s postmortem" in first and "What was captured" in first
    everything = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    pod = truth("oom-crashloop")["expected"][0]["pods"][0].split("/", 1)[1]
    assert "Findings" in everything and "Timeline" in everything and pod in everything
    subprocess.run(["pdftoppm", "-f", "2", "-l", "2", "-r", "60", "-png", str(pdf), str(tmp_path / "page")], check=True)
    png = next(tmp_path.glob("page*.png"))
    assert png.stat().st_size > 15_000, "page 2 of the PDF is (nearly) blank"
