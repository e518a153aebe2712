"""One rule's result row turned into a finding of the ``analyze --format json`` shape (``build_finding``), and the
total order findings are sorted in (``sort_key``: most severe first; never the order rows came back in)."""

from __future__ import annotations

import json
from typing import Any

from k10s_forensics.analyze.confidence import culprit_confidence
from k10s_forensics.analyze.rules import SEVERITIES, Rule
from k10s_forensics.output import jsonable

#: Finding keys a rule's query may return as columns; everything else becomes evidence.
FINDING_KEYS = (
    "rule", "severity", "title", "summary", "job", "ranks", "pods", "nodes", "gpus", "cause",
    "started_at", "ended_at", "gpu_hours_lost", "evidence", "recommendation",
)
LIST_KEYS = ("ranks", "pods", "nodes", "gpus")
MAX_EVIDENCE = 50


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [v for v in value if v is not None]
    return [value]


def build_finding(rule: Rule, row: dict[str, Any]) -> dict[str, Any]:
    """One finding from one result row: known columns map to keys, the rest is evidence."""
    details = {k: v for k, v in row.items() if k not in FINDING_KEYS and v is not None}
    evidence = _as_list(row.get("evidence"))
    if evidence and isinstance(evidence[0], str):
        try:
            evidence = [json.loads(e) for e in evidence]
        except json.JSONDecodeError:
            pass
    finding: dict[str, Any] = {
        "rule": rule.id,
        "severity": row.get("severity") if row.get("severity") in SEVERITIES else rule.severity,
        "title": row.get("title") or rule.title,
        "summary": row.get("summary") or "",
        "job": row.get("job"),
        "ranks": sorted({int(r) for r in _as_list(row.get("ranks"))}),
        "pods": sorted({str(p) for p in _as_list(row.get("pods"))}),
        "nodes": sorted({str(n) for n in _as_list(row.get("nodes"))}),
        "gpus": sorted({str(g) for g in _as_list(row.get("gpus"))}),
        "cause": row.get("cause"), "confidence": None,  # set once narrate has named the culprits
        "started_at": row.get("started_at"),
        "ended_at": row.get("ended_at"),
        "gpu_hours_lost": None if row.get("gpu_hours_lost") is None else round(float(row["gpu_hours_lost"]), 3),
        "evidence": ([details] if details else []) + evidence,
        "recommendation": row.get("recommendation") or "",
    }
    if rule.narrate is not None:
        finding = rule.narrate(finding, row) or finding
    finding["evidence"] = finding["evidence"][:MAX_EVIDENCE]
    return jsonable({**finding, "confidence": culprit_confidence(rule.id, row, finding)})


def sort_key(order: dict[str, int]):
    """Most severe first, then rule order, cost and title; ties end in the finding's whole text, so
    the order never depends on the order rows came back in (docs/rules.md, "Determinism")."""
    def key(f: dict[str, Any]):
        return (SEVERITIES.index(f["severity"]), order.get(f["rule"], 99), -(f.get("gpu_hours_lost") or 0.0), f.get("title") or "",
                f.get("job") or "", f.get("started_at") or "", json.dumps(f, sort_keys=True, default=str))

    return key
