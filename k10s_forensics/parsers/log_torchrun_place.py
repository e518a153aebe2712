"""Which console's agent wrote a ``--log-dir`` agent folder, when no path and no printed rank says (session 68).

parsers/log_torchrun_dir.py places an agent's ``<run_id>_<random>`` folder at a node by a console naming the folder, or
by the global ranks its workers print. A run whose workers print no rank and whose consoles name no folder (no
``@record``: ``error_file: <N/A>``) still shares three things between each agent's folder and that agent's console:

* **its lines** (``--tee``): the console holds the folder's worker lines under the tag ``--tee`` gives them
  (``[default<local_rank>]:``). A folder line counts only where no other folder has the same line at the same local
  rank (``step 0/10`` with its loss does; ``starting`` or a common traceback frame does not); a folder is a console's when
  that console, and no other, holds some of those lines, and the console holds no other folder's.
* **its pids**: a worker line naming its pid (``pid 28824``) at local rank L, where the console's table row or its
  agent's ``failed (exitcode: …) local_rank: L (pid: 28824)`` line ties that pid to L (or its ``Sending process 28824
  closing signal`` names it); a pid the console ties to another local rank rules it out, and one pid in two consoles
  (pods have pid namespaces of their own) places by neither.
* **its failure table**: the agent's last ``ChildFailedError`` table gives each failed local rank's exit (``rank : 3
  (local_rank: 1)``, ``exitcode : 1``); a folder whose last attempt shows a traceback or an exception line exactly at
  the local ranks the table gives a non-signal exit (at least one), and none at those it gives a signal (SIGTERM's
  ``-15``, a SIGKILL), is consistent with that console; it is that console's when they are consistent with each other
  only. Not used at all when any folder fits no table or any table fits no folder: a culprit that exits 1 with no
  traceback while its SIGTERMed victims print theirs fits another node's table (t55's health exit).

Each needs a one-to-one match: a folder consistent with two consoles, or a console with two folders, is placed by
neither (no guess: parsers/log_torchrun_dir.py then leaves the folder out beside the consoles, or, with no console
text at all, reads the tree as one log naming no rank).
"""

from __future__ import annotations

import re
from collections import Counter

from k10s_forensics.parsers.log_agents import table_rank

_TEE = re.compile(r"\[default(\d{1,5})\]:(.*)$")
_ROW_EXIT = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)")
#: a worker's own failure in its file (a launcher's or logger's ``[rank3]:``/``[default3]:`` tag first taken off)
_PREFIX = re.compile(r"^(?:\[[^\]]{1,40}\]:?\s*)+")
_SHOWN = re.compile(r"Traceback \(most recent call last\)|^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt)\b|\b(?:ERROR|CRITICAL|FATAL)\b"
                    r"|^Fatal Python error|^terminate called")


def _tee_lines(text: str) -> set[tuple[int, str]]:
    return {(int(m.group(1)), m.group(2).rstrip()) for line in text.split("\n") if (m := _TEE.search(line)) and m.group(2).strip()}


def _folder_lines(attempts: dict) -> set[tuple[int, str]]:
    return {(lr, line.rstrip()) for ranks in attempts.values() for lr, streams in ranks.items()
            for _, text in streams for line in text.split("\n") if line.strip()}


def by_tee(agents: dict, consoles: list[str]) -> dict[str, int]:
    """``{folder: console index}`` for the folders whose own lines one console alone holds (the module doc)."""
    lines = {f: _folder_lines(a) for f, a in agents.items()}
    seen = Counter(line for own in lines.values() for line in own)
    held = [_tee_lines(c) for c in consoles]
    hits: dict[str, set[int]] = {}
    for f, own in lines.items():
        distinct = {line for line in own if seen[line] == 1}
        hits[f] = {i for i, h in enumerate(held) if distinct & h}
    return _one_to_one(hits)


def _table(text: str) -> dict[int, int]:
    """``{local rank: exit code}`` of the console's last failure table's rows (a later row of a local rank wins)."""
    rows, lr = {}, None
    for line in text.split("\n"):
        if entry := table_rank(line):
            lr = entry[1]
        elif lr is not None and (m := _ROW_EXIT.match(line)):
            rows[lr], lr = int(m.group(1)), None
    return rows


def _shows(streams: list[tuple[str, str]]) -> bool:
    return any(_SHOWN.search(_PREFIX.sub("", line.strip())) for _, text in streams for line in text.split("\n"))


def by_table(agents: dict, consoles: list[str]) -> dict[str, int]:
    """``{folder: console index}`` for the folders whose last attempt's exceptions one console's table alone fits."""
    tables = [_table(c) for c in consoles]
    hits: dict[str, set[int]] = {}
    for f, attempts in agents.items():
        last = attempts[max(attempts)]
        hits[f] = {i for i, t in enumerate(tables) if any(code > 0 for code in t.values()) and set(t) <= set(last)
                   and all(_shows(last[lr]) == (code > 0) for lr, code in t.items())}
    told = {i for i, t in enumerate(tables) if t}
    if not all(hits.values()) or told - set().union(*hits.values()):  # a folder or a table fits nothing: the reading fails
        return {}
    return _one_to_one(hits)


_ROW_PID = re.compile(r"^\s*exitcode\s*:\s*-?\d+\s*\(pid:\s*(\d+)\)")
_FAILED_PID = re.compile(r"failed \(exitcode: -?\d+\) local_rank: (\d+) \(pid: (\d+)\)")
_SENT_PID = re.compile(r"Sending process (\d+) closing signal")
_OWN_PID = re.compile(r"\bpid\b[\s:=#(]{0,3}(\d{2,9})\b", re.IGNORECASE)


def _console_pids(text: str) -> tuple[dict[int, int], set[int]]:
    """``({pid: local rank}, {pid the agent signalled})`` of a console: its tables' rows, its ``failed`` lines."""
    tied, sent, lr = {}, set(), None
    for line in text.split("\n"):
        if entry := table_rank(line):
            lr = entry[1]
        elif lr is not None and (m := _ROW_PID.match(line)):
            tied[int(m.group(1))], lr = lr, None
        elif m := _FAILED_PID.search(line):
            tied[int(m.group(2))] = int(m.group(1))
        elif m := _SENT_PID.search(line):
            sent.add(int(m.group(1)))
    return tied, sent


def by_pid(agents: dict, consoles: list[str]) -> dict[str, int]:
    """``{folder: console index}`` for the folders whose workers print their pid (``pid 28824``, ``pid=…``) where one
    console's agent names that pid (a table row or ``failed`` line at the same local rank, a ``Sending process`` line),
    and no console ties it to another local rank."""
    pids = [_console_pids(c) for c in consoles]
    hits: dict[str, set[int]] = {}
    for f, attempts in agents.items():
        own = {(lr, int(m.group(1))) for ranks in attempts.values() for lr, streams in ranks.items()
               for _, text in streams for m in _OWN_PID.finditer(text)}
        hits[f] = {i for i, (tied, sent) in enumerate(pids)
                   if any(tied.get(p) == lr or (p in sent and p not in tied) for lr, p in own)
                   and not any(p in tied and tied[p] != lr for lr, p in own)}
    return _one_to_one(hits)


def _one_to_one(hits: dict[str, set[int]]) -> dict[str, int]:
    out = {}
    for f, cs in hits.items():
        if len(cs) == 1 and sum(1 for g in hits.values() if cs <= g) == 1:
            out[f] = next(iter(cs))
    return out


__all__ = ["by_pid", "by_table", "by_tee"]
