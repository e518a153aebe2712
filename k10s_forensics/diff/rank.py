"""Group the changed items and rank them by suspicion.

Tiers: ``culprit`` (a change on a node, GPU or rank the bundle's findings name), ``local``
(a change on some of the nodes, GPUs or ranks compared, not all), ``everywhere`` (every
subject compared changed alike, or a job- or queue-wide setting). Within a tier: hardware
and drivers first, then the node, placement, the job, Kueue, behaviour; fewer subjects
first; then by name. Every key is total, so the order is the same on every run.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

TIERS = ("culprit", "local", "everywhere")
FACET_ORDER = {"gpu": 0, "node": 1, "placement": 2, "job": 3, "kueue": 4, "behaviour": 5}
MAX_SUBJECTS = 20
#: Attributes that are causes rather than consequences (CUDA follows the driver) come first.
#: A rank moved to another fabric block says more than "moved node".
LEADING = ("node label", "driver", "power limit", "image digest", "env ", "node", "quota nvidia.com/", "VBIOS", "product")


def _leading(attribute: str) -> int:
    return next((i for i, p in enumerate(LEADING) if attribute.startswith(p)), len(LEADING))


def _direction(row: dict) -> str:
    size = row.get("size")
    return "" if size is None else ("up" if size > 0 else "down")


def _group_key(row: dict) -> tuple:
    if row["facet"] == "behaviour":
        return (row["facet"], row["scope"], row["attribute"], "", _direction(row))
    return (row["facet"], row["scope"], row["attribute"], row["baseline"], row["current"])


def _touches(rows: list[dict], culprits: dict[str, set]) -> bool:
    return any(r.get("node") in culprits["nodes"] or r.get("gpu") in culprits["gpus"]
               or (r.get("rank") is not None and r["rank"] in culprits["ranks"]) for r in rows)


def _tier(rows: list[dict], compared: int, culprits: dict[str, set]) -> str:
    if rows[0]["scope"] in ("job", "queue", "all") or len(rows) >= compared > 1:
        return "everywhere"
    return "culprit" if _touches(rows, culprits) else "local"


def _round(value: Any) -> Any:
    return None if value is None else round(float(value), 4)


def _group(key: tuple, rows: list[dict], compared: int, culprits: dict[str, set]) -> dict[str, Any]:
    rows = sorted(rows, key=lambda r: (-abs(r.get("size") or 0.0), str(r["subject"])))
    facet, scope, attribute = key[0], key[1], key[2]
    behaviour = facet == "behaviour"
    sizes = [r["size"] for r in rows if r.get("size") is not None]
    group = {
        "tier": _tier(rows, compared, culprits), "facet": facet, "scope": scope, "attribute": attribute,
        "baseline": rows[0]["baseline"], "current": rows[0]["current"] if not behaviour or len(rows) == 1 else None,
        "count": len(rows), "of": compared,
        "subjects": [r["subject"] for r in rows[:MAX_SUBJECTS]],
        "size": _round(max(sizes, key=abs)) if sizes else None,
    }
    if behaviour:
        group["items"] = [{"subject": r["subject"], "current": r["current"], "size": _round(r.get("size")),
                           "spread_x": _round(r.get("spread_x"))} for r in rows[:MAX_SUBJECTS]]
    nodes = sorted({r["node"] for r in rows if r.get("node")})
    group["nodes"] = nodes[:MAX_SUBJECTS]
    return group


def _said_by_median(g: dict[str, Any], medians: set[str]) -> bool:
    """Every GPU, rank or node moved alike: the median's line says it once."""
    return g["facet"] == "behaviour" and g["scope"] != "all" and g["attribute"] in medians and g["count"] >= g["of"]


def rank_changes(rows: list[dict], culprits: dict[str, set]) -> list[dict[str, Any]]:
    """The changed rows grouped (same facet, attribute and change) and ranked, best first."""
    compared: dict[tuple, set] = defaultdict(set)
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["comparable"]:
            compared[(r["facet"], r["scope"], r["attribute"])].add(r["subject"])
        if r["changed"]:
            groups[_group_key(r)].append(r)
    out = [_group(k, g, len(compared[k[:3]]), culprits) for k, g in groups.items()]
    medians = {g["attribute"][: -len(" (median)")] for g in out if g["facet"] == "behaviour" and g["scope"] == "all"}
    out = [g for g in out if not _said_by_median(g, medians)]
    out.sort(key=lambda g: (TIERS.index(g["tier"]), FACET_ORDER.get(g["facet"], 9), g["attribute"] == "present",
                            _leading(g["attribute"]), g["count"], g["attribute"], str(g["baseline"]), str(g["current"]), g["subjects"]))
    for i, g in enumerate(out, 1):
        g["rank"] = i
    return out


def unchanged_counts(rows: list[dict]) -> dict[str, dict[str, int]]:
    """Per facet: items compared, unchanged, changed and not comparable (unknown on a side)."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        c = out.setdefault(r["facet"], {"compared": 0, "unchanged": 0, "changed": 0, "not_comparable": 0})
        if not r["comparable"]:
            c["not_comparable"] += 1
            continue
        c["compared"] += 1
        c["changed" if r["changed"] else "unchanged"] += 1
    return dict(sorted(out.items(), key=lambda kv: FACET_ORDER.get(kv[0], 9)))


__all__ = ["rank_changes", "unchanged_counts", "TIERS"]
