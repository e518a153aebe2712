"""Plan the shared views: create only those the rules about to run need, in one pass per file.

The shared building blocks (``queries/_views*.sql``, ``_incident.sql``, ``_evidence_*.sql``,
``_hang_evidence.sql``) are ``CREATE OR REPLACE TEMP TABLE|VIEW|MACRO k10s_*`` statements.
Most are materialised TEMP tables, so creating one that no rule reads costs a full scan.

Dependencies come from the SQL itself: a statement depends on every shared name
(``k10s_*``) its text mentions outside comments, and a rule needs every shared name its
query or its header's tables (``requires``/``optional``) mention. Mentioning a name that is
not used only creates a view too many — never one too few — so the plan is conservative.
The closure is created in the files' own order (a statement only reads names defined
before it), one ``execute`` per file so an error still names its file.

A rule whose required tables are empty is skipped by the runner before its SQL runs; its
views are left out too (``applicable``), using the same row counts the runner uses.

A statement headed ``-- empty-without: T[, U]`` returns no row when those tables have none
(e.g. the Flight Recorder and RAS evidence on a bundle without dumps or RAS reports): given
the row counts, ``create`` makes it empty from its ``-- empty-columns:`` instead of binding and
running it (most of the cost of a shared statement on a small bundle is binding it). The
declared columns are checked against the statement's own (tests/test_viewplan.py); they may start
with a shared table's (``-- empty-columns: k10s_log.*, ts_filled TIMESTAMPTZ, …``) that the
statement reads, for one that adds columns to every column of such a table. A shared
table may be named there too (``-- empty-without: k10s_wd_lines``): it is counted once created,
so a statement that would bind a dozen subqueries over a family of log lines the bundle has
none of (the hang evidence of watchdog lines, desync reports, fingerprints) costs a count.

``-- empty-unless: <SQL boolean>`` says the same with a condition over the bundle's own tables
(never a shared name, like a rule's gate: e.g. "some log line is a desync report"), for a
statement whose lines are a few kinds among many in ``log_events``. The conditions of every
planned statement are evaluated together in one ``SELECT`` before any runs; a false one makes the
statement empty from its ``-- empty-columns:``; NULL gates nothing out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

import duckdb

from k10s_forensics.engine import execute
from k10s_forensics.errors import QueryError
from k10s_forensics.queries import VIEWS_FILES, read_text

_CREATE = re.compile(r"CREATE\s+OR\s+REPLACE\s+TEMP\s+(?:TABLE|VIEW|MACRO)\s+(k10s_\w+)", re.IGNORECASE)
_NAME = re.compile(r"\bk10s_\w+\b", re.IGNORECASE)
_LINE_COMMENT = re.compile(r"--[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


_EMPTY_WITHOUT = re.compile(r"^--\s*empty-without:\s*(.+)$", re.MULTILINE)
_EMPTY_UNLESS = re.compile(r"^--\s*empty-unless:\s*(.+(?:\n--\s{4,}.+)*)", re.MULTILINE)
_EMPTY_COLUMNS = re.compile(r"^--\s*empty-columns:\s*(.+(?:\n--\s{4,}.+)*)", re.MULTILINE)


@dataclass(frozen=True)
class ViewStatement:
    """One ``CREATE`` of a shared name: its file, name, SQL text and the shared names it reads;
    ``empty_without``/``empty_columns``: the tables without whose rows it is empty, and its columns."""

    file: str
    name: str
    sql: str
    reads: frozenset[str]
    empty_without: tuple[str, ...] = ()
    empty_columns: str = ""
    empty_unless: str = ""

    def empty_sql(self, counts: dict[str, int] | None, unless_false: bool = False) -> str | None:
        """``CREATE`` of the empty table when ``counts`` show none of ``empty_without``'s rows, or
        (``unless_false``) its ``empty_unless`` condition was false; else None."""
        if counts is None:
            return None
        without = bool(self.empty_without) and all(counts.get(t, 0) == 0 for t in self.empty_without)
        if not without and not (unless_false and self.empty_unless):
            return None
        like = self.columns_like()
        if like is None:
            return f"CREATE OR REPLACE TEMP TABLE {self.name} ({self.empty_columns})"
        more = [c.strip().split(None, 1) for c in self.empty_columns.split(",")[1:] if c.strip()]
        listed = "".join(f", CAST(NULL AS {kind}) AS {name}" for name, kind in more)
        return f"CREATE OR REPLACE TEMP TABLE {self.name} AS SELECT {like}.*{listed} FROM {like} WHERE false"

    def columns_like(self) -> str | None:
        """The shared table whose columns ``empty-columns`` starts with (``k10s_x.*, more TYPE, …``), or None."""
        first = self.empty_columns.split(",")[0].strip()
        return first[:-2] if first.endswith(".*") else None


def _joined(match: re.Match) -> str:
    return " ".join(line.lstrip("-").strip() for line in match.group(1).split("\n"))


def _empty_header(file: str, name: str, text: str) -> tuple[tuple[str, ...], str, str]:
    without, unless, columns = _EMPTY_WITHOUT.search(text), _EMPTY_UNLESS.search(text), _EMPTY_COLUMNS.search(text)
    if bool(without or unless) != bool(columns):
        raise QueryError(f"{name}: empty-without or empty-unless and empty-columns go together", f"queries/{file}")
    if not columns:
        return (), "", ""
    tables = tuple(t.strip() for t in without.group(1).split(",")) if without else ()
    return tables, _joined(columns), _joined(unless) if unless else ""


def _strip_comments(sql: str) -> str:
    return _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", sql))


def mentioned(sql: str, names: Iterable[str]) -> set[str]:
    """The shared names among ``names`` that ``sql`` mentions outside comments (case-insensitive)."""
    known = {n.lower(): n for n in names}
    return {known[m.lower()] for m in _NAME.findall(_strip_comments(sql)) if m.lower() in known}


@functools.lru_cache(maxsize=1)
def statements() -> tuple[ViewStatement, ...]:
    """Every shared-view statement, in creation order, with what each reads."""
    raw: list[tuple[str, str, str]] = []
    for file in VIEWS_FILES:
        for st in duckdb.extract_statements(read_text(file)):
            text = st.query.strip()
            m = _CREATE.search(_strip_comments(text))
            if not m:
                raise QueryError(f"not a CREATE of a k10s_* name: {text[:60]!r}", f"queries/{file}")
            raw.append((file, m.group(1), text))
    names = {name for _, name, _ in raw}
    out = tuple(ViewStatement(f, n, t, frozenset(mentioned(t, names) - {n}), *_empty_header(f, n, t)) for f, n, t in raw)
    for st in out:
        unread = [t for t in st.empty_without if t in names and t not in st.reads]
        if unread:  # counted only once created, before the statement: it must read them
            raise QueryError(f"{st.name}: empty-without names {unread}, which it does not read", f"queries/{st.file}")
        if st.columns_like() is not None and st.columns_like() not in st.reads:  # created before it only if it reads it
            raise QueryError(f"{st.name}: empty-columns starts with a table it does not read", f"queries/{st.file}")
        if mentioned(st.empty_unless, names):  # evaluated before any shared statement runs
            raise QueryError(f"{st.name}: empty-unless may read only the bundle's own tables", f"queries/{st.file}")
    return out


def shared_names() -> set[str]:
    """Every name the shared-view files create."""
    return {s.name for s in statements()}


def closure(roots: Iterable[str]) -> set[str]:
    """``roots`` (shared names) and everything they read, transitively."""
    by_name = {s.name: s for s in statements()}
    needed: set[str] = set()
    todo = [r for r in roots if r in by_name]
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(by_name[name].reads)
    return needed


def rule_roots(rule) -> set[str]:
    """Shared names a rule reads: from its query and from its header's tables."""
    names = shared_names()
    return mentioned(rule.sql, names) | {t for t in rule.tables if t in names}


def _certainly_skipped(rule, counts: dict[str, int]) -> bool:
    """True when the runner's skip check gives the same answer without any shared view.

    It walks the required groups in order and stops at the first group without rows; that
    is decided here only when every group up to it is decided by counted tables alone (a
    shared view is not counted yet, so its group is undecided).
    """
    for group in rule.requires:
        if any(counts.get(t, 0) > 0 for t in group if t in counts):
            continue
        return all(t in counts for t in group)
    return False


def applicable(rules, counts: dict[str, int], only: set[str] | None = None) -> list:
    """Rules that may run: in ``only`` (when given), and not certain to be skipped.

    ``counts`` holds the row counts of the tables counted so far (shared views absent).
    """
    return [r for r in rules if not (only and r.id not in only) and not _certainly_skipped(r, counts)]


#: Shared names read after the rules, whatever ran: incident pricing (``analyze.incidents``)
#: calls ``k10s_price``.
ALWAYS: frozenset[str] = frozenset({"k10s_price"})


def plan(rules, extra: Iterable[str] = ()) -> list[ViewStatement]:
    """The statements to run for ``rules`` (plus ``ALWAYS`` and ``extra``), in creation order."""
    roots: set[str] = set(ALWAYS) | set(extra)
    for rule in rules:
        roots |= rule_roots(rule)
    needed = closure(roots)
    return [s for s in statements() if s.name in needed]


def create(con: duckdb.DuckDBPyConnection, planned: list[ViewStatement], counts: dict[str, int] | None = None) -> None:
    """Run the planned statements: one ``execute`` per file, in order. With the derived tables'
    row ``counts``, a statement that is empty without rows it has none of is created empty; a shared
    table it names there (``empty-without: k10s_x``) is counted once created, before that statement.

    Raises:
        QueryError: a statement failed (names the file).
    """
    counts = None if counts is None else dict(counts)
    unless_false = _false_conditions(con, planned) if counts is not None else frozenset()
    for file in VIEWS_FILES:
        script: list[str] = []
        for st in (s for s in planned if s.file == file):
            uncounted = [t for t in st.empty_without if counts is not None and t not in counts and t in st.reads]
            if uncounted:
                _run(con, script, file)
                script = []
                counts.update(_count(con, uncounted, file))
            script.append((st.empty_sql(counts, st.name in unless_false) or st.sql).rstrip().rstrip(";"))
        _run(con, script, file)


def _false_conditions(con: duckdb.DuckDBPyConnection, planned: list[ViewStatement]) -> frozenset[str]:
    """Names of the planned statements whose ``empty-unless`` condition is false (one statement for all)."""
    conditional = [s for s in planned if s.empty_unless]
    if not conditional:
        return frozenset()
    sql = "SELECT " + ", ".join(f"({s.empty_unless}) AS u{i}" for i, s in enumerate(conditional))
    try:
        values = execute(con, sql).fetchone()
    except duckdb.Error as exc:
        raise QueryError(f"empty-unless failed: {str(exc).splitlines()[0]}", f"queries/{conditional[0].file}") from None
    return frozenset(s.name for s, v in zip(conditional, values) if v is False)


def _run(con: duckdb.DuckDBPyConnection, script: list[str], file: str) -> None:
    if not script:
        return
    try:
        execute(con, ";\n".join(script))
    except duckdb.Error as exc:
        raise QueryError(str(exc).splitlines()[0], f"queries/{file}") from None


def _count(con: duckdb.DuckDBPyConnection, names: list[str], file: str) -> dict[str, int]:
    """Row counts of shared tables just created (one query)."""
    sql = "SELECT " + ", ".join(f'(SELECT count(*) FROM "{n}")' for n in names)
    try:
        return dict(zip(names, execute(con, sql).fetchone()))
    except duckdb.Error as exc:
        raise QueryError(str(exc).splitlines()[0], f"queries/{file}") from None


__all__ = ["ALWAYS", "ViewStatement", "applicable", "closure", "create", "mentioned", "plan", "rule_roots", "shared_names", "statements"]
