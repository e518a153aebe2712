"""A multi-node launcher's per-line prefix that names the NODE, not the rank: one log split per node.

Slurm's ``srun --label`` (``<task>: ``), Open MPI's ``mpirun --tag-output`` (``[<jobid>,<rank>]<stderr>:``,
``--timestamp-output`` puts the ctime before it), SkyPilot's ``sky logs`` (``(head, rank=0, pid=P) ``, ``(worker1,
rank=1, pid=P, ip=A) ``: the node's rank, ``SKYPILOT_NODE_RANK``), Determined's ``det trial logs`` (``[<time>] <container
id> [rank=R] || ``: the container a node, its time kept, the workers' ``[rank=R] ||`` read by the parser; split only
when some worker's rank is there, or two containers each hold processes: their agents' failure tables name global ranks)
pdsh (``<host>: ``, DeepSpeed's multinode
runner) and ``docker compose logs`` (``<service>-<index>  | ``: a container a node) tag every line with the task or host that printed it. When each task runs one training
process, the tag is the process's rank and the log parser reads it so (docs/parsers-logs.md). When
each task runs a launcher of its own (``srun -l --ntasks-per-node=1 torchrun …``, ``mpirun --map-by
ppr:1:node torchrun …``, ``deepspeed --hostfile``), the tag is the node, and the lines behind it carry
torchrun's own tags (``0: [rank3]: …``, ``[1,0]<stderr>:[default1]:…``): reading the outer tag as
the rank names the wrong rank.

``split_launcher(name, text)``: when nearly every line carries one kind of these tags and the lines
behind a tag prove it holds several processes (two distinct inner ranks or local ranks, an inner
global rank other than the tag's number, a torch elastic agent's line, a launcher inside naming
two processes or one other than the tag: mp.spawn's ``Process 2 terminated``, torchrun's
``local_rank: 1``), or the tags are pdsh's hosts (a host is never a rank) or Compose's containers or SkyPilot's nodes (in the order of their
``rank``; Compose's by the ranks their lines name) or Determined's containers (in the order of their workers' lowest rank), the log is split
into one log per tag, the tag taken off (the parser reads what is behind it, ``log_normalize``). Each tag's log goes to the node its inner global ranks name
(``rank // processes per node``, the processes per node from the inner tags; a torchrun failure table's
entries, ``rank : 3 (local_rank: 1)``, count: the agent reports its own node's processes); a tag whose lines
name no global rank takes the free nodes in the tags' natural order (``worker-2`` before
``worker-10``). A log one such task printed whole (every line behind one tag: ``srun -l`` of one
task running mp.spawn or torchx, one host's lines of a pdsh run) is one node with the tag taken off.
Otherwise None: the log stays whole, its tags read as ranks (``mpirun -np 8 python train.py``).
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_agents import agent_of, table_rank
from k10s_forensics.parsers.log_normalize import normalize

_CTIME = r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})?"
#: (what, tag pattern): group 1 is the task or host
_TAGS = (
    ("srun --label", re.compile(r"^ {0,4}(\d{1,5}):[ \t]")),
    ("mpirun --tag-output", re.compile(_CTIME + r"\[(?:[\w.@-]{1,100},)?(\d{1,7})\]<std(?:out|err|diag)>:")),
    # a host name with a digit in it (worker-1, node01, ip-10-0-0-2), not a launcher's or logger's own word
    # SkyPilot's ``sky logs``: ``(head, rank=0, pid=P) `` / ``(worker<i>, rank=<i>, pid=P, ip=A) ``, the rank the node's
    ("sky logs", re.compile(r"^\((?:head|worker\d{1,5}), rank=(\d{1,5}), pid=\d{1,10}(?:, ip=[\w.:-]{1,253})?\) ")),
    # Determined's ``det trial logs``: ``[<time>] <container id> [rank=R] || <line>``; a container is a node
    ("det logs", re.compile(r"^(?:<[^>\s]{0,20}>\s+)?\[(?P<keep>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d{1,9})?Z?)\] (?P<tag>[0-9a-f]{8}) ")),
    # ``docker compose logs``: the container's name without the project (``trainer-1``; Compose v1 ``trainer_1``), padded
    # to the widest one, then ``| ``; a container is a node (``--timestamps`` puts the engine's time behind the bar)
    ("compose logs", re.compile(r"^([A-Za-z0-9][\w.-]{0,62}?[-_]\d{1,5}) +\| ")),
    ("pdsh", re.compile(r"^(?!(?:srun|slurmstepd|mpirun|mpiexec|prterun|orted|pdsh|deepspeed|torchrun|python\d?|rank\d*)\b)"
                        r"([A-Za-z][\w.-]{0,62}?\d[\w.-]{0,62}): ")),
)
#: tags that always name a node: a host is never a rank, SkyPilot's ``rank`` is the node's
_NODE_TAGS = ("pdsh", "sky logs", "det logs", "compose logs")
#: Determined's rank tag behind its container id; a line the container wrote itself has ``|| `` alone
_DET_RANK = re.compile(r"^\[rank=(\d{1,7})\] \|\|")
#: a launcher inside the task naming its processes: mp.spawn's ``Process 2 terminated with …``, torchrun's ``local_rank: 1``
_NAMES_PROCESS = re.compile(r"\b(?:[Pp]rocess (\d{1,5}) terminated|local_rank: (\d{1,5}))")
#: at least this share of the non-blank lines carry the tag; half for a tag no other line can look like (SkyPilot's
#: ``(worker1, rank=1, pid=P, ip=A) ``, Determined's ``[<time>] <8 hex> ``), whose CLI prints lines of its own
#: between them (``ERROR: Job 1 failed with return code list: [0, 1]``) that a short paste holds a good share of
_MIN_SHARE = 0.9
_MIN_SHARE_OWN = {"sky logs": 0.5, "det logs": 0.5}
_MAX_TAGS = 4096


def _natural(tag: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", tag))


def _tag_of(m: re.Match) -> str:
    return m.group("tag") if "tag" in m.re.groupindex else m.group(1)


def _rest(m: re.Match, line: str) -> str:
    """The line behind its tag; Determined's time kept in front as the kubelet writes it, its bare ``|| `` taken off."""
    rest = line[m.end():]
    if "keep" not in m.re.groupindex:
        return rest
    stamp = m.group("keep").replace(" ", "T")
    return f"{stamp}{'' if stamp.endswith('Z') else 'Z'} {rest[3:] if rest.startswith('|| ') else rest}"


def _det_order(tags: list[str], per_tag: dict[str, list[str]]) -> list[str]:
    """Determined's containers in the order of the lowest rank each one's workers carry, then the rest naturally."""
    def lowest(t: str) -> int | None:
        found = [int(m.group(1)) for ln in per_tag[t] if "[rank=" in ln and (m := _DET_RANK.match(ln.split(" ", 1)[-1]))]
        return min(found, default=None)
    low = {t: lowest(t) for t in tags}
    return sorted(tags, key=lambda t: (low[t] is None, low[t] or 0, _natural(t)))


def _tagged(text: str) -> tuple[str, list[tuple[str | None, str]]] | None:
    """(what, [(tag or None, line without it)]) for the first tag kind nearly every line carries."""
    lines = text.split("\n")
    nonblank = sum(1 for ln in lines if ln.strip())
    for what, rx in _TAGS:
        out, hits = [], 0
        for ln in lines:
            m = rx.match(ln)
            hits += m is not None
            out.append((_tag_of(m), _rest(m, ln)) if m else (None, ln))
        if nonblank and hits >= _MIN_SHARE_OWN.get(what, _MIN_SHARE) * nonblank:
            return what, out
    return None


def _inner(lines: list[str]) -> tuple[set[int], set[int]]:
    """The global and the local ranks the lines' own prefixes name (the log parser's reading), or a torchrun
    failure table's entries (``rank : 3 (local_rank: 1)``: the agent reports its own node's processes); a Ray
    worker's pid (``(RayTrainWorker pid=…)``) counts as a process of its own, as a local rank would."""
    globals_, locals_ = set(), set()
    for ln in lines:
        entry = table_rank(ln) if ln[:1] == " " else None
        if entry:
            globals_.add(entry[0])
            locals_.add(entry[1])
        elif ln[:1] in " [(" or ln[:2].isalpha() or ln[:4].isdigit() and ln[4:5] == "-":  # a time in front: Compose's -t
            n = normalize(ln)
            if n.rank is not None:
                globals_.add(n.rank)
            if n.local_rank is not None:
                locals_.add(n.local_rank)
            elif n.pid is not None and ln.startswith("("):
                locals_.add(-n.pid)
    return globals_, locals_


def _holds_processes(tag: str, lines: list[str], inner: tuple[set[int], set[int]]) -> bool:
    globals_, locals_ = inner
    named = {int(m.group(1) or m.group(2)) for ln in lines if "rocess" in ln or "local_rank" in ln for m in _NAMES_PROCESS.finditer(ln)}
    other = tag.isdigit() and any(g != int(tag) for g in globals_ | named)
    return len(globals_) > 1 or len(locals_) > 1 or len(named) > 1 or other or any(agent_of(ln) for ln in lines)


def _nodes(tags: list[str], inner: dict[str, tuple[set[int], set[int]]]) -> list[str]:
    """The tags in node order: by the inner global ranks each names, else naturally."""
    lowest = {t: min(inner[t][0], default=None) for t in tags}
    width = max([len(inner[t][0]) for t in tags] + [max((max(inner[t][1], default=-1) for t in tags), default=-1) + 1, 1])
    slots: list[str | None] = [None] * len(tags)
    for t in sorted((t for t in tags if lowest[t] is not None), key=lambda t: (lowest[t], _natural(t))):
        node = lowest[t] // width
        if node < len(slots) and slots[node] is None:
            slots[node] = t
    rest = iter(sorted((t for t in tags if t not in slots), key=_natural))
    return [s if s is not None else next(rest) for s in slots]


def _sky_nodes(name: str, per_tag: dict[str, list[str]]) -> tuple[list[tuple[str, str]], str] | None:
    """SkyPilot's nodes at the rank their tag names (``rank=1``: node 1), a node whose lines the paste lacks left empty."""
    count = max(int(t) for t in per_tag) + 1
    if count > _MAX_TAGS:
        return None
    shown = ", ".join(sorted(per_tag, key=int)[:4]) + (", ..." if len(per_tag) > 4 else "")
    of = "" if len(per_tag) == count else f" of {count}"
    return [(f"{name}: sky logs {n}", "\n".join(per_tag.get(str(n), []))) for n in range(count)], \
        f"sky logs: one node per task ({len(per_tag)}{of}: {shown})"


def split_launcher(name: str, text: str) -> tuple[list[tuple[str, str]], str] | None:
    """``text`` as one ``(name, text)`` per node (node order) and how it was split, or None (see the module doc)."""
    found = _tagged(text)
    if found is None:
        return None
    what, rows = found
    per_tag: dict[str, list[str]] = {}
    current = None
    for tag, line in rows:
        current = tag if tag is not None else current
        if current is not None and (tag is not None or line.strip()):
            per_tag.setdefault(current, []).append(line)
    tags = list(per_tag)
    inner = {t: _inner(per_tag[t]) for t in tags}
    if len(tags) > _MAX_TAGS:
        return None
    if what == "det logs" and not any(_DET_RANK.match(ln.split(" ", 1)[-1]) for t in tags for ln in per_tag[t]) \
            and sum(_holds_processes(t, per_tag[t], inner[t]) for t in tags) < 2:
        return None  # no worker's rank, at most one container of processes (a launcher's report, the other's exit): one log
    if len(tags) > _MAX_TAGS or not (what in _NODE_TAGS or any(_holds_processes(t, per_tag[t], inner[t]) for t in tags)):
        return None
    if what == "sky logs" and tags != ["0"]:
        return _sky_nodes(name, per_tag)
    if len(tags) == 1:  # one task ran every process (or one host's lines): the tag is no rank
        return [(name, "\n".join(per_tag[tags[0]]))], f"{what}: one task ({tags[0]}), its tag taken off"
    order = sorted(tags, key=_natural) if what == "sky logs" else _det_order(tags, per_tag) if what == "det logs" else _nodes(tags, inner)
    shown = ", ".join(order[:4]) + (", ..." if len(order) > 4 else "")
    return [(f"{name}: {what} {t}", "\n".join(per_tag[t])) for t in order], f"{what}: one node per task ({len(order)}: {shown})"


__all__ = ["split_launcher"]
