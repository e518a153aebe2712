"""Incidents in words: the count lines and the one line per incident that every output
shares (``k10s analyze`` text and markdown, the report header, ``y`` in ``k10s view``)."""

from __future__ import annotations

from typing import Any

from k10s_forensics.analyze.incidents import SEVERITIES, counted
from k10s_forensics.output import ABSENT


def totals(incidents: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """(GPU-hours, USD) over incidents: each incident once (advice left out); None when none was estimated."""
    incidents = counted(incidents)
    hours = [i["gpu_hours_lost"] for i in incidents if i.get("gpu_hours_lost") is not None]
    usd = [i["cost_usd"] for i in incidents if i.get("cost_usd") is not None]
    return (round(sum(hours), 3) if hours else None), (round(sum(usd), 2) if usd else None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def headline(findings: list[dict[str, Any]], incidents: list[dict[str, Any]]) -> list[str]:
    """The two count lines: incidents with their cost (each counted once), then findings."""
    def counts(items: list[dict[str, Any]]) -> str:
        return ", ".join(f"{sum(1 for x in items if x.get('severity') == s)} {s}" for s in SEVERITIES)

    notes = len(incidents) - len(counted(incidents))
    incidents = counted(incidents)
    hours, usd = totals(incidents)
    cost = ""
    if hours is not None:
        cost = f" · {hours:.2f} GPU-hours lost" + (f" (${usd:,.2f})" if usd is not None else "") + ", each incident counted once"
    advice = f" · {_plural(notes, 'preventive note')}" if notes else ""
    return [f"{_plural(len(incidents), 'incident')}: {counts(incidents)}{cost}{advice}",
            f"{_plural(len(findings), 'finding')}: {counts(findings)}"]


def one_line(inc: dict[str, Any]) -> str:
    """An incident in one line: job, root rule and cause, its title, culprits, cost, symptoms."""
    parts = [f"job {inc['job']}" if inc.get("job") else "no job",
             f"{inc['root']['rule']}" + (f" ({inc['cause']})" if inc.get("cause") else "") + f": {inc.get('title') or ''}"]
    who = [f"{label} {', '.join(str(v) for v in inc[key][:4])}{' ...' if len(inc[key]) > 4 else ''}"
           for key, label in (("ranks", "rank"), ("nodes", "node")) if inc.get(key)]
    if inc.get("ranks") and not inc.get("nodes") and inc.get("node_unknown"):
        who.append(f"node {ABSENT} ({inc['node_unknown']})")
    parts += who
    if who and inc.get("confidence") in ("medium", "low"):  # a culprit said short of certain says so
        parts.append(f"confidence {inc['confidence']}")
    if inc.get("gpu_hours_lost") is not None:
        parts.append(f"{inc['gpu_hours_lost']:.2f} GPU-hours lost" + (f" (${inc['cost_usd']:,.2f})" if inc.get("cost_usd") is not None else ""))
    if inc.get("symptoms"):
        parts.append("symptoms: " + ", ".join(str(s["rule"]) for s in inc["symptoms"]))
    return " · ".join(parts)


__all__ = ["headline", "one_line", "totals"]
