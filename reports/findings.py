"""Findings: most severe first, each with narrative, recommendation, evidence, cost and a
link to the plot that shows it.

The findings come from ``k10s analyze`` (the spec's JSON shape). Cost is the finding's own
``cost_usd`` when the rule computes one, else GPU-hours lost × the list price of the GPU
model (k10s_forensics/data/gpu_prices.json).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb

from k10s_forensics.analyze.incident_text import one_line
from k10s_forensics.analyze.incidents import incidents_of, members as incident_members
from k10s_forensics.store.bundle import Bundle

from .common import Absent, anchor, cell_text, fmt_num, fmt_ts, query_inline

SEVERITIES = ("critical", "warning", "info")
EVIDENCE_ROWS = 10
EVIDENCE_COLS = 9
EVIDENCE_TABLES = 3
CULPRIT_SHOWN = 12

#: Where each rule's picture is: (target kind, label). ``job-gpu``/``job-net`` are a job's plots.
RULE_PLOTS: dict[str, tuple[tuple[str, str], ...]] = {
    "straggler": (("job-gpu", "per-rank GPU heatmap"), ("timeline", "timeline")),
    "network": (("job-net", "per-rank network"), ("job-gpu", "per-rank GPU heatmap")),
    "oom-cascade": (("timeline", "timeline"), ("job-gpu", "per-rank GPU memory")),
    "nccl-hang": (("timeline", "timeline"), ("job-gpu", "per-rank GPU heatmap")),
    "crashloop": (("timeline", "timeline"),),
    "rank-failure": (("timeline", "timeline"), ("job-gpu", "per-rank GPU heatmap")),
    "idle-gpu": (("fleet", "fleet"), ("fleet-plot", "fleet activity")),
    "pending": (("queues", "queues"), ("timeline", "timeline")),
    "gpu-health": (("fleet", "fleet"), ("timeline", "timeline")),
    "disruption": (("timeline", "timeline"), ("job-gpu", "per-rank GPU heatmap")),
}

_MODEL_SQL = """
SELECT coalesce(
    (SELECT mode(product ORDER BY product) FROM gpus WHERE list_contains($gpus, gpu_uuid)),
    (SELECT mode(gpu_product ORDER BY gpu_product) FROM nodes WHERE list_contains($nodes, node)),
    (SELECT mode(n.gpu_product ORDER BY n.gpu_product) FROM ranks r JOIN nodes n ON n.node = r.node WHERE r.namespace || '/' || r.job = $job),
    (SELECT mode(product ORDER BY product) FROM gpus)
) AS model
"""


@dataclass
class FindingView:
    """One finding as the report shows it."""

    anchor: str = field(metadata={"help": "HTML id of the finding"})
    rule: str = field(metadata={"help": "rule id"})
    role: str = field(metadata={"help": "'root cause' or 'symptom' of its incident"})
    severity: str = field(metadata={"help": "critical, warning or info"})
    title: str = field(metadata={"help": "one-line title"})
    summary: str = field(metadata={"help": "the narrative"})
    recommendation: str | Absent = field(metadata={"help": "what to do"})
    job: str | Absent = field(metadata={"help": "namespace/job"})
    cause: str | Absent = field(metadata={"help": "kebab-case cause"})
    confidence: str | Absent = field(metadata={"help": "how sure the finding is of the culprit it names: high, medium or low"})
    culprits: list[tuple[str, str]] = field(metadata={"help": "(label, values) of culprit ranks, pods, nodes, GPUs"})
    started_at: str = field(metadata={"help": "when it started (UTC)"})
    ended_at: str = field(metadata={"help": "when it ended (UTC)"})
    gpu_hours_lost: str | Absent = field(metadata={"help": "GPU-hours lost"})
    cost: str | Absent = field(metadata={"help": "cost of the GPU-hours lost"})
    evidence: list[tuple[list[str], list[list[str]], int]] = field(metadata={"help": "evidence tables: (columns, cells, rows not shown)"})
    links: list[tuple[str, str]] = field(metadata={"help": "(href, label) of the plots that show it"})


@dataclass
class IncidentView:
    """One incident: its root finding first, then its symptoms, and its one cost."""

    anchor: str = field(metadata={"help": "HTML id of the incident"})
    id: str = field(metadata={"help": "incident id of the analysis (inc-1, ...)"})
    severity: str = field(metadata={"help": "most severe of its findings"})
    line: str = field(metadata={"help": "the incident in one line: job, root rule and cause, culprits, cost, symptoms"})
    gpu_hours_lost: str | Absent = field(metadata={"help": "GPU-hours lost by the incident, counted once"})
    cost: str | Absent = field(metadata={"help": "cost of those GPU-hours"})
    findings: list[FindingView] = field(metadata={"help": "root cause first, then its symptoms"})


@dataclass
class FindingsContext:
    """The findings section."""

    findings: list[FindingView] = field(metadata={"help": "most severe first"})
    skipped: list[tuple[str, str]] = field(metadata={"help": "(rule, reason) of rules that could not run"})
    absent: Absent | None = field(metadata={"help": "why there is no analysis, when there is none"})
    total_gpu_hours: str = field(metadata={"help": "GPU-hours lost over all incidents, each counted once"})
    total_cost: str = field(metadata={"help": "cost over all incidents, each counted once"})
    incidents: list[IncidentView] = field(default_factory=list, metadata={"help": "the findings grouped by incident, most severe first"})


def culprit_ranks(analysis: dict[str, Any] | None) -> dict[str, dict[int, list[str]]]:
    """job key -> culprit rank -> rules naming it (critical and warning findings)."""
    out: dict[str, dict[int, list[str]]] = {}
    for f in (analysis or {}).get("findings") or []:
        if f.get("severity") not in ("critical", "warning") or not f.get("job"):
            continue
        for r in f.get("ranks") or []:
            try:
                out.setdefault(str(f["job"]), {}).setdefault(int(r), []).append(str(f.get("rule")))
            except (TypeError, ValueError):
                continue
    return out


def _prices():
    try:
        from k10s_forensics.analyze.prices import PriceTable
    except ImportError:
        return None
    try:
        return PriceTable.default()
    except Exception:  # a damaged price file must not stop the report
        return None


def _cost(con: duckdb.DuckDBPyConnection, f: dict[str, Any], prices) -> tuple[float | None, str | Absent]:
    hours = f.get("gpu_hours_lost")
    details = (f.get("evidence") or [{}])[0] if f.get("evidence") else {}
    own = f.get("cost_usd", details.get("cost_usd") if isinstance(details, dict) else None)
    if own is not None:
        return float(own), f"${float(own):,.2f}"
    if hours is None:
        return None, Absent("the rule does not estimate GPU-hours for this finding")
    if prices is None:
        return None, Absent("no GPU price table available")
    rows = query_inline(con, _MODEL_SQL, "reports/findings.py (model)", gpus=list(f.get("gpus") or []), nodes=list(f.get("nodes") or []), job=f.get("job") or "")
    model = rows[0]["model"] if rows else None
    usd = prices.price(model)
    cost = float(hours) * usd
    return cost, f"${cost:,.2f} (at ${usd:.2f}/GPU-h, {model or 'unknown model'})"


def _evidence(evidence: list[Any]) -> list[tuple[list[str], list[list[str]], int]]:
    """Evidence rows as tables, one per shape of row (the rule's details, then its rows)."""
    rows = [e if isinstance(e, dict) else {"value": e} for e in evidence]
    groups: list[tuple[tuple[str, ...], list[dict[str, Any]]]] = []
    for row in rows:
        keys = tuple(k for k, v in row.items() if v is not None)
        if groups and (keys == groups[-1][0] or set(keys) <= set(groups[-1][0])):
            groups[-1][1].append(row)
        else:
            groups.append((keys, [row]))
    tables = []
    for keys, members in groups[:EVIDENCE_TABLES]:
        cols = [str(k) for k in keys][:EVIDENCE_COLS]
        cells = [[cell_text(m.get(c)) for c in cols] for m in members[:EVIDENCE_ROWS]]
        tables.append((cols, cells, max(0, len(members) - EVIDENCE_ROWS)))
    return tables


def _culprits(f: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for key, label in (("ranks", "rank"), ("pods", "pod"), ("nodes", "node"), ("gpus", "GPU")):
        values = [str(v) for v in f.get(key) or []]
        if key == "nodes" and not values and f.get("node_unknown"):  # a culprit on no node: why (analyze.node_unknown)
            out.append((label, f"--- ({f['node_unknown']})"))
        if values:
            shown = ", ".join(values[:CULPRIT_SHOWN]) + (f" (+{len(values) - CULPRIT_SHOWN} more)" if len(values) > CULPRIT_SHOWN else "")
            out.append((label + ("s" if len(values) > 1 else ""), shown))
    return out


def _links(f: dict[str, Any]) -> list[tuple[str, str]]:
    links = []
    for kind, label in RULE_PLOTS.get(str(f.get("rule")), (("timeline", "timeline"),)):
        if kind.startswith("job-"):
            if not f.get("job"):
                continue
            links.append(("#" + anchor("job", str(f["job"])) + kind[3:], label))
        else:
            links.append(("#" + kind, label))
    return links


def view(con: duckdb.DuckDBPyConnection, f: dict[str, Any], index: int, prices, role: str = "root cause") -> tuple[FindingView, float, float]:
    """One finding's view, its cost and GPU-hours."""
    cost_value, cost_text = _cost(con, f, prices)
    hours = f.get("gpu_hours_lost")
    culprits = _culprits(f)
    v = FindingView(
        anchor=f"finding-{index + 1}",
        rule=str(f.get("rule") or "?"),
        role=role,
        severity=f.get("severity") if f.get("severity") in SEVERITIES else "info",
        title=str(f.get("title") or f.get("rule") or "finding"),
        summary=str(f.get("summary") or ""),
        recommendation=str(f["recommendation"]) if f.get("recommendation") else Absent("the rule gives no recommendation"),
        job=str(f["job"]) if f.get("job") else Absent("not tied to one job"),
        cause=str(f["cause"]) if f.get("cause") else Absent("cause not determined"),
        confidence=str(f["confidence"]) if f.get("confidence") else Absent(
            "the rule names what it measured, ungraded" if culprits else "no culprit named"),
        culprits=culprits,
        started_at=fmt_ts(f.get("started_at")),
        ended_at=fmt_ts(f.get("ended_at")),
        gpu_hours_lost=fmt_num(float(hours), 2) if hours is not None else Absent("not estimated by this rule"),
        cost=cost_text,
        evidence=_evidence(list(f.get("evidence") or [])),
        links=_links(f),
    )
    return v, cost_value or 0.0, float(hours or 0.0)


def build(con: duckdb.DuckDBPyConnection, bundle: Bundle, analysis: dict[str, Any] | None) -> FindingsContext:
    """The findings context (analysis ``None`` -> Absent with the reason)."""
    if analysis is None or "findings" not in analysis:
        reason = (analysis or {}).get("error") or "no analysis was run for this report"
        return FindingsContext([], [], Absent(str(reason)), "---", "---")
    prices = _prices()
    raw = [f if isinstance(f, dict) else {} for f in analysis.get("findings") or []]
    views: list[FindingView] = []
    incidents: list[IncidentView] = []
    total_cost, total_hours = 0.0, 0.0
    for inc in incidents_of({**analysis, "findings": raw}):
        shown = [view(con, raw[i], i, prices, "root cause" if i == inc["root"]["finding"] else "symptom") for i in incident_members(inc)]
        hours = inc.get("gpu_hours_lost")
        cost = inc.get("cost_usd")
        if cost is None and hours is not None:  # a saved analysis without prices: the costliest finding's price
            cost = next((c for v, c, h in shown if h == hours and c), None)
        total_hours += float(hours or 0.0)
        total_cost += float(cost or 0.0)
        views += [v for v, _, _ in shown]
        incidents.append(IncidentView(
            anchor=f"incident-{inc['id']}", id=str(inc["id"]), severity=inc["severity"] if inc.get("severity") in SEVERITIES else "info",
            line=one_line(inc),
            gpu_hours_lost=fmt_num(float(hours), 2) if hours is not None else Absent("no rule estimates GPU-hours for this incident"),
            cost=f"${float(cost):,.2f}" if cost is not None else Absent("no price for these GPU-hours"),
            findings=[v for v, _, _ in shown]))
    skipped = [(str(s.get("rule")), str(s.get("reason"))) for s in analysis.get("skipped") or [] if isinstance(s, dict)]
    return FindingsContext(views, skipped, None, fmt_num(total_hours, 2), f"${total_cost:,.2f}", incidents)


def resolve_links(ctx: FindingsContext, anchors: set[str]) -> None:
    """Drop links to plots the report does not contain (a job left out, no data)."""
    for v in ctx.findings:
        kept = [(href, label) for href, label in v.links if href[1:] in anchors]
        v.links = kept or ([("#timeline", "timeline")] if "timeline" in anchors else [])
