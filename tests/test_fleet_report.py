"""The fleet HTML report: self-contained, escaped, CSP, incidents linked to bundle reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from k10s_forensics.fleet.analysis import analyze_fleet
from k10s_forensics.fleet.index import index_fleet
from k10s_forensics.fleet.report import write_fleet_report
from k10s_forensics.simulate.fleet import plan_fleet
from k10s_forensics.simulate.fleet_bundles import write_bundles
from k10s_forensics.simulate.fleet_rows import write_rows

HOSTILE = '<img src=x onerror=alert(1)></script><script>alert(2)</script>'


def _scripts(html: str) -> list[str]:
    return re.findall(r"<script\b[^>]*>", html)


def test_hostile_cluster_text_is_escaped_and_nothing_is_fetched(tmp_path):
    plan = plan_fleet(51, 200)
    for nodes in plan.nodes.values():  # every node name is hostile (they reach the findings tables)
        for i, node in enumerate(nodes):
            node.name = f"{HOSTILE}-{i}"
    write_rows(plan, tmp_path / "fleet")
    result = analyze_fleet(str(tmp_path / "fleet"))
    assert any(HOSTILE in str(row.get("nodes")) for r in result["results"] for row in r.get("rows", []))
    out = tmp_path / "fleet.html"
    write_fleet_report(result, out, bundle_reports=False)
    html = out.read_text(encoding="utf-8")
    assert HOSTILE not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'http-equiv="Content-Security-Policy"' in html and "default-src 'none'" in html and "connect-src 'none'" in html
    nonce = re.search(r"'nonce-([^']+)'", html).group(1)
    for tag in _scripts(html):
        assert f'nonce="{nonce}"' in tag or 'type="application/json"' in tag, tag
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", html, flags=re.S)  # the page outside plotly.js and data
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", markup)  # no remote resource or link
    assert html.count('data-plot="plot-') == 2  # cost and rate figures, embedded as JSON
    assert "k10s report simulated://" in html  # no bundle report: the command that makes one


def test_incidents_link_to_their_bundle_reports(tmp_path):
    plan = plan_fleet(52, 14)
    write_bundles(plan, tmp_path / "bundles")
    index_fleet([str(tmp_path / "bundles")], tmp_path / "fleet", jobs=2)
    result = analyze_fleet(str(tmp_path / "fleet"))
    named = {b for r in result["results"] for row in r.get("rows", []) for b in str(row.get("bundle_ids") or "").split(",") if b}
    assert named and set(result["bundles"]) == named
    out = tmp_path / "fleet.html"
    written = write_fleet_report(result, out, bundle_reports=True)
    html = out.read_text(encoding="utf-8")
    links = set(re.findall(r'<a href="(fleet\.html\.bundles/[0-9a-f]{64}\.html)"', html))
    assert written == len(named) == len(links)
    for link in links:
        page = (tmp_path / link).read_text(encoding="utf-8")
        assert "Content-Security-Policy" in page and "gpu-health" in page
    assert Path(tmp_path / "fleet.html.bundles").is_dir()


@pytest.mark.browser
def test_fleet_report_in_chromium_draws_plots_and_runs_no_hostile_text(tmp_path):
    from k10s_forensics.reports.browser import CHROMIUM, Chromium, available

    if not available():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium to run the browser tests")
    plan = plan_fleet(53, 150)
    plan.nodes["prod-east"][0].name = HOSTILE
    write_rows(plan, tmp_path / "fleet")
    out = tmp_path / "fleet.html"
    write_fleet_report(analyze_fleet(str(tmp_path / "fleet")), out)
    with Chromium() as chromium:
        visit = chromium.open_page(out)
        assert visit.console_errors == [] and visit.external_requests == []
        drawn = chromium.evaluate("Array.from(document.querySelectorAll('script[data-plot]'))"
                                  ".map(b => !!document.getElementById(b.dataset.plot).querySelector('svg.main-svg'))")
        assert drawn == [True, True]
        assert chromium.evaluate("window.__k10sAlert === undefined && document.querySelectorAll('img').length === 0")
        text = chromium.evaluate("document.getElementById('rule-recurring-gpu').innerText")
        assert "serial:" in text and "Pull the GPU" in text
