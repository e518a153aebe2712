"""Open MPI's own reports of ``MPI_Abort``: which rank called it, and how many processes did.

``MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD`` (Open MPI's help text ``help-mpi-api.txt /
mpi-abort``, its second line ``with errorcode 2.`` often wrapped off) is the rank's own call that ends the job:
mpirun kills every other process. Open MPI prints a help text once and counts the other processes that sent the same
one: ``[host:pid] 7 more processes have sent help message help-mpi-api.txt / mpi-abort``. Then the rank in the printed
text is only the first of several that aborted alike (an input error every rank reads: real incidents batch 54).

The help text's ``with errorcode N.`` is the status the caller gave ``MPI_Abort``, which mpirun exits with. Status 0 is
success: a program that ends every process on purpose when its work is done (FedML's MPI backend ends a finished
federation so: real incidents batch 164) calls ``MPI_Abort(comm, 0)``, no failure of the caller. Such an abort with
no error of a process printed before it in the log is no event (``orderly_aborts_dropped``); after an error it stays
the caller's abort (an exception guard calling mpi4py's ``Abort()``, whose default errorcode is 0).
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: ``MPI_ABORT was invoked on rank 7 in communicator MPI_COMM_WORLD with errorcode 14.`` (the errorcode on the same
#: line or the next); Open MPI 5 / PRRTE say ``MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD`` alike
MPI_ABORT_INVOKED = re.compile(r"\bMPI_ABORT was invoked on rank (\d{1,7}) in communicator ([\w.-]{1,80})"
                               r"(?:\s+with errorcode (-?\d{1,10}))?")
#: Open MPI's help aggregation: ``[compute-0-0.local:06030] 7 more processes have sent help message
#: help-mpi-api.txt / mpi-abort`` (``1 more process has sent …``)
HELP_MORE = re.compile(r"\[([\w.-]{1,253}):(\d{1,10})\] (\d{1,7}) more process(?:es)? (?:have|has) sent help message "
                       r"help-mpi-api\.txt / mpi-abort\b")
#: the help text's second line when Open MPI wraps it off the first: ``with errorcode 2.``
ERRORCODE_TAIL = re.compile(r"^\s*with errorcode (-?\d{1,10})\.?\s*$")
#: the exit status an abort is read as (cause ``abort``): MPI_Abort ends the job from inside the process
ABORT_STATUS = -6
#: events of a process's own error that a program's exception guard prints before it calls ``MPI_Abort``
ERROR_KINDS = frozenset({"python_exception", "python_traceback", "logged_exception", "cuda_error", "cuda_oom",
                         "native_signal", "xid", "nccl_error_other", "nccl_remote_error", "nccl_watchdog_timeout",
                         "collective_mismatch", "timeout"})


def mpi_abort(text: str) -> Event | None:
    """The rank that called ``MPI_Abort``, by Open MPI's help text: its own failure (``process_exit`` ``mpi_abort``)."""
    m = MPI_ABORT_INVOKED.search(text) if "MPI_ABORT was invoked" in text else None
    if m is None:
        return None
    code = f" with errorcode {m.group(3)}" if m.group(3) else ""
    return {"kind": "process_exit", "subkind": "mpi_abort", "rank": int(m.group(1)), "exit_code": ABORT_STATUS,
            "error_message": f"MPI_ABORT was invoked on rank {m.group(1)} in communicator {m.group(2)}{code}",
            "_errorcode": int(m.group(3)) if m.group(3) else None}


def abort_status(events: list[Event], line_no: int, text: str) -> bool:
    """``with errorcode N.`` on the line right after an ``MPI_ABORT was invoked …`` line (the help text wrapped): the
    errorcode of that abort (kept on its event, ``_errorcode``); True when the line was that."""
    m = ERRORCODE_TAIL.match(text) if "with errorcode" in text else None
    ev = next((e for e in reversed(events[-3:]) if e.get("subkind") == "mpi_abort" and e.get("line_no") == line_no - 1),
              None) if m else None
    if ev is None or ev.get("_errorcode") is not None:
        return False
    ev["_errorcode"] = int(m.group(1))
    ev["error_message"] += f" with errorcode {m.group(1)}"
    return True


def orderly_aborts_dropped(events: list[Event]) -> list[Event]:
    """One log body's events less each ``MPI_Abort`` with errorcode 0 that no error of a process precedes (module doc)."""
    kept, error_before = [], False
    for ev in events:
        if ev.get("subkind") == "mpi_abort" and ev.get("_errorcode") == 0 and not error_before:
            continue
        error_before = error_before or ev.get("kind") in ERROR_KINDS
        kept.append(ev)
    return kept


def aborts_counted(text: str) -> Event | None:
    """Open MPI's count of the processes that sent the same ``mpi-abort`` help text: ``N more`` beside the one printed,
    so N + 1 processes aborted alike (``native_signal`` ``ompi_abort``, ``nranks`` N + 1; no rank, no failure of its
    own: queries/_incident.sql ``signal_alike`` reads it as that many processes ending the same way)."""
    m = HELP_MORE.search(text) if "more process" in text else None
    if m is None:
        return None
    return {"kind": "native_signal", "subkind": "ompi_abort", "nccl_host": m.group(1), "pid": int(m.group(2)),
            "nranks": int(m.group(3)) + 1, "exit_code": ABORT_STATUS, "error_message": "MPI_ABORT", "_no_rank": True}
