"""The two real incidents whose evidence is Flight Recorder / RAS output pasted in a log
(tests/data/real-samples/incidents): parsed by the real parsers, judged by the contract views.

* pytorch-140969-fr-trace-default-pg: PyTorch's fr_trace printed "Not all ranks joining
  collective" for all_reduce #31117 of default_pg, missing ranks {3, 4, 5, 6, 7} of 8. Those
  ranks never entered the collective ranks 0-2 entered: they are the culprits fr_trace names,
  with medium confidence (they are the majority: a group behind, not one odd rank).
* nccl-1730-ras-ok-rank118-timeout (control): RAS shows one communicator RUNNING, errors OK,
  while rank 118 times out: RAS names no culprit (confidence none) and nothing else does.
"""

from __future__ import annotations


from k10s_forensics.parsers import logs, ncclras
from tests._analyze_kit import gang, prepare_views, table_bundle
from tests.log_helpers import derive, log_row, with_api_prefix


def _evidence(tmp_path, real_samples, incident: str, pods: int, per_pod: int, log_pod: int) -> list[dict]:
    g = gang(job="llama", pods=pods, per_pod=per_pod)
    text = (real_samples / "incidents" / incident / "log.txt").read_text(encoding="utf-8")
    row = log_row(with_api_prefix(text), pod=f"llama-worker-{log_pod}")
    ctx, _ = derive(tmp_path / "logs", logs, logs=[row])
    events = ctx.table("log_events").to_pylist()
    ctx, _ = derive(tmp_path / "ras", ncclras, logs=[row])
    ras = ctx.table("nccl_ras").to_pylist()
    con = prepare_views(table_bundle(tmp_path / "b", {**g, "log_events": events, "nccl_ras": ras}),
                        "k10s_hang_evidence_fr", "k10s_hang_evidence_ras")
    try:
        rel = con.sql("SELECT * FROM k10s_hang_evidence_fr UNION ALL SELECT * FROM k10s_hang_evidence_ras")
        return [dict(zip(rel.columns, r)) for r in rel.fetchall()]
    finally:
        con.close()


def test_printed_fr_trace_names_the_missing_ranks(tmp_path, real_samples):
    (row,) = _evidence(tmp_path, real_samples, "pytorch-140969-fr-trace-default-pg", 1, 8, 0)
    assert row["evidence"] == "flight-recorder" and row["culprit_ranks"] == [3, 4, 5, 6, 7]
    assert row["confidence"] == "medium" and row["seq_num"] == 31117 and row["op_type"] == "nccl:all_reduce"
    assert row["pg"] == "0:default_pg"


def test_ras_ok_control_names_no_culprit(tmp_path, real_samples):
    rows = _evidence(tmp_path, real_samples, "nccl-1730-ras-ok-rank118-timeout", 32, 8, 14)
    assert [(r["evidence"], r["culprit_ranks"], r["confidence"]) for r in rows] == [("ras", [], "none")]
    assert "no single culprit" in rows[0]["detail"] and "2.26.2" in rows[0]["detail"]
