"""Whether ``k10s import-logs`` knew how many processes a node ran, or took it from the ranks the log names.

``infer_layout`` records where each layout figure came from (``Layout.hints``). The processes per node are known when
an option or a line stated them (``--nproc_per_node 8``, ``num_local_procs=2``), when the launcher's own lines count its
processes, or when a stated world size fixes them; otherwise they are a guess built from the highest rank the log
names (one node holding every rank seen, the highest local rank + 1, a pod per named rank, one process by default), or
they count files, not a node's processes (one file per process: each file a pod of one).

A guessed count makes the highest rank seen the node's highest local rank by construction, so a rule that reads a
rank's place on its node (its local rank against the node's process count) cannot tell a node's last process from the
last one the paste happened to show. The importer labels such pods ``k10s.io/imported-nproc: guessed``
(``parsers/k8s_runtime.py``); the incident rules read the label (queries/_incident.sql, ``ordinal_alike``).
"""

from __future__ import annotations

from k10s_forensics.parsers.log_layout import NPROC_DEFAULT, WORLD_DERIVED

#: processes-per-node hints (log_layout.infer_layout, log_unplaced.unplaced_layout) read off the ranks seen alone
_FROM_RANKS_SEEN = (NPROC_DEFAULT, "highest local rank seen + 1", "Ray Train's worker group: highest local_rank + 1",
                    "one file per process")
#: hints that divide the world size: a guess where the world was itself derived from the ranks seen
_FROM_WORLD = ("one log: one node holds every rank", "world size / nodes", "one log of several torchrun agents: world size / agents")
#: world-size hints that are no statement of the world: derived from nodes x processes or from the highest rank named
_WORLD_GUESSED = (WORLD_DERIVED, "the highest rank named + 1 (at least)")


def nproc_guessed(hints: dict[str, str]) -> bool:
    """True when the layout's processes per node come from the ranks the log names (or its files), not from an option or a line."""
    nproc, world = hints.get("nproc_per_node"), hints.get("world_size")
    if nproc is None or nproc.startswith("nothing (unknown"):  # unplaced: a pod per named rank, one process each
        return True
    return nproc in _FROM_RANKS_SEEN or (nproc in _FROM_WORLD and world in _WORLD_GUESSED)


__all__ = ["nproc_guessed"]
