"""What ``d`` shows: the changes since the baseline that concern the selected node or job.

A node's changes are those on it (its GPUs, its labels, ranks placed on it); a job's are its
spec, environment, Kueue, placement and behaviour changes, plus cluster-wide ones. Pure
function of the ``k10s diff`` result (``ViewData.baseline_diff``), so it is tested without a
terminal.
"""

from __future__ import annotations

from typing import Any

from k10s_forensics.diff.render import change_line, counts_line

JOB_FACETS = ("job", "kueue", "placement", "behaviour")


def _concerns(g: dict[str, Any], kind: str, key: str) -> bool:
    if kind == "node":
        return key in g.get("nodes", []) or key in g.get("subjects", [])
    if g["scope"] in ("queue", "all"):
        return True
    return g["facet"] in JOB_FACETS and (g["scope"] != "job" or key in g["subjects"]) or g["tier"] == "everywhere"


def diff_lines(result: dict[str, Any] | None, kind: str, key: str) -> tuple[str, list[str]]:
    """Title and lines for ``kind`` (node or job) ``key``; a line saying why when there is nothing."""
    title = f"d · what changed since the baseline · {kind} {key}"
    if result is None:
        return title, ["no baseline given: k10s view BUNDLE --baseline BASELINE"]
    if kind not in ("node", "job"):
        return title, ["d works on a node or a job row"]
    mine = [g for g in result["changes"] if _concerns(g, kind, key)]
    head = [f"baseline {result['baseline']['given']} ({result['baseline']['runs']} run(s)); {counts_line(result)}", ""]
    if not mine:
        return title, head + [f"nothing changed on this {kind} beyond the baseline's own spread"]
    return title, head + [f"{g['rank']:>3}. [{g['tier']}] {change_line(g)}" for g in mine]


__all__ = ["diff_lines"]
