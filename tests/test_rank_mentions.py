"""Ranks a log names in torch's and NCCL's own words lay out an imported paste whose lines carry no rank
tag (parsers/log_rank_mentions.py): the world holds at least the highest rank named. Before, a paste of
ProcessGroupNCCL watchdog lines (``[Rank 3] Watchdog caught …``, no launcher tag) was imported as a world
of one, and the pod's one rank, rank 0, read as the one that never joined (OFA-271, mmpretrain-1837,
diffusion-70, nccl-1193: controls named rank 0 when imported with no option)."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_rank_mentions import named_ranks

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
WD = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out."


@pytest.mark.parametrize("line, want", [
    (f"[E ProcessGroupNCCL.cpp:737] [Rank 6] {WD}", [6]),  # torch 1.x-2.2
    (f"[rank6]:[E1120 10:00:00.000000 42 ProcessGroupNCCL.cpp:616] [PG 0 Rank 6] {WD}", [6]),  # 2.3
    (f"[E ProcessGroupNCCL.cpp:616] [PG 0 (default_pg) Rank 6] {WD}", [6]),
    (f"[E ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 6] {WD}", [6]),
    ("node1:99:99 [3] NCCL INFO comm 0x55d0 rank 11 nranks 16 cudaDev 3 busId 81000 - Init COMPLETE", [11]),
    ("Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0.", [1, 0]),
    ("Ranks 2, 3 failed to pass monitoredBarrier in 30000 ms", [2, 3]),
    ("Rank 6 is done", []),  # a user's words: no rank read
    ("the [Rank] column", []),
])
def test_each_wording_names_its_ranks(line, want):
    assert named_ranks(line) == want


def _import(tmp_path, ranks: list[int], extra: str = ""):
    text = "".join(f"[E ProcessGroupNCCL.cpp:737] [Rank {r}] {WD}\n" for r in ranks) + extra
    return import_logs([LogSource("log.txt", text)], tmp_path / "b", now=NOW)


def _named(bundle) -> list:
    return [(f["rule"], f["ranks"]) for f in analyze(bundle)["findings"] if f["severity"] in ("critical", "warning") and f["ranks"]]


def test_a_truncated_watchdog_paste_names_no_one(tmp_path):
    """Five of eight ranks in the excerpt: ranks 0, 4 and 5 are absent only because the paste ends."""
    bundle, layout = _import(tmp_path, [1, 3, 2, 6, 7])
    assert (layout.world_size, layout.nproc_per_node, layout.nodes) == (8, 8, 1)
    assert _named(bundle) == []


def test_seven_waiters_name_the_one_silent_rank(tmp_path):
    bundle, layout = _import(tmp_path, [1, 2, 3, 4, 5, 6, 7])
    assert layout.world_size == 8
    assert _named(bundle) == [("nccl-hang", [0])]
