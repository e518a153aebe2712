"""Wordings found by real incidents batch 55 (docs/rules.md "Real incidents batch 55"):

* c10d's store-based barrier counting fewer workers than the world while ranks the count leaves out say in
  their own lines that they are initializing (PyTorch Lightning's ``Initializing distributed: GLOBAL_RANK: r,
  MEMBER: m/N``): those ranks reached ``init_process_group``, the count is of a split store, and the barrier
  names no one never-joined (it used to name every rank not counted).
"""

from __future__ import annotations

import datetime as dt

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 30, 4, 0, tzinfo=dt.timezone.utc)
WAIT = ("[2025-03-11 05:21:04,421][torch.distributed.distributed_c10d][INFO] - Waiting in store based barrier to initialize "
        "process group for rank: {rank}, key: store_based_barrier_key:1 (world_size={world}, worker_count={count}, timeout=0:30:00)")
LIGHTNING = "Initializing distributed: GLOBAL_RANK: {rank}, MEMBER: {member}/{world}"


def _named(tmp_path, text: str):
    bundle, _ = import_logs([LogSource("log.txt", text)], tmp_path / "b", job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


def test_ranks_saying_they_initialize_but_not_counted_at_the_barrier_are_no_never_joined(tmp_path):
    lines = [LIGHTNING.format(rank=r, member=r + 1, world=4) for r in (2, 1, 3)]
    lines += [WAIT.format(rank=0, world=4, count=1)] * 3
    assert _named(tmp_path, "\n".join(lines) + "\n") == []


def test_a_rank_that_never_said_it_initializes_is_still_never_joined(tmp_path):
    # every rank the count leaves out (2) is silent in its own lines: the count stands
    lines = [LIGHTNING.format(rank=r, member=r + 1, world=4) for r in (0, 1, 3)]
    lines += [WAIT.format(rank=r, world=4, count=3) for r in (0, 3, 1)]
    assert _named(tmp_path, "\n".join(lines) + "\n") == [("nccl-hang", "critical", "never-joined", [2])]
