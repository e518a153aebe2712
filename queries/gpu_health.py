"""Narrative for gpu-health findings."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import ranks_text


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    detail = row.get("detail") or ""
    user = ""
    if finding["ranks"]:
        user = f" It was used by {ranks_text(finding['ranks']).lower()} of {finding.get('job') or 'a job'}" + (f" ({', '.join(finding['pods'])})." if finding["pods"] else ".")
    finding["summary"] = f"{detail}.{user}" if detail and not detail.endswith(".") else f"{detail}{user}"
    return finding
