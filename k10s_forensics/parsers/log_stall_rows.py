"""Reports that name missing ranks as a header, then one row per rank (the rows carry no wording of
their own, so a row is read only right below its header or the row before it; log_lines.py).

* Horovod >= 0.21's stall warning: ``Missing ranks:``, then ``1: [allreduce.fc.weight, ...]`` per rank
  that never submitted those tensors: ``nccl_desync`` (subkind ``horovod_missing``).
* The coordination service of JAX and TensorFlow (XLA's ``coordination_service.cc``) on a barrier that
  timed out: ``Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:`` (newer:
  ``… The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:``),
  then ``/job:jax_worker/replica:0/task:3`` per task that never reached the barrier (TensorFlow's
  ``/job:worker/…``): ``nccl_desync`` (subkind ``barrier_missing``), the task index being the process's
  rank. The first task at the barrier did reach it: it is no row. The same list inside one line (the
  gRPC detail's ``"grpc_message":"… Timed out task names:\\n/job:…/task:3\\n…"``, literal ``\\n``) gives
  the same rows. The header's own exception (``XlaRuntimeError: DEADLINE_EXCEEDED: …``) stays the
  printing process's.
* JAX's coordination service polling a heartbeat failure (``client.h``'s ``Terminating process because the JAX
  distributed service detected fatal errors. … The following tasks are unhealthy (stopped sending heartbeats):``),
  then ``/job:jax_worker/replica:0/task:3`` per task whose heartbeats stopped: that task's process ended, how is not
  said (``process_exit``, subkind ``jax_task_error``, as the older ``… task:3 heartbeat timeout`` wording). The
  printing process is a survivor terminating because of it. Task 0 hosts the service: a row naming it is no exit
  (log_failures.jax_service_host_alive).
* HCCL's topology exchange (Ascend): the ranks its lists say never connected to the root's server, kept per printing
  process across the count, world and row lines (log_hccl_topo.py).
"""

from __future__ import annotations

import re

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_classify import Event, classify, with_context
from k10s_forensics.parsers.log_hccl_topo import HcclTopo
from k10s_forensics.parsers.log_normalize import Normalized

STALL_GAP = 3  # lines between a header and its first row, or between two rows

BARRIER_HEADER = re.compile(r"\b[Tt]imed out task names:")
UNHEALTHY_HEADER = re.compile(r"The following tasks are unhealthy \(stopped sending heartbeats\):")
BARRIER_ROW = re.compile(r"^\s*/job:[\w-]{1,100}/replica:\d{1,5}/task:(\d{1,7})\s*$")
#: the rows of a list kept in one line, after its header (a literal backslash-n between them)
#: a Horovod row's tensor list, closed by ``]`` or cut at the line's end
_ROW_TENSORS = re.compile(r"!?: \[([^\]]{1,400})")
BARRIER_INLINE = re.compile(r"(?:\\n|\s)/job:[\w-]{1,100}/replica:\d{1,5}/task:(\d{1,7})(?=\\n|\s|\"|$)")


class StallRows:
    """The header last seen (its line and kind) and the rows under it."""

    def __init__(self) -> None:
        self._at: int | None = None
        self._kind: str | None = None
        self._hccl = HcclTopo()  # HCCL's topology exchange: its never-connected ranks, listed or left out (log_hccl_topo.py)

    def row(self, line_no: int, text: str, norm: Normalized) -> list[Event]:
        """A header: remembered (its inline rows, and its own events, if any); a row under one: its event; else []."""
        hccl = self._hccl.row(text, norm)
        if hccl:
            return hccl
        if P.HOROVOD_MISSING_HEADER.search(norm.text):
            self._at, self._kind = line_no, "horovod_missing"
            return []
        m = BARRIER_HEADER.search(norm.text)
        kind = "barrier_missing"
        if m is None:
            m, kind = UNHEALTHY_HEADER.search(norm.text), "jax_unhealthy"
        if m:
            self._at, self._kind = line_no, kind
            ranks = [int(r) for r in BARRIER_INLINE.findall(norm.text[m.end():])
                     if kind != "jax_unhealthy" or int(r) != 0]  # task 0 hosts the service: alive to report it
            if not ranks:
                return []
            own = classify(text, norm) or []
            return own + with_context(text, [_missing(r, kind) for r in dict.fromkeys(ranks)], norm)
        if self._at is None or line_no - self._at > STALL_GAP:
            return []
        rank, bare = self._rank(norm)
        if rank is None:
            return []
        self._at = line_no
        if self._kind == "jax_unhealthy" and rank == 0:
            return []  # task 0 hosts the service (log_failures.jax_service_host_alive): alive to report it
        events = with_context(text, [_missing(rank, self._kind or "horovod_missing", _tensors(norm.text))], norm)
        for ev in events if bare else []:
            ev.update(reporter_rank=None, _prefix_rank=None)  # the row's number is the rank it names, not its printer
        for ev in events if self._kind == "jax_unhealthy" else []:
            ev.setdefault("reporter_rank", ev.get("_prefix_rank"))  # the survivor printing the list, as a barrier's
        return events

    def _rank(self, norm: Normalized) -> tuple[int | None, bool]:
        if self._kind in ("barrier_missing", "jax_unhealthy"):
            m = BARRIER_ROW.match(norm.text)
            return (int(m.group(1)), False) if m else (None, False)
        m = P.HOROVOD_MISSING_ROW.match(norm.text)  # behind a launcher's tag: "[1,0]<stderr>:3: [...]"
        if m:
            return int(m.group(1)), False
        if norm.rank is not None and norm.text.startswith("["):  # "3: [...]" alone: normalisation took the number for srun's label
            bare = P.HOROVOD_MISSING_ROW.match(f"{norm.rank}: {norm.text}")
            if bare:
                return int(bare.group(1)), True
        return None, False


def _tensors(text: str) -> str | None:
    """A Horovod row's tensor list (``allreduce.a, allreduce.b``), a row cut at the terminal's width (``grad_$``)
    without its cut mark; None for a barrier's row (it lists no tensors)."""
    m = _ROW_TENSORS.search(text)
    return m.group(1).rstrip("$… ").rstrip(",") or None if m else None


def _missing(rank: int, subkind: str, tensors: str | None = None) -> Event:
    if subkind == "jax_unhealthy":  # the task's process ended (how is not said), as log_failures' jax_task_error
        return {"kind": "process_exit", "subkind": "jax_task_error", "rank": rank, "exit_code": None,
                "error_message": f"JAX's coordination service: task {rank} stopped sending heartbeats"}
    event: Event = {"kind": "nccl_desync", "rank": rank, "subkind": subkind}
    if subkind == "horovod_missing" and tensors:  # the tensors the rank never submitted (queries/_evidence_logs.sql)
        event["error_message"] = tensors[:300]
    return event


__all__ = ["StallRows", "BARRIER_HEADER", "BARRIER_ROW", "UNHEALTHY_HEADER"]
