"""How an imported log was laid out: processes per node, nodes, world size, and which node each
line of a pasted log belongs to (``k10s import-logs``, k10s_forensics/logimport.py).

The options say it first; else the lines' own hints: a launcher's ``--nproc_per_node``, NCCL's
``nRanks``, the ranks and local ranks the lines' prefixes name (and gloo's monitored barrier, in its words), the processes a launcher tears
down, tracebacks open at once (several processes printing into one paste), several torchrun
agents in one log (``log_agents``). ``route_lines`` splits one log holding many ranks' lines into
one list per node (see logimport's module doc).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from k10s_forensics.parsers.log_agents import agent_keys, agent_layout, agent_nodes, local_nodes, table_nodes
from k10s_forensics.parsers.log_layout_counts import interleaved_max as _interleaved_max
from k10s_forensics.parsers.log_layout_counts import table_step as _table_step
from k10s_forensics.parsers.log_layout_counts import tables_fit as _tables_fit
from k10s_forensics.parsers.log_layout_counts import torn_down_max as _torn_down_max
from k10s_forensics.parsers.log_normalize import TEE_HOST, TEE_HOST_NAME, TEE_NOT_SOURCE, is_masked, normalize
from k10s_forensics.parsers.log_ray_workers import RAY_WORKER_RANK
from k10s_forensics.parsers.log_rank_mentions import COMM_RANK, named_ranks, unlabel_stall_rows
from k10s_forensics.parsers.log_worker_relays import relayed_workers

_NCCL_HOST = re.compile(r"^(?:\S+ )?([A-Za-z0-9][\w.-]{0,252}):\d+:\d+ \[\d+\] NCCL ")
#: (what, regex): processes per node stated by a launcher or the environment
_NPROC_HINTS = (
    ("--nproc_per_node", re.compile(r"--nproc[_-]per[_-]node[= ](\d{1,4})\b")),
    ("local_world_size", re.compile(r"\blocal_world_size[\"']?\s*[=:]\s*(\d{1,4})\b", re.IGNORECASE)),
    ("LOCAL_WORLD_SIZE", re.compile(r"\bLOCAL_WORLD_SIZE[\"']?\s*[=:]\s*[\"']?(\d{1,4})\b")),
    ("num_local_procs", re.compile(r"\bnum_local_procs=(\d{1,4})\b")),  # DeepSpeed's launch.py
)
#: (what, regex): world size stated by NCCL, a launcher or the environment
_WORLD_HINTS = (
    ("nRanks", re.compile(r"\bn[Rr]anks (\d{1,7})\b")),
    ("world_size", re.compile(r"\bworld[_ ]size[\"']?\s*[=:]\s*[\"']?(\d{1,7})\b", re.IGNORECASE)),
    ("dist_world_size", re.compile(r"\bdist_world_size=(\d{1,7})\b")),  # DeepSpeed's launch.py
    ("MEMBER", re.compile(r"Initializing distributed: GLOBAL_RANK: \d{1,7}, MEMBER: \d{1,7}/(\d{1,7})\b")),  # PyTorch Lightning
)
_LOCAL_SEEN = (
    re.compile(r"\[default(\d{1,4})\]:"),
    re.compile(r"(?m)^[^\n\[]{0,60}\[" + TEE_NOT_SOURCE + TEE_HOST_NAME + r":(\d{1,4})\]:"),  # --tee's host-named role
    re.compile(r"\blocal_rank: (\d{1,4})\b"),
    re.compile(r"\(local_rank: (\d{1,4})\)"),
    re.compile(r"\bLOCAL_RANK[=: ]+(\d{1,4})\b"),
    re.compile(r"\b[Pp]rocess (\d{1,4}) terminated with\b"),  # torch.multiprocessing.spawn
    re.compile(r"\[rank: (\d{1,4})\] Child process with PID \d"),  # Lightning's launcher on a child (its local rank)
    re.compile(r"\s--local[-_]rank=(\d{1,4})\b"),  # the flag a launcher passes each process (argparse echoes it)
    # fairseq's report of the CUDA OOM it caught: its process's device, which fairseq sets to the local rank (OOM_FAIRSEQ)
    re.compile(r"(?:OOM: Ran out of memory with exception: |\| WARNING: ran out of memory with exception: )CUDA out of memory\."
               r"[^\n]{0,200}?\bGPU (\d{1,4})(?:;| has a total capac)"),
)
@dataclass
class LogSource:
    """One log as read: a name (a file's name, or ``stdin``) and its text."""

    name: str
    text: str

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def line_ranks(self) -> list[int | None]:
        """Per line, the global rank its prefix names (read once: layout and routing both use it); in a Ray Train
        log, a worker's line (``(RayTrainWorker pid=P, …)``) has the rank the worker group gives pid P, and that
        group's own line for a worker (``- (ip=…, pid=P) world_rank=R, …``) names rank R."""
        ranks = unlabel_stall_rows(self.lines, [tagged_rank(line) for line in self.lines])
        return _ray_ranks(self.lines, ranks) if "world_rank=" in self.text else ranks


def _ray_ranks(lines: list[str], ranks: list[int | None]) -> list[int | None]:
    """``ranks`` with Ray Train's worker group read (see ``LogSource.line_ranks``; a pid given two ranks names none)."""
    listed = [(i, m) for i, line in enumerate(lines) if "world_rank=" in line and (m := RAY_WORKER_RANK.search(line))]
    by_pid: dict[int, set[int]] = {}
    for _, m in listed:
        by_pid.setdefault(int(m.group(1)), set()).add(int(m.group(2)))
    out = list(ranks)
    for i, m in listed:
        out[i] = out[i] if out[i] is not None else int(m.group(2))
    for i, line in enumerate(lines):
        if out[i] is None and line.startswith("(") and "pid=" in line[:200]:
            pid = normalize(line).pid
            if pid is not None and len(by_pid.get(pid, ())) == 1:
                out[i] = next(iter(by_pid[pid]))
    return out


@dataclass
class Layout:
    """How the job was laid out: processes per node, nodes, world size, and where each came from."""

    nproc_per_node: int
    nodes: int
    world_size: int
    hints: dict[str, str] = field(default_factory=dict)
    repairs: dict[str, list[str]] = field(default_factory=dict)  # source name -> what pasting did, undone
    job: str | None = None  # the job's name: --job, else the pods' own (kubectl logs --prefix)
    namespace: str | None = None  # the job's namespace: --namespace, else the one kubelet's log paths name
    rank_unknown: bool = False  # nothing gave the layout and no line numbers a rank: the one process is assumed
    placed: list[int] | None = None  # nothing placed the ranks on nodes: the ranks named, a pod each (log_unplaced)
    hosts: dict[int, str] = field(default_factory=dict)  # of ``placed``: rank -> the host its own line names (log_unplaced)
    node_nproc: list[int | None] | None = None  # each node's own count where they differ (log_node_nproc; None: first rank unknown)


def _max_found(texts: list[str], patterns) -> tuple[int | None, str | None]:
    best: tuple[int | None, str | None] = (None, None)
    for what, rx in patterns:
        for text in texts:
            for m in rx.finditer(text):
                value = int(m.group(1))
                if value > 0 and (best[0] is None or value > best[0]):
                    best = (value, what)
    return best


def tagged_rank(line: str) -> int | None:
    """The global rank a launcher or shipper prefix names on ``line`` (None: none)."""
    if not line or len(line) > 65536:
        return None
    return normalize(line).rank


def _max_rank(sources: list[LogSource]) -> int | None:
    seen = [r for s in sources for r in s.line_ranks if r is not None]
    seen += [r for s in sources for r in named_ranks(s.text)]
    return max(seen, default=None)


#: the layout hint when nothing said how many processes a node ran (one is assumed)
NPROC_DEFAULT = "default 1"
#: the layout hint when nothing stated the world size: nodes x processes per node
WORLD_DERIVED = "nodes x processes per node"


def infer_layout(sources: list[LogSource], nproc_per_node: int | None = None, world_size: int | None = None,
                 nodes: int | None = None) -> Layout:
    """Processes per node, nodes and world size: the options first, then the lines' own hints."""
    texts = [s.text for s in sources]
    hints: dict[str, str] = {}
    if nproc_per_node:
        hints["nproc_per_node"] = "option"
    else:
        nproc_per_node, what = _max_found(texts, _NPROC_HINTS)
        if nproc_per_node:
            hints["nproc_per_node"] = f"log: {what}"
    stated_world, world_what = _max_found(texts, _WORLD_HINTS)
    top = _max_rank(sources)
    by_agents = agent_layout(sources[0].lines, world_size or stated_world or (top + 1 if top is not None else None)) if len(sources) == 1 else None
    if world_size:
        hints["world_size"] = "option"
    elif stated_world:
        world_size, hints["world_size"] = stated_world, f"log: {world_what}"
    ray_local = max((int(m.group(3)) for t in texts if "world_rank=" in t for m in RAY_WORKER_RANK.finditer(t)), default=None)
    if not nproc_per_node:
        if nodes:
            nproc_per_node = max(1, -(-(world_size or (top or 0) + 1) // nodes))
            hints["nproc_per_node"] = "world size / nodes"
        elif by_agents:
            nproc_per_node, hints["nproc_per_node"] = by_agents[1], "one log of several torchrun agents: world size / agents"
        elif ray_local is not None:
            nproc_per_node, hints["nproc_per_node"] = ray_local + 1, "Ray Train's worker group: highest local_rank + 1"
        elif len(sources) == 1:
            nproc_per_node = world_size or (top + 1 if top is not None else None)
            hints["nproc_per_node"] = "one log: one node holds every rank"
        if not nproc_per_node:
            local, _ = _max_found(texts, [("local", rx) for rx in _LOCAL_SEEN])
            torn = max(_torn_down_max(texts) or 0, _interleaved_max(texts) or 0, relayed_workers(texts) or 0) or None
            step = _table_step(texts) if len(sources) > 1 else None
            # the failure tables' own ``rank : R (local_rank: L)`` are the authority: a count they contradict is dropped
            counts = [(local + 1) if local is not None else 1, torn or 1, step or 1]
            fitting = [c for c in counts if _tables_fit(texts, c)]
            torn = torn if torn is None or torn in fitting or not fitting else None
            step = step if step is None or step in fitting or not fitting else None
            nproc_per_node = max(fitting or counts)
            hints["nproc_per_node"] = ("the failure tables' ranks, log by log" if step and step > max(torn or 0, (local or 0) + 1) else
                                       "processes the launcher names" if torn and torn > (local or 0) + 1 else
                                       "highest local rank seen + 1" if local is not None else NPROC_DEFAULT)
    nodes = nodes or max(len(sources), by_agents[0] if by_agents else 0, -(-(max(world_size or 0, (top or 0) + 1)) // nproc_per_node),
                         tee_hosts(sources[0].lines) if len(sources) == 1 else 0)
    if not world_size:
        world_size = max(nodes * nproc_per_node, (top or 0) + 1)
        hints["world_size"] = WORLD_DERIVED
    nodes = max(nodes, -(-world_size // nproc_per_node), len(sources))
    return Layout(nproc_per_node=nproc_per_node, nodes=nodes, world_size=world_size, hints=hints)


def tee_hosts(lines: list[str]) -> int:
    """How many hosts torchrun's ``--tee`` prefix of a host-named role names (``[node1:4]:``, ``[node2:7]:``: 2)."""
    return len({m.group("tee_host") for line in lines if "]:" in line and (m := TEE_HOST.search(line, 0, 160))
                and not is_masked(m.group("tee_host"))})


def _host_node(host_node: dict[str, int], host: str, nodes: int) -> int:
    """The node of ``host``: the one its rank placed it on (NCCL's ``host:pid:tid`` lines), else the next free node
    in the order the hosts first appear (a host that never printed its rank)."""
    if host not in host_node:
        used = set(host_node.values())
        host_node[host] = next((n for n in range(nodes) if n not in used), 0)
    return host_node[host]


def route_lines(lines: list[str], nproc: int, nodes: int, ranks: list[int | None] | None = None) -> list[list[int]]:
    """Line indices of one pasted log split into one list per node (see the module doc);
    ``ranks``: each line's tagged rank, when already read."""
    host_node: dict[str, int] = {}
    for line in lines:
        h = _NCCL_HOST.match(line) if " NCCL " in line else None
        c = COMM_RANK.search(line) if h else None
        if h and c and not is_masked(h.group(1)):
            host_node.setdefault(h.group(1), int(c.group(1)) // nproc)
    out: list[list[int]] = [[] for _ in range(nodes)]
    current = 0
    ranks = ranks if ranks is not None else [tagged_rank(line) for line in lines]
    agent_node = agent_nodes(lines, nproc, ranks) if nodes > 1 else {}
    by_local = local_nodes(lines, [normalize(ln).local_rank if "[default" in ln else None for ln in lines], agent_node) if agent_node else {}
    by_table = table_nodes(lines, nproc, ranks) if nodes > 1 else {}
    keys = agent_keys(lines) if agent_node else []
    # hosts of --tee's host-named role: two or more are as many nodes (in the order they first appear, as NCCL's hosts
    # without a rank line); one alone is one node of several, which one unknown (as ``[default3]:``)
    several_tees = nodes > 1 and tee_hosts(lines) >= 2
    for i, line in enumerate(lines):
        node = None
        rank = ranks[i]
        if rank is not None:
            node = rank // nproc
        elif agent_node and (pid := keys[i]) in agent_node:
            node = agent_node[pid]
        elif i in by_table:
            node = by_table[i]
        elif i in by_local:
            node = by_local[i]
        elif several_tees and (tee := TEE_HOST.search(line, 0, 160) if "]:" in line else None) and not is_masked(tee.group("tee_host")):
            node = _host_node(host_node, tee.group("tee_host"), nodes)  # --tee's host-named role: that host's node
        else:
            h = _NCCL_HOST.match(line) if " NCCL " in line else None
            if h and not is_masked(h.group(1)):  # a masked host (xxxx:…) could be any node
                node = _host_node(host_node, h.group(1), nodes)
        if node is not None and 0 <= node < nodes:
            current = node
        out[current].append(i)
    return out


__all__ = ["Layout", "LogSource", "infer_layout", "route_lines", "tagged_rank"]
