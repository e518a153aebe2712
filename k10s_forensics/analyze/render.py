"""Render an analysis (the JSON-ready dict) as terminal text (rich), JSON or Markdown.

Narrative first, then culprits, cost and recommendation; evidence stays compact (a few
rows, a few columns). Cluster text is printed as text, never interpreted as markup.
"""

from __future__ import annotations

import io
import json
from typing import Any

from k10s_forensics.analyze.incident_text import headline, one_line
from k10s_forensics.analyze.incidents import incidents_of, members
from k10s_forensics.output import ABSENT, cell as _cell, jsonable

STYLE = {"critical": "bold red", "warning": "bold yellow", "info": "cyan"}
EVIDENCE_ROWS = 5
EVIDENCE_COLS = 8


def cell(value: Any) -> str:
    """Compact cell text: floats without exponents, the rest as k10s prints them."""
    if isinstance(value, float):
        if value != value:
            return ABSENT
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.3g}"
    return _cell(value)


def _groups(evidence: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive evidence rows with the same keys, first rows only."""
    groups: list[list[dict[str, Any]]] = []
    for row in evidence:
        if groups and list(groups[-1][0]) == list(row):
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups[:3]


def _kv(row: dict[str, Any], limit: int = 12) -> str:
    items = [f"{k}={cell(v)}" for k, v in row.items() if v is not None and v != []][:limit]
    return ", ".join(items)


def to_json(analysis: dict[str, Any]) -> str:
    """The ``--format json`` document (spec: bundle, findings, skipped)."""
    return json.dumps(jsonable(analysis), indent=2, ensure_ascii=False)


def _culprits(f: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key, label in (("ranks", "ranks"), ("pods", "pods"), ("nodes", "nodes"), ("gpus", "GPUs")):
        values = f.get(key) or []
        if key == "nodes" and not values and f.get("node_unknown"):  # a culprit on no node: why (analyze.node_unknown)
            rows.append((label, f"{ABSENT} ({f['node_unknown']})"))
        if values:
            shown = ", ".join(str(v) for v in values[:8]) + (f" (+{len(values) - 8} more)" if len(values) > 8 else "")
            rows.append((label, shown))
    return rows


def _evidence_columns(evidence: list[dict[str, Any]]) -> list[str]:
    cols: list[str] = []
    for row in evidence[:EVIDENCE_ROWS]:
        if not isinstance(row, dict):
            continue
        for k, v in row.items():
            if v is not None and k not in cols:
                cols.append(k)
    return cols[:EVIDENCE_COLS]


def _meta_line(f: dict[str, Any]) -> str:
    parts = []
    if f.get("job"):
        parts.append(f"job {f['job']}")
    if f.get("cause"):
        parts.append(f"cause {f['cause']}")
    if f.get("confidence"):
        parts.append(f"confidence {f['confidence']}")
    if f.get("started_at"):
        parts.append(f"{f['started_at']} → {f.get('ended_at') or ABSENT}")
    if f.get("gpu_hours_lost") is not None:
        parts.append(f"{f['gpu_hours_lost']:.2f} GPU-hours lost")
    return " · ".join(parts)


def _print_finding(console, i: int, f: dict[str, Any], note: str) -> None:
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    console.print()
    head = Text(f"{i}. ")
    head.append(f"[{f['severity'].upper()}]", style=STYLE.get(f["severity"], ""))
    head.append(f" {f['rule']}  ", style="dim")
    head.append(f["title"], style="bold")
    if note:
        head.append(f"  ({note})", style="dim")
    console.print(head)
    if f.get("summary"):
        console.print(Padding(Text(f["summary"]), (0, 0, 0, 3)))
    for label, shown in _culprits(f):
        console.print(Padding(Text(f"{label}: {shown}"), (0, 0, 0, 3)))
    meta = _meta_line(f)
    if meta:
        console.print(Padding(Text(meta, style="dim"), (0, 0, 0, 3)))
    if f.get("recommendation"):
        console.print(Padding(Text("→ " + f["recommendation"], style="green"), (0, 0, 0, 3)))
    evidence = [e for e in (f.get("evidence") or []) if isinstance(e, dict)]
    for group in _groups(evidence):
        if len(group) == 1:
            console.print(Padding(Text("evidence: " + _kv(group[0]), style="dim"), (0, 0, 0, 3)))
            continue
        cols = _evidence_columns(group)
        table = Table(show_header=True, header_style="dim", box=None, padding=(0, 1), pad_edge=False)
        for c in cols:
            table.add_column(c, overflow="ellipsis", max_width=40, no_wrap=True)
        for row in group[:EVIDENCE_ROWS]:
            table.add_row(*[Text(cell(row.get(c))) for c in cols])
        more = f" (first {EVIDENCE_ROWS} of {len(group)})" if len(group) > EVIDENCE_ROWS else ""
        console.print(Padding(Text("evidence" + more, style="dim"), (0, 0, 0, 3)))
        console.print(Padding(table, (0, 0, 0, 3)), style="dim")


def to_text(analysis: dict[str, Any], *, width: int = 110, color: bool | None = None) -> str:
    """Terminal rendering (colour when ``color`` or, if None, when rich detects a terminal)."""
    from rich.console import Console  # only the text format needs rich
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=bool(color), no_color=color is False, highlight=False, emoji=False)
    findings = analysis.get("findings") or []
    bundle = analysis.get("bundle") or {}
    window = bundle.get("window") or {}
    console.print(Text(f"k10s analyze {bundle.get('path', '')}  window {window.get('start') or ABSENT} → {window.get('end') or ABSENT}"
                       + ("" if bundle.get("complete", True) else "  (capture incomplete)"), style="bold"))
    for line in analysis.get("damage") or []:
        console.print(Text(f"DAMAGED EVIDENCE: {line}", style="bold red"))
    incidents = incidents_of(analysis)
    for line in headline(findings, incidents):
        console.print(Text(line))
    shown = 0
    for inc in incidents:
        console.print()
        head = Text(f"{'Preventive note' if inc.get('advice') else 'Incident'} {inc['id']} ")
        head.append(f"[{inc['severity'].upper()}]", style=STYLE.get(inc["severity"], ""))
        head.append(" " + one_line(inc), style="bold")
        console.print(head)
        for i in members(inc):
            shown += 1
            _print_finding(console, shown, findings[i], "root cause" if i == inc["root"]["finding"] else f"symptom of {inc['id']}")
    skipped = analysis.get("skipped") or []
    if skipped:
        console.print()
        console.print(Text("Not analysed:", style="bold"))
        for s in skipped:
            console.print(Text(f"   {s['rule']}: {s['reason']}", style="red" if s.get("error") else "dim"))
    if not findings:
        console.print()
        console.print(Text("Nothing found by the rules that ran.", style="green"))
    return "\n".join(line.rstrip() for line in buf.getvalue().rstrip().splitlines()) + "\n"


def _md(text: Any) -> str:
    """Markdown-safe inline text (pipes and newlines escaped)."""
    s = ABSENT if text is None else str(text)
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def to_markdown(analysis: dict[str, Any]) -> str:
    """A postmortem-ready Markdown section."""
    bundle = analysis.get("bundle") or {}
    window = bundle.get("window") or {}
    lines = ["# k10s analysis", "", f"Bundle `{bundle.get('path', '')}`, window {window.get('start') or ABSENT} → {window.get('end') or ABSENT}"
             + ("" if bundle.get("complete", True) else " (capture incomplete)") + ".", ""]
    lines += [f"**Damaged evidence:** {_md(line)}" for line in analysis.get("damage") or []]
    lines += [""] if analysis.get("damage") else []
    findings = analysis.get("findings") or []
    if not findings:
        lines += ["No findings from the rules that ran.", ""]
    incidents = incidents_of(analysis)
    lines += [f"**{_md(line)}**  " for line in headline(findings, incidents)] + [""]
    order = []
    for inc in incidents:
        root = inc["root"]["finding"]
        order += [(inc, j, "root cause" if j == root else f"symptom of {inc['id']}") for j in members(inc)]
    for i, (inc, j, note) in enumerate(order, 1):
        f = findings[j]
        if j == inc["root"]["finding"]:
            kind = "Preventive note" if inc.get("advice") else "Incident"
            lines += [f"## {kind} {inc['id']} [{inc['severity']}]", "", _md(one_line(inc)), ""]
        lines += [f"### {i}. [{f['severity']}] {_md(f['title'])} ({note})", ""]
        if f.get("summary"):
            lines += [_md(f["summary"]), ""]
        lines.append(f"- **Rule:** `{f['rule']}`" + (f" · **cause:** `{f['cause']}`" if f.get("cause") else "")
                     + (f" · **confidence:** {f['confidence']}" if f.get("confidence") else ""))
        if f.get("job"):
            lines.append(f"- **Job:** `{_md(f['job'])}`")
        for label, shown in _culprits(f):
            lines.append(f"- **Culprit {label}:** {_md(shown)}")
        if f.get("started_at"):
            lines.append(f"- **When:** {f['started_at']} → {f.get('ended_at') or ABSENT}")
        if f.get("gpu_hours_lost") is not None:
            lines.append(f"- **GPU-hours lost:** {f['gpu_hours_lost']:.2f}")
        if f.get("recommendation"):
            lines.append(f"- **Recommendation:** {_md(f['recommendation'])}")
        evidence = [e for e in (f.get("evidence") or []) if isinstance(e, dict)]
        for group in _groups(evidence):
            if len(group) == 1:
                lines.append(f"- **Evidence:** {_md(_kv(group[0]))}")
                continue
            cols = _evidence_columns(group)
            lines += ["", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
            for row in group[:EVIDENCE_ROWS]:
                lines.append("| " + " | ".join(_md(cell(row.get(c))) for c in cols) + " |")
            if len(group) > EVIDENCE_ROWS:
                lines.append(f"\n({len(group) - EVIDENCE_ROWS} more evidence rows in `--format json`)")
        lines.append("")
    skipped = analysis.get("skipped") or []
    if skipped:
        lines += ["## Not analysed", ""] + [f"- `{s['rule']}`: {_md(s['reason'])}" for s in skipped] + [""]
    return "\n".join(lines)


__all__ = ["to_text", "to_json", "to_markdown"]
