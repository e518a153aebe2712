"""mp.spawn's ``-- Process N terminated with the following error:`` (and ``process N terminated with signal …``) on a
node the log itself places (docs/rules.md, "Session 63: mp.spawn's Process N on a stated node").

``N`` is mp.spawn's LOCAL process index. A body that states its node's rank (``node_rank=1``, ``NODE_RANK=1``,
``--node_rank 1``, ``--node-rank=1``: one value only) and its processes per node (``nprocs=4``, ``--nproc_per_node 4``,
``local_world_size=4``, ``LOCAL_WORLD_SIZE=4``: one value only) gives the process's global rank ``node_rank x nprocs +
N``. A body that states a non-zero node rank but no count names no global rank for it: the spawn's index is then
read as no rank (the failure said with none), never as global rank N. Where the body states no node rank, the
reading stays as before (the paste read as one node, ``Process N`` as its rank: tests/test_spawn_process_local_index.py).
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: a node's rank as a launcher's flag, an argparse echo or the environment states it
NODE_RANK_STATED = re.compile(r"(?:\bnode_rank|\bNODE_RANK|--node[_-]rank)[\"']?\s{0,3}[=: ]\s{0,3}[\"']?(\d{1,5})\b")
#: the processes of one node, as mp.spawn's call, a launcher's flag or the environment states them
NPROCS_STATED = re.compile(r"(?:\bnprocs\s{0,3}=\s{0,3}|--nproc[_-]per[_-]node[= ]|\b(?:local_world_size|LOCAL_WORLD_SIZE)[\"']?\s{0,3}[=:]\s{0,3}[\"']?)(\d{1,4})\b")
#: the words (RE2, log_prefilter) that make a line carrying either a candidate
PREFILTER = r"node_rank|NODE_RANK|--node[_-]rank|nprocs ?=|--nproc[_-]per[_-]node|local_world_size|LOCAL_WORLD_SIZE"


class SpawnNode:
    """The node rank and process count one log body states, and the spawn events they place."""

    def __init__(self) -> None:
        self.node_ranks: set[int] = set()
        self.nprocs: set[int] = set()

    def feed(self, text: str) -> None:
        if "ode_rank" in text or "NODE_RANK" in text or "ode-rank" in text:
            self.node_ranks |= {int(m.group(1)) for m in NODE_RANK_STATED.finditer(text)}
        if "nproc" in text or "ocal_world_size" in text or "LOCAL_WORLD_SIZE" in text:
            self.nprocs |= {int(m.group(1)) for m in NPROCS_STATED.finditer(text) if int(m.group(1)) > 0}

    def place(self, events: list[Event]) -> list[Event]:
        """``events`` with each spawn-indexed one (``_spawn_local``) given its global rank where the body states its
        node; its local index dropped where the body places it on a non-zero node of no stated size."""
        node = next(iter(self.node_ranks)) if len(self.node_ranks) == 1 else None
        nprocs = next(iter(self.nprocs)) if len(self.nprocs) == 1 else None
        if node is None:
            return events
        for ev in events:
            local = ev.get("local_rank")
            if not ev.get("_spawn_local") or ev.get("rank") is not None or local is None:
                continue
            if nprocs is not None and local < nprocs:
                ev["rank"] = node * nprocs + local
            elif node > 0:
                ev["local_rank"] = None  # a non-zero node of no stated size: no global rank to say
        return events


__all__ = ["NODE_RANK_STATED", "NPROCS_STATED", "PREFILTER", "SpawnNode"]
