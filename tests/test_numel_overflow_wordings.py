"""A number no int64 column holds, in a log line (real incidents batch 21: Megatron-Bridge-943).

c10d prints the element count of coalesced or point-to-point work (a pipeline stage's
``batch_isend_irecv``) as -1 read unsigned: ``NumelIn=18446744073709551615``. That count is unknown,
not a size; and no single field of one line may fail the log table (before, the logs parser crashed
on the int64 overflow and every line of every pod was lost: the bundle had no log events at all).
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from k10s_forensics.engine import open_tables
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_comm_lines import to_int
from k10s_forensics.rebuild.fit_rows import fit_rows, int_bounds, rows_table

U64_MINUS_1 = "18446744073709551615"
NOW = dt.datetime(2026, 11, 21, 10, 5, tzinfo=dt.timezone.utc)

#: the PP group's watchdog wordings with the unsigned -1 count: torch >= 2.5 (a PG description after
#: the GUID, thread terminated), the caught line without it, and the 2.4 form without PG ID
WORDINGS = {
    "thread-terminated-pg-desc": (
        "[rank10]:[E1013 03:22:49.683087154 ProcessGroupNCCL.cpp:1923] [PG ID 6 PG GUID 90(PIPELINE_MODEL_PARALLEL_GROUP) "
        "Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation "
        f"timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn={U64_MINUS_1}, NumelOut={U64_MINUS_1}, "
        "Timeout(ms)=600000) ran for 600096 milliseconds before timing out."),
    "caught-pg-guid": (
        "[rank3]:[E1013 03:22:49.683087154 ProcessGroupNCCL.cpp:616] [PG ID 6 PG GUID 90 Rank 1] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn={U64_MINUS_1}, NumelOut={U64_MINUS_1}, "
        "Timeout(ms)=600000) ran for 600012 milliseconds before timing out."),
    "caught-2.4": (
        "[rank7]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, "
        f"OpType=COALESCED, NumelIn={U64_MINUS_1}, NumelOut={U64_MINUS_1}, Timeout(ms)=600000) ran for 600001 milliseconds "
        "before timing out."),
}
PEER = ("[rank2]:[E1013 03:22:49.683087154 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=4, OpType=ALLREDUCE, NumelIn=5, NumelOut=5, Timeout(ms)=600000) ran for 600096 milliseconds before timing out.")


@pytest.mark.parametrize("text,want", [
    (U64_MINUS_1, None), ("9223372036854775808", None), ("-9223372036854775809", None),
    ("9223372036854775807", 9223372036854775807), ("-1", -1), ("0", 0), ("", None), ("12a", None),
])
def test_to_int_reads_only_what_an_int64_column_holds(text, want):
    assert to_int(text) == want


@pytest.mark.parametrize("wording", list(WORDINGS), ids=list(WORDINGS))
def test_unsigned_minus_one_count_is_unknown(wording):
    ev = classify(WORDINGS[wording])[0]
    assert ev["kind"] == "nccl_watchdog_timeout"
    assert ev["op_type"] == "COALESCED" and ev["timeout_ms"] == 600000
    assert ev["numel_in"] is None and ev["numel_out"] is None


def _events(tmp_path, lines: list[str]):
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(lines))], tmp_path / "b", nproc_per_node=11, world_size=11,
                            job="train", namespace="team-a", now=NOW)
    con = open_tables(bundle)[0]
    events = con.execute("SELECT kind, rank, numel_in FROM log_events ORDER BY rank").fetchall()
    issues = [r[1] for r in con.execute("SELECT source, reason FROM parse_errors").fetchall()]
    return events, issues


@pytest.mark.parametrize("wording", list(WORDINGS), ids=list(WORDINGS))
def test_one_such_line_keeps_every_other_line(tmp_path, wording):
    events, issues = _events(tmp_path, [PEER, WORDINGS[wording]])
    assert [(k, n) for k, _, n in events] == [("nccl_watchdog_timeout", 5), ("nccl_watchdog_timeout", None)]
    assert not [i for i in issues if "crashed" in i], issues


def test_an_oversized_number_a_wording_does_not_catch_costs_its_field_only(tmp_path):
    """A torchrun table entry whose exit code no column holds (a damaged paste): that field is unknown,
    counted as a parse issue, and the log's other events stay."""
    table = ["Root Cause (first observed failure):", "[0]:", "  time      : 2026-11-21_10:00:00", "  host      : node-0",
             "  rank      : 3 (local_rank: 3)", f"  exitcode  : {U64_MINUS_1} (pid: 4242)", "  error_file: <N/A>"]
    events, issues = _events(tmp_path, [PEER, *table])
    assert ("nccl_watchdog_timeout", 2, 5) in events and any(k == "torchrun_failure" and r == 3 for k, r, _ in events)
    assert "integer out of its column's range: read as unknown" in issues and not [i for i in issues if "crashed" in i]


def test_fit_rows_nulls_only_the_fields_out_of_range():
    schema = pa.schema([("a", pa.int64()), ("b", pa.uint8()), ("c", pa.string()), ("d", pa.bool_())])
    rows = [{"a": 1 << 63, "b": 255, "c": "x", "d": True}, {"a": -(1 << 63), "b": 256, "c": str(1 << 70)}, {"a": 7}]
    fitted, count, first = fit_rows(rows, schema)
    assert fitted == [{"a": None, "b": 255, "c": "x", "d": True}, {"a": -(1 << 63), "b": None, "c": str(1 << 70)}, {"a": 7}]
    assert (count, first) == (2, f"a={1 << 63}")
    assert rows[0]["a"] == 1 << 63  # the caller's rows are not changed


def test_rows_table_converts_once_when_every_number_fits():
    schema = pa.schema([("a", pa.int64())])
    table, count, first = rows_table([{"a": 1}, {"a": None}], schema)
    assert table.column("a").to_pylist() == [1, None] and (count, first) == (0, None)
    table, count, _ = rows_table([{"a": 1 << 64}], schema)
    assert table.column("a").to_pylist() == [None] and count == 1


@pytest.mark.parametrize("dtype,bounds", [(pa.int8(), (-128, 127)), (pa.uint16(), (0, 65535)), (pa.int64(), (-(1 << 63), (1 << 63) - 1)),
                                          (pa.float64(), None), (pa.string(), None)])
def test_int_bounds(dtype, bounds):
    assert int_bounds(dtype) == bounds
