"""Ray's dead-actor report in one log body (``ActorDiedError: The actor died ...``), for ``log_lines.BodyAssembler``:
its ``name:`` field within ``RAY_GAP`` lines (a paste cut inside the report: above its closing ``The actor is dead
because ...``), a verl worker-group actor ``<prefix><Class>_0:<rank>`` of the first placement group, gives a
``process_exit`` (subkind ``ray_actor_died``, exit status unknown) of that rank; in another group the rank is unknown
and nothing is said. Ray Train V2's controller prints the failed worker's ``distributed_context=DistributedContext(
world_rank=N, …)`` right above the report (``A worker health check failed.``): the report is rank N's, and its cause
line says how it ended: its node died (``ray_node_died``: the node drained, preempted or lost, no exit status) or its
worker process died with exit type ``SYSTEM_ERROR`` / ``NODE_OUT_OF_MEMORY`` (``ray_worker_died``: killed from outside)."""

from __future__ import annotations

from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_classify import Event, with_context
from k10s_forensics.parsers.log_normalize import Normalized
from k10s_forensics.parsers.log_ray_workers import RAY_WORKER_DIED

RAY_GAP = 8
CONTEXT_GAP = 6  # a Ray Train V2 worker's repr: its ``distributed_context=`` field, ``log_file_path=``, ``)``, then the report


class RayActorReports:
    """The dead-actor reports of one log body, line by line."""

    def __init__(self) -> None:
        self._died: int | None = None  # line of Ray's last "ActorDiedError: The actor died"
        self._report: int | None = None  # the same, kept after its name field was read
        self._tail: tuple[int, str, Any] | None = None  # a name field with no report head above it (line, text, match)
        self._context: tuple[int, int] | None = None  # a Ray Train V2 worker's world rank above a report (line, rank)
        self._ranked: tuple[int, Event] | None = None  # the event of a report that context named (its line, the event)

    def row(self, line_no: int, text: str) -> list[Event]:
        """Ray's dead-actor report: remembered; its ``name:`` field, a verl worker of group 0, names the rank (with no
        report head above it, once the report's closing ``The actor is dead because …`` follows within ``RAY_GAP``)."""
        if P.RAY_ACTOR_DIED.search(text):
            self._died = self._report = line_no
            self._tail = None
            return self._context_event(line_no, text)
        if self._ranked is not None and line_no - self._ranked[0] <= RAY_GAP and self._cause(text):
            return []
        m = P.RAY_V2_CONTEXT.search(text) if "DistributedContext(" in text else None
        if m is not None:
            self._context = (line_no, int(m.group(1)))
            return []
        if self._tail is not None and line_no - self._tail[0] <= RAY_GAP and P.RAY_ACTOR_DEAD_BECAUSE.search(text):
            (_, name_text, m), self._tail = self._tail, None
            self._report = line_no  # the rankless worker death on this line is the named actor's
            return _actor_event(name_text, m)
        m = P.RAY_ACTOR_NAME.match(text)
        if m is None:
            return []
        if self._died is None or line_no - self._died > RAY_GAP:
            self._tail = (line_no, text, m)  # no report head above it: its closing sentence must follow
            return []
        self._died = None
        return _actor_event(text, m)

    def _context_event(self, line_no: int, text: str) -> list[Event]:
        """A report right under a Ray Train V2 worker's world rank: that rank's death, how unknown until its cause line."""
        if self._context is None or line_no - self._context[0] > CONTEXT_GAP:
            return []
        rank, self._context = self._context[1], None
        event = {"kind": "process_exit", "subkind": "ray_actor_died", "rank": rank, "exit_code": None,
                 "error_message": f"Ray Train's worker of world rank {rank} died"}
        events = with_context(text, [event], Normalized(text))
        self._ranked = (line_no, events[0])
        return events

    def _cause(self, text: str) -> bool:
        """The ranked report's cause line: its node died, or its worker process was killed from outside."""
        event = self._ranked[1]
        if P.RAY_NODE_DIED.search(text):
            event.update(subkind="ray_node_died", error_message=event["error_message"] + " with its node (drained, preempted or lost)")
        elif "Worker exit type: " in text and (m := RAY_WORKER_DIED.search(text)) is not None:
            event.update(subkind="ray_worker_died",
                         error_message=event["error_message"] + f": its worker process died without raising (exit type {m.group(1)})")
        else:
            return False
        self._ranked = None
        return True

    def inside(self, line_no: int) -> bool:
        """The line is within a dead-actor report: a rankless worker death on it is the named actor's (``row``)."""
        return self._report is not None and line_no - self._report <= RAY_GAP


def _actor_event(text: str, m: Any) -> list[Event]:
    if m.group(2) != "0":
        return []  # another placement group: its first rank is not known from the line
    event = {"kind": "process_exit", "subkind": "ray_actor_died", "rank": int(m.group(3)), "exit_code": None,
             "error_message": "Ray actor " + m.group("name") + " died"}
    return with_context(text, [event], Normalized(text))
