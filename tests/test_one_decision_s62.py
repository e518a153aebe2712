"""One decision in one place (docs/rules.md, "Session 62: one decision in one place").

* The odd Neuron program's rank is decided by the fingerprint evidence alone: ``_evidence_fingerprint.sql`` is created
  before ``_failure_line.sql``, whose ``program_odd`` reads ``k10s_logs_fingerprint_ev`` (no copy of the vote); the
  readings themselves are pinned in tests/test_neuron_cc_ops_mismatch.py and the fingerprint tests.
* ``rank_went_on`` by ASOF joins gives what the per-log self-join it replaced gave: the old SQL is kept here and run on
  the same ``k10s_log`` of generated logs (caught tracebacks, uncaught ``[rankN]:`` ones, torchrun agents' reports
  between, progress by ``[defaultN]:`` prefix and by ``[rankN]:`` tag, stamped and not).
"""

from __future__ import annotations

import datetime as dt
import random

import pytest

from k10s_forensics.analyze import runner
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.queries import VIEWS_FILES, read_text

T0 = dt.datetime(2026, 12, 6, 4, 0, tzinfo=dt.timezone.utc)

#: Session 61's rank_went_on, the self-join (every exception x every later progress line of its log).
OLD_RANK_WENT_ON = r"""
SELECT DISTINCT e.event_id FROM k10s_log e
JOIN k10s_log s ON s.raw_row = e.raw_row AND s.line_no > e.line_no AND s.kind = 'training_step' AND s.container IS NOT NULL
WHERE e.kind IN ('python_exception', 'python_traceback') AND e.container IS NOT NULL
  AND NOT regexp_matches(e.line, '^(?:\[default\d+\]:)?\[rank\d+\]:')
  AND ((s.rank IS NOT NULL AND s.rank = e.rank_resolved)
       OR (regexp_extract(e.line, '^\[default\d+\]:') <> '' AND regexp_extract(e.line, '^\[default\d+\]:') = regexp_extract(s.line, '^\[default\d+\]:')))
  AND NOT EXISTS (SELECT 1 FROM k10s_log a WHERE a.raw_row = e.raw_row AND a.kind = 'torchrun_failure'
                  AND a.line_no > e.line_no AND a.line_no < s.line_no)
"""


def test_the_fingerprint_evidence_comes_before_the_failure_lines_and_is_read_there():
    assert VIEWS_FILES.index("_evidence_fingerprint.sql") < VIEWS_FILES.index("_failure_line.sql")
    failure = read_text("_failure_line.sql")
    assert "FROM k10s_logs_fingerprint_ev" in failure
    assert "program_rank" not in failure and "top_sides" not in failure  # the copy of the vote is gone
    assert "CREATE OR REPLACE TEMP TABLE k10s_logs_fingerprint_ev" not in read_text("_evidence_logs.sql")
    fingerprint = read_text("_evidence_fingerprint.sql")
    later = [t for f in VIEWS_FILES[VIEWS_FILES.index("_failure_line.sql"):] for t in
             ("k10s_failure_line", "k10s_incident", "k10s_hang_evidence", "k10s_wd_lines", "k10s_gloo_wait")]
    assert not [t for t in later if f"FROM {t}" in fingerprint or f"JOIN {t}" in fingerprint]


def _log(seed: int, stamped: bool) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    for step in range(60):
        for r in range(4):
            tee = rng.random() < 0.7
            p = f"[default{r}]:" if tee else ""
            lines.append(f"{p}rank {r} step {step} loss 0.{step}" if tee else f"[rank{r}]: step {step} loss 0.{step}")
            roll = rng.random()
            if roll < 0.06:  # a caught, logged exception (untagged)
                lines += [f"{p}2026-12-06 04:00:{step % 60:02d},100 ERROR [rank{r}] train: eval batch failed, skipping",
                          f"{p}Traceback (most recent call last):", f'{p}  File "/workspace/train.py", line 77, in _eval',
                          f"{p}ValueError: eval batch {step}: expected 4 samples, got 3"]
            elif roll < 0.08:  # an uncaught one torch tagged: the rank's end, whatever follows
                lines += [f"{p}[rank{r}]: Traceback (most recent call last):", f"{p}[rank{r}]: KeyError: 'num_tokens'"]
        if rng.random() < 0.05:  # an agent's report: an attempt's end, the workers restarted
            lines.append(f"E1206 04:00:{step % 60:02d}.500000 27166 torch/distributed/elastic/multiprocessing/api.py:1002] "
                         f"failed (exitcode: 1) local_rank: {rng.randrange(4)} (pid: 2717{rng.randrange(4)}) of binary: /usr/bin/python3")
    if stamped:
        return "".join(f"{(T0 + dt.timedelta(seconds=i / 4)).strftime('%Y-%m-%dT%H:%M:%S.%fZ')} {line}\n" for i, line in enumerate(lines))
    return "".join(f"{line}\n" for line in lines)


@pytest.mark.parametrize(("seed", "stamped"), [(1, True), (2, False), (3, True), (4, False)])
def test_rank_went_on_by_asof_joins_is_the_self_join(tmp_path, seed, stamped):
    bundle, _ = import_logs([LogSource("pod.log", _log(seed, stamped))], tmp_path / "b", nproc_per_node=4, world_size=4,
                            nodes=1, job="went-on", namespace="team-a", now=T0 + dt.timedelta(hours=2))
    con = runner.prepare(bundle, None, 1)
    try:
        old = {row[0] for row in con.sql(OLD_RANK_WENT_ON).fetchall()}
        lines = con.sql("SELECT event_id, rank_went_on FROM k10s_failure_line "
                        "WHERE kind IN ('python_exception', 'python_traceback')").fetchall()
    finally:
        con.close()
    assert lines and old, "the generated log has handled exceptions among its failure lines"
    assert {e for e, went_on in lines if went_on} == old & {e for e, _ in lines}
    assert any(not went_on for _, went_on in lines)  # and some that are not handled
