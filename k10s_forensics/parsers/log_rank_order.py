"""Several node logs handed over in an order that is not the nodes': placed by the global ranks their own lines name.

A file's name or place in a list is how the tool that wrote it numbered it, not torchrun's node rank: srun's
``--output=%N-%t.out`` numbers its tasks in the allocation's host order, while torchrun's c10d rendezvous gives the
node ranks in the order the agents joined (and again at every round). A launcher's tag on a line (``[rank3]:``,
``[1,3]<stderr>:``) names the global rank of the process that wrote it, whatever file it is in, and torchrun's failure
table (``rank : 1 (local_rank: 1)``) the global ranks of its own node's workers; so where each log's tagged lines and
table entries all fall on one node (global rank // processes per node) and no two logs claim the same node, the logs
are placed at those nodes, the ones naming no rank in the nodes left, in the order given. Anything else — a log whose
ranks span several nodes (rounds that reassigned them), two logs claiming one node, a node past the logs given —
keeps the order given: the tagged lines still name their own ranks there.
"""

from __future__ import annotations

from typing import Protocol

from k10s_forensics.parsers.log_agents import table_entries


class _Log(Protocol):
    @property
    def line_ranks(self) -> list[int | None]: ...

    @property
    def text(self) -> str: ...


#: the layout hint (``nodes``) when the logs were placed by their lines' ranks rather than the order given
BY_RANK_LINES = "logs placed at the nodes their lines' global ranks name (not the order given)"


def tagged_node(log: _Log, nproc: int) -> int | None | bool:
    """The one node ``log``'s tagged lines and failure-table entries name; None when none names a rank; False when they
    name several."""
    ranks = [r for r in log.line_ranks if r is not None] + [r for r, _ in table_entries(log.text)]
    nodes = {r // nproc for r in ranks if r >= 0}
    if not nodes:
        return None
    return nodes.pop() if len(nodes) == 1 else False


def rank_order(logs: list, nproc: int) -> list[int] | None:
    """The order (indices into ``logs``) that puts each log at the node its tagged lines name; None when the order given
    stands (it already does, or the lines do not place every tagged log on a node of its own among those given)."""
    if len(logs) < 2 or nproc < 1:
        return None
    placed: dict[int, int] = {}
    for i, log in enumerate(logs):
        node = tagged_node(log, nproc)
        if node is False or (node is not None and (node >= len(logs) or node in placed)):
            return None
        if node is not None:
            placed[node] = i
    if not placed:
        return None
    rest = iter(i for i in range(len(logs)) if i not in placed.values())
    order = [placed[n] if n in placed else next(rest) for n in range(len(logs))]
    return None if order == list(range(len(logs))) else order


__all__ = ["BY_RANK_LINES", "rank_order", "tagged_node"]
