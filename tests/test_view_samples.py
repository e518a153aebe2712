"""Every view of ``k10s view`` on every sample bundle, and ``y`` on each bundle's culprit row.

This stands in for picture snapshots: the sample bundles are regenerated whenever the
simulator changes, so each view is checked against the bundle's truth file (the planted
culprit) instead of a frozen screen: it renders rows or says why it has none, its SVG
screenshot exports, the culprit's row is flagged, and ``y`` on it shows the planted rule's
finding with its fix. On the healthy bundle no rank is flagged.
"""

from __future__ import annotations

import json

import pytest

from k10s_forensics.view.keys import VIEWS
from k10s_forensics.view.screens.table import TableScreen

from conftest import SAMPLE_BUNDLES
from view_helpers import command, run_app, settle

BUNDLES = sorted(p.name for p in SAMPLE_BUNDLES.iterdir() if p.is_dir() and (SAMPLE_BUNDLES / f"{p.name}.truth.json").is_file())


def _truth(name: str) -> dict:
    return json.loads((SAMPLE_BUNDLES / f"{name}.truth.json").read_text())


def _culprit_row(app, expected: dict, job: str | None):
    """The row a user would pick for this planted incident, and the view it is on."""
    pods, ranks = set(expected.get("pods") or []), set(expected.get("ranks") or [])
    if not ranks and not pods and expected["rule"] != "pending":  # a job-level finding (no single culprit)
        return "jobs", lambda r: r.header and r.target.kind == "job" and r.target.job_key == job
    if ranks:
        def match(r):
            return not r.header and r.payload.get("rank") in ranks and (not pods or r.target.pod in pods)
        return "jobs", match
    if pods:
        return "queue", lambda r: r.key.startswith("pod:") and r.payload["pod"] in pods
    return "queue", lambda r: r.key.startswith("wl:") and r.payload["state"] == "pending"


@pytest.mark.parametrize("bundle", BUNDLES)
def test_views_and_y_on_the_culprit(bundle):
    truth = _truth(bundle)
    expected = truth["expected"]

    async def script(app, pilot):
        for name in VIEWS:
            await command(app, pilot, name)
            screen = app.screen
            assert isinstance(screen, TableScreen) and screen.loaded
            assert screen.rows or screen.absent, f"{bundle} :{name}: neither rows nor a reason"
            assert "could not load" not in (screen.absent or ""), screen.absent
            svg = app.export_screenshot()
            assert "<svg" in svg and screen.TITLE.split(" ")[0] in svg.replace("&#160;", " ")
        diagnosed = []
        for exp in expected:
            view, match = _culprit_row(app, exp, truth.get("job"))
            await command(app, pilot, view)
            rows = [r for r in app.screen.shown if match(r)]
            assert rows, f"{bundle}: no {view} row for the planted {exp['rule']}"
            if view == "jobs" and not rows[0].header:
                assert exp["rule"] in str(rows[0].cells[1]), f"{bundle}: culprit rank not flagged {exp['rule']}"
            assert app.screen.select_key(rows[0].key)
            await pilot.press("y")
            await settle(app, pilot)
            text = str(app.screen.query_one("#diagnosis-text").content)
            diagnosed.append(text)
            assert f"] {exp['rule']}:" in text, f"{bundle}: y does not show the {exp['rule']} finding:\n{text[:800]}"
            assert "Fix: " in text and "Fix: ---" not in text
            await pilot.press("escape")
        if not expected:
            await command(app, pilot, "jobs")
            flagged = [r for r in app.screen.rows if not r.header and str(r.cells[1]).strip()]
            assert not flagged, f"healthy bundle has flagged ranks: {[str(r.cells[1]) for r in flagged]}"
        return diagnosed

    run_app(SAMPLE_BUNDLES / bundle, script)
