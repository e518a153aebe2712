"""The diff facets: one ``.sql`` file each in ``diff/sql/`` (registry ``FACETS``), run over
``base.*`` and ``cur.*`` (see ``attach``).

Configuration facets return *facts* (one value per side, run, subject and attribute) that
``_compare.sql`` compares; ``behaviour`` compares distributions itself. Both give rows of
``ROW_COLUMNS``. A test fails when a ``.sql`` file is left out of the registry.
"""

from __future__ import annotations

from importlib import resources

import duckdb

from k10s_forensics.errors import QueryError

#: Facets whose SQL returns facts (compared by _compare.sql), in report order.
FACT_FACETS: tuple[str, ...] = ("gpu", "node", "job", "kueue", "placement")
#: Facets whose SQL compares by itself.
COMPARING_FACETS: tuple[str, ...] = ("behaviour",)
FACETS: tuple[str, ...] = FACT_FACETS + COMPARING_FACETS
#: Shared SQL run first (identities) and the comparison of facts.
SHARED_SQL: tuple[str, ...] = ("_views.sql", "_compare.sql")

ROW_COLUMNS = ("facet", "scope", "subject", "node", "gpu", "rank", "attribute", "baseline", "current",
               "changed", "comparable", "size", "spread_x")


def sql_text(name: str) -> str:
    return resources.files("k10s_forensics.diff").joinpath("sql", name).read_text(encoding="utf-8")


def _run(con: duckdb.DuckDBPyConnection, sql: str, origin: str):
    try:
        return con.sql(sql)
    except duckdb.Error as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise QueryError(message, f"diff/sql/{origin}") from None


def compare(con: duckdb.DuckDBPyConnection, baseline_runs: int) -> list[dict]:
    """Every compared item of every facet, as dicts of ``ROW_COLUMNS``."""
    _run(con, sql_text("_views.sql"), "_views.sql")
    con.execute(f"CREATE OR REPLACE TEMP TABLE d_meta AS SELECT {int(baseline_runs)}::BIGINT AS runs")
    facts = " UNION ALL ".join(f"SELECT * FROM ({sql_text(f + '.sql')})" for f in FACT_FACETS)
    _run(con, f"CREATE OR REPLACE TEMP TABLE d_facts AS {facts}", "facts")
    parts = [f"SELECT *, NULL::DOUBLE AS size, NULL::DOUBLE AS spread_x FROM ({sql_text('_compare.sql')})"]
    parts += [f"SELECT * FROM ({sql_text(f + '.sql')})" for f in COMPARING_FACETS]
    columns = ", ".join(ROW_COLUMNS)
    rel = _run(con, f"SELECT {columns} FROM ({' UNION ALL BY NAME '.join(parts)})", "compare")
    table = rel.to_arrow_table()
    return table.to_pylist()


__all__ = ["FACETS", "FACT_FACETS", "COMPARING_FACETS", "ROW_COLUMNS", "compare", "sql_text"]
