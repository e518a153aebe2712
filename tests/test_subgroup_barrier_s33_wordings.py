"""A monitored barrier run on a sub-group (``dist.monitored_barrier(group=pair)``, or TORCH_DISTRIBUTED_DEBUG=DETAIL's
check of each group before its collectives) reports in the GROUP's ranks: global rank 2, group rank 0 of {2, 3}, prints
``[rank2]:[E… ProcessGroupGloo.cpp:67] [Rank 0]: Rank 1 failed to pass monitoredBarrier in 3000 ms`` for global rank 3
(the thirty-fourth launcher set). Where the report's reporter in its own words (``[Rank 0]:``, ``Rank 1 successfully
reached monitoredBarrier``) is not the printing process's global rank (torch's ``[rankN]:`` tag), its numbers are group
ranks and name no global rank; the report the reporter raised is its own exception (it waited), its call no op to
compare with the world's collectives. A rank a barrier names as never arriving that says in its own line that it reached
one and waited there is no culprit either (DETAIL's world check naming the pair peer that waited for the skipping rank).
A report whose reporter is the printing rank keeps naming (a world barrier; group {0, 1}, whose ranks are the global
ones) (docs/rules.md, "Session 33: thirty-fourth launcher set"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)
GLOO = "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp"
TIMEOUT = f"RuntimeError: [{GLOO}/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"


def _steps(ranks: list[int], n: int = 3) -> list[str]:
    return [f"rank {r} step {s} group loss 0.2330" for s in range(n) for r in ranks]


def _timeout(r: int, call: str = "all_reduce") -> list[str]:
    return [f"[rank{r}]: Traceback (most recent call last):",
            f'[rank{r}]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3012, in {call}',
            f"[rank{r}]:     work.wait()", f"[rank{r}]: {TIMEOUT}"]


def _failed(r: int, own: int, missing: str, stamp: str = "E1202 02:25:23.854405618") -> list[str]:
    msg = f"[Rank {own}]: {missing} failed to pass monitoredBarrier in 3000 ms"
    return [f"[rank{r}]:[{stamp} ProcessGroupGloo.cpp:67] {msg}", f"[rank{r}]: Traceback (most recent call last):",
            f'[rank{r}]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 4934, in monitored_barrier',
            f"[rank{r}]:     return group.monitored_barrier(timeout, wait_all_ranks=wait_all_ranks)",
            f"[rank{r}]: RuntimeError: {msg}", f"[rank{r}]:  Original exception: ",
            f"[rank{r}]: [{GLOO}/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"]


def _reached(r: int, own: int, peer: int) -> list[str]:
    msg = (f"Rank {own} successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank "
           f"{peer}. Please check rank {peer} logs for faulty rank.")
    return [f"[rank{r}]:[E1202 02:26:00.808780064 ProcessGroupGloo.cpp:67] {msg}", f"[rank{r}]: Traceback (most recent call last):",
            f'[rank{r}]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3012, in all_reduce',
            f"[rank{r}]:     work.wait()", f"[rank{r}]: RuntimeError: {msg}", f"[rank{r}]:  Original exception: ",
            f"[rank{r}]: [{GLOO}/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # pairs {0, 1}, {2, 3}: rank 3 never reaches its pair's barrier; rank 2 (group rank 0) names group rank 1, ranks 0
    # and 1 time out in the all-reduce over every rank; rank 3 says nothing
    "pair-barrier-group-ranks": (_steps([0, 1, 2, 3]) + _timeout(0) + _timeout(1) + _failed(2, 0, "Rank 1"), 3),
    # the same in 2.14.1's order (the pair's report first, the world's timeouts after it)
    "pair-barrier-group-ranks-report-first": (_steps([0, 1, 2, 3]) + _failed(2, 0, "Rank 1") + _timeout(1) + _timeout(0), 3),
    # DETAIL: rank 2 left its pair's all-reduce out; the world's check on rank 0 names rank 3, which reached its pair's
    # check (group rank 1, waiting for group rank 0 = rank 2); ranks 1 and 2 reached the world's check: no one is named
    "detail-skip-world-names-the-waiter": (_steps([0, 1, 2, 3]) + _reached(1, 1, 0) + _failed(0, 0, "Ranks 3")
                                           + _reached(2, 2, 0) + _reached(3, 1, 0), None),
    # contrasts: a world barrier, its reporter the printing rank, keeps naming the rank that never came ...
    "world-barrier-names-the-missing-rank": (_steps([0, 1, 2, 3]) + _failed(0, 0, "Rank 3") + _reached(1, 1, 0)
                                             + _reached(2, 2, 0), 3),
    # ... and so does group {0, 1}'s report on rank 0 (group rank 0 is global rank 0: nothing says the numbers differ)
    "first-pair-barrier-names-rank1": (_steps([0, 1, 2, 3]) + _failed(0, 0, "Rank 1") + _timeout(2) + _timeout(3), 1),
}
BATCHED = Batched("s33subgroup", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 2, NOW, world=4)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_sub_group_barrier_names_group_ranks_only(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
