"""Each node's own process count, for ``k10s import-logs`` given one log per node.

torchrun lets the nodes of one job run different process counts (``--nproc-per-node 2`` on node 0, ``3`` on node 1:
global ranks 0-1 on node 0, 2-4 on node 1). The importer's layout has one count for every node, so a line tagged with
a local rank only (``[default1]:``, as torch before 2.2 prints its tee prefix) on node 1 would be read as rank
``1 x 3 + 1 = 4``. Each node's log says more:

* its agent's count: ``local_world_size=3`` (its worker group's spec), torchrun's ``--nproc-per-node 3`` in its command;
* its first global rank: a failure table's ``rank : 3 (local_rank: 1)`` and torch's ``[default1]:[rank3]:`` are global
  rank and local rank of one process, so the node's first rank is ``3 - 1 = 2``; two nodes' first ranks give the count
  of the nodes between them (node 0's first rank is 0).

``node_nproc(texts, nproc)`` returns the count of each node (the layout's for a last node its log does not state), or
``None`` where nothing changes: every node's first rank is already ``node x nproc`` (uniform, or nothing said). A node whose
first rank the log contradicts while the counts below it are unknown, and every node above it, gets ``None`` in the list:
its local ranks then name no global rank (``ranks`` skips its pod), rather than a wrong one.
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_agents import _TEE_RANK, table_entries

_STATED = re.compile(r"(?:\blocal_world_size[=:] ?|--nproc[_-]per[_-]node[= ])(\d{1,4})\b")


def _stated(text: str) -> int | None:
    """The one process count a node's log states (None: none, or two different ones)."""
    found = {int(m.group(1)) for m in _STATED.finditer(text)} if ("local_world_size" in text or "nproc" in text) else set()
    return found.pop() if len(found) == 1 and min(found) > 0 else None


def _first_rank(text: str) -> tuple[int | None, int, bool]:
    """(the node's first global rank its global/local pairs give, its highest local rank, whether the pairs disagree)."""
    pairs = set(table_entries(text))
    if "[default" in text:
        tees = (_TEE_RANK.match(line) for line in text.splitlines() if "[default" in line)
        pairs |= {(int(m.group(2)), int(m.group(1))) for m in tees if m}
    firsts = {g - loc for g, loc in pairs}
    top = max((loc for _, loc in pairs), default=-1)
    return (firsts.pop() if len(firsts) == 1 else None), top, len(firsts) > 1


def node_nproc(texts: list[str], nproc: int) -> list[int | None] | None:
    """Each node's process count (see the module doc); None: the uniform layout stands."""
    n = len(texts)
    if n < 2 or nproc < 1:
        return None
    stated = [_stated(t) for t in texts]
    read = [_first_rank(t) for t in texts]
    if any(bad for _, _, bad in read):
        return None  # pairs of one node that disagree: nothing to read a first rank from
    firsts: list[int | None] = [f for f, _, _ in read]
    if firsts[0] not in (None, 0):
        return None  # the logs are not in node order: not this reading's to fix
    firsts[0] = 0
    counts: list[int | None] = list(stated)
    for i in range(n - 1):  # a count from two first ranks, a first rank from a count
        nxt = firsts[i + 1]
        if counts[i] is None and firsts[i] is not None and nxt is not None:
            counts[i] = nxt - firsts[i]
        if firsts[i] is not None and counts[i] is not None:
            if nxt is not None and nxt != firsts[i] + counts[i]:
                return None  # the log contradicts itself: leave the layout as it was
            firsts[i + 1] = firsts[i] + counts[i]
    if any(c is not None and c <= top for c, (_, top, _) in zip(counts, read)):
        return None
    if counts[-1] is None:
        counts[-1] = max(nproc, read[-1][1] + 1)
    if all(f == i * nproc for i, f in enumerate(firsts)) or (None not in counts and len(set(counts)) == 1):
        return None  # node x nproc already gives every node's first rank, or every node runs as many: uniform
    known = next((i for i, f in enumerate(firsts) if f is None), n)
    if known < n and all(f is None or f == i * nproc for i, f in enumerate(firsts)):
        return None  # nothing contradicts the uniform layout
    return [(nproc if c is None else c) if i < known else None for i, c in enumerate(counts)]


__all__ = ["node_nproc"]
