"""Ray's dead-actor report in one log body (``ActorDiedError: The actor died ...``), for ``log_lines.BodyAssembler``:
its ``name:`` field within ``RAY_GAP`` lines (a paste cut inside the report: above its closing ``The actor is dead
because ...``), a verl worker-group actor ``<prefix><Class>_0:<rank>`` of the first placement group, gives a
``process_exit`` (subkind ``ray_actor_died``, exit status unknown) of that rank; in another group the rank is unknown
and nothing is said."""

from __future__ import annotations

from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_classify import Event, with_context
from k10s_forensics.parsers.log_normalize import Normalized

RAY_GAP = 8


class RayActorReports:
    """The dead-actor reports of one log body, line by line."""

    def __init__(self) -> None:
        self._died: int | None = None  # line of Ray's last "ActorDiedError: The actor died"
        self._report: int | None = None  # the same, kept after its name field was read
        self._tail: tuple[int, str, Any] | None = None  # a name field with no report head above it (line, text, match)

    def row(self, line_no: int, text: str) -> list[Event]:
        """Ray's dead-actor report: remembered; its ``name:`` field, a verl worker of group 0, names the rank (with no
        report head above it, once the report's closing ``The actor is dead because …`` follows within ``RAY_GAP``)."""
        if P.RAY_ACTOR_DIED.search(text):
            self._died = self._report = line_no
            self._tail = None
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

    def inside(self, line_no: int) -> bool:
        """The line is within a dead-actor report: a rankless worker death on it is the named actor's (``row``)."""
        return self._report is not None and line_no - self._report <= RAY_GAP


def _actor_event(text: str, m: Any) -> list[Event]:
    if m.group(2) != "0":
        return []  # another placement group: its first rank is not known from the line
    event = {"kind": "process_exit", "subkind": "ray_actor_died", "rank": int(m.group(3)), "exit_code": None,
             "error_message": "Ray actor " + m.group("name") + " died"}
    return with_context(text, [event], Normalized(text))
