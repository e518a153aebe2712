"""One known wording cut in two by a paste: the sentence a launcher or c10d prints on one line, split
where a terminal or a web page wrapped it, put back together (``log_paste``'s last step).

The terminal-width repair (``log_unwrap.unwrap``) needs several lines cut at one width; a paste often
wraps only the one long line that matters, glued behind a progress bar or indented by a quote. Here a
line is joined to the next one only when it holds the start of a known wording but not the whole of
it, and the two together do (with the space the cut fell on, or without one when it cut a word):

* torchrun's agent: ``failed (exitcode: -9) local_rank: `` | ``0 (pid: 1801442) of binary: …``;
* the NCCL watchdog: ``Watchdog caught collective operation timeout: Work`` | ``NCCL(SeqNum=3369, …``;
* ProcessGroupNCCL's process-group tag ending the line, its message on the next one (a blog or a note
  wraps after the tag): ``… ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 1]`` |
  ``Process group watchdog thread terminated with exception: CUDA error: …``, also the older
  ``[PG 0 Rank 2]`` (real incidents batch 31). Torch always prints the message after the tag on the
  same line, so a line that ends with the tag was cut there;
* NCCL's line prefix ending the line, its level and message on the next one: ``n124-137-109:312247:326969 [0]
  NCCL`` | ``INFO misc/socket.cc:829 -> 3`` (NCCL prints its level after ``NCCL`` on the same line; since NCCL's
  error returns are read, session 18, such a cut loses an event);
* mpirun's notice of a process's signal, wrapped by a mail or a terminal anywhere after its start: ``mpirun noticed
  that process rank 6 with PID 25353 on node hpc1`` | ``exited on signal 11 (Segmentation fault).`` (real incidents
  batch 52, the Open MPI mailing-list archive);
* msrun's analysis of a failed MindSpore job, its node list cut off by a terminal's width: ``… Time out nodes are`` |
  ``['3']`` (real incidents batch 50 under tests/test_paste_wordings.py's ``wrap-100``);
* Ray's memory monitor, its error wrapped by a terminal or by the exception's own line breaks (session 66, the GLM-5.3
  dual-Spark thread): ``ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node`` | ``running low on
  memory. Memory on the node (IP: 10.99.0.2) was`` | ``113.76GB / 119.70GB (0.950345)`` (the older ``Task was killed due
  to the node`` | ``running low on memory.`` alike), and the raylet's summary ``1 Workers (tasks / actors)`` | ``killed due
  to memory pressure (OOM), …``. The node's usage after ``Memory on the node (IP: …) was`` is a third piece: a joined
  line that ends a wording's start unfinished takes the next piece too (three pieces at most);
* Ray < 2's memory monitor, its error wrapped after ``node`` (session 67, ray-project/ray#3323's paste):
  ``ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node`` | ``eric-ThinkPad is used (11.8 / 12.3
  GB). …``.

A terminal that wraps at its width leaves the space it cut on at the start of the next piece
(``… failed (exitcode: -6)`` | `` local_rank: 0 (pid: 223) of binary: …``, real incidents batch 25): one
such space is kept, the pieces joined without another; a piece indented further (a traceback's frame,
a quote) is never joined. Spaces a terminal padded the first piece with to its width (a mail's cut copied
from a console that pads, real incidents batch 52 under tests/paste_damage.py's ``wrap``) are not the cut's.

A log served with the API's timestamps (``kubectl logs --timestamps``) carries one in front of each
piece: the second piece's is dropped with the cut.
"""

from __future__ import annotations

import re

#: (start that says the wording began on this line, the whole wording)
WORDINGS = (
    ("failed (exitcode:", re.compile(r"failed \(exitcode: -?\d+\) local_rank: \d+ \(pid: [^)\s]{1,40}\)")),
    ("collective operation timeout:", re.compile(r"collective operation timeout: WorkNCCL\((?:SeqNum=\d+, )?OpType=\w+")),
    ("[PG ", re.compile(r"\[PG (?:ID )?\d{1,6} (?:PG GUID [^\]\n]{1,80}? )?Rank \d{1,7}\] [A-Z]")),
    ("] NCCL", re.compile(r"\] NCCL (?:INFO|WARN|TRACE|ABORT) ")),
    ("noticed that process rank", re.compile(r"noticed that process rank \d{1,7} with PID \S{1,40} on node \S{1,253} exited on signal \d")),
    ("Time out nodes are", re.compile("Time out nodes are \\[['\u2018\u2019]")),
    ("killed due to the node", re.compile(r"killed due to the node running low on memory\b")),
    ("Memory on the node (IP:", re.compile(r"Memory on the node \(IP: [^)\s]{1,64}[^)]{0,300}\)[^\n]{0,600}? was \d[\d.]{0,12} ?[KMGT]?i?B / ")),
    ("% of the memory on node", re.compile(r"% of the memory on node \S{1,253} is used \(")),
    ("Workers (tasks / actors)", re.compile(r"Workers \(tasks / actors\) killed due to memory pressure\b")),
)
#: a start that is only that wording's when the line ends so (NCCL's ``host:pid:tid [dev] NCCL`` prefix and nothing after)
_LINE_ENDS = {"] NCCL": re.compile(r"\S+:\d+:\d+ \[\d{1,3}\] NCCL ?$")}
#: the timestamp ``kubectl logs --timestamps`` puts in front of every line
_API_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d) ")
#: the longest piece a cut can leave on the next line before the wording is whole
MAX_TAIL = 200


def _joined(line: str, nxt: str) -> str | None:
    """``line`` and ``nxt`` as one line, when ``line`` starts a known wording that only the two together complete."""
    stamp = _API_TS.match(nxt) if _API_TS.match(line) else None
    nxt = nxt[stamp.end():] if stamp else nxt
    if not nxt or nxt[:1].isspace() and (nxt[:1] != " " or nxt[1:2].isspace() or not nxt[1:2]):
        return None
    line = line.rstrip(" ")  # a terminal's padding to its width (conhost) after a piece a mail had cut already
    for start, whole in WORDINGS:
        at = line.rfind(start)
        if at < 0 or whole.search(line, at) or start in _LINE_ENDS and not _LINE_ENDS[start].search(line):
            continue
        for sep in ("", " "):
            both = line + sep + nxt
            m = whole.search(both, at)
            if m and m.end() > len(line) + len(sep) and m.end() - len(line) <= MAX_TAIL:
                return both
    return None


def rejoin_cut_wordings(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with every known wording cut in two put back on one line, and a note of how many (None: none)."""
    out: list[str] = []
    joined = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        pieces = 1
        while pieces < 3 and i + pieces < len(lines):  # a joined line may end another wording's start (Ray's third piece)
            both = _joined(line, lines[i + pieces])
            if both is None:
                break
            line, pieces = both, pieces + 1
            joined += 1
        out.append(line)
        i += pieces
    return (out, f"a known wording cut in two ({joined} lines joined)") if joined else (lines, None)


__all__ = ["WORDINGS", "rejoin_cut_wordings"]
