"""The log parser on EVERY real log sample (real-samples/logs and incidents/*/log.txt).

Expectations were written by reading each file. Each file is fed as a raw log body twice:
as pasted (no API timestamp prefix) and with a synthetic ``timestamps=true`` prefix on
every line; both must give the same events (the prefix then supplies ``ts``).
"""

from __future__ import annotations

import datetime as dt

import pytest

from log_helpers import CAPTURED, derive, issue_counts, log_row, prefix_ts, with_api_prefix
from k10s_forensics.parsers import logs
from real_incident_log_expectations import EXPECTED_INCIDENTS
from real_log_expectations import EXPECTED_LOGS, T

UTC = dt.timezone.utc
EXPECTED: dict[str, list[tuple[str, dict]]] = {**EXPECTED_LOGS, **EXPECTED_INCIDENTS}

#: Issues (source logs) each file must produce, as pasted (no prefix).
EXPECTED_ISSUES = {
    "logs/torchrun-childfailederror_no-other-failures_traceback_colossalai-issue3571_truncated.log": {
        "torchrun failure table entry without fields (log cut short)": 1,
    },
}


def _sample_files(real_samples):
    files = sorted(p.relative_to(real_samples).as_posix() for p in (real_samples / "logs").iterdir())
    files += sorted(p.relative_to(real_samples).as_posix() for p in (real_samples / "incidents").glob("*/log.txt"))
    return files


def test_every_real_log_sample_has_expectations(real_samples):
    assert sorted(_sample_files(real_samples)) == sorted(EXPECTED), "a real log sample was added or removed: write its expectations"


def _check(events: list[dict], expected: list[tuple[str, dict]], prefixed: bool, name: str) -> None:
    got = sorted(events, key=lambda e: e["line_no"])
    expected = [(k, {f: v for f, v in fields.items() if f != "_pasted_only"}) for k, fields in expected if not (prefixed and fields.get("_pasted_only"))]
    summary_ = [(e["kind"], e["line_no"], e.get("rank")) for e in got]
    assert [e["kind"] for e in got] == [k for k, _ in expected], f"{name}: {summary_}"
    for ev, (kind, fields) in zip(got, expected):
        for key, want in fields.items():
            if key.endswith("@pasted"):  # a field only the pasted form yields (wrapped lines glued)
                if prefixed:
                    continue
                key = key.removesuffix("@pasted")
            if key == "ts_raw":  # ts parsed from the line itself (only meaningful without the prefix)
                if not prefixed:
                    assert ev["ts"] == want, (name, kind, ev["line_no"], ev["ts"])
                continue
            if key == "ts" and prefixed is False:
                assert ev["ts"] == want, (name, kind, ev["ts"])
                continue
            if isinstance(want, float):
                assert ev[key] == pytest.approx(want, rel=1e-9), (name, kind, key, ev[key])
            else:
                assert ev[key] == want, (name, kind, key, ev[key], ev["line"][:120])
        assert ev["line"] and len(ev["line"]) <= 4096
        if prefixed:
            want_ts = fields.get("ts") if kind == "torchrun_failure" and "ts" in fields else prefix_ts(ev["line_no"])
            assert ev["ts"] == want_ts, (name, kind, ev["line_no"], ev["ts"])


@pytest.mark.parametrize("prefixed", [False, True], ids=["as-pasted", "api-timestamps"])
def test_real_log_samples(tmp_path, real_samples, prefixed):
    names = _sample_files(real_samples)
    rows = []
    for name in names:
        body = (real_samples / name).read_text(encoding="utf-8")
        rows.append(log_row(with_api_prefix(body) if prefixed else body, pod=name))
    ctx, issues = derive(tmp_path, logs, logs=rows)
    table = ctx.table("log_events")
    events = table.to_pylist()
    by_pod: dict[str, list[dict]] = {}
    for ev in events:
        by_pod.setdefault(ev["pod"], []).append(ev)
        assert ev["namespace"] == "team-a" and ev["container"] == "pytorch" and ev["node"] == "gpu-node-1"
        assert ev["pod_uid"] == f"uid-{ev['pod']}" and ev["previous"] is False
        assert names[ev["raw_row"]] == ev["pod"]
    for name in names:
        _check(by_pod.get(name, []), EXPECTED[name], prefixed, name)
    counts = issue_counts(issues)
    assert counts.get(("logs", "torchrun failure table entry without fields (log cut short)")) == 1
    null_ts = sum(1 for e in events if e["ts"] is None)
    if prefixed:
        assert null_ts == 0 and ("logs", "recognised line without any timestamp (ts null)") not in counts
    else:
        assert null_ts > 0 and counts[("logs", "recognised line without any timestamp (ts null)")] == null_ts
    assert not any(src != "logs" for src, _ in counts), counts


def test_yearless_glog_timestamps_use_the_capture_year(tmp_path):
    body = "\n".join(
        [
            "[rank0]:[E1231 23:59:58.100000000 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.",
            "[rank1]:[E101 00:00:01.5 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600002 milliseconds before timing out.",
        ]
    )
    captured = dt.datetime(2027, 1, 1, 0, 10, tzinfo=UTC)
    ctx, _ = derive(tmp_path, logs, logs=[log_row(body, captured_at=captured)])
    ts = {e["rank"]: e["ts"] for e in ctx.table("log_events").to_pylist()}
    assert ts == {0: T(2026, 12, 31, 23, 59, 58, 100000), 1: T(2027, 1, 1, 0, 0, 1, 500000)}
    assert CAPTURED.year == 2026  # the other tests rely on a November capture
