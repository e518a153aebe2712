"""The coordination service of JAX and TensorFlow on a barrier that timed out (batch 45 of the real
incidents): ``Barrier timed out. Barrier_id: X. Timed out task names:``, then one
``/job:jax_worker/replica:0/task:N`` row per task that never reached the barrier -- the tasks (ranks)
that never joined. Parser level (BodyAssembler, no analysis): each wording variant a case.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
JAXLIB = "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: {b}. Timed out task names:"
GRPC = ('''"grpc_message":"Barrier timed out. Barrier_id: multihost_broadcast_sync0. Timed out task names:'''
        r'''\n/job:jax_worker/replica:0/task:3\n/job:jax_worker/replica:0/task:0\n","grpc_status":4}''')


def _missing(lines: list[str]) -> list[tuple]:
    return [(e["rank"], e.get("reporter_rank")) for e in body_events(lines, NOW, prefiltered=False) if e.get("subkind") == "barrier_missing"]


def _rows(*tasks: int, job: str = "jax_worker", tag: str = "") -> list[str]:
    return [f"{tag}/job:{job}/replica:0/task:{t}" for t in tasks]


@pytest.mark.parametrize(("lines", "want"), [
    # jax.distributed.initialize: the client's connect barrier, tasks listed out of order
    ([JAXLIB.format(b="PjRT_Client_Connect"), *_rows(1, 6, 3)], [(1, None), (6, None), (3, None)]),
    # a user barrier (levanter's multihost_broadcast_sync), then a blank line and the gRPC detail
    ([JAXLIB.format(b="multihost_broadcast_sync0"), *_rows(3, 0), "", "Additional GRPC error information from remote target"],
     [(3, None), (0, None)]),
    # TensorFlow's own job name
    ([JAXLIB.replace("jaxlib.xla_extension.XlaRuntimeError", "tensorflow.python.framework.errors_impl.DeadlineExceededError").format(b="b1"),
      *_rows(2, job="worker")], [(2, None)]),
    # the newer wording: the first task at the barrier reached it, only the rows below are missing
    (["The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:", *_rows(5)], [(5, None)]),
    # the printing process's launcher tag: the reporter, not a missing task
    ([f"[rank2]: {JAXLIB.format(b='x')}", *_rows(1, tag="[rank2]: ")], [(1, 2)]),
    # the list kept inside one line (gRPC detail, literal \n): the same tasks
    ([":{" + GRPC], [(3, None), (0, None)]),
])
def test_tasks_that_never_reached_the_barrier(lines, want):
    assert _missing(lines) == want


@pytest.mark.parametrize("lines", [
    # a task row with no header above it (the heartbeat wording has its own reading)
    _rows(3),
    # a row too far below its header: lines of something else in between
    [JAXLIB.format(b="x"), *(["I1115 trainer.py:501] Training: step 198"] * 4), *_rows(4)],
    # a header whose list is cut: nothing below it
    [JAXLIB.format(b="x"), "", "Traceback (most recent call last):"],
    # the registration barrier's wording names no task
    ["Original error: DEADLINE_EXCEEDED: Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0. This usually happens because "
     "a task triggered the barrier too early or too slowly."],
])
def test_no_task_is_named_without_its_list(lines):
    assert _missing(lines) == []


def test_the_header_keeps_the_printers_own_exception():
    lines = [JAXLIB.format(b="PjRT_Client_Connect"), *_rows(1)]
    kinds = [(e["kind"], e.get("subkind")) for e in body_events(lines, NOW, prefiltered=False)]
    assert ("nccl_desync", "barrier_missing") in kinds and any(k == "python_exception" for k, _ in kinds)
