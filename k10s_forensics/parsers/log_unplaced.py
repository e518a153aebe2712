"""Ranks a log names that nothing places on nodes (``k10s import-logs``, k10s_forensics/logimport.py).

A log that names a high rank (Cray MPICH's ``MPICH ERROR [Rank 1534] … [nid001192]``, a watchdog's ``[Rank 2047]``)
but neither how many processes a node ran nor how many ranks the job had cannot be laid out: one node holding
every rank up to it (1535 processes on one node) is no guess the importer makes (``MAX_GUESSED_NPROC``), and any
other split is as much a guess. The ranks the log names are still facts, and so is what it says of them: each named
rank becomes a pod of its own, whose one process has that rank and whose node is unknown unless the rank's own line
names its host (below) (the pod is on no node;
``ranks.rank_source`` = ``UNPLACED``, its node ``---``), so the analysis can name the rank a line names and no rank
the log does not. The command and the manifest say so (``NOTE``); ``--nproc-per-node`` (and ``--world-size``) read the
log as before.

A line goes to the pod of the rank its own prefix names; a line with none stays with the line before it (the first
pod's until a tagged line comes), as ``log_layout.route_lines`` routes them; an untagged line that places a rank on its
host (below) goes to that rank's pod. A pod of one process here is no proof that
its untagged lines are that rank's (they are where the paste put them): a line is charged to a rank only where it names
one (``queries/_views.sql``, as for an ``assumed`` pod).

A named rank whose own line names the host it ran on is placed on that node (the host as written), the rest stay on
none (``rank_hosts``): Cray MPICH's ``MPICH ERROR [Rank 1534] [job id …] [date] … [nid001192] - Abort(…)`` (the last
bracket before `` - ``), ``mpirun noticed that process rank N with PID P on node H exited on signal S``, ``srun: error:
H: task N: …`` (one task: the task id is the rank), and Open MPI's signal handler ``[H:pid] *** Process received
signal ***`` / ``Signal: …`` / ``[ 0] frame`` on a line whose launcher tag names the rank (``[1,N]<stderr>:``). A host
with no rank on its line (UCX's ``[nid001192:11838:0]``, an untagged ``[H:pid]`` line) places no one, and a rank two
lines put on different hosts stays on none.
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_layout import WORLD_DERIVED, Layout, LogSource
from k10s_forensics.parsers.log_mpich import MPICH_HEAD
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_patterns import MPI_NOTICED, SRUN_TASKS
from k10s_forensics.parsers.log_rank_mentions import named_ranks

#: ``ranks.rank_source`` (and the importer's layout label) of a rank the log named but placed on no node
UNPLACED = "named-ranks"
#: what the command prints and the manifest's layout keeps for such a log
NOTE = ("the log names ranks but not how many processes each node ran: each rank it names is a pod of its own, on "
        "an unknown node (---); pass --nproc-per-node (and --world-size) to place them")
#: the same when some (or all) of those ranks' own lines name their host
NOTE_HOSTS = ("the log names ranks but not how many processes each node ran: each rank it names is a pod of its own; a "
              "rank whose own line names its host (MPICH ERROR [Rank N] … [host], mpirun noticed … rank N … on node host, "
              "srun: error: host: task N) is on that node ({placed}), any other on an unknown node (---); pass "
              "--nproc-per-node (and --world-size) to place them all")

_HOST = r"([A-Za-z0-9][\w.-]{0,252})"
_IS_HOST = re.compile(_HOST)
_OMPI_HANDLER = re.compile(r"(?:^|[:\s])\[" + _HOST + r":\d{1,10}\] (?:\*\*\* Process received signal|Signal: |Signal code: |Failing at address|\[ ?\d{1,3}\] )")
_NOT_A_HOST = frozenset({"unknown", "localhost"})


def ranks_named(sources: list[LogSource]) -> list[int]:
    """Every rank the sources' lines name, by a prefix or in torch's, NCCL's and MPI's own words, ascending."""
    seen = {r for s in sources for r in s.line_ranks if r is not None}
    seen |= {r for s in sources for r in named_ranks(s.text)}
    return sorted(seen)


def _line_hosts(line: str, tagged: int | None) -> list[tuple[int, str]]:
    """(rank, host) pairs ``line`` itself states (see the module doc)."""
    out: list[tuple[int, str]] = []
    if "MPICH ERROR [Rank " in line:
        out += [(int(m.group(1)), m.group(2)) for m in MPICH_HEAD.finditer(line)]
    if "noticed that process rank" in line:
        out += [(int(m.group(1)), m.group(3)) for m in MPI_NOTICED.finditer(line)]
    if "srun: error: " in line and (m := SRUN_TASKS.match(normalize(line).text)) is not None and m.group(1) and m.group(2).isdigit():
        out.append((int(m.group(2)), m.group(1)))  # one task: its id is the rank
    if tagged is not None and (m := _OMPI_HANDLER.search(line)) is not None:
        out.append((tagged, m.group(1)))
    return [(r, h) for r, h in out if _IS_HOST.fullmatch(h) and h.lower() not in _NOT_A_HOST]


def rank_hosts(sources: list[LogSource], ranks: list[int]) -> dict[int, str]:
    """rank -> the host its own line names, for each of ``ranks`` one or more lines tie to one host and no other."""
    wanted, seen = set(ranks), {}
    for s in sources:
        for line, tagged in zip(s.lines, s.line_ranks):
            for rank, host in _line_hosts(line, tagged):
                if rank in wanted:
                    seen.setdefault(rank, set()).add(host)
    return {rank: next(iter(hosts)) for rank, hosts in sorted(seen.items()) if len(hosts) == 1}


def unplaced_layout(layout: Layout, sources: list[LogSource]) -> Layout:
    """``layout`` (whose guess put every rank on one node) as one pod per named rank, one process each, node unknown.
    The world size is what an option or a line stated, else at least the highest rank named + 1."""
    ranks = ranks_named(sources)
    world = max(layout.world_size, ranks[-1] + 1) if ranks else layout.world_size
    hosts = rank_hosts(sources, ranks)
    said = ", ".join(f"{r} on {h}" for r, h in list(hosts.items())[:8]) + (f", … ({len(hosts)} in all)" if len(hosts) > 8 else "")
    nodes = ("nothing (unknown: the pods are on no node)" if not hosts else
             f"the host each rank's own line names ({said})" + ("" if len(hosts) == len(ranks) else "; the other pods on no node"))
    hints = dict(layout.hints, nproc_per_node="nothing (unknown: each rank the log names is a pod of its own)",
                 nodes=nodes, placement=NOTE_HOSTS.format(placed=said) if hosts else NOTE)
    if hints.get("world_size") == WORLD_DERIVED:
        hints["world_size"] = "the highest rank named + 1 (at least)"
    return Layout(nproc_per_node=1, nodes=len(ranks), world_size=world, hints=hints, repairs=layout.repairs,
                  job=layout.job, namespace=layout.namespace, placed=ranks, hosts=hosts)


def node_of(layout: Layout, node_rank: int) -> str | None:
    """The node an imported pod ran on: ``node-<node rank>``; a named rank's pod's the host its own line names, else none."""
    return layout.hosts.get(node_rank) if layout.placed else f"node-{node_rank}"


def route_named(lines: list[str], ranks: list[int | None], placed: list[int], hosts: dict[int, str] | None = None) -> list[list[int]]:
    """Line indices of one log, one list per rank of ``placed`` (see the module doc); an untagged line that put a rank on
    its host (``hosts``) goes to that rank's pod, so the node of what it says is that host."""
    index = {rank: i for i, rank in enumerate(placed)}
    out: list[list[int]] = [[] for _ in placed]
    current = 0
    for i, rank in enumerate(ranks):
        if rank is None and hosts:
            own = {r for r, h in _line_hosts(lines[i], None) if hosts.get(r) == h}
            rank = own.pop() if len(own) == 1 else None
        current = index.get(rank, current) if rank is not None else current
        out[current].append(i)
    return out


__all__ = ["NOTE", "NOTE_HOSTS", "UNPLACED", "node_of", "rank_hosts", "ranks_named", "route_named", "unplaced_layout"]
