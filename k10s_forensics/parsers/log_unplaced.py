"""Ranks a log names that nothing places on nodes (``k10s import-logs``, k10s_forensics/logimport.py).

A log that names a high rank (Cray MPICH's ``MPICH ERROR [Rank 1534] … [nid001192]``, a watchdog's ``[Rank 2047]``)
but neither how many processes a node ran nor how many ranks the job had cannot be laid out: one node holding
every rank up to it (1535 processes on one node) is no guess the importer makes (``MAX_GUESSED_NPROC``), and any
other split is as much a guess. The ranks the log names are still facts, and so is what it says of them: each named
rank becomes a pod of its own, whose one process has that rank and whose node is unknown (the pod is on no node;
``ranks.rank_source`` = ``UNPLACED``, its node ``---``), so the analysis can name the rank a line names and no rank
the log does not. The command and the manifest say so (``NOTE``); ``--nproc-per-node`` (and ``--world-size``) read the
log as before.

A line goes to the pod of the rank its own prefix names; a line with none stays with the line before it (the first
pod's until a tagged line comes), as ``log_layout.route_lines`` routes them. A pod of one process here is no proof that
its untagged lines are that rank's (they are where the paste put them): a line is charged to a rank only where it names
one (``queries/_views.sql``, as for an ``assumed`` pod).
"""

from __future__ import annotations

from k10s_forensics.parsers.log_layout import WORLD_DERIVED, Layout, LogSource
from k10s_forensics.parsers.log_rank_mentions import named_ranks

#: ``ranks.rank_source`` (and the importer's layout label) of a rank the log named but placed on no node
UNPLACED = "named-ranks"
#: what the command prints and the manifest's layout keeps for such a log
NOTE = ("the log names ranks but not how many processes each node ran: each rank it names is a pod of its own, on "
        "an unknown node (---); pass --nproc-per-node (and --world-size) to place them")


def ranks_named(sources: list[LogSource]) -> list[int]:
    """Every rank the sources' lines name, by a prefix or in torch's, NCCL's and MPI's own words, ascending."""
    seen = {r for s in sources for r in s.line_ranks if r is not None}
    seen |= {r for s in sources for r in named_ranks(s.text)}
    return sorted(seen)


def unplaced_layout(layout: Layout, sources: list[LogSource]) -> Layout:
    """``layout`` (whose guess put every rank on one node) as one pod per named rank, one process each, node unknown.
    The world size is what an option or a line stated, else at least the highest rank named + 1."""
    ranks = ranks_named(sources)
    world = max(layout.world_size, ranks[-1] + 1) if ranks else layout.world_size
    hints = dict(layout.hints, nproc_per_node="nothing (unknown: each rank the log names is a pod of its own)",
                 nodes="nothing (unknown: the pods are on no node)", placement=NOTE)
    if hints.get("world_size") == WORLD_DERIVED:
        hints["world_size"] = "the highest rank named + 1 (at least)"
    return Layout(nproc_per_node=1, nodes=len(ranks), world_size=world, hints=hints, repairs=layout.repairs,
                  job=layout.job, namespace=layout.namespace, placed=ranks)


def route_named(lines: list[str], ranks: list[int | None], placed: list[int]) -> list[list[int]]:
    """Line indices of one log, one list per rank of ``placed`` (see the module doc)."""
    index = {rank: i for i, rank in enumerate(placed)}
    out: list[list[int]] = [[] for _ in placed]
    current = 0
    for i, rank in enumerate(ranks):
        current = index.get(rank, current) if rank is not None else current
        out[current].append(i)
    return out


__all__ = ["NOTE", "UNPLACED", "ranks_named", "route_named", "unplaced_layout"]
