"""Threads that settle one culprit after the fact (real incidents batch 170): the held control's wordings, pinned.
Iris (marin's TPU/GPU gang scheduler) records a coscheduled job's tasks after a cascade: the one task it marks
``TASK_STATE_FAILED`` exited by itself with JAX's ``Error received from peer {grpc_message:"Socket closed",
grpc_status:14}`` and its sibling is ``TASK_STATE_COSCHED_FAILED`` with ``Coscheduled sibling .../1 failed``
(marin-community/marin#5747: the self-exiting task is a victim of a gang member that went away first, which the
records do not show). Those records name no one: as pasted (the author's annotations and the wrapped ``error`` line
kept), without the blank line, with Iris's full task id instead of the elided one, and either task's record alone.
Contrast: JAX's coordination service listing the task whose heartbeats stopped (``The following tasks are unhealthy
(stopped sending heartbeats):`` then ``/job:jax_worker/replica:0/task:3``) still names task 3. The batch's two
culprits (marin-5572's Iris status ``TASK 0: failed exit=139``, marin-7956's author's timeline table naming rank 78)
are NOT_YET (tests/corpus_not_yet_s34.py); no rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
TASK0 = [
    "Task 0 (cascade-killed, post-#5638 path):",
    "  state            = 11  (TASK_STATE_COSCHED_FAILED)",
    "  preemption_count = 16",
    "  failure_count    = 0",
    "  exit_code        = 0",
    '  error            = "Coscheduled sibling .../1 failed"',
]
TASK1 = [
    "Task 1 (self-terminated → the proximate cause of job failure):",
    "  state            = 5   (TASK_STATE_FAILED)",
    "  preemption_count = 5",
    "  failure_count    = 1   ← exceeds max_retries_failure=0 → terminal",
    "  exit_code        = 1",
    "  error            = 'Exit code: 1. stderr: :UNKNOWN:Error received from",
    '                      peer {grpc_message:"Socket closed", grpc_status:14}\'',
]
FULL_ID = [
    x.replace(".../1", "/ryan/midtrain-1b-v5p32-shuf1k/train_lm/1") for x in TASK0
]
HEARTBEATS = [
    "E0805 06:06:23.007000 1 client.h:77] Terminating process because the JAX distributed service detected fatal "
    "errors. This most likely indicates that another task died; see the other task logs for more details. Disable "
    "Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The "
    "following tasks are unhealthy (stopped sending heartbeats):",
    "/job:jax_worker/replica:0/task:3",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # marin-5747's shape: the two Iris task records as pasted, without the blank line, with a full task id
    "iris-records": (TASK0 + [""] + TASK1, None, None, None),
    "iris-records-no-blank": (TASK0 + TASK1, None, None, None),
    "iris-records-full-task-id": (FULL_ID + [""] + TASK1, None, None, None),
    "iris-records-one-per-host": (TASK0 + [""] + TASK1, 1, 2, None),
    # either record alone: the cascade's reason naming task 1, task 1's own peer-loss exit
    "iris-cascade-record-alone": (TASK0, None, None, None),
    "iris-self-exit-record-alone": (TASK1, None, None, None),
    # contrast: the coordination service's own list of the task whose heartbeats stopped names it
    "jax-unhealthy-task3": (HEARTBEATS, 1, 8, 3),
}
BATCHED = Batched("b170", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_settled_culprits_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
