"""Records run together on one line, split apart (``log_paste``'s step).

A paste that lost its line breaks (a ``>`` quote of a quote, a chat or a mail client that joins lines, a comment
box that flattened the block) turns a launcher's and c10d's consecutive records into one long line, each line
break become a space: ``[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught … before timing out.
[E ProcessGroupNCCL.cpp:455] Some NCCL operations … WARNING:torch.distributed.elastic.multiprocessing.api:Sending
process 1264395 closing signal SIGTERM ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6)
local_rank: 0 … Traceback (most recent call last): File …`` (real incidents batch 218, a UniAD thread). Read as
one line, only its first record counts: the agent's report of the failed worker and its SIGTERM to the live peer
are lost.

A record's header is something a program prints only at the start of its own line:

* c10's glog header of PyTorch's C++ code, ``[E ProcessGroupNCCL.cpp:828]`` (1.x) or ``[E1204 23:21:18.043790828
  ProcessGroupNCCL.cpp:1834]`` (2.x), with torch's ``[rank3]:`` tag in front or not;
* the elastic agent's records: the standard ``logging`` layout ``ERROR:torch.distributed.elastic.…:`` (any
  ``LEVEL:dotted.name:``), torchrun 2.x's ``[2024-05-28 14:04:27,954] torch.distributed.…: [WARNING]`` and c10's
  glog layout ``E1128 18:49:28.796000 12152 torch/distributed/elastic/multiprocessing/api.py:836]``;
* Python's ``Traceback (most recent call last):``.

A line is split only when it starts with such a header and holds another one after a space (where the line break
was): the line is cut before each later header, unless the text before it ends a header itself (``…api.py:836]
Traceback (most recent call last):``: the agent's glog record whose message is the worker's traceback). A header glued to other text (``[rank1]:[E …]``, ``…]:ERROR:…``)
is no lost line break; a line that does not start with a record (a sentence quoting one, an exception's message
that names another record) is left as it is. The traceback's frames stay on the header's line (their line breaks
cannot be told from the spaces inside the frames).
"""

from __future__ import annotations

import re

from .log_line_steps import expand_each

_GLOG_CPP = r"(?:\[rank\d{1,7}\]:)?\[[EWIF](?:\d{4} \d\d:\d\d:\d\d\.\d{1,9}(?: \d{1,10})?)? [\w/.-]{1,120}\.(?:cpp|cc|hpp|h):\d{1,6}\]"
_LOGGING = r"(?:CRITICAL|ERROR|WARNING|INFO|DEBUG):[A-Za-z_][\w.]{0,200}:"
_TORCHRUN = r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] torch\.distributed[\w.]{0,200}: \[(?:CRITICAL|ERROR|WARNING|INFO|DEBUG)\]"
_GLOG_PY = r"[EWIF]\d{4} \d\d:\d\d:\d\d\.\d{1,9} +\d{1,10} [\w/.-]{1,200}\.py:\d{1,6}\]"
_TRACEBACK = r"Traceback \(most recent call last\):"
#: any record's header
_HEADER = rf"(?:{_GLOG_CPP}|{_LOGGING}|{_TORCHRUN}|{_GLOG_PY}|{_TRACEBACK})"
#: a record's header at the start of a line (after its indentation)
_START = re.compile(rf"^\s{{0,8}}{_HEADER}")
#: a record's header after the space a lost line break left
_LATER = re.compile(rf"(?<=\s){_HEADER}")
#: the shortest line that can hold two records (a cheap test before the patterns)
MIN_LEN = 60


def _split(line: str) -> list[str] | None:
    if len(line) < MIN_LEN or not _START.match(line):
        return None
    # a header right behind another (``…api.py:836] Traceback (most recent call last):``) is that record's message
    cuts = [m.start() for m in _LATER.finditer(line, _START.match(line).end()) if line[:m.start()].rstrip()[-1:] not in ("]", ":")]
    if not cuts:
        return None
    pieces, at = [], 0
    for cut in cuts:
        pieces.append(line[at:cut].rstrip())
        at = cut
    pieces.append(line[at:])
    return pieces


def split_flat_records(lines: list[str]) -> tuple[list[str], str | None]:
    """``lines`` with every line that holds several records run together split into one line per record, and a
    note of how many lines were split (None: none)."""
    return expand_each(lines, _split, "records run together on one line split apart ({} lines)")


__all__ = ["split_flat_records"]
