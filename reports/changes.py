"""Section "What changed since the baseline": the ``k10s diff`` of the bundle against the
baseline given with ``k10s report BUNDLE --baseline BASELINE`` (docs/diff.md).

The diff is computed by the report command and handed in as ``analysis["baseline_diff"]``;
without a baseline the section says how to get one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .common import Absent

NO_BASELINE = "no baseline given: k10s report BUNDLE --baseline BASELINE (a bundle of a run that worked, or a fleet index)"


@dataclass(frozen=True)
class ChangeRow:
    rank: int = field(metadata={"help": "1 = most suspicious"})
    tier: str = field(metadata={"help": "culprit, local or everywhere"})
    facet: str = field(metadata={"help": "gpu, node, job, kueue, placement, behaviour"})
    attribute: str = field(metadata={"help": "what changed"})
    baseline: str = field(metadata={"help": "value(s) in the baseline (behaviour: median, p5-p95, count)"})
    current: str = field(metadata={"help": "value(s) in this bundle"})
    where: str = field(metadata={"help": "the subjects that changed: GPUs, nodes, ranks, job, queue"})


@dataclass(frozen=True)
class ChangesContext:
    absent: Absent | None = field(metadata={"help": "why there is no diff (no --baseline)"})
    baseline: str = field(metadata={"help": "the baseline as given"})
    runs: int = field(metadata={"help": "bundles in the baseline"})
    culprits: str = field(metadata={"help": "the findings' culprits the changes are ranked by"})
    unchanged: str = field(metadata={"help": "compared items unchanged, per facet"})
    rows: list[ChangeRow] = field(metadata={"help": "the changes, most suspicious first"})


def build(con, bundle, analysis: dict[str, Any] | None) -> ChangesContext:
    result = (analysis or {}).get("baseline_diff")
    if not result:
        return ChangesContext(Absent(NO_BASELINE), "", 0, "", "", [])
    rows = []
    for g in result["changes"]:
        now = g["current"] if g["current"] is not None else "; ".join(f"{i['subject']}: {i['current']}" for i in g.get("items", [])[:3])
        rows.append(ChangeRow(g["rank"], g["tier"], g["facet"], g["attribute"], str(g["baseline"]), str(now), g["where"]))
    return ChangesContext(None, result["baseline"]["given"], result["baseline"]["runs"], _culprits(result["culprits"]),
                          _unchanged(result["unchanged"]), rows)


def _culprits(c: dict[str, Any]) -> str:
    if not c["findings"]:
        return "No critical or warning finding: no culprit to rank by"
    named = "; ".join(f"{k} {', '.join(str(v) for v in c[k][:8])}" for k in ("ranks", "nodes", "gpus") if c[k])
    return "Ranked by the culprits of " + ", ".join(sorted({f["rule"] for f in c["findings"]})) + (f": {named}" if named else "")


def _unchanged(counts: dict[str, dict[str, int]]) -> str:
    total = sum(c["unchanged"] for c in counts.values())
    return f"{total} compared items unchanged (" + ", ".join(f"{f} {c['unchanged']}" for f, c in counts.items()) + ")"
