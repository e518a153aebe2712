"""The fleet HTML report: one self-contained file, same conventions as the postmortem report.

Jinja with autoescape and StrictUndefined; plotly.js embedded once; figures as
script-safe JSON drawn by the report's own loader; a Content-Security-Policy that allows no
request and only the page's nonce'd scripts. Every incident a fleet finding names links to
its bundle's postmortem report, written beside the page into ``<OUT>.bundles/<id>.html``
(``bundle_reports=False`` leaves them out and shows the command that makes one).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from k10s_forensics import __version__
from k10s_forensics.errors import K10sError, ReportError
from k10s_forensics.fleet.render import display_columns, display_value

MAX_BUNDLE_REPORTS = 200
MAX_ROWS = 500


@dataclass
class BundleLink:
    bundle_id: str
    label: str
    href: str | None
    note: str


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    from k10s_forensics.reports.common import Absent

    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader("k10s_forensics.fleet", "templates"),
                                    jinja2.PackageLoader("k10s_forensics.reports", "templates")]),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.tests["absent"] = lambda value: isinstance(value, Absent)
    return env


def _bundle_reports(result: dict[str, Any], folder: Path, enabled: bool) -> dict[str, BundleLink]:
    links: dict[str, BundleLink] = {}
    written = 0
    for bid, info in result.get("bundles", {}).items():
        label = f"{info.get('cluster')} {info.get('window_start') or ''}".strip()
        source = info.get("source_path") or ""
        href, note = None, f"k10s report {source} -o report.html"
        if enabled and written < MAX_BUNDLE_REPORTS and source and Path(source).exists():
            try:
                from k10s_forensics.reports import render_report

                folder.mkdir(parents=True, exist_ok=True)
                render_report(source, None, folder / f"{bid}.html")
                href, note = f"{folder.name}/{bid}.html", source
                written += 1
            except (K10sError, OSError) as exc:
                note = f"no report: {exc}"
        elif enabled and "://" in source:
            note = f"no report: not a local bundle ({source})"
        elif enabled and source and not Path(source).exists():
            note = f"no report: the bundle is no longer at {source}"
        links[bid] = BundleLink(bid, label, href, note)
    return links


def _plots(result: dict[str, Any]) -> list[Any]:
    from k10s_forensics.fleet.report_plots import cost_plot, rate_plot

    by_rule = {r["rule"]: r for r in result["results"] if "rows" in r}
    plots = []
    if by_rule.get("cost-by-cause", {}).get("rows"):
        plots.append(cost_plot(by_rule["cost-by-cause"]["rows"]))
    if by_rule.get("model-driver-rate", {}).get("rows"):
        plots.append(rate_plot(by_rule["model-driver-rate"]["rows"]))
    return plots


def render_fleet_html(result: dict[str, Any], links: dict[str, BundleLink]) -> str:
    from k10s_forensics.reports import _static, content_nonce, generated_at, plotly_js

    sections = []
    for r in result["results"]:
        cols = display_columns(r) if "rows" in r else []
        rows = [{"cells": [display_value(row, c) for c in cols if c != "bundles"],
                 "bundles": sorted((links[b] for b in str(row.get("bundle_ids") or "").split(",") if b in links), key=lambda x: x.label)}
                for row in r.get("rows", [])[:MAX_ROWS]]
        sections.append({**r, "anchor": f"rule-{r['rule']}", "display_columns": [c for c in cols if c != "bundles"],
                         "has_bundles": "bundles" in cols, "table": rows, "truncated": max(0, len(r.get("rows", [])) - MAX_ROWS)})
    placeholder = "k10s-nonce-" + secrets.token_hex(16)  # the nonce is derived from the page (reports.content_nonce)
    return content_nonce(_environment().get_template("fleet_report.html.j2").render(
        nonce=placeholder, version=__version__, fleet=result["fleet"], sections=sections, plots=_plots(result),
        generated_at=generated_at().strftime("%Y-%m-%d %H:%M:%SZ"),
        css=_static("report.css"), loader_js=_static("report.js"), plotlyjs=plotly_js()), placeholder)


def write_fleet_report(result: dict[str, Any], out_path: str | os.PathLike[str], *, bundle_reports: bool = False) -> int:
    """Write the fleet report to ``out_path``; returns how many bundle reports were written."""
    from k10s_forensics.reports import write_page

    out = Path(out_path)
    if not out.parent.is_dir():
        raise ReportError(f"{out}: folder {out.parent} does not exist")
    links = _bundle_reports(result, out.with_name(out.name + ".bundles"), bundle_reports)
    write_page(render_fleet_html(result, links), out)
    return sum(1 for link in links.values() if link.href)


__all__ = ["write_fleet_report", "render_fleet_html"]
