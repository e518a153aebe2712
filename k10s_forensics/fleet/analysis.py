"""``k10s fleet analyze``: run the fleet rules on one engine and build the result.

Result (``--format json``)::

    {"fleet": {"path", "engine", "bundles", "clusters", "findings", "incidents", "first_window", "last_window", "settings"},
     "bundles": {bundle_id: {"cluster", "window_start", "source_path"}}   (bundles named by a row),
     "results": [{"rule", "kind", "title", "severity", "description", "recommendation",
                  "columns", "rows": [...]} | {"rule", "skipped": reason}]}

Epoch-second columns (``*_epoch_s``) get an ISO twin (``*_at``) here, after the query,
so the SQL stays the same on every engine.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.store.bundle import iso
from k10s_forensics.errors import QueryError
from k10s_forensics.fleet.registry import SETTINGS, FleetRule, fleet_rules, view_statements
from k10s_forensics.fleet.store import FleetStore

OVERVIEW_SQL = """
SELECT count(*) AS bundles, count(DISTINCT cluster_name) AS clusters,
       min(window_start_epoch_s) AS first_window_epoch_s, max(window_start_epoch_s) AS last_window_epoch_s,
       sum(findings) AS findings, (SELECT count(*) FROM fleet_incidents) AS incidents
FROM fleet_bundles
"""
BUNDLES_SQL = "SELECT bundle_id, cluster_name, window_start_epoch_s, source_path, redaction_level FROM fleet_bundles"


def settings_with(overrides: dict[str, float | None] | None) -> dict[str, float]:
    values = {name: default for name, (default, _) in SETTINGS.items()}
    for name, value in (overrides or {}).items():
        if value is not None:
            if name not in values:
                raise QueryError(f"unknown setting {name!r}")
            values[name] = value
    return values


def at_text(epoch_s: Any) -> str | None:
    if epoch_s is None:
        return None
    return iso(dt.datetime.fromtimestamp(int(epoch_s), tz=dt.timezone.utc))


def _with_times(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        out[key] = value
        if key.endswith("_epoch_s"):
            out[key[: -len("_epoch_s")] + "_at"] = at_text(value)
    return out


def run_fleet_rules(engine, rules: list[FleetRule], values: dict[str, float], only: set[str] | None = None) -> list[dict[str, Any]]:
    """Views first, then each rule; a failing rule is reported as skipped, the rest go on."""
    for i, statement in enumerate(view_statements(values)):
        engine.execute(statement, f"fleet/rules/_views.sql (statement {i + 1})")
    counts = {t: engine.rows(f"SELECT count(*) AS n FROM {t}", t)[0]["n"]
              for t in sorted({t for r in rules for g in r.rule.requires for t in g})}
    results = []
    for rule in rules:
        if only and rule.id not in only:
            continue
        base = {"rule": rule.id, "kind": rule.kind, "title": rule.rule.title, "severity": rule.rule.severity}
        empty = [g for g in rule.rule.requires if not any(counts.get(t, 0) for t in g)]
        if empty:
            results.append({**base, "skipped": f"fleet table {' or '.join(empty[0])} has no rows"})
            continue
        try:
            rows = engine.rows(rule.sql_with(values), rule.rule.origin)
        except QueryError as exc:
            results.append({**base, "skipped": f"rule failed: {exc}", "error": True})
            continue
        results.append({**base, "description": rule.rule.description, "recommendation": rule.recommendation,
                        "columns": [c.name for c in rule.rule.columns], "rows": [_with_times(r) for r in rows]})
    return results


def analyze_fleet(
    path: str,
    *,
    engine: str = "duckdb",
    settings: dict[str, float | None] | None = None,
    only: set[str] | None = None,
    engine_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run every fleet rule over the fleet at ``path`` with ``engine``; the JSON-ready result."""
    from k10s_forensics.fleet.engines import open_engine

    if "://" not in str(path):
        FleetStore.open(path)  # a clear error for a folder that is not a fleet
    values = settings_with(settings)
    rules = fleet_rules()
    eng = open_engine(engine, str(path), **(engine_options or {}))
    try:
        overview = eng.rows(OVERVIEW_SQL, "fleet overview")[0]
        results = run_fleet_rules(eng, rules, values, only)
        named = {b for r in results for row in r.get("rows", []) for b in str(row.get("bundle_ids") or "").split(",") if b}
        engine_rows = eng.rows(BUNDLES_SQL, "fleet bundles") if named else []
    finally:
        eng.close()
    bundles = {r["bundle_id"]: {"cluster": r["cluster_name"], "window_start": at_text(r["window_start_epoch_s"]),
                                "source_path": r["source_path"], "redaction": r["redaction_level"]}
               for r in engine_rows if r["bundle_id"] in named}
    return {
        "fleet": {"path": str(path), "engine": engine, "bundles": int(overview["bundles"] or 0), "clusters": int(overview["clusters"] or 0),
                  "findings": int(overview["findings"] or 0), "incidents": int(overview["incidents"] or 0), "first_window": at_text(overview["first_window_epoch_s"]),
                  "last_window": at_text(overview["last_window_epoch_s"]), "settings": values},
        "bundles": dict(sorted(bundles.items())),
        "results": results,
    }


__all__ = ["analyze_fleet", "run_fleet_rules", "settings_with", "at_text"]
