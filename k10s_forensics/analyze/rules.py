"""Rule files: the ``--`` comment header, parsing and loading (built-in and ``--rules DIR``).

A rule is a ``.sql`` file that starts with a header in SQL comments, so it runs unchanged
in the duckdb CLI::

    -- id: nccl-hang
    -- title: A rank stopped answering and the others timed out waiting for it
    -- severity: critical
    -- requires: log_events, ranks | pods
    -- optional: tcp_samples
    -- params: window_start, window_end
    -- description: Ranks that timed out in the NCCL watchdog on the same SeqNum are
    --   victims; the culprit is the rank that did not report, ...
    -- columns:
    --   job VARCHAR        -- namespace/name
    --   ranks BIGINT[]     -- culprit ranks
    SELECT ...

``requires`` lists table groups separated by commas; ``a | b`` means either will do. A rule
whose required group has no rows is skipped with the reason. ``params`` names what the
engine binds (``$window_start``, ``$window_end``, ``$window_s``); nothing else is bound.
``gate`` (optional, continued on indented lines like the description) is a SQL boolean
expression over the bundle's tables — never a shared ``k10s_*`` name, bound without parameters — that is
true whenever the rule can return a row: when it is false the rule's SQL and the shared views
only it needs are not run, and the rule counts as having found nothing (``analyze.gates``).
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from k10s_forensics.errors import QueryError
from k10s_forensics.queries import RULES, read_text, rule_file_name

SEVERITIES = ("critical", "warning", "info")
PARAMS = ("window_start", "window_end", "window_s")
_KEY = re.compile(r"^--\s?([a-z_]+):\s*(.*)$")
_COLUMN = re.compile(r"^--\s+([A-Za-z_][A-Za-z0-9_]*)\s+([A-Z][A-Z0-9_ ]*?(?:\[\])?)\s*(?:--\s*(.*))?$")
_ID = re.compile(r"^[a-z][a-z0-9-]*$")
_REQUIRED_KEYS = ("id", "title", "severity", "requires", "description", "columns")


@dataclass(frozen=True)
class RuleColumn:
    name: str
    type: str
    doc: str


@dataclass
class Rule:
    """A parsed rule file."""

    id: str
    title: str
    severity: str
    requires: tuple[tuple[str, ...], ...]
    description: str
    columns: tuple[RuleColumn, ...]
    sql: str
    origin: str
    optional: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    builtin: bool = True
    gate: str | None = None
    narrate: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def tables(self) -> tuple[str, ...]:
        """Every table the rule names (required alternatives and optional ones)."""
        names = [t for group in self.requires for t in group] + list(self.optional)
        return tuple(dict.fromkeys(names))


def _split_list(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def parse_rule(text: str, origin: str, *, builtin: bool = True) -> Rule:
    """Parse the header of a rule file; errors name ``origin`` and the line.

    Raises:
        QueryError: the header is missing a key, has an unknown severity, a bad id or column.
    """
    keys: dict[str, str] = {}
    columns: list[RuleColumn] = []
    current: str | None = None
    body_start = 0
    lines = text.splitlines()
    for lineno, line in enumerate(lines, 1):
        stripped = line.rstrip()
        if not stripped.startswith("--"):
            if stripped.strip():
                body_start = lineno - 1
                break
            continue
        body_start = lineno
        if current == "columns" and re.match(r"^--\s{2,}\S", stripped):
            m = _COLUMN.match(stripped)
            if not m:
                raise QueryError(f"line {lineno}: bad column declaration {stripped!r} (want '--   name TYPE -- doc')", origin)
            columns.append(RuleColumn(m.group(1), m.group(2), (m.group(3) or "").strip()))
            continue
        m = _KEY.match(stripped)
        if m and not re.match(r"^--\s{2,}", stripped):
            current = m.group(1)
            keys[current] = m.group(2).strip()
            continue
        if current and re.match(r"^--\s{2,}\S", stripped):
            keys[current] = (keys[current] + " " + stripped[2:].strip()).strip()
            continue
    missing = [k for k in _REQUIRED_KEYS if k not in keys]
    if missing:
        raise QueryError(f"rule header lacks {', '.join(missing)}", origin)
    rule_id = keys["id"]
    if not _ID.match(rule_id):
        raise QueryError(f"rule id {rule_id!r} is not kebab-case", origin)
    severity = keys["severity"]
    if severity not in SEVERITIES:
        raise QueryError(f"severity {severity!r} is not one of {', '.join(SEVERITIES)}", origin)
    if not columns:
        raise QueryError("rule header declares no output columns", origin)
    params = tuple(_split_list(keys.get("params", "")))
    unknown = [p for p in params if p not in PARAMS]
    if unknown:
        raise QueryError(f"unknown params {', '.join(unknown)} (the engine binds {', '.join(PARAMS)})", origin)
    requires = tuple(tuple(a.strip() for a in group.split("|") if a.strip()) for group in _split_list(keys["requires"]))
    gate = _gate(keys, origin)
    sql = "\n".join(lines[body_start:]).strip()
    if not sql:
        raise QueryError("rule has a header but no query", origin)
    return Rule(
        id=rule_id,
        title=keys["title"],
        severity=severity,
        requires=requires,
        description=keys["description"],
        columns=tuple(columns),
        sql=sql.rstrip(";"),
        origin=origin,
        optional=tuple(_split_list(keys.get("optional", ""))),
        params=params,
        builtin=builtin,
        gate=gate,
    )


def _gate(keys: dict[str, str], origin: str) -> str | None:
    """The ``gate`` expression, if any: over the bundle's own tables only (shared views are planned after it)."""
    if "gate" not in keys:
        return None
    gate = keys["gate"].strip()
    if not gate:
        raise QueryError("rule header has an empty gate", origin)
    shared = sorted(set(re.findall(r"\bk10s_\w+", gate, re.IGNORECASE)))
    if shared:
        raise QueryError(f"gate reads shared name(s) {', '.join(shared)} (a gate reads only the bundle's tables)", origin)
    return gate


def _narrator(module: ModuleType | None) -> Callable | None:
    return getattr(module, "narrate", None) if module is not None else None


@functools.lru_cache(maxsize=64)
def _parsed(text: str, origin: str) -> Rule:
    """``parse_rule`` once per text: every analysis loads the built-in rules (~1 ms of Python each)."""
    return parse_rule(text, origin)


def builtin_rules() -> list[Rule]:
    """The packaged rules in registry order, each with its narrative step when it has one."""
    rules = []
    for rule_id in RULES:
        name = rule_file_name(rule_id)
        rule = copy.copy(_parsed(read_text(name), f"queries/{name}"))  # a copy: ``narrate`` is set on it below
        if rule.id != rule_id:
            raise QueryError(f"header id {rule.id!r} does not match the registry id {rule_id!r}", rule.origin)
        stem = name[:-4]
        try:
            module = importlib.import_module(f"k10s_forensics.queries.{stem}")
        except ModuleNotFoundError as exc:
            if exc.name != f"k10s_forensics.queries.{stem}":
                raise
            module = None
        rule.narrate = _narrator(module)
        rules.append(rule)
    return rules


def user_rules(directory: str | Path) -> list[Rule]:
    """Rules from a user directory: every ``*.sql`` (and a ``.py`` of the same stem beside it)."""
    folder = Path(directory)
    if not folder.is_dir():
        raise QueryError("not a directory of rules", str(folder))
    rules = []
    for path in sorted(folder.glob("*.sql")):
        if path.name.startswith("_"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise QueryError(f"unreadable ({exc.__class__.__name__})", str(path)) from None
        rule = parse_rule(text, str(path), builtin=False)
        helper = path.with_suffix(".py")
        if helper.is_file():
            spec = importlib.util.spec_from_file_location(f"k10s_user_rule_{path.stem}", helper)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            try:
                spec.loader.exec_module(module)  # type: ignore[union-attr]
            except Exception as exc:
                raise QueryError(f"narrative module failed to load ({exc.__class__.__name__}: {exc})", str(helper)) from None
            rule.narrate = _narrator(module)
        rules.append(rule)
    if not rules:
        raise QueryError("no *.sql rule files", str(folder))
    return rules


def load_rules(extra_dirs: list[str] | tuple[str, ...] = ()) -> list[Rule]:
    """Built-in rules plus user rules; a user rule with a built-in id replaces it."""
    rules = builtin_rules()
    for directory in extra_dirs:
        for rule in user_rules(directory):
            same = [i for i, r in enumerate(rules) if r.id == rule.id]
            if same and not rules[same[0]].builtin:
                raise QueryError(f"duplicate rule id {rule.id!r} (also in {rules[same[0]].origin})", rule.origin)
            if same:
                rules[same[0]] = rule
            else:
                rules.append(rule)
    return rules


__all__ = ["Rule", "RuleColumn", "SEVERITIES", "PARAMS", "parse_rule", "builtin_rules", "user_rules", "load_rules"]
