"""Whether ``k10s import-logs`` knew how many processes a node ran, or took it from the ranks the log names.

``infer_layout`` records where each layout figure came from (``Layout.hints``). The processes per node are known when
an option or a line stated them (``--nproc_per_node 8``, ``num_local_procs=2``), when the launcher's own lines count its
processes, or when a stated world size fixes them; otherwise they are a guess built from the highest rank the log
names (one node holding every rank seen, the highest local rank + 1, a pod per named rank, one process by default), or
they count files, not a node's processes (one file per process: each file a pod of one).

A guessed count makes the highest rank seen the node's highest local rank by construction, so a rule that reads a
rank's place on its node (its local rank against the node's process count) cannot tell a node's last process from the
last one the paste happened to show. The importer labels such pods ``k10s.io/imported-nproc: guessed``
(``parsers/k8s_runtime.py``); the incident rules read the label (queries/_incident_common_mode.sql, ``ordinal_alike``).
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_layout import NPROC_DEFAULT, WORLD_DERIVED, Layout, LogSource

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


#: any numbered rank, process or worker (``[Rank 1]``, ``local_rank: 0``, ``process 0 terminated``, ``[Worker:0]``);
#: a number of five digits or more is a process id, and so is the number of the CUDA allocator's ``Process 307065 has
#: 15.75 GiB memory in use`` whatever its length (a container's pids are small: ``Process 9841 has 22.00 GiB``):
#: neither numbers a rank
#: a broadcast's source, not the printer: ``Synchronizing model states from rank 0 to all ranks`` (Cosmos), ``# broadcast
#: the tensor from rank 0 to all other ranks`` (a traceback's source line): every rank prints it alike
_BROADCAST_SOURCE = re.compile(r"(?i)\bfrom (?:global )?rank \d{1,7} to (?:all|every|the other|other)\b")
_NAMES_PROCESS = re.compile(r"(?i)(?:rank|process|worker)\W{0,3}(\d{1,4})(?!\d)(?! has \d{1,6}(?:\.\d{1,3})? ?[KMGT]?i?B memory in use)")


def layout_assumed(layout: Layout, sources: list[LogSource]) -> bool:
    """True when no option and no line gave the layout and the log numbers no rank, process or worker at all, or numbers one
    the one-process layout does not hold (mmdetection's `rank 1 len(log_vars): 3 keys: ...` under an exception, a line the
    layout could not place): the one process of the one pod is then a guess (a job of several processes whose paste names
    none, or names them only in words the importer does not route by, looks the same)."""
    if not (layout.world_size == 1 and layout.hints.get("nproc_per_node") == NPROC_DEFAULT
            and layout.hints.get("world_size") == WORLD_DERIVED):
        return False
    texts = [_BROADCAST_SOURCE.sub("", s.text) if "to " in s.text else s.text for s in sources]
    found = [(m.group(1), t[m.end(1):m.end(1) + 1]) for t in texts for m in _NAMES_PROCESS.finditer(t)]
    # a number run on into letters is part of a name (a pod's hash, `cmle-training-worker-7bc72ccf46-0`), no process's
    return not found or max((int(n) for n, after in found if not after.isalpha()), default=0) >= layout.world_size


__all__ = ["layout_assumed", "nproc_guessed"]
