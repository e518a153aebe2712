"""Hang evidence from logs (desync reports, fingerprints, watchdog compare) and the verdict.

Parser cases feed real wordings (PyTorch 1.10 -> 2.6, cited in docs/rules.md) to the line
classifier; rule cases build log_events by hand, read the evidence views and the nccl-hang
finding, and check the culprit, the confidence and that nothing is named where the
evidence says there is no single culprit. The verdict across families: tests/test_hang_verdict.py.
"""

from __future__ import annotations

import pytest

from _analyze_kit import at, gang, prepare_views, table_bundle
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_classify import classify

COLS = "evidence, culprit_ranks, suspect_ranks, confidence, seq_num, op_type, detail"


def _one(text: str) -> list[dict]:
    return [{k: v for k, v in e.items() if not k.startswith("_") and k != "line"} for e in classify(text)]


# ---- parser: wordings ------------------------------------------------------------------

@pytest.mark.parametrize(("line", "want"), [
    ("             [7] finished collective #182, but didn't join collective #183 (count from 1)",
     [dict(kind="nccl_desync", subkind="not_joined", rank=7, seq_num=183, last_completed_seq=182)]),
    ("[rank3]:\t   - [0, 1, 2, 3] joined but didn't finish collective #39 (count from 1)",
     [dict(kind="nccl_desync", subkind="not_finished", rank=r, seq_num=39, reporter_rank=3) for r in range(4)]),
    ("  [0,1] joined but didn't finish collective #39 (count from 1)",
     [dict(kind="nccl_desync", subkind="not_finished", rank=r, seq_num=39) for r in (0, 1)]),
    ("\t - To our best knowledge, ranks [3, 5] are the lagging ranks that caused this timeout. They never joined any collectives",
     [dict(kind="nccl_desync", subkind="never_joined", rank=r) for r in (3, 5)]),
])
def test_desync_report_wordings(line, want):
    got = _one(line)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert {k: g.get(k) for k in w} == w


def test_fingerprint_new_wording_keeps_both_fingerprints():
    opts = ("TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")
    line = ("[rank2]: RuntimeError: Detected mismatch between collectives on ranks. Rank 2 is running collective: "
            f"CollectiveFingerPrint(SequenceNumber=57, OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Float, TensorDeviceTypes={opts}), "
            f"but Rank 5 is running collective: CollectiveFingerPrint(SequenceNumber=57, OpType=ALLREDUCE, TensorShape=[2049], "
            f"TensorDtypes=Float, TensorDeviceTypes={opts}).Collectives differ in the following aspects:   Tensor Tensor shapes: [1024]vs [2049]")
    a, b = _one(line)
    assert (a["rank"], a["reporter_rank"], a["seq_num"], a["fingerprint"]) == (2, 2, 57, "OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Float")
    assert (b["rank"], b["reporter_rank"], b["fingerprint"]) == (5, 2, "OpType=ALLREDUCE, TensorShape=[2049], TensorDtypes=Float")


def test_fingerprint_reporter_is_the_first_rank_without_a_prefix():
    got = _one("Detected mismatch between collectives on ranks. Rank 4 is running collective: CollectiveFingerPrint(SequenceNumber=9OpType=BARRIER), "
               "but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=9, OpType=ALLREDUCE, TensorShape=[1], TensorDtypes=Float, TensorDeviceTypes=x).")
    assert [(e["rank"], e["reporter_rank"], e["op_type"]) for e in got] == [(4, 4, "BARRIER"), (0, 4, "ALLREDUCE")]


def test_fingerprint_old_wording_names_the_reporter_only():
    got = _one("RuntimeError: Detected mismatch between collectives on ranks. Rank 2 is running inconsistent collective: "
               "CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[20, 10], TensorDtypes=Float, TensorDeviceTypes=cuda)")
    assert [(e["kind"], e["subkind"], e["rank"], e["reporter_rank"], e["fingerprint"]) for e in got] == [
        ("collective_mismatch", "fingerprint_self", 2, 2, "OpType=ALLREDUCE, TensorShape=[20, 10]")]


@pytest.mark.parametrize(("line", "want"), [
    ("[rank1]:[E424 01:11:21.160832730 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=896, Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out.",
     dict(kind="nccl_watchdog_timeout", rank=1, seq_num=4, op_type="BROADCAST", numel_in=112, numel_out=896)),
    ("[rank3]:[E1026 04:01:29.510702382 ProcessGroupNCCL.cpp:2241] [PG ID 1 PG GUID 1 Rank 3]  failure detected by watchdog at work sequence id: 55485 "
     "PG status: last enqueued work: 55487, last completed work: 55484",
     dict(kind="nccl_watchdog_timeout", subkind="failure_detected", rank=3, seq_num=55485, last_enqueued_seq=55487, last_completed_seq=55484, pg="1")),
    ("[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, Timeout(ms)=1800000) "
     "ran for 1804775 milliseconds before timing out.",
     dict(kind="nccl_watchdog_timeout", rank=1, seq_num=1, op_type="ALLGATHER", numel_in=None)),
    ("[rank144]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 144] Heartbeat monitor timed out! Process will be terminated after dumping debug info. "
     "workMetaList_.size()=1", dict(kind="nccl_watchdog_timeout", subkind="watchdog_hang", rank=144)),
])
def test_watchdog_wordings(line, want):
    got = _one(line)[0]
    assert {k: got.get(k) for k in want} == want


# ---- evidence views and nccl-hang --------------------------------------------------------

def _log(g, who, kind, t, **kw):
    r = next(x for x in g["ranks"] if x["rank"] == who)
    row = {"ts": at(t), "namespace": r["namespace"], "pod": r["pod"], "pod_uid": r["pod_uid"], "container": "pytorch",
           "rank": who, "kind": kind, "line": f"{kind} line", "node": r["node"], "previous": False, "line_no": int(t * 10)}
    row.update(kw)
    return row


def _timeouts(g, ranks, seq=900, op="ALLREDUCE", t=700, **kw):
    return [_log(g, r, "nccl_watchdog_timeout", t + r * 0.01, seq_num=seq, op_type=op, timeout_ms=600000, ran_for_ms=600050, **kw) for r in ranks]


def _run(tmp_path, g, name="b"):
    bundle = table_bundle(tmp_path / name, g)
    con = prepare_views(bundle, "k10s_hang_evidence")
    try:
        ev = [dict(zip([c.strip() for c in COLS.split(",")], r)) for r in con.sql(f"SELECT {COLS} FROM k10s_hang_evidence ORDER BY evidence").fetchall()]
    finally:
        con.close()
    hang = [f for f in analyze(bundle, only={"nccl-hang"})["findings"] if f["rule"] == "nccl-hang"]
    return ev, hang


def _desync(g, reporter, ranks, subkind, seq, t=700.5):
    return [_log(g, reporter, "nccl_desync", t, rank=r, reporter_rank=reporter, subkind=subkind, seq_num=seq,
                 last_completed_seq=seq - 1 if subkind == "not_joined" else None) for r in ranks]


@pytest.mark.parametrize(("pods", "per_pod", "culprit"), [(1, 8, 7), (4, 1, 2), (2, 8, 9)])
def test_desync_report_names_the_lagging_rank_although_others_are_silent(tmp_path, pods, per_pod, culprit):
    g = gang(pods=pods, per_pod=per_pod)
    g["log_events"] = _timeouts(g, [0]) + _desync(g, 0, [culprit], "not_joined", 183)  # only rank 0's output survived
    ev, hang = _run(tmp_path, g)
    assert [(e["evidence"], e["culprit_ranks"], e["confidence"]) for e in ev] == [("desync-report", [culprit], "high")]
    (f,) = hang
    assert f["ranks"] == [culprit] and f["cause"] == "never-joined" and f["severity"] == "critical"
    detail = f["evidence"][0]
    assert detail["decided_by"] == "desync-report" and detail["confidence"] == "high"
    assert "desync report" in f["summary"] and "Decided by desync-report" in f["summary"]


def test_desync_report_where_everyone_joined_names_no_culprit(tmp_path):
    g = gang(pods=2, per_pod=4)
    g["log_events"] = _timeouts(g, range(8)) + _desync(g, 3, range(8), "not_finished", 39) + _desync(g, 5, range(8), "not_finished", 39)
    ev, hang = _run(tmp_path, g)
    assert [(e["evidence"], e["culprit_ranks"], e["confidence"]) for e in ev] == [("desync-report", [], "none")]
    assert "every rank (8) joined collective #39" in ev[0]["detail"]
    (f,) = hang
    assert f["ranks"] == [] and f["cause"] == "no-single-culprit" and f["severity"] == "warning"
    assert "no single culprit" in f["title"]


def test_desync_report_subset_that_joined_is_named(tmp_path):
    g = gang(pods=4, per_pod=2)
    g["log_events"] = _timeouts(g, range(8)) + _desync(g, 0, [4, 5], "not_finished", 12)
    ev, hang = _run(tmp_path, g)
    assert hang[0]["ranks"] == [4, 5] and hang[0]["cause"] == "lagging-rank"


def _fp(g, reporter, other, seq, own, theirs, t=300.0):
    line_no = int(t * 10) + reporter
    return [_log(g, reporter, "collective_mismatch", t, rank=reporter, reporter_rank=reporter, subkind="fingerprint", seq_num=seq,
                 op_type=own.split(",")[0].split("=")[1], fingerprint=own, line_no=line_no),
            _log(g, reporter, "collective_mismatch", t, rank=other, reporter_rank=reporter, subkind="fingerprint", seq_num=seq,
                 op_type=theirs.split(",")[0].split("=")[1], fingerprint=theirs, line_no=line_no)]


AR = "OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Float"
BC = "OpType=BROADCAST, TensorShape=[1024], TensorDtypes=Float"


def test_fingerprint_votes_across_reports(tmp_path):
    g = gang(pods=2, per_pod=4)
    culprit = 3
    logs = []
    for r in range(8):
        logs += _fp(g, r, 0 if r == culprit else culprit, 57, BC if r == culprit else AR, AR if r == culprit else BC)
    g["log_events"] = logs
    ev, hang = _run(tmp_path, g)
    (e,) = ev
    assert (e["evidence"], e["culprit_ranks"], e["confidence"], e["seq_num"], e["op_type"]) == ("fingerprint", [3], "high", 57, "ALLREDUCE")
    assert hang[0]["ranks"] == [3] and hang[0]["cause"] == "collective-mismatch" and hang[0]["severity"] == "critical"


def test_single_fingerprint_report_names_both_and_prefers_the_named_rank(tmp_path):
    g = gang(pods=1, per_pod=8)
    g["log_events"] = _fp(g, 1, 7, 101, "OpType=ALLGATHER, TensorShape=[1], TensorDtypes=Long", "OpType=REDUCE")
    ev, hang = _run(tmp_path, g)
    (e,) = ev
    assert (e["culprit_ranks"], e["suspect_ranks"], e["confidence"]) == ([7], [1], "medium")
    assert "likelier" in e["detail"]
    f = hang[0]
    assert f["ranks"] == [7] and f["cause"] == "collective-mismatch"
    assert f["evidence"][0]["suspect_ranks"] == [1] and "Also named: rank 1" in f["summary"]
    assert f["gpu_hours_lost"] is None  # no watchdog wait was measured


def test_exits_after_a_fingerprint_report_are_its_consequence(tmp_path):
    g = gang(pods=1, per_pod=8)
    logs = _fp(g, 1, 7, 101, "OpType=ALLGATHER, TensorShape=[1], TensorDtypes=Long", "OpType=REDUCE")
    logs += [_log(g, r, "torchrun_failure", 302 + r * 0.1, exit_code=1, subkind="agent") for r in range(8)]
    g["log_events"] = logs
    _, hang = _run(tmp_path, g)
    assert [(f["ranks"], f["cause"]) for f in hang] == [([7], "collective-mismatch")]


def test_single_fingerprint_report_against_rank_0_is_undecided(tmp_path):
    g = gang(pods=1, per_pod=4)
    g["log_events"] = _fp(g, 2, 0, 5, AR, BC)
    ev, hang = _run(tmp_path, g)
    (e,) = ev
    assert (e["culprit_ranks"], sorted(e["suspect_ranks"]), e["confidence"]) == ([], [0, 2], "low")
    assert not [f for f in hang if f["ranks"] and f["severity"] in ("critical", "warning")]


def test_old_fingerprint_wording_votes_on_the_reporters_own_prints(tmp_path):
    g = gang(pods=3, per_pod=1)
    logs = [_log(g, r, "collective_mismatch", 300, rank=r, reporter_rank=r, subkind="fingerprint_self", op_type="ALLREDUCE",
                 fingerprint="OpType=ALLREDUCE, TensorShape=[20, 10]" if r != 1 else "OpType=ALLREDUCE, TensorShape=[20, 11]") for r in range(3)]
    g["log_events"] = logs
    ev, _ = _run(tmp_path, g)
    assert (ev[0]["culprit_ranks"], ev[0]["confidence"]) == ([1], "high")


def test_watchdog_compare_size_mismatch(tmp_path):
    g = gang(pods=4, per_pod=2)
    logs = _timeouts(g, [r for r in range(8) if r != 5], numel_in=4096, numel_out=4096)
    logs += _timeouts(g, [5], numel_in=4097, numel_out=4097)
    g["log_events"] = logs
    ev, hang = _run(tmp_path, g)
    assert [(e["evidence"], e["culprit_ranks"], e["confidence"]) for e in ev] == [("watchdog-compare", [5], "high")]
    assert ev[0]["detail"].startswith("size-mismatch: 8 ranks")
    assert hang[0]["ranks"] == [5] and hang[0]["cause"] == "collective-mismatch"
    assert "with a different size" in hang[0]["summary"]  # the detail's kind is said


def test_watchdog_compare_op_mismatch_is_a_collective_mismatch(tmp_path):
    """Another OpType on the SeqNum the others time out on: the same cause as the fingerprint's (session 17)."""
    g = gang(pods=2, per_pod=2)
    g["log_events"] = _timeouts(g, [0, 1, 2]) + _timeouts(g, [3], op="BROADCAST")
    ev, hang = _run(tmp_path, g)
    assert ev[0]["detail"].startswith("op-mismatch: 4 ranks")
    assert (hang[0]["ranks"], hang[0]["cause"]) == ([3], "collective-mismatch")
    assert "a different collective type" in hang[0]["summary"]


def test_watchdog_compare_without_seqnum_compares_the_op(tmp_path):
    """PyTorch <= 1.10: WorkNCCL(OpType=..., Timeout(ms)=...) carries no SeqNum."""
    g = gang(pods=4, per_pod=1)
    logs = [_log(g, r, "nccl_watchdog_timeout", 700 + r, op_type="ALLREDUCE", timeout_ms=1800000) for r in (0, 1, 3)]
    logs.append(_log(g, 2, "nccl_watchdog_timeout", 703, op_type="BROADCAST", timeout_ms=1800000))
    g["log_events"] = logs
    ev, hang = _run(tmp_path, g)
    assert [(e["culprit_ranks"], e["confidence"]) for e in ev] == [([2], "medium")]
    assert hang[0]["ranks"] == [2] and hang[0]["cause"] == "desync"


def test_watchdog_compare_needs_a_majority(tmp_path):
    g = gang(pods=2, per_pod=2)
    logs = []
    for r, numel in ((0, 10), (1, 11), (2, 12), (3, 12)):
        logs += _timeouts(g, [r], numel_in=numel, numel_out=numel)
    g["log_events"] = logs
    ev, hang = _run(tmp_path, g)
    assert ev == []  # 2 of 4 agree: no strict majority, nobody is the odd one out
    assert not [f for f in hang if f["ranks"]]


def test_watchdog_compare_lower_last_enqueued(tmp_path):
    g = gang(pods=4, per_pod=1)
    logs = _timeouts(g, [0, 1, 3], seq=500)
    logs += [_log(g, r, "nccl_watchdog_timeout", 701, subkind="failure_detected", seq_num=500, last_enqueued_seq=501, last_completed_seq=499) for r in (0, 1, 3)]
    logs += [_log(g, 2, "watchdog_exception_summary", 702, subkind="pg_status", last_enqueued_seq=499, last_completed_seq=499)]
    g["log_events"] = logs
    ev, hang = _run(tmp_path, g)
    assert ("watchdog-compare", [2], "medium") in [(e["evidence"], e["culprit_ranks"], e["confidence"]) for e in ev]
    assert hang[0]["ranks"] == [2] and hang[0]["cause"] == "behind"


def test_silent_minority_is_named_but_a_silent_majority_is_a_short_paste(tmp_path):
    g = gang(pods=1, per_pod=7)
    g["log_events"] = _timeouts(g, range(1, 7), seq=4, op="BROADCAST")
    ev, hang = _run(tmp_path, g, "minority")
    assert (ev[0]["culprit_ranks"], ev[0]["confidence"]) == ([0], "medium")
    assert hang[0]["ranks"] == [0] and hang[0]["cause"] == "never-joined"
    g["log_events"] = _timeouts(g, [1, 4], seq=1, op="ALLGATHER")
    ev, hang = _run(tmp_path, g, "majority")
    assert ev == []
    assert hang[0]["ranks"] == [] and hang[0]["severity"] == "info" and hang[0]["cause"] == "no-single-culprit"


def test_a_rank_that_failed_first_beats_medium_evidence_but_not_high(tmp_path):
    g = gang(pods=4, per_pod=2)
    logs = _timeouts(g, [r for r in range(8) if r != 6], seq=90)
    logs += _timeouts(g, [6], seq=88, op="BROADCAST")  # a desync: medium
    logs.append(_log(g, 3, "xid", 90, xid=79, line="NVRM: Xid (PCI:0000:11:00): 79, GPU has fallen off the bus."))
    g["log_events"] = logs
    _, hang = _run(tmp_path, g, "xid")
    assert hang[0]["ranks"] == [3] and hang[0]["cause"] == "rank-failed" and hang[0]["evidence"][0]["decided_by"] == "first-failure"
    g["log_events"] = logs + _desync(g, 0, [6], "not_joined", 90)  # a desync report: high
    _, hang = _run(tmp_path, g, "report")
    assert hang[0]["ranks"] == [6] and hang[0]["cause"] == "never-joined"
    assert any(c.startswith("watchdog-compare/medium") for c in hang[0]["evidence"][0]["considered"])


def test_healthy_logs_give_no_evidence(tmp_path):
    g = gang(pods=2, per_pod=4)
    g["log_events"] = [_log(g, r, "nccl_comm_init", 5) for r in range(8)]
    ev, hang = _run(tmp_path, g)
    assert ev == [] and hang == []
