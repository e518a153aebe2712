"""One rank on a code path of its own, settled by the thread (real incidents batch 225), pinned as read. Misses, left
NOT_YET: audiolm-pytorch's trainer under accelerate on eight GPUs whose author printed each process's step and device
before and after ``wait_for_everyone`` (``499: device cuda:4 arrived at 2``, ``498: device cuda:0 arrived 3``;
lucidrains/audiolm-pytorch#210: the main process, cuda:0, one wait behind and never past the last one) names no one:
an ad-hoc print, a device index and no rank, laid out on one node of eight too; ElasticDL's worker 1 timing out in
FTLib's ``dist.barrier()`` on a gloo ``Timed out waiting 60000ms for recv operation to complete``
(sql-machine-learning/elasticdl#1895: worker 0 had no tasks left and never entered the barrier) names no one: the
timeout names no peer, and worker 0's own ``No tasks for now, maybe more later`` lines name no one either. Contrast
that names: the same barrier as a gloo ``monitored_barrier`` whose root prints ``[Rank 0]: Rank 1 failed to pass
monitoredBarrier in 60000 ms`` names rank 1, never-joined (the peer the log itself names). No rule changed for the
batch (measure only). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)

WAIT_PRINTS = corpus_lines("audiolm-pytorch-210-")
BARRIER_RECV = corpus_lines("elasticdl-1895-")
#: worker 0's own paste in the same comment of elasticdl#1895 (the culprit's console: waiting for work, no collective)
NO_TASKS = [
    "[2020-07-15 06:29:15,255] [INFO] [task_data_service.py:220:_gen] No tasks for now, maybe more later",
    "[2020-07-15 06:29:20,302] [INFO] [task_data_service.py:220:_gen] No tasks for now, maybe more later",
    "[2020-07-15 06:29:25,349] [INFO] [task_data_service.py:220:_gen] No tasks for now, maybe more later",
]
#: the same barrier as a gloo monitored barrier, whose root names the peer that did not arrive
MONITORED = [
    "[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 1 failed to pass monitoredBarrier in 60000 ms",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.6/dist-packages/ftlib/commlib/pytorch/impl.py", line 72, in barrier',
    "    dist.monitored_barrier()",
    "RuntimeError: [Rank 0]: Rank 1 failed to pass monitoredBarrier in 60000 ms",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # misses as read (NOT_YET)
    "wait-prints-as-pasted-miss": (WAIT_PRINTS, None, None, None, None),
    "wait-prints-layout-8-miss": (WAIT_PRINTS, 8, 8, None, None),
    "barrier-recv-timeout-as-pasted-miss": (BARRIER_RECV, None, None, None, None),
    "barrier-recv-timeout-pods-of-1-miss": (BARRIER_RECV, 1, 2, None, None),
    # the culprit's own console names no one
    "no-tasks-worker0-pods-of-1": (NO_TASKS, 1, 2, None, None),
    # contrast that names: the peer named by the log itself
    "monitored-barrier-names-rank1": (MONITORED, 1, 2, 1, "never-joined"),
}
BATCHED = Batched("b225", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_rank_code_path_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
