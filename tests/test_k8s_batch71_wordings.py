"""Batch 71's shape (tests/data/real-incidents, ``"batch": 71``: Kubernetes-side pastes), with its variants:

* Ray's dead-actor report pasted from inside (its ``ray.exceptions.ActorDiedError: The actor died …`` line left out,
  the paste beginning at the ``actor_id:``/``pid:``/``name:`` fields): a verl worker-group actor's ``name:`` field
  (``ra0GdtWorkerDict_0:1``) names the rank once the report's closing sentence, ``The actor is dead because …``,
  follows it within ``RAY_GAP`` lines; a name field with no closing sentence after it, one of another placement group,
  or one too far above it names no one.

The as-collected misses are in docs/rules.md, "Session 25: batch 71". Parser calls only (the prefilter included).
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events
from k10s_forensics.parsers.log_ray_actor import RAY_GAP

NOW = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.timezone.utc)
WORKER_DIED = ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
               "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. "
               "(1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. "
               "(3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
NODE_DIED = "The actor is dead because its node has died. Node Id: 677df2a9020c5db45e755b0078c469e2ce51e05ea093ed3b283505a0"


def _events(lines: list[str]) -> list[dict]:
    return body_events(lines, NOW)


def _report_tail(prefix: str, name: str, closing: str, between: int = 0) -> list[str]:
    """The report's fields from ``actor_id:`` on (its head line cut off), then its closing sentence."""
    return ([prefix + "      actor_id: 1bc865d7417ba6d5182635e30a000000", prefix + "      pid: 132182",
             prefix + "      name: " + name, prefix + "      namespace: 31d1e1ed-4eeb-4a83-b235-4847d56a68c7",
             prefix + "      ip: 172.16.2.252"] + [prefix + "step %d" % i for i in range(between)] + [prefix + closing])


def _died(events: list[dict]) -> list[tuple]:
    return [(e["rank"], e["error_message"]) for e in events if e.get("subkind") == "ray_actor_died"]


@pytest.mark.parametrize(("prefix", "closing"), [
    ("(FullyAsyncTaskRunner pid=130397) ", WORKER_DIED),  # verl-3987: the driver's prefix on every field
    ("", WORKER_DIED),
    ("(TaskRunner pid=892962) ", NODE_DIED),  # the actor's node lost
    ("\t", NODE_DIED),
])
def test_a_report_cut_above_its_fields_names_the_rank_by_its_closing_sentence(prefix, closing):
    events = _events(_report_tail(prefix, "ra0GdtWorkerDict_0:1", closing))
    assert _died(events) == [(1, "Ray actor ra0GdtWorkerDict_0:1 died")]
    # the closing sentence's own worker death is the named actor's, not a second one with no rank
    assert not [e for e in events if e.get("subkind") == "ray_worker_died" and e.get("rank") is None]


def test_the_whole_report_names_the_rank_once():
    lines = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."]
    lines += _report_tail("\t", "5xLRFRWorkerDict_0:5", WORKER_DIED)
    assert _died(_events(lines)) == [(5, "Ray actor 5xLRFRWorkerDict_0:5 died")]


@pytest.mark.parametrize("lines", [
    _report_tail("(TaskRunner pid=1) ", "ra0GdtWorkerDict_1:1", WORKER_DIED),  # another placement group
    _report_tail("(TaskRunner pid=1) ", "ra0GdtWorkerDict_0:1", "ip: 172.16.2.252"),  # no closing sentence
    _report_tail("", "ra0GdtWorkerDict_0:1", WORKER_DIED, between=RAY_GAP),  # the sentence too far below the field
])
def test_other_name_fields_name_no_one(lines):
    assert _died(_events(lines)) == []
