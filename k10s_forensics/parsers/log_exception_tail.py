"""Lines that continue a raised exception's message and say something of it (``log_lines.BodyAssembler.feed``).

* HCCL's peer-wait report (``log_hccl.peer_wait_report``): the exception is a wait's teardown.
* DDP's reducer naming its own rank (real incidents batch 110). ``DistributedDataParallel`` raises ``RuntimeError:
  Expected to have finished reduction in the prior iteration before starting a new one.`` on a rank whose previous
  backward left parameters without a gradient (an unused branch; a mini-batch that leaves a detection head without
  targets), and the message, over several lines, ends with that rank: ``Parameter indices which did not receive grad
  for rank 2: 426 427 …`` (``TORCH_DISTRIBUTED_DEBUG`` unset) or ``Parameters which did not receive grad for rank 4:
  model.22.cv4.2.2.bias, …`` (``INFO``/``DETAIL``). The reducer writes its own process group's rank there, so the line
  within ``REDUCER_GAP`` lines under an exception that carries no rank gives it that rank (a line tagged with another
  rank than the exception's, or under an exception already tagged with another, gives nothing); on the exception's own
  line (the message joined into one) it is that exception's rank alike (``own_reducer_rank``). Every rank that hits
  the error names itself, so two ranks' reports are two ranks' exceptions, as their tags would be.
* A retry announced right under the exception it follows (``traceback.print_exc()``, then ``retrying metrics push in
  0.5s (1/3)``; session 37): the program caught what it printed and goes on, as a retrying record right above a
  logged traceback says (log_owners' ``HANDLED_RECORD``): the printer's exception and its traceback's start are
  dropped. Only a record of the same printer (its rank and local rank tags alike), ``RETRY_GAP`` lines under it at
  most: an exception with no retry after it (the handler-barrier shape: an exception, then the same rank's collective
  error) stays the rank's own.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_hccl import peer_wait_report
from k10s_forensics.parsers.log_normalize import Normalized

#: the reducer's last message line, the rank it names (``Parameter indices which …`` / ``Parameters which …``)
REDUCER_RANK = re.compile(r"\bParameter(?:s| indices) which did not receive grad for rank (\d{1,7}):")
#: the exception's line to the reducer's rank line: the message's two lines between, each maybe wrapped once
REDUCER_GAP = 6
#: a retry announced under the exception it follows (``retrying …``, ``will retry``, ``will be retried``)
RETRY_RECORD = re.compile(r"\b(?:[Ww]ill (?:be )?retr(?:y|ied)|[Rr]etrying)\b")
#: the exception's line to the retry's: the next line, or the one after another process's
RETRY_GAP = 2


def reducer_rank(events: list[dict[str, Any]], line_no: int, norm: Normalized) -> None:
    """DDP's reducer rank line (``REDUCER_RANK``) within ``REDUCER_GAP`` lines under a raised exception with no rank:
    the exception is that rank's (see the module doc)."""
    if not events or "receive grad for rank" not in norm.text or (m := REDUCER_RANK.search(norm.text)) is None:
        return
    ev, rank = events[-1], int(m.group(1))
    if ev["kind"] != "python_exception" or ev.get("subkind") != "raised" or not 0 < line_no - ev.get("line_no", 0) <= REDUCER_GAP:
        return
    if ev.get("rank") is not None or ev.get("local_rank") is not None or norm.rank not in (None, rank):
        return
    ev["rank"] = rank


def own_reducer_rank(ev: dict[str, Any], text: str) -> dict[str, Any]:
    """``{"rank": N}`` for a raised exception with no rank whose own line ends with DDP's reducer rank (the message and
    its last line on one line: a terminal's wrap joined back, a paste without line breaks), else ``{}``."""
    m = REDUCER_RANK.search(text) if ev.get("subkind") == "raised" else None
    if m is None or ev.get("rank") is not None or ev.get("local_rank") is not None:
        return {}
    return {"rank": int(m.group(1))}


def retried_after(events: list[dict[str, Any]], line_no: int, norm: Normalized) -> None:
    """A retry record (``RETRY_RECORD``) within ``RETRY_GAP`` lines under a raised exception of the same printer: the
    exception was handled; its events and its traceback's start are dropped (see the module doc)."""
    if not events or "etr" not in norm.text or not RETRY_RECORD.search(norm.text):
        return
    mine = [i for i, ev in enumerate(events) if ev.get("_printer") == (norm.rank, norm.local_rank)]
    last = events[mine[-1]] if mine else None
    if (last is None or last["kind"] != "python_exception" or last.get("subkind") != "raised"
            or not 0 < line_no - last.get("line_no", 0) <= RETRY_GAP):
        return
    drop = {i for i in mine if events[i].get("line_no") == last["line_no"]}
    start = next((i for i in reversed(mine) if i not in drop), None)
    if start is not None and events[start]["kind"] == "python_traceback" and events[start].get("subkind") == "started":
        drop.add(start)
    events[:] = [ev for i, ev in enumerate(events) if i not in drop]


def under_exception(events: list[dict[str, Any]], line_no: int, norm: Normalized) -> None:
    """What a line continuing the last raised exception's message says of it (see the module doc)."""
    peer_wait_report(events, line_no, norm)
    reducer_rank(events, line_no, norm)
    retried_after(events, line_no, norm)


__all__ = ["REDUCER_GAP", "REDUCER_RANK", "RETRY_GAP", "RETRY_RECORD", "own_reducer_rank", "reducer_rank", "retried_after", "under_exception"]
