"""The hang verdict across evidence families (queries/_hang_evidence.sql): the strongest evidence wins,
then the families' precedence; and the evidence views keep the contract's columns.
"""

from __future__ import annotations

import pytest

from _analyze_kit import table_bundle
from k10s_forensics.analyze.runner import prepare
from k10s_forensics.queries import read_text


def _row(evidence, ranks, confidence, ts="2026-11-21 10:10:00+00"):
    return (f"SELECT 'team-a/llama' AS job_key, '{evidence}' AS evidence, {ranks}::BIGINT[] AS culprit_ranks, []::BIGINT[] AS suspect_ranks, "
            f"'{confidence}' AS confidence, NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type, "
            f"TIMESTAMPTZ '{ts}' AS ts, 'x' AS detail")


@pytest.mark.parametrize(("rows", "want"), [
    ([("flight-recorder", [1], "medium"), ("desync-report", [2], "high")], ("desync-report", [2])),
    ([("flight-recorder", [1], "high"), ("desync-report", [2], "high")], ("flight-recorder", [1])),
    ([("ras", [1], "medium"), ("fingerprint", [2], "medium")], ("ras", [1])),
    ([("ras", [], "none"), ("watchdog-compare", [2], "medium")], ("ras", [])),
    ([("ras", [], "none"), ("watchdog-compare", [2], "high")], ("watchdog-compare", [2])),
    ([("flight-recorder", [4], "low"), ("first-failure", [5], "medium")], ("first-failure", [5])),
])
def test_verdict_is_strongest_then_precedence(tmp_path, rows, want):
    con = prepare(table_bundle(tmp_path / "b", {}))
    try:
        fr = " UNION ALL ".join(_row(*r) for r in rows if r[0] == "flight-recorder") or _row("flight-recorder", [], "none") + " WHERE false"
        ras = " UNION ALL ".join(_row(*r) for r in rows if r[0] == "ras") or _row("ras", [], "none") + " WHERE false"
        con.execute(f"CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_fr AS {fr}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_ras AS {ras}")
        others = [r for r in rows if r[0] not in ("flight-recorder", "ras")]
        logs = " UNION ALL ".join(_row(*r) for r in others if r[0] != "first-failure") or _row("desync-report", [], "none") + " WHERE false"
        first = " UNION ALL ".join(_row(*r) for r in others if r[0] == "first-failure") or _row("first-failure", [], "none") + " WHERE false"
        con.execute(f"CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_logs AS {logs}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_first_failure AS {first}")
        con.sql(read_text("_hang_evidence.sql"))
        got = con.sql("SELECT evidence, culprit_ranks, considered FROM k10s_hang_verdict").fetchall()
    finally:
        con.close()
    assert len(got) == 1 and got[0][:2] == want
    assert len(got[0][2]) == len(rows)


def test_evidence_views_exist_with_the_contract_columns(tmp_path):
    con = prepare(table_bundle(tmp_path / "b", {}))
    try:
        want = ["job_key", "evidence", "culprit_ranks", "suspect_ranks", "confidence", "pg", "seq_num", "op_type", "ts", "detail"]
        for view in ("k10s_hang_evidence_fr", "k10s_hang_evidence_ras", "k10s_hang_evidence_logs", "k10s_hang_evidence_first_failure", "k10s_hang_evidence"):
            cols = con.sql(f"DESCRIBE {view}").fetchall()
            assert [c[0] for c in cols] == want, view
            assert [c[1] for c in cols][2:4] == ["BIGINT[]", "BIGINT[]"] and cols[8][1] == "TIMESTAMP WITH TIME ZONE"
        assert con.sql("SELECT count(*) FROM k10s_hang_verdict").fetchall() == [(0,)]
    finally:
        con.close()
