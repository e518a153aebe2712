"""Abseil's failure signal handler (``absl::InstallFailureSignalHandler``: Ray's raylet and workers, TensorFlow, XLA,
NCCL hosts linking absl) reporting the signal its process took, read by log_failures.fatal_signal."""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: absl's banner, printed once by the process that took the signal before it re-raises it: ``*** SIGSEGV received at
#: time=1721904360 on cpu 140 ***`` (Ray prints it again behind ``logging.cc:440:``); the ``PC: @ … fn()`` and ``@``
#: frame lines after it are the same crash, not read
ABSL_SIGNAL = re.compile(r"\*\*\* (SIG(?:SEGV|BUS|FPE|ILL|ABRT)) received at time=\d{1,12} on cpu \d{1,6} \*\*\*")
ABSL_SIGNALS = {"SIGSEGV": 11, "SIGBUS": 7, "SIGFPE": 8, "SIGILL": 4, "SIGABRT": 6}


def absl_signal(text: str) -> Event | None:
    """absl's report of the signal its process took: as gfortran's and Open MPI's handlers', no exit of its own (the
    launcher reports that) and no pid (``native_signal`` ``absl``, one process per banner, counted by
    queries/_incident.sql ``signal_alike``; a launcher's or Ray's prefix keeps its rank or worker)."""
    m = ABSL_SIGNAL.search(text) if " received at time=" in text else None
    if m is None:
        return None
    return {"kind": "native_signal", "subkind": "absl", "exit_code": -ABSL_SIGNALS[m.group(1)], "error_message": m.group(1)}


__all__ = ["ABSL_SIGNAL", "ABSL_SIGNALS", "absl_signal"]
