"""Shared helpers of the fleet tests: what a fleet analysis found, as comparable keys."""

from __future__ import annotations

from typing import Any

FINDING_RULES = ("recurring-gpu", "moved-gpu", "recurring-node", "xid-recurrence", "driver-hangs")


def found(result: dict[str, Any]) -> dict[str, set]:
    """Per finding rule, the set of keys it reported (same shape as the simulator's truth)."""
    out: dict[str, set] = {rule: set() for rule in FINDING_RULES}
    for r in result["results"]:
        assert "skipped" not in r or r["rule"] not in FINDING_RULES or "no rows" in r["skipped"], r
        for row in r.get("rows", []):
            if r["rule"] in ("recurring-gpu", "moved-gpu"):
                out[r["rule"]].add(row["gpu_key"])
            elif r["rule"] == "recurring-node":
                out[r["rule"]].add(row["node_key"])
            elif r["rule"] == "xid-recurrence":
                out[r["rule"]].add((row["scope"], row["hw_key"], int(row["xid"])))
            elif r["rule"] == "driver-hangs":
                out[r["rule"]].add(row["driver_version"])
    return out


def expected(truth: dict[str, Any]) -> dict[str, set]:
    return {rule: {tuple(v) if isinstance(v, list) else v for v in truth.get(rule, [])} for rule in FINDING_RULES}


def rows_by_rule(result: dict[str, Any]) -> dict[str, Any]:
    """Rule -> its rows with floats rounded (engine comparison), or its skip reason."""
    def norm(v):
        return round(v, 6) if isinstance(v, float) else v

    return {r["rule"]: [{k: norm(v) for k, v in row.items()} for row in r["rows"]] if "rows" in r else r["skipped"]
            for r in result["results"]}
