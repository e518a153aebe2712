"""Several torch elastic agents (torchrun, one per node) in one log that names no node per line.

A paste of a whole multi-node job that kept no pod per line (Loki ``logcli --output raw``,
Grafana's text download, a CI console running the agents of two nodes, ``srun`` without
``--label``) interleaves every agent's lines. Its workers' lines carry rank tags (``[rank3]:``);
the agents' own lines do not, yet say which agent wrote them: torch's glog prefix carries the
writing process's id, ``E1128 12:05:45.777000 18710 …/torch/distributed/elastic/…:1002] failed
(exitcode: -7) local_rank: 0 (pid: 18981) …``. So:

* ``agent_keys(lines)``: which agent wrote each line: its pid, and another agent of the same pid from where that pid's
  clock goes back (one process's never does): ``kubectl logs -l`` without ``--prefix`` puts each pod's whole log after
  another's, and containers number their processes alike (an entrypoint ``torchrun`` is pid 1 in every pod);
* ``agent_layout(lines, world)``: a log of two or more agents whose lines prove several nodes
  (a global rank that is not its local rank; agents alive at once: one speaks again after another, or their
  clocks overlap) is one node per agent, ``world / agents`` processes each
  (``logimport.infer_layout``), not one node holding every rank; a log of one agent, or of
  several one after the other on one node (a rerun: every global rank is its local rank), stays one;
* ``agent_nodes(lines, nproc)``: each agent's node, where the log says it: the ``group_rank=<n>`` of its rendezvous
  result (an INFO line of torch's elastic agent: node ``n``), else a worker pid the agent
  names (``Sending process W closing signal``, ``failed (exitcode: …) … (pid: W)``) whose global
  rank a failure table gives (``rank : R (local_rank: L)`` then ``exitcode : … (pid: W)``), node
  ``R // nproc``; else the node of the nearest rank-tagged line before the agent's first line
  (what its workers printed just before it spoke). ``logimport.route_lines`` then sends an agent's
  lines to its node, and an untagged line after them (its traceback, its failure table) with them;
* ``table_nodes``: a failure table no line of which is tagged (an agent's ``ChildFailedError`` traceback and
  its table) goes, from the first untagged line before it to its closing rule, to the node its entries'
  global ranks name (``rank : R (local_rank: L)``: node ``R // nproc``), not with the rank-tagged line of
  another node that happened to come before it;
* ``local_nodes``: a line tagged with a local rank only (``[default0]:``, every node has one) goes to
  the node whose agent next reports that local rank failed: a crashing process's last words
  (``Fatal Python error: Segmentation fault``) are its own node's.

Nothing is guessed where the log is silent: an agent with no tagged line before it and no table
keeps the routing the log had before (the line before it).
"""

from __future__ import annotations

import re

#: torch's glog prefix on a torch.distributed.elastic (agent) line: level, date, time, pid, path
#: a time a CI console or a pipeline put before the line (GitHub Actions, Jenkins' Timestamper)
_TS = r"^(?:\[?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z\]? )?"
AGENT_LINE = re.compile(_TS + r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9} +(\d{1,10}) \S{0,300}?torch/distributed/(?:elastic|run\.py|launcher)\S{0,200}:\d{1,6}\] ")
_WORKER_PID = re.compile(r"(?:Sending process (\d{1,10}) closing signal|\(pid: (\d{1,10})\))")
#: a torchrun failure table's entry: ``rank      : 2 (local_rank: 0)`` (torch 1.9-1.10 printed ``local rank``)
_TABLE_RANK_TEXT = _TS + r"\s{0,8}rank\s{0,12}: (\d{1,7}) \(local[_ ]rank: (\d{1,7})\)"
_TABLE_RANK = re.compile(_TABLE_RANK_TEXT)
_TABLE_RANKS = re.compile(_TABLE_RANK_TEXT, re.M)
_TEE_RANK = re.compile(_TS + r"\[default(\d{1,5})\]:\[rank(\d{1,7})\]:")
#: the glog clock of an agent's line (``W1128 15:05:25.366000 11776 …``): month, day, time, pid
_AGENT_CLOCK = re.compile(_TS + r"[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d(?:\.\d{1,9})?) +(\d{1,10}) ")
_TABLE_PID = re.compile(_TS + r"\s{0,8}exitcode\s{0,12}: -?\d{1,5} \(pid: (\d{1,10})\)")


def agent_of(line: str) -> str | None:
    """The pid of the torch elastic agent that wrote ``line`` (None: no agent's line)."""
    m = AGENT_LINE.match(line) if "torch/distributed/" in line else None
    return m.group(1) if m else None


def _clock(line: str) -> float | None:
    """The glog time of an agent's line in seconds (month, day and time; no year), None without one."""
    if not (m := _AGENT_CLOCK.match(line)):
        return None
    mo, d, h, mi = (int(m.group(k)) for k in range(1, 5))
    return (((mo * 31 + d) * 24 + h) * 60 + mi) * 60 + float(m.group(5))


def agent_keys(lines: list[str]) -> list[str | None]:
    """Each line's agent (None: no agent's line): its pid, and another agent of the same pid from where that pid's clock
    goes back more than a second after it rose: another pod's log after this one's (``kubectl logs -l`` without
    ``--prefix``); each container numbers its processes from 1, so two pods' agents (an entrypoint ``torchrun``: pid 1)
    often share a pid. One process's clock never goes back; a paste whose clocks only fall (a console's newest line
    first) is one agent's turned over, not many agents."""
    out: list[str | None] = []
    last: dict[str, float] = {}
    rose: set[str] = set()
    section: dict[str, int] = {}
    for line in lines:
        pid = agent_of(line)
        if pid is not None and (t := _clock(line)) is not None:
            if pid in rose and t < last[pid] - 1:
                section[pid] = section.get(pid, 0) + 1
                rose.discard(pid)
            elif pid in last and t > last[pid]:
                rose.add(pid)
            last[pid] = t
        out.append(None if pid is None else pid if not section.get(pid) else f"{pid}~{section[pid]}")
    return out


def agents(lines: list[str]) -> list[str]:
    return list(dict.fromkeys(k for k in agent_keys(lines) if k is not None))


def interleaved(lines: list[str]) -> bool:
    """True when one agent speaks again after another spoke, or their clocks overlap (``alive_together``): agents alive
    at once, so on several nodes (a rerun's agents on one node speak one after the other)."""
    runs: list[str] = []
    for pid in agent_keys(lines):
        if pid is not None and (not runs or runs[-1] != pid):
            runs.append(pid)
    return len(runs) > len(set(runs)) or alive_together(lines)


def _agent_spans(lines: list[str]) -> dict[str, tuple[float, float]]:
    """Agent (``agent_keys``) -> (first, last) time its own lines carry."""
    out: dict[str, tuple[float, float]] = {}
    for line, pid in zip(lines, agent_keys(lines)):
        if pid is None or (t := _clock(line)) is None:
            continue
        a, b = out.get(pid, (t, t))
        out[pid] = (min(a, t), max(b, t))
    return out


def alive_together(lines: list[str]) -> bool:
    """True when two agents' own clocks overlap (one's first line before the other's last, both ways): agents alive at
    once, so several nodes of one job, however the log orders their lines (``kubectl logs -l`` without ``--prefix``: each
    pod's whole log after another's). A rerun's agents on one node run one after the other: their spans do not overlap."""
    spans = sorted(_agent_spans(lines).values())
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def agent_layout(lines: list[str], world: int | None) -> tuple[int, int] | None:
    """(nodes, processes per node) of a one-log paste of two or more agents, where the log proves several
    nodes (a global rank that is not its local rank: ``[default1]:[rank3]:``, a failure table's ``rank :
    3 (local_rank: 1)``; or agents that speak in turn, A then B then A again: alive at once, on several nodes)
    and ``world / agents`` fits every such pair (None: it does not, or one agent).
    The world is at least the highest rank a pair names + 1."""
    k = len(agents(lines))
    if k < 2:
        return None
    pairs = set()
    for line in lines:
        tee = _TEE_RANK.match(line) if "[default" in line else None
        m = tee or (_TABLE_RANK.match(line) if "local" in line else None)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            pairs.add((b, a) if tee else (a, b))
    world = max([world or 0] + [g + 1 for g, _ in pairs])
    if world % k or not (any(g != loc for g, loc in pairs) or interleaved(lines)):
        return None
    nproc = world // k
    if any(loc >= nproc or (g - loc) % nproc for g, loc in pairs):
        return None
    return k, nproc


_AGENT_FAILED = re.compile(r"\bfailed \(exitcode: -?\d{1,5}\) local_rank: (\d{1,5}) ")


def local_nodes(lines: list[str], locals_: list[int | None], agent_node: dict[str, int]) -> dict[int, int]:
    """Line index -> node for a line tagged with a local rank only (``[default0]:Fatal Python error: …``):
    the node whose agent next reports that local rank failed (``failed (exitcode: -11) local_rank: 0``),
    the process's own last words before its agent saw it end. Lines of a local rank no agent reports
    failed are not placed here."""
    out: dict[int, int] = {}
    ahead: dict[int, int] = {}
    keys = agent_keys(lines)
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        pid = keys[i]
        if pid in agent_node and (m := _AGENT_FAILED.search(line)):
            ahead[int(m.group(1))] = agent_node[pid]
        elif locals_[i] is not None and locals_[i] in ahead:
            out[i] = ahead[locals_[i]]
    return out


def table_entries(text: str) -> list[tuple[int, int]]:
    """(global rank, local rank) of every failure-table entry line in a whole log's text."""
    return [(int(m.group(1)), int(m.group(2))) for m in _TABLE_RANKS.finditer(text)] if "local" in text else []


def table_rank(line: str) -> tuple[int, int] | None:
    """(global rank, local rank) of a torchrun failure table's entry line (``rank : 3 (local_rank: 1)``), else None."""
    m = _TABLE_RANK.match(line) if "local" in line else None
    return (int(m.group(1)), int(m.group(2))) if m else None


_RULE = re.compile(_TS + r"={20,}\s*$")


def table_nodes(lines: list[str], nproc: int, ranks: list[int | None]) -> dict[int, int]:
    """Line index -> node for the untagged lines of a failure table and what led to it (see the module doc):
    where every entry of the table names a rank of one node; lines of an agent (routed by its pid) end a run."""
    out: dict[int, int] = {}
    start = 0
    for i in range(len(lines) + 1):
        if i < len(lines) and ranks[i] is None and agent_of(lines[i]) is None:
            continue
        entries = [(j, int(m.group(1))) for j in range(start, i) if "local" in lines[j] and (m := _TABLE_RANK.match(lines[j]))]
        nodes = {r // nproc for _, r in entries}
        if len(nodes) == 1:
            node, end = nodes.pop(), next((j for j in range(entries[-1][0], i) if _RULE.match(lines[j])), i - 1)
            out.update((j, node) for j in range(start, end + 1))
        start = i + 1
    return out


def _worker_ranks(lines: list[str]) -> dict[str, int]:
    """Worker pid -> global rank, from torchrun's failure tables (``rank : R …`` then ``exitcode : … (pid: W)``)."""
    out: dict[str, int] = {}
    rank = None
    for line in lines:
        if "rank" in line and (m := _TABLE_RANK.match(line)):
            rank = int(m.group(1))
        elif rank is not None and "exitcode" in line and (m := _TABLE_PID.match(line)):
            out.setdefault(m.group(1), rank)
            rank = None
    return out


#: the agent's account of its rendezvous (``Rendezvous complete for workers. Result:`` then ``  group_rank=1``): its node
_GROUP_RANK = re.compile(r"\]\s{1,8}group_rank=(\d{1,6})\s*$")


def _group_ranks(lines: list[str]) -> dict[str, int]:
    """Agent pid -> the node rank its first rendezvous gave it (``group_rank=<n>``), where it printed one."""
    out: dict[str, int] = {}
    for line, pid in zip(lines, agent_keys(lines)):
        if "group_rank=" in line and (m := _GROUP_RANK.search(line)) and pid is not None:
            out.setdefault(pid, int(m.group(1)))
    return out


def agent_nodes(lines: list[str], nproc: int, ranks: list[int | None]) -> dict[str, int]:
    """Agent pid -> node (see the module doc); ``ranks``: each line's tagged global rank."""
    by_worker = _worker_ranks(lines)
    out: dict[str, int] = _group_ranks(lines)
    last_node = None
    first_node: dict[str, int | None] = {}
    for line, rank, pid in zip(lines, ranks, agent_keys(lines)):
        if rank is not None:
            last_node = rank // nproc
            continue
        if pid is None:
            continue
        first_node.setdefault(pid, last_node)
        for m in _WORKER_PID.finditer(line) if pid not in out else ():
            worker = m.group(1) or m.group(2)
            if worker in by_worker:
                out[pid] = by_worker[worker] // nproc
                break
    for pid, node in first_node.items():
        if pid not in out and node is not None and node not in out.values():
            out[pid] = node
    return out


__all__ = ["AGENT_LINE", "agent_keys", "agent_layout", "agent_nodes", "alive_together", "agent_of", "agents", "local_nodes", "table_entries", "table_nodes", "table_rank"]
