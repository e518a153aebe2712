"""Rule gates: skip a rule whose cheap necessary condition is false, before its views are planned.

A rule's header may carry ``-- gate: <SQL boolean expression>`` over the bundle's own tables
(never a shared ``k10s_*`` name: it is evaluated before any is created). The gate must be true
whenever the rule can return a row; when it is false the rule cannot find anything, so its SQL
is not run and the shared views only it reads are not created (``runner.prepare``). The runner
then treats it exactly as a rule that ran and returned no rows: it is not ``skipped`` and
nothing in the output changes. A gate that is NULL does not gate anything out.

All the gates of the rules about to run are evaluated in one statement
(``SELECT (gate1) AS g0, (gate2) AS g1, ...``). ``analyze(..., gates=False)`` runs every rule
(what tests/determinism_kit.py's second configuration does, so every twins comparison also
proves gated == ungated byte for byte; docs/rules.md, "Gates").
"""

from __future__ import annotations

import functools
import weakref

import duckdb

from k10s_forensics.engine import error_line, execute
from k10s_forensics.errors import QueryError

#: Built-in rules without a gate, and why: no condition much cheaper than the rule is surely necessary.
UNGATED: dict[str, str] = {
    "rank-failure": "any failing rank's log line (signals, exit statuses, exceptions, CUDA and NCCL errors) can make a finding: "
                    "the only necessary condition, some container log line, holds on nearly every bundle that has logs",
    "straggler": "a straggler is a robust z-score against the gang's median per window (or a network culprit): nothing "
                 "cheaper than those statistics proves there is none",
    "idle-gpu": "the idle test is per GPU sample, the rule's own scan; idle samples are common on healthy bundles too, "
                "so a gate would scan gpu_samples again and rarely be false",
    "nic-open": "the rule's own read is a scan of the parsed log lines of three NCCL kinds (the device list, a device "
                "that would not open, none found), filtered by kind before any regex: a gate would scan the same rows",
}

#: Per connection from ``runner.prepare``: the ids of the rules whose gate was false.
_GATED: "weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, frozenset[str]]" = weakref.WeakKeyDictionary()


@functools.lru_cache(maxsize=256)
def _one_select(gate: str) -> bool:
    """True when ``SELECT (gate)`` is one SELECT statement (a gate cannot smuggle in another)."""
    try:
        statements = duckdb.extract_statements(f"SELECT ({gate}) AS g")
    except duckdb.Error:
        return True  # a syntax error: reported by the evaluation, naming the rule
    return len(statements) == 1 and statements[0].type.name == "SELECT"


def _value(con: duckdb.DuckDBPyConnection, rule) -> object:
    """One rule's gate alone (to name the rule whose gate fails)."""
    try:
        return con.execute(f"SELECT ({rule.gate}) AS g").fetchall()[0][0]
    except duckdb.Error as exc:
        raise QueryError(f"gate failed: {error_line(exc)}", rule.origin) from None


def evaluate(con: duckdb.DuckDBPyConnection, rules) -> frozenset[str]:
    """The ids of ``rules`` whose gate is false, all gates in one statement.

    Raises:
        QueryError: a gate is not one expression, or fails to bind or run (names the rule's file).
    """
    gated = [r for r in rules if r.gate]
    for rule in gated:
        if not _one_select(rule.gate):
            raise QueryError("gate is not one SQL expression", rule.origin)
    if not gated:
        return frozenset()
    sql = "SELECT " + ", ".join(f"({r.gate}) AS g{i}" for i, r in enumerate(gated))
    try:
        values = execute(con, sql).fetchall()[0]
    except duckdb.Error:
        values = tuple(_value(con, r) for r in gated)  # raises for the first gate that fails
    return frozenset(r.id for r, v in zip(gated, values) if v is False)


def record(con: duckdb.DuckDBPyConnection, gated: frozenset[str]) -> None:
    """Remember, for ``runner.run_rules``, which rules ``con`` was prepared without."""
    _GATED[con] = gated


def gated_out(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """Rules whose gate was false when ``con`` was prepared (none for any other connection)."""
    return _GATED.get(con, frozenset())


__all__ = ["UNGATED", "evaluate", "gated_out", "record"]
