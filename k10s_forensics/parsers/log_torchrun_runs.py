"""Which runs of a torchrun ``--log-dir`` tree to read, when the folder given holds several.

A log dir is often reused: a shared ``--log-dir /logs`` on a volume gets every job's and every relaunch's agent folders
beside each other, or a user gives the parent of many runs' trees. Each agent's folder is ``<run_id>_<random>``: the
``<run_id>`` is the rendezvous id (torchrun's ``--rdzv-id``: a multi-node job's own name, a PyTorchJob's job name; a
random uuid under ``--standalone``; ``none`` for a static rendezvous unless given), the ``_<random>`` suffix (8 of
``[a-z0-9_]``, tempfile's) differs per agent per launch. So:

* **runs apart**: agents belong to one run when their folders share the ``<run_id>``; a restart's attempts
  (``attempt_<N>``) are in one agent's folder and stay one run. When the tree holds more than one run, the run(s) the
  consoles name are kept (a console names a folder, by its ``log directory set to:`` line or a failure table's
  ``error_file:`` path, or a run id, by the agent's ``run_id : X`` launch line, an event's ``"run_id": "X"``, a
  ``--rdzv-id X`` command line), the others left out and counted in the note; ``--run-id ID`` keeps that run's agents;
  with neither, the import is refused (one line, exit code 2) listing the runs found.
* **one id launched more than once** (``none``, a fixed ``--rdzv-id`` reused, a pod relaunched with its job's name):
  the files' times are not evidence (a tarball, a copy resets them), so two launches are told apart only where the
  workers' printed ranks put two folders of one run at one node: a console naming one of them keeps that one (the
  others left out, counted); else all are read and the note says which node has more than one folder and that
  which launch is which cannot be told. Without printed ranks, nothing in the tree tells launches apart.
"""

from __future__ import annotations

import re

from k10s_forensics.errors import InputError

_FOLDER = re.compile(r"^(.+)_[a-z0-9_]{8}$")
#: a console's words naming the run id (the agent's launch config, an event's metadata, the command line)
_NAMED_RUN = re.compile(r"""(?:\brun_id["']?\s*[:=]\s*["']?|--rdzv[-_]id[= ]\s*|\brdzv_id\s*[:=]\s*["']?)([\w.:-]+)""")
#: runs listed in a refusal, agents listed in a note (the rest counted)
SHOWN_RUNS, SHOWN_AGENTS, LONGEST_NAME = 5, 3, 80


def run_of(folder: str) -> str:
    """The rendezvous run id an agent's ``<run_id>_<random>`` folder names."""
    m = _FOLDER.match(folder)
    return m.group(1) if m else folder


def shown(name: str) -> str:
    """A folder or run id as a note shows it: printable, and at most LONGEST_NAME characters."""
    name = re.sub(r"[\x00-\x1f\x7f]", "?", name)
    return name if len(name) <= LONGEST_NAME else f"{name[:LONGEST_NAME // 2 - 1]}…{name[-(LONGEST_NAME // 2):]}"


def capped(items: list[str], limit: int, sep: str = "; ") -> str:
    """The first ``limit`` items, then how many more: one line whatever the count."""
    more = len(items) - limit
    return sep.join(items[:limit]) + (f"{sep}… and {more} more" if more > 0 else "")


def _runs(folders) -> dict[str, list[str]]:
    runs: dict[str, list[str]] = {}
    for f in sorted(folders):
        runs.setdefault(run_of(f), []).append(f)
    return runs


def _listing(runs: dict[str, list[str]]) -> str:
    return capped([f"{shown(r)} ({len(fs)} agent{'s' * (len(fs) > 1)})" for r, fs in sorted(runs.items())], SHOWN_RUNS, ", ")


def named_runs(runs: dict[str, list[str]], consoles: list[str]) -> set[str]:
    """The runs of the tree the consoles name (a folder of theirs, or their run id: the module doc)."""
    named = {r for r, fs in runs.items() for f in fs if any(f in text for text in consoles)}
    return named | {m.group(1) for text in consoles for m in _NAMED_RUN.finditer(text) if m.group(1) in runs}


def choose_runs(agents: dict, consoles: list[str], run_id: str | None) -> tuple[dict, str | None]:
    """The agents of the run(s) to read (``{folder: …}``), and what was left out; refuses a choice it cannot make."""
    runs = _runs(agents)
    if run_id is not None:
        if run_id not in runs:
            raise InputError(f"--run-id {shown(run_id)}: no agent folder of that run in the --log-dir tree "
                             f"(its runs: {_listing(runs)})")
        chosen, by = [run_id], "--run-id"
    elif len(runs) == 1:
        return agents, None
    elif not (named := named_runs(runs, consoles)):
        why = "and the consoles name none of them" if consoles else "and no console to choose by"
        raise InputError(f"the --log-dir tree holds {len(runs)} runs ({_listing(runs)}) {why}: "
                         "pick one with --run-id ID (the <run_id> of its <run_id>_<random> folders)")
    else:
        chosen, by = sorted(named), "the consoles"
    kept = {f: agents[f] for r in chosen for f in runs[r]}
    if len(kept) == len(agents):
        return agents, None
    others = len(runs) - len(chosen)
    return kept, (f"run {capped([shown(r) for r in chosen], SHOWN_RUNS, ', ')} by {by}, {len(agents) - len(kept)} agent "
                  f"folder(s) of {others} other run{'s' * (others != 1)} left out")


def relaunches(agents: dict, nodes: dict[str, int | None], consoles: list[str]) -> tuple[dict, str | None]:
    """One run id launched more than once (the module doc): ``nodes`` is each folder's node by its printed ranks."""
    at: dict[tuple[str, int], list[str]] = {}
    for f in sorted(agents):
        if nodes.get(f) is not None:
            at.setdefault((run_of(f), nodes[f]), []).append(f)
    dropped, unsure = [], {}
    for (run, node), folders in sorted(at.items()):
        named = [f for f in folders if any(f in text for text in consoles)]
        if len(folders) > 1 and len(named) == 1:
            dropped += [f for f in folders if f != named[0]]
        elif len(folders) > 1:
            unsure.setdefault(run, []).append(f"node {node} {len(folders)} folders")
    kept = {f: a for f, a in agents.items() if f not in dropped}
    said = ([f"{len(dropped)} folder(s) of another launch of the same run id left out (a console names its node's "
             "folder)"] if dropped else [])
    if unsure:
        runs = [f"run {shown(run)}: {capped(nodes, 3, ', ')}" for run, nodes in sorted(unsure.items())]
        said.append(f"the run id was launched more than once ({capped(runs, 2, '; ')}): which launch each folder is "
                    "cannot be told (no console names one; file times are no evidence): all read (give one launch's agent "
                    "folders themselves to read it alone)")
    return kept, "; ".join(said) or None


__all__ = ["SHOWN_AGENTS", "capped", "choose_runs", "named_runs", "relaunches", "run_of", "shown"]
