"""Run rules over a bundle and build findings in the ``analyze --format json`` shape.

Flow: open DuckDB over the bundle (rebuilding tables when needed), register the price table, evaluate the rules'
gates (``analyze.gates``), create the shared views the rules that may still find something need, then per rule:
check its inputs (absent or empty -> ``skipped`` with the reason), run its SQL unless its gate was false (then it
found nothing), turn each row into a finding (narrative step when the rule has one; its ``confidence``), and sort
everything most severe first. Nothing here contacts a cluster.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import duckdb
import pyarrow as pa

from k10s_forensics.analyze import gates as _gates
from k10s_forensics.analyze.findings import FINDING_KEYS, build_finding, sort_key
from k10s_forensics.analyze.historical import say_historical
from k10s_forensics.analyze.incidents import group as group_incidents, price as price_incidents
from k10s_forensics.analyze.node_unknown import annotate as say_node_unknown
from k10s_forensics.analyze.prices import PriceTable
from k10s_forensics.analyze.rules import Rule, load_rules
from k10s_forensics.store.bundle import Bundle, parse_iso
from k10s_forensics.store.damage import table_notes
from k10s_forensics.store.derived import record_of
from k10s_forensics.engine import footer_rows, open_tables, run_select
from k10s_forensics.errors import QueryError
from k10s_forensics.queries import VIEWS_FILES, read_text
from k10s_forensics.store.tables import TABLE_NAMES, TABLES_BY_NAME


#: Why a table can be empty, in words a user understands.
EMPTY_REASONS: dict[str, str] = {
    "gpu_samples": "no GPU samples in this bundle (DCGM and nvidia-smi absent)",
    "tcp_samples": "no TCP socket samples in this bundle (ss was not captured)",
    "log_events": "no recognised log lines in this bundle (container logs absent)",
    "ranks": "no training ranks in this bundle (no pods of a training job)",
    "pods": "no pods in this bundle",
    "containers": "no container statuses in this bundle",
    "nodes": "no nodes in this bundle",
    "gpus": "no GPU inventory in this bundle (nvidia-smi and DCGM absent)",
    "events": "no Kubernetes events in this bundle",
    "jobs": "no training jobs in this bundle",
    "kueue_workloads": "no Kueue workloads in this bundle",
    "kueue_cluster_queues": "no Kueue ClusterQueues in this bundle",
    "k10s_job_log": "no container log lines of training-job pods in this bundle (container logs absent)",
}


def _ensure_views(con: duckdb.DuckDBPyConnection, existing: set[str] | None = None) -> None:
    """Every derived table exists as a view, empty with its schema when its file is absent (not in ``existing``)."""
    if existing is None:
        existing = {r[0] for r in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    for name in TABLE_NAMES:
        if name not in existing:
            empty = TABLES_BY_NAME[name].empty()
            con.register(f"_k10s_empty_{name}", empty)
            con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM _k10s_empty_{name}")


def _row_counts(con: duckdb.DuckDBPyConnection, names: set[str]) -> dict[str, int]:
    known = footer_rows(con)  # the derived tables' rows, read by open_tables from the Parquet footers
    counts = {}
    for name in sorted(names):
        try:
            counts[name] = known[name] if name in known else int(con.sql(f'SELECT count(*) FROM "{name}"').fetchall()[0][0])
        except duckdb.Error:
            counts[name] = -1
    return counts


def _skip_reason(rule: Rule, counts: dict[str, int], collectors: dict[str, str], damaged: dict[str, str] | None = None) -> str | None:
    for group in rule.requires:
        if any(counts.get(t, 0) > 0 for t in group):
            continue
        table = group[0]
        if damaged and table in damaged:  # name the damage, not "absent"
            return f"{damaged[table]} (table {table} is empty)"
        if any(counts.get(t, 0) < 0 for t in group):
            return f"table {' or '.join(group)} is not a table of this bundle"
        reason = EMPTY_REASONS.get(table, f"table {table} is empty in this bundle")
        if len(group) > 1:
            reason = f"{reason}; also none of {', '.join(group[1:])}"
        note = collectors.get(table)
        return f"{reason}{' — ' + note if note else ''}"
    return None


def _collector_notes(bundle: Bundle) -> dict[str, str]:
    """Per table, why its collector did not deliver (from the manifest), when it says so."""
    feeds = {
        "gpu_samples": ("dcgm", "nvidia-smi", "prometheus"),
        "tcp_samples": ("ss",),
        "log_events": ("logs",),
        "k10s_job_log": ("logs",),
        "events": ("events",),
        "kueue_workloads": ("kueue",),
    }
    notes: dict[str, str] = {}
    for c in bundle.manifest.get("collectors") or []:
        if not isinstance(c, dict) or c.get("status") == "ok":
            continue
        name = str(c.get("name", ""))
        for table, prefixes in feeds.items():
            if any(name.startswith(p) for p in prefixes) and table not in notes:
                errors = "; ".join(str(e) for e in (c.get("errors") or [])[:1])
                notes[table] = f"collector {name} {c.get('status') or '--- (no status recorded)'}{': ' + errors if errors else ''}"
    return notes


def analysis_window(manifest: dict[str, Any]) -> dict[str, Any]:
    """The capture window, widened to the Prometheus history window when one was fetched.

    Evidence from Prometheus (``manifest.history``) starts before capture did; rules that
    bound their look-back with ``$window_start`` must see it.
    """
    window = dict(manifest.get("window") or {})
    history = manifest.get("history") or {}
    for key, pick in (("start", min), ("end", max)):
        values = [(parse_iso(v), v) for v in (window.get(key), history.get(key)) if parse_iso(v) is not None]
        if values:
            window[key] = pick(values)[1]
    return window


def _params(rule: Rule, window: dict[str, Any]) -> dict[str, Any]:
    start = parse_iso(window.get("start")) or dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    end = parse_iso(window.get("end")) or dt.datetime(2999, 1, 1, tzinfo=dt.timezone.utc)
    values = {"window_start": start, "window_end": end, "window_s": max((end - start).total_seconds(), 0.0)}
    return {p: values[p] for p in rule.params}


def run_rules(con: duckdb.DuckDBPyConnection, bundle: Bundle, rules: list[Rule], only: set[str] | None = None) -> dict[str, Any]:
    """Run ``rules`` on an open connection whose views and price table are in place."""
    window = analysis_window(bundle.manifest)
    counts = _row_counts(con, {t for r in rules for t in r.tables})
    notes = _collector_notes(bundle)
    damage = [str(line) for line in record_of(bundle).get("damage") or []]
    damaged = table_notes(damage)
    findings: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    gated = _gates.gated_out(con)
    for rule in rules:
        if only and rule.id not in only:
            continue
        reason = _skip_reason(rule, counts, notes, damaged)
        if reason:
            skipped.append({"rule": rule.id, "reason": reason})
            continue
        if rule.id in gated:  # its gate is false: it cannot return a row (analyze.gates)
            continue
        try:
            table = run_select(con, rule.sql, _params(rule, window), origin=rule.origin)
        except QueryError as exc:
            skipped.append({"rule": rule.id, "reason": f"rule failed: {exc}", "error": True})
            continue
        for row in (table.to_pylist() if isinstance(table, pa.Table) else []):
            findings.append(build_finding(rule, row))
    findings.sort(key=sort_key({r.id: i for i, r in enumerate(rules)}))
    say_node_unknown(con, findings)  # a culprit on no node: why (analyze.node_unknown)
    if bundle.manifest.get("history"):
        say_historical(con, findings)
    incidents = price_incidents(con, group_incidents(findings), findings)
    return {
        "bundle": {"path": str(bundle.path), "window": {"start": window.get("start"), "end": window.get("end")}, "complete": bool(bundle.manifest.get("complete", True)),
                   **({"history": {k: bundle.manifest["history"].get(k) for k in ("start", "end", "url")}} if bundle.manifest.get("history") else {})},
        "findings": findings,
        "incidents": incidents,
        "skipped": skipped,
        "damage": damage,
    }


def prepare(bundle: Bundle, prices: PriceTable | None = None, threads: int | None = None,
            rules: list[Rule] | None = None, only: set[str] | None = None, *, light: bool = True,
            gates: bool = True, pooled: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection with the bundle's tables, the price table and the shared views.

    With ``rules``, only the shared views those of them that will run need (``analyze.viewplan``), less those of
    rules whose gate is false (``analyze.gates``; ``gates=False`` evaluates none); without, every shared view.
    ``light``: small tables planned without DuckDB's optimizer (``engine.open_tables``; same results).
    ``gates``: also the empty shortcuts (a shared statement empty without rows of a table the bundle has none
    of is created empty, unbound); off only to prove they change nothing.
    """
    con, rows = open_tables(bundle, threads=threads, light=light, pooled=pooled)
    _ensure_views(con, set(rows))
    (prices or PriceTable.default()).register(con)
    if rules is not None:
        from k10s_forensics.analyze import viewplan

        shared = viewplan.shared_names()
        counts = _row_counts(con, {t for r in rules for t in r.tables if t not in shared})
        runnable = viewplan.applicable(rules, counts, only)
        gated = _gates.evaluate(con, runnable) if gates else frozenset()
        _gates.record(con, gated)
        # a gated-out rule still gets the shared views it requires: the skip check counts them
        required = {t for r in runnable if r.id in gated for group in r.requires for t in group if t in shared}
        viewplan.create(con, viewplan.plan([r for r in runnable if r.id not in gated], required), rows if gates else None)
        return con
    for name in VIEWS_FILES:
        try:
            con.sql(read_text(name))
        except duckdb.Error as exc:
            raise QueryError(str(exc).splitlines()[0], f"queries/{name}") from None
    return con


def analyze(
    bundle: Bundle,
    *,
    rules_dirs: tuple[str, ...] | list[str] = (),
    prices: PriceTable | None = None,
    only: set[str] | None = None,
    threads: int | None = None,
    gates: bool = True,
) -> dict[str, Any]:
    """Analyze a bundle: the JSON-ready result (bundle, findings, skipped).

    Args:
        bundle: an opened bundle (tables are rebuilt first when missing or stale).
        rules_dirs: extra directories of user rules (``--rules DIR``).
        prices: GPU-hour price table (default: the packaged one).
        only: run only these rule ids.
        threads: DuckDB threads (default: DuckDB's choice).
        gates: skip rules whose gate is false (``analyze.gates``) and shared statements empty on this bundle
            (``analyze.viewplan``); off only to verify that it changes nothing.
    """
    rules = load_rules(tuple(rules_dirs))
    # User rules (``--rules DIR``) keep DuckDB's optimizer whatever the size: a rule written as an
    # implicit join would run as a cross product without it. The built-in ones are planned light.
    con = prepare(bundle, prices, threads, rules=rules, only=only, light=not rules_dirs, gates=gates, pooled=not rules_dirs)
    try:
        return run_rules(con, bundle, rules, only)
    finally:
        con.close()


__all__ = ["analyze", "prepare", "run_rules", "build_finding", "FINDING_KEYS", "EMPTY_REASONS"]
