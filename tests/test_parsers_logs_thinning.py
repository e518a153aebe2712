"""training_step thinning: what is kept of progress lines (docs/parsers-logs.md, "Progress lines")."""

from __future__ import annotations

import datetime as dt

from log_helpers import PREFIX_T0, derive, log_row
from k10s_forensics.parsers import log_sql, logs

UTC = dt.timezone.utc


def stamped(lines: list[tuple[float, str]]) -> str:
    """Lines with the API timestamp prefix at PREFIX_T0 + seconds."""
    return "\n".join(f"{(PREFIX_T0 + dt.timedelta(seconds=s)).strftime('%Y-%m-%dT%H:%M:%S.%f')}000Z {text}" for s, text in lines)


def steps_of(tmp_path, *bodies: str) -> list[dict]:
    rows = [log_row(body, pod=f"w-{i}") for i, body in enumerate(bodies)]
    ctx, _ = derive(tmp_path, logs, logs=rows)
    events = ctx.table("log_events").to_pylist()
    return sorted((e for e in events if e["kind"] == "training_step"), key=lambda e: (e["raw_row"], e["line_no"]))


def test_one_line_per_interval_plus_first_and_last_per_rank(tmp_path):
    # two ranks print a step every 0.5 s for 95 s (191 lines each), interleaved
    lines = [(i * 0.5, f"[rank{r}]: step {i} | loss 2.0") for i in range(191) for r in (0, 1)]
    kept = steps_of(tmp_path, stamped(lines))
    for rank in (0, 1):
        mine = [e for e in kept if e["rank"] == rank]
        assert mine[0]["step"] == 0 and mine[-1]["step"] == 190  # first and last line (step at death)
        buckets = {int((e["ts"] - PREFIX_T0).total_seconds()) // log_sql.STEP_STRIDE_S for e in mine}
        assert buckets == set(range(10))  # every 10-s interval of the 95 s is represented
        assert len(mine) == 11  # one per interval (10) + the last line
        assert all(int((e["ts"] - PREFIX_T0).total_seconds() * 2) % 20 == 0 for e in mine[:-1])  # the interval's first line


def test_step_going_back_keeps_both_sides_of_the_reset(tmp_path):
    # steps 100..141 (1 s apart), then the worker group restarts from the checkpoint (120, 121, ...)
    # inside the same 10-s interval: only the reset rule keeps the lines around it
    lines = [(i, f"step={100 + i} loss=1.0") for i in range(42)] + [(42 + i, f"step={120 + i} loss=1.0") for i in range(20)]
    kept = [(e["step"], e["line_no"]) for e in steps_of(tmp_path, stamped(lines))]
    assert (141, 42) in kept and (120, 43) in kept  # last step before the restart, first after it
    assert (140, 41) in kept and (121, 44) not in kept  # 140 opens the 40-50 s interval
    assert kept[0] == (100, 1) and kept[-1] == (139, 62)


def test_series_are_per_log_body_rank_and_wording(tmp_path):
    body = stamped([(i * 0.1, f"[rank0]: step {i} loss 1") for i in range(50)] + [(5 + i * 0.1, f"Val: {i}/20 |##| {i}/20 [00:01<00:01, 9it/s]") for i in range(20)])
    kept = steps_of(tmp_path, body, body)
    for raw_row in (0, 1):
        mine = [e for e in kept if e["raw_row"] == raw_row]
        assert {e["subkind"] for e in mine} == {"step", "tqdm"}  # a validation bar does not hide the step series
        assert [e["step"] for e in mine if e["subkind"] == "step"] == [0, 49]  # 5 s of steps: first and last
        assert [e["step"] for e in mine if e["subkind"] == "tqdm"] == [0, 19]


def test_lines_without_a_timestamp_are_not_thinned(tmp_path):
    kept = steps_of(tmp_path, "\n".join(f"iter {i}: loss 3.1" for i in range(30)))
    assert [e["step"] for e in kept] == list(range(30))
