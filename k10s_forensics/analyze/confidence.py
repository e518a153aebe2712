"""A finding's confidence in the culprit it names (docs/bundle-format.md, ``confidence``).

The rules that decide a culprit from the logs grade it in their own columns (queries/rank_failure.sql,
nccl_hang.sql, oom_cascade.sql: ``confidence``, ``medium_why``); this lifts that grade to a key of the finding
and of its incident, so that a reader of the JSON need not know which evidence column of which rule holds it.
"""

from __future__ import annotations

from typing import Any

#: A finding's ``confidence`` in what it names, strongest first.
CONFIDENCES = ("high", "medium", "low")


def culprit_confidence(rule_id: str, row: dict[str, Any], finding: dict[str, Any]) -> str | None:
    """How sure the finding is that what it names is the culprit: the grade its rule gives (rank-failure and
    nccl-hang always, oom-cascade where the paste holds one rank's lines only; its other OOMs are the log's own
    word, high); None when it names no culprit or its rule names what it measured without a grade."""
    if not (finding.get("ranks") or finding.get("pods") or finding.get("nodes") or finding.get("gpus")):
        return None
    grade = row.get("confidence")
    if grade in CONFIDENCES:
        return grade
    return "high" if rule_id == "oom-cascade" and grade is None else None

