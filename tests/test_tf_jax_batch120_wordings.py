"""JAX's coordination service reporting that task 0's heartbeats stopped (real incidents batch 120, jax-ml/jax#23599):
the service runs in process 0 (``jax.distributed.initialize`` starts it there), so its report that task 0 missed
its heartbeats (``/job:jax_worker/replica:0/task:0 … heartbeat timeout``, or task 0 among the tasks ``unhealthy
(stopped sending heartbeats)``) was made by task 0's own process, alive to make it -- a slow initialisation or a
too-short timeout, never a failed, preempted or crashed task: no ``jax_task_error`` exit for task 0. Any other task's
heartbeat timeout, and task 0 set to ERROR for a reason of its own, stay that task's exit. Parser level (BodyAssembler,
no analysis): each wording variant a case.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
SVC = "2024-10-09 15:47:38.568412: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:1170] "
HB = (" has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:{t} heartbeat "
      "timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task "
      "logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']")
FATAL = ("F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected "
         "fatal errors. This most likely indicates that another task died; see the other task logs for more details. "
         "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):")


def _hb(task: int) -> str:
    return SVC + f"/job:jax_worker/replica:0/task:{task}" + HB.format(t=task)


def _ended(lines: list[str]) -> list[int]:
    return [e["rank"] for e in body_events(lines, NOW, prefiltered=False)
            if e["kind"] == "process_exit" and e.get("subkind") == "jax_task_error"]


@pytest.mark.parametrize(("lines", "want"), [
    # the service's own host: alive to print its own heartbeat timeout (the real line of jax-ml/jax#23599)
    ([_hb(0)], []),
    # the older wording without "has been set to ERROR"
    ([SVC + "/job:jax_worker/replica:0/task:0 heartbeat timeout."], []),
    # another task's heartbeat timeout: that task's exit (as architecture-objective-26's task 37)
    ([_hb(37)], [37]),
    # both in one paste: only the other task
    ([_hb(0), _hb(5)], [5]),
    # task 0 set to ERROR for a reason of its own (no heartbeat wording): its exit
    ([SVC + "/job:jax_worker/replica:0/task:0 has been set to ERROR in coordination service: INTERNAL: task crashed"], [0]),
    # the unhealthy list, one row per task: task 0 (the service's host) is not a task that ended
    ([FATAL, "/job:jax_worker/replica:0/task:0", "/job:jax_worker/replica:0/task:3"], [3]),
    ([FATAL, "/job:jax_worker/replica:0/task:0"], []),
    # the list inside the header's line (literal \n of a gRPC detail)
    ([FATAL + r"\n/job:jax_worker/replica:0/task:0\n/job:jax_worker/replica:0/task:6\n"], [6]),
])
def test_service_host_task0_heartbeats(lines, want):
    assert _ended(lines) == want
