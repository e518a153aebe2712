"""The static index page of the watcher's incidents (``<out>/index.html``, also ``GET /``)
and the text of ``k10s watch list``: what was captured, why, and what analyze found.

The page uses the report's stylesheet (``reports/static/report.css``) and no script: every
value from the cluster or a webhook is HTML-escaped.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from k10s_forensics.watch import store


def _css() -> str:
    try:
        return resources.files("k10s_forensics.reports").joinpath("static", "report.css").read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError):
        return ""


def _why(row: dict[str, Any]) -> str:
    triggers = row.get("triggers") or []
    if not triggers:
        return ""
    first = triggers[0]
    more = f" (+{len(triggers) - 1} joined)" if len(triggers) > 1 else ""
    return f"{first.get('reason', '')}: {first.get('detail', '')}{more}"


def render_html(rows: list[dict[str, Any]]) -> str:
    e = html.escape
    body = []
    for row in rows:
        link = f'<a href="{e(row["report"])}">report</a>' if row.get("report") else ""
        body.append(
            f"<tr><td class=\"mono\">{e(row['id'])}</td><td>{e(row.get('job', ''))}</td><td>{e(str(row.get('state', '')))}</td>"
            f"<td>{e(_why(row))}</td><td>{e(row.get('y', ''))}</td><td>{link}</td>"
            f"<td class=\"num\">{row.get('bytes', 0) / 1e6:.1f} MB</td></tr>")
    table = "\n".join(body) or '<tr><td colspan="7" class="sub">no incident captured yet</td></tr>'
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>k10s watch: incidents</title><style>{_css()}</style></head><body><main>"
        "<h1>k10s watch: incidents</h1><p class=\"sub\">newest first; one folder per incident</p>"
        "<table><thead><tr><th>incident</th><th>job</th><th>state</th><th>why (trigger)</th><th>what analyze found</th>"
        f"<th></th><th class=\"num\">size</th></tr></thead><tbody>\n{table}\n</tbody></table></main></body></html>\n"
    )


def write_index(out: Path) -> Path:
    path = out / "index.html"
    tmp = out / "index.html.tmp"
    tmp.write_text(render_html(store.listing(out)), encoding="utf-8")
    tmp.replace(path)
    return path


def render_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no incident captured yet\n"
    lines = []
    for row in rows:
        lines.append(f"{row['id']}  {row.get('job', '')}  {row.get('state', '')}")
        lines.append(f"  why:   {_why(row)}")
        lines.append(f"  found: {row.get('y') or '-'}")
        if row.get("report"):
            lines.append(f"  report: {row['report']}")
    return "\n".join(lines) + "\n"


def render_json(rows: list[dict[str, Any]]) -> str:
    return json.dumps({"incidents": rows}, indent=2, sort_keys=True) + "\n"


__all__ = ["render_html", "render_json", "render_text", "write_index"]
