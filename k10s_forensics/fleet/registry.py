"""Fleet rules: one ``.sql`` file each in ``fleet/rules/``, with the bundle rules' header.

The header is the one ``analyze.rules.parse_rule`` reads (id, title, severity, requires,
description, columns) plus three fleet keys:

    -- kind: finding | summary       a finding names hardware to act on; a summary is a table
    -- settings: min_incidents, period_s, min_z    numbers the engine substitutes for $name
    -- recommendation: what to do about a row

``FLEET_RULES`` is the registry (run and list order); a test fails when a ``.sql`` file is
left out of it. Queries are DuckDB SQL; the Spark engine runs them transpiled by SQLGlot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from k10s_forensics.analyze.rules import Rule, parse_rule
from k10s_forensics.errors import QueryError

FLEET_RULES: tuple[str, ...] = (
    "recurring-gpu",
    "moved-gpu",
    "recurring-node",
    "xid-recurrence",
    "driver-hangs",
    "model-driver-rate",
    "cost-by-cause",
)
VIEWS_FILE = "_views.sql"
KINDS = ("finding", "summary")

#: Settings a rule may name, their defaults and their meaning (CLI options override).
SETTINGS: dict[str, tuple[float, str]] = {
    "min_incidents": (3, "incidents (distinct bundles) that make a recurrence"),
    "period_s": (30 * 86400, "period the incidents must fall within (seconds)"),
    "min_z": (3.0, "two-proportion z-score a driver's hang rate must reach"),
}
_HEADER_KEY = re.compile(r"^--\s?(kind|settings|recommendation):\s*(.*)$")
_SETTING_REF = re.compile(r"\$([a-z_]+)")


@dataclass
class FleetRule:
    """A parsed fleet rule: the bundle-rule header plus kind, settings, recommendation."""

    rule: Rule
    kind: str
    settings: tuple[str, ...]
    recommendation: str

    @property
    def id(self) -> str:
        return self.rule.id

    def sql_with(self, values: dict[str, float]) -> str:
        """The query with every ``$setting`` replaced by its number."""
        return substitute(self.rule.sql, values, self.rule.origin)


def substitute(sql: str, values: dict[str, float], origin: str) -> str:
    def repl(m: re.Match) -> str:
        name = m.group(1)
        if name not in values:
            raise QueryError(f"unknown setting ${name} (known: {', '.join(SETTINGS)})", origin)
        value = values[name]
        return repr(float(value)) if isinstance(value, float) and not float(value).is_integer() else str(int(value))

    return _SETTING_REF.sub(repl, sql)


def parse_fleet_rule(text: str, origin: str) -> FleetRule:
    rule = parse_rule(text, origin)
    keys: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        m = _HEADER_KEY.match(line)
        if m:
            current = m.group(1)
            keys[current] = m.group(2).strip()
        elif current and re.match(r"^--\s{2,}\S", line) and current == "recommendation":
            keys[current] += " " + line[2:].strip()
        elif re.match(r"^--\s?[a-z_]+:", line):
            current = None
    kind = keys.get("kind", "")
    if kind not in KINDS:
        raise QueryError(f"fleet rule kind {kind!r} is not one of {', '.join(KINDS)}", origin)
    settings = tuple(s.strip() for s in keys.get("settings", "").split(",") if s.strip())
    unknown = [s for s in settings if s not in SETTINGS]
    used = set(_SETTING_REF.findall(rule.sql))
    if unknown or used - set(settings):
        raise QueryError(f"settings {sorted(set(unknown) | (used - set(settings)))} are not declared or not known", origin)
    return FleetRule(rule, kind, settings, keys.get("recommendation", ""))


def rule_file(rule_id: str) -> str:
    return rule_id.replace("-", "_") + ".sql"


def read_text(name: str) -> str:
    return resources.files("k10s_forensics.fleet").joinpath("rules", name).read_text(encoding="utf-8")


def packaged_files() -> list[str]:
    folder = resources.files("k10s_forensics.fleet").joinpath("rules")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".sql"))


def fleet_rules() -> list[FleetRule]:
    """The packaged fleet rules in registry order."""
    rules = []
    for rule_id in FLEET_RULES:
        name = rule_file(rule_id)
        rule = parse_fleet_rule(read_text(name), f"fleet/rules/{name}")
        if rule.id != rule_id:
            raise QueryError(f"header id {rule.id!r} does not match the registry id {rule_id!r}", rule.rule.origin)
        rules.append(rule)
    return rules


def view_statements(values: dict[str, float]) -> list[str]:
    """The statements of ``_views.sql`` in order (split on ``;`` at a line end), settings substituted."""
    text = "\n".join(line for line in read_text(VIEWS_FILE).splitlines() if not line.lstrip().startswith("--"))
    return [substitute(s.strip(), values, f"fleet/rules/{VIEWS_FILE}") for s in re.split(r";\s*$", text, flags=re.M) if s.strip()]


__all__ = ["FLEET_RULES", "SETTINGS", "FleetRule", "fleet_rules", "parse_fleet_rule", "view_statements", "packaged_files", "substitute"]
