"""torchrun's ``--log-dir`` tree, read beside (or without) the agents' consoles.

``torchrun --redirects 3 --log-dir D`` (or ``--log-dir`` with ``--tee``) writes each worker's output to
``D/<run_id>_<random>/attempt_<N>/<local_rank>/{stdout,stderr}.log`` (and ``error.json`` under ``@record``): one
``<run_id>_<random>`` folder per agent, that is per node; the console then holds only the agent's own lines and its
failure table. ``read_tree(path)`` reads such a folder (never following a link, nothing outside it) as one log per
file; ``merge_tree(sources)`` takes the tree's files out of the sources and gives each agent's workers back to a node:

* the **node** of an agent, from the evidence, in this order: a console that names the agent's folder (its ``log
  directory set to:`` line, its failure table's ``error_file:`` path) is that console's node; the global ranks the
  workers print (``[rank5]:``, ``rank 5/6``, ``rank 5 of 6``; since session 67 a record's rank field, ``[Rank 5]``,
  ``[rank: 5]``, or its message's leading ``rank 5:``, as parsers/log_error_records.py reads them) less the local rank of the folder they are in, over the
  processes per node; since session 68 (parsers/log_torchrun_place.py), where no path or printed rank tells: the
  console that alone holds the folder's own lines under ``--tee``'s tags, whose agent names the pids its workers print,
  or whose failure table alone fits the folder's tracebacks; the one node left when only one agent is not placed.
  Nothing else places a folder (its random name is no evidence): an unplaced folder is kept beside the consoles as a
  source of a node unknown (session 69, parsers/log_node_unknown.py: its lines with their local rank, no global rank
  read from it), said so in the hint, and a tree with no console text and no folder placed is read as one log that
  names no rank. A console's node is the one its failure table's ranks give (``rank : 3 (local_rank: 1)``), else
  the first node no table gives (every console by its place when two tables give one node);
* the **local rank** from the ``<local_rank>`` folder: each worker line is given the tag ``--tee`` would have put in
  front of it (``[default<local_rank>]:``), so the importer's own layout turns it into the global rank node rank ×
  processes per node + local rank (the processes per node: the most local-rank folders of an agent);
* each **attempt** (``attempt_<N>``, a restart's) is put in the console just before the agent's report that ended it
  (its ``multiprocessing/api.py`` lines, the N-th ``failed (exitcode`` line closing them), an attempt with no report
  at the end: the attempts stay apart, in their order, as the restarts of a pod's log do. A file the console already
  holds under that tag (``--tee``) is not added twice; ``error.json`` is not read (its traceback is the stderr's).

A tree of several runs (a reused ``--log-dir``, a parent folder given): the run the consoles name, or ``--run-id``'s,
is read, the others left out and counted in the note (parsers/log_torchrun_runs.py); the note lists a few agents only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from k10s_forensics.errors import InputError
from k10s_forensics.parsers.log_encoding import decode_log
from k10s_forensics.parsers.log_error_records import own_rank
from k10s_forensics.parsers.log_node_unknown import NODE_UNKNOWN
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_torchrun_place import by_pid, by_table, by_tee
from k10s_forensics.parsers.log_torchrun_runs import SHOWN_AGENTS, capped, choose_runs, relaunches, shown

#: ``<run_id>_<random>/attempt_<N>/<local_rank>/<stream>.log`` (tempfile's suffix: 8 of ``[a-z0-9_]``)
_TREE_FILE = re.compile(r"(?:^|/)([^/]+_[a-z0-9_]{8})/attempt_(\d{1,4})/(\d{1,5})/(stdout|stderr|error)\.(?:log|json)$")
_PRINTED_RANK = re.compile(r"\brank[ =:]?(\d{1,6})\s*(?:/|of)\s*(\d{1,6})\b", re.IGNORECASE)
_TABLE_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)\s*\(local_rank:\s*(\d+)\)")
_AGENT_REPORT = "torch/distributed/elastic/multiprocessing/api.py"
_ATTEMPT_END = "failed (exitcode"
MAX_TREE_FILES = 4096
#: how ``merge_tree`` says what it did (``layout.hints["nodes"]``)
LOG_DIR = "torchrun --log-dir tree"


def is_tree_file(name: str) -> bool:
    return _TREE_FILE.search(name) is not None


def read_tree(path: str, max_bytes: int) -> list[tuple[str, str]]:
    """A folder's torchrun ``--log-dir`` files as ``(name, text)`` (see the module doc); links are not followed."""
    root = Path(os.path.abspath(path))
    real_root = os.path.realpath(root)
    out, total = [], 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for f in sorted(files):
            full = os.path.join(folder, f)
            name = f"{root.name}/{os.path.relpath(full, root).replace(os.sep, '/')}"  # the run folder itself may be given
            if os.path.islink(full) or not os.path.realpath(full).startswith(real_root + os.sep) or not is_tree_file(name):
                continue
            if len(out) >= MAX_TREE_FILES:
                raise InputError(f"{path}: more than {MAX_TREE_FILES} files in the --log-dir tree")
            total += os.path.getsize(full)
            if total > max_bytes:
                raise InputError(f"{path}: more than {max_bytes >> 20} MiB of logs in the --log-dir tree; give fewer files")
            with open(full, "rb") as fh:
                text = decode_log(fh.read())
            out.append((name, text or ""))
    if not out:
        raise InputError(f"{path}: a folder with no torchrun --log-dir tree in it (<run>_<id>/attempt_N/<local_rank>/stdout.log)")
    return out


def _agents(files: list[tuple[str, str]]) -> dict[str, dict[int, dict[int, list[tuple[str, str]]]]]:
    """``{agent folder: {attempt: {local rank: [(stream, text)]}}}`` (stdout before stderr)."""
    agents: dict = {}
    for name, text in files:
        m = _TREE_FILE.search(name)
        if m and m.group(4) != "error":
            agents.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {}).setdefault(int(m.group(3)), []).append((m.group(4), text))
    for attempts in agents.values():
        for ranks in attempts.values():
            for streams in ranks.values():
                streams.sort(key=lambda s: s[0] != "stdout")
    return agents


def _printed_node(attempts: dict, nproc: int) -> int | None:
    """The node the ranks the workers print give, when they all agree."""
    nodes = set()
    for ranks in attempts.values():
        for lr, streams in ranks.items():
            for _, text in streams:
                for line in text.split("\n")[:2000]:
                    m = _PRINTED_RANK.search(line)
                    g = normalize(line).rank if "[" in line[:40] else None
                    g = g if g is not None else int(m.group(1)) if m else own_rank(line)
                    if g is not None and g >= lr and (g - lr) % nproc == 0:
                        nodes.add((g - lr) // nproc)
                    elif g is not None:
                        return None
    return nodes.pop() if len(nodes) == 1 else None


def _console_node(text: str, nproc: int) -> int | None:
    nodes = {(int(m.group(1)) - int(m.group(2))) // nproc for line in text.split("\n") if (m := _TABLE_RANK.match(line))
             and int(m.group(1)) >= int(m.group(2))}
    return nodes.pop() if len(nodes) == 1 else None


def _block(attempt: dict[int, list[tuple[str, str]]], console: set[str]) -> list[str]:
    out = []
    for lr in sorted(attempt):
        for _, text in attempt[lr]:
            lines = [f"[default{lr}]:{line}" for line in text.rstrip("\n").split("\n") if line.strip()]
            if lines and not all(line in console for line in lines):  # --tee: the console holds it already
                out += lines
    return out


def _merged(console: str, attempts: dict) -> str:
    """The console with each attempt's worker lines before the agent's report that ended it (the module doc)."""
    lines = console.split("\n") if console.strip() else []
    held = set(lines)
    out, k, order, armed = [], 0, sorted(attempts), True
    for line in lines:
        if armed and k < len(order) and _AGENT_REPORT in line:  # the report that ended attempt order[k]
            out += _block(attempts[order[k]], held)
            k, armed = k + 1, False
        out.append(line)
        armed = armed or (_ATTEMPT_END in line and _AGENT_REPORT in line)
    for a in order[k:]:
        out += _block(attempts[a], held)
    return "\n".join(out)


def merge_tree(sources: list, make, run_id: str | None = None) -> tuple[list, str | None, int | None]:
    """The sources with the tree's files given back to their nodes (the module doc), how, and the processes per node
    the tree shows; ``make(name, text)`` builds a source. Not a tree: the sources as given, None, None. A tree of
    several runs: the run the consoles name, or ``run_id`` (parsers/log_torchrun_runs.py)."""
    tree = [(s.name, s.text) for s in sources if is_tree_file(s.name)]
    if not tree:
        return sources, None, None
    consoles = [s for s in sources if not is_tree_file(s.name)]
    agents = _agents(tree)
    if not agents:
        raise InputError("the --log-dir tree holds no stdout.log or stderr.log")
    agents, run_note = choose_runs(agents, [c.text for c in consoles], run_id)
    nproc = max(len(ranks) for attempts in agents.values() for ranks in attempts.values())
    nproc = max(nproc, 1 + max(lr for a in agents.values() for r in a.values() for lr in r))
    printed = {f: _printed_node(attempts, nproc) for f, attempts in sorted(agents.items())}
    agents, launch_note = relaunches(agents, printed, [c.text for c in consoles])
    tables = [_console_node(c.text, nproc) for c in consoles]
    told = [n for n in tables if n is not None]
    if len(set(told)) < len(told):  # two consoles' tables give one node: their places among the LOGs instead
        tables = [None] * len(consoles)
    free_nodes = iter(n for n in range(2 * len(consoles)) if n not in tables)
    console_node = {i: n if n is not None else next(free_nodes) for i, n in enumerate(tables)}
    node_of, how = {}, {}
    for folder, attempts in sorted(agents.items()):
        named = [i for i, c in enumerate(consoles) if folder in c.text]
        if len(named) == 1:
            node_of[folder], how[folder] = console_node[named[0]], "its console's path"
        elif (n := printed[folder]) is not None and n not in node_of.values():
            node_of[folder], how[folder] = n, "the ranks its workers print"
    for way, placer in (("the lines its console holds (--tee)", by_tee), ("the pids its console's agent names", by_pid),
                        ("its console's failure table", by_table)):
        if len(node_of) == len(agents) or not consoles:
            break
        for folder, i in sorted(placer(agents, [c.text for c in consoles]).items()):
            if folder not in node_of and console_node[i] not in node_of.values():
                node_of[folder], how[folder] = console_node[i], way
    left = [f for f in sorted(agents) if f not in node_of]
    free = [n for n in range(max(len(agents), len(consoles))) if n not in node_of.values()]
    if len(left) == 1 and len(free) == 1:
        node_of[left[0]], how[left[0]] = free[0], "the one node left"
    unplaced = [f for f in sorted(agents) if f not in node_of]  # no guess: left out, said so (session 68)
    if unplaced and not node_of and not any(c.text.strip() for c in consoles):  # nothing but the tree: one log, no rank
        text = "\n".join(ln for f in unplaced for a in sorted(agents[f]) for lr in sorted(agents[f][a])
                         for _, t in agents[f][a][lr] for ln in t.rstrip("\n").split("\n") if ln.strip())
        return [make(f"{LOG_DIR} (node unknown)", text)], (
            f"{LOG_DIR} ({len(agents)} agents, {nproc} local ranks each; none placed: no path, printed rank, --tee line, pid "
            "or failure table ties an agent folder to a node, so its lines are read as one log that names no rank)"), None
    held = {ln for c in consoles for ln in c.text.split("\n")}  # a file a console holds (--tee) is not kept twice
    kept = [make(f"{f}{NODE_UNKNOWN}", "\n".join(ln for a in sorted(agents[f]) for ln in _block(agents[f][a], held))) for f in unplaced]
    by_node = {n: f for f, n in node_of.items()}
    cons = {console_node[i]: c for i, c in enumerate(consoles)}
    out = []
    for n in range(max([*by_node, *cons, -1]) + 1):
        c, f = cons.get(n), by_node.get(n)
        name = " + ".join(x for x in (c.name if c else None, f) if x) or f"node {n}"
        out.append(make(name, _merged(c.text if c else "", agents[f]) if f else (c.text if c else "")))
    out += [k for k in kept if k.text.strip()]  # each a pod of an unknown node (parsers/log_node_unknown.py)
    said = capped([f"node {node_of[f]}: {shown(f)} by {how[f]}" for f in sorted(node_of, key=lambda f: node_of[f])], SHOWN_AGENTS)
    not_placed = (f"{capped([shown(f) for f in unplaced], SHOWN_AGENTS, ', ')} not placed (no path, printed rank, --tee line, "
                  "pid or failure table ties it to one node): kept on a node unknown, its local ranks name no global rank") if unplaced else None
    said = "; ".join(x for x in (said, not_placed) if x)
    notes = "".join(f"; {n}" for n in (run_note, launch_note) if n)
    return out, f"{LOG_DIR} ({len(agents)} agent{'s' * (len(agents) != 1)}, {nproc} local ranks each; {said}{notes})", nproc


__all__ = ["LOG_DIR", "MAX_TREE_FILES", "is_tree_file", "merge_tree", "read_tree"]
