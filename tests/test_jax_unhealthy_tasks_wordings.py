"""JAX's coordination service when a task's heartbeats stopped (real incidents batch 64): a surviving process's
``client.h`` terminates it with ``Terminating process because the JAX distributed service detected fatal errors. …
The following tasks are unhealthy (stopped sending heartbeats):``, then one ``/job:jax_worker/replica:0/task:N`` row
per task whose heartbeats stopped -- that task's process ended (how is not said: ``jax_task_error``, as the older
``… task:N heartbeat timeout`` wording). Parser level (BodyAssembler, no analysis): each wording variant a case.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
FATAL = ("F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected "
         "fatal errors. This most likely indicates that another task died; see the other task logs for more details. "
         "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):")
AFTER = "The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further."


def _ended(lines: list[str]) -> list[tuple]:
    return [(e["rank"], e.get("reporter_rank")) for e in body_events(lines, NOW, prefiltered=False)
            if e["kind"] == "process_exit" and e.get("subkind") == "jax_task_error"]


def _rows(*tasks: int, tag: str = "") -> list[str]:
    return [f"{tag}/job:jax_worker/replica:0/task:{t}" for t in tasks]


@pytest.mark.parametrize(("lines", "want"), [
    # one task, then the service's advice and the RPC line
    ([FATAL, *_rows(3), AFTER, "", "RPC: /tensorflow.CoordinationService/PollForError"], [(3, None)]),
    # several tasks (a node's processes): each its own exit, in the list's order
    ([FATAL, *_rows(12, 9, 15), AFTER], [(12, None), (9, None), (15, None)]),
    # the header alone on its line (a shorter paste), the rows below it
    (["absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):", *_rows(2)], [(2, None)]),
    # the printing process's launcher tag: the reporter, not a task that stopped
    ([f"[rank2]: {FATAL}", *_rows(1, tag="[rank2]: ")], [(1, 2)]),
    # the list kept inside the header's line (literal \n of a gRPC detail)
    ([FATAL + r"\n/job:jax_worker/replica:0/task:5\n/job:jax_worker/replica:0/task:6\n"], [(5, None), (6, None)]),
])
def test_tasks_whose_heartbeats_stopped(lines, want):
    assert _ended(lines) == want


@pytest.mark.parametrize("lines", [
    # the leader gone: the survivor cannot reach the service, no task is named
    ["F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX distributed service detected fatal "
     "errors. … absl::Status: UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was "
     "preempted/died/restarted unexpectedly or this task is experiencing network issues.", *_rows(0)],
    # a header whose list is cut: nothing below it
    [FATAL, "", "Traceback (most recent call last):"],
    # a row too far below its header
    [FATAL, *(["I0926 trainer.py:501] Training: step 198"] * 4), *_rows(4)],
])
def test_no_task_is_named_without_its_list(lines):
    assert _ended(lines) == []
