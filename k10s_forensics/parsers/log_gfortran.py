"""gfortran's runtime report of a signal its process took (``-fbacktrace``, gfortran's default), read by
log_failures.fatal_signal."""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: gfortran's runtime handler (``-fbacktrace``, its default) in the process that took the signal: ``Program received
#: signal SIGILL: Illegal instruction.`` (a colon; gdb's ``Program received signal SIGSEGV, Segmentation fault.`` is a
#: debugger stopping one process, not read)
GFORTRAN_SIGNAL = re.compile(r"(?:^|[\s:>\]])Program received signal (SIG(?:SEGV|BUS|FPE|ILL|ABRT)): ")
GFORTRAN_SIGNALS = {"SIGSEGV": 11, "SIGBUS": 7, "SIGFPE": 8, "SIGILL": 4, "SIGABRT": 6}


def gfortran_signal(text: str) -> Event | None:
    """gfortran's report of the signal its process took: as Open MPI's handler's, no exit of its own (the launcher
    reports that) and no pid: each report is one process (``native_signal`` ``gfortran``, counted by
    queries/_incident.sql ``signal_alike``; a launcher's or srun's label keeps its rank)."""
    m = GFORTRAN_SIGNAL.search(text) if "Program received signal SIG" in text else None
    if m is None:
        return None
    return {"kind": "native_signal", "subkind": "gfortran", "exit_code": -GFORTRAN_SIGNALS[m.group(1)], "error_message": m.group(1)}


__all__ = ["GFORTRAN_SIGNAL", "GFORTRAN_SIGNALS", "gfortran_signal"]
