"""HCCL's (Ascend) root-info topology exchange naming the ranks that never connected (session 37, batch 211's EI0015).

At ``HcclCommInitRootInfo`` the root rank's server thread waits ``HCCL_CONNECT_TIMEOUT`` for every rank of the
communicator to connect; when some never do it says which, in two ways:

* explicitly: the server's ``Broadcast Rank Basic Infos failed，connectFailedAgentIdList[10,17,40,]`` and the agents'
  ``TopoDetect ERROR occur !!! fault_type[1], fault_info["Failed to connect agent[1,3,5,7,]"]`` (the list the server
  broadcast): each rank listed never joined;
* as the ranks that did: ``total connected num is [4],line num is [1]``, ``need connect rankNum is [8]`` (CANN 8.x;
  older versions print no world), then ``connected rankinfo[LINE 0]: [0000000000000000],[0000000000000002],…;`` (eight
  zero-padded ids a row, ``[RankInfoDetectService::DisplayConnectedRanks] connected rankinfo[LINE i]: …`` in newer
  sources). The ranks of the world the rows do not list never joined, read only when the world is stated and the rows
  list exactly as many ids as the count says (every row seen: a paste that elides rows with ``... ...`` says nothing).

Each never-joined rank is an ``nccl_desync`` event (subkind ``hccl_unconnected``), as a desync report's laggards: the
numbers are the communicator's ranks (a sub-group's are group ranks). A page may run a process's lines together on one
line: every record of a line is read, keyed by the ``HCCL(pid,`` of the process printing it. An empty list, or every
rank connected, names no one.
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_classify import Event, classify, with_context
from k10s_forensics.parsers.log_normalize import Normalized

#: an explicit list of the ranks that never connected (the agents', the server's), trailing comma and all (each number
#: closed by a comma or the bracket: no two ways to split a run of digits)
FAILED_LIST = re.compile(
    r"(?:Failed to connect agent|connectFailedAgentIdList)\[((?:\d{1,7},){0,65536}\d{0,7})\]"
)
CONNECTED_COUNT = re.compile(r"total connected num is \[(\d{1,7})\]")
WORLD = re.compile(r"need connect rankNum is \[(\d{1,7})\]")
CONNECTED_ROW = re.compile(
    r"connected rankinfo\[LINE (\d{1,7})\]: ?((?:\[\d{1,16}\][,;]?\s?){1,64})"
)
_ID = re.compile(r"\[(\d{1,16})\]")
_PID = re.compile(r"\bHCCL\((\d{1,10}),")
#: what a line must hold to be read here at all (a cheap test before the regexes)
MARKERS = (
    "onnect agent",
    "connectFailedAgentIdList",
    "total connected num",
    "need connect rankNum",
    "connected rankinfo",
)
MAX_WORLD = 65536


class HcclTopo:
    """Per printing process (its ``HCCL(pid,``): the connected count, the world, and the connected ids seen."""

    def __init__(self) -> None:
        self._servers: dict[str | None, dict] = {}

    def row(self, text: str, norm: Normalized) -> list[Event]:
        """The never-joined ranks a line completes (its own events first), else []."""
        if not any(m in norm.text for m in MARKERS):
            return []
        ranks: list[int] = []
        for m in FAILED_LIST.finditer(norm.text):
            ranks += [int(r) for r in m.group(1).split(",") if r]
        ranks += self._server(norm.text)
        if not ranks:
            return []
        events: list[Event] = [
            {
                "kind": "nccl_desync",
                "rank": r,
                "subkind": "hccl_unconnected",
                "error_message": "HCCL's topology exchange: rank never connected to the root's server",
            }
            for r in dict.fromkeys(ranks)
        ]
        return (classify(text, norm) or []) + with_context(text, events, norm)

    def _server(self, text: str) -> list[int]:
        """The server's records of the line, in order; the ranks of its world it never saw, once its rows are all read."""
        marks = sorted(
            [(m.start(), "count", m) for m in CONNECTED_COUNT.finditer(text)]
            + [(m.start(), "world", m) for m in WORLD.finditer(text)]
            + [(m.start(), "row", m) for m in CONNECTED_ROW.finditer(text)],
            key=lambda t: t[0],
        )
        pids = [(m.start(), m.group(1)) for m in _PID.finditer(text)]
        out: list[int] = []
        for at, what, m in marks:
            pid = next((p for s, p in reversed(pids) if s < at), None)
            state = self._servers.setdefault(
                pid, {"count": None, "world": None, "ids": set(), "done": False}
            )
            if what == "count":
                state.update(count=int(m.group(1)), ids=set(), done=False)
            elif what == "world":
                state["world"] = int(m.group(1))
            else:
                state["ids"].update(int(i) for i in _ID.findall(m.group(2)))
            count, world, ids = state["count"], state["world"], state["ids"]
            if (
                not state["done"]
                and count is not None
                and world is not None
                and len(ids) == count
                and count < world <= MAX_WORLD
                and all(i < world for i in ids)
            ):
                state["done"] = True
                out += [r for r in range(world) if r not in ids]
        return out


__all__ = ["CONNECTED_COUNT", "CONNECTED_ROW", "FAILED_LIST", "HcclTopo", "WORLD"]
