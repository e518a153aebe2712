"""Open MPI's error handler report (``MPI_ERRORS_ARE_FATAL``): which rank's MPI call failed, and how.

Open MPI prints the report one field per line, each behind the printing process's ``[host:pid]``::

    [nid003053:90693] *** An error occurred in MPI_Send
    [nid003053:90693] *** reported by process [22806528,0]
    [nid003053:90693] *** on communicator MPI_COMM_WORLD
    [nid003053:90693] *** MPI_ERR_OTHER: known error not in list
    [nid003053:90693] *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,

``reported by process [job,rank]`` (Open MPI 1.8 and later; 5.x's PRRTE names the job ``prterun-host-1234@1``) is
the rank in MPI_COMM_WORLD. Of the error classes only ``MPI_ERR_OTHER`` is read: Open MPI's class for its transport's
own failures (a BTL, PML or libfabric provider; real incidents batch 63, a send from GPU memory over Slingshot), the
counterpart of Cray MPICH's ``Other MPI error`` (log_mpich.py). The other classes (``MPI_ERR_TRUNCATE``,
``MPI_ERR_RANK``, ``MPI_ERR_COUNT``, …) are a program's misuse that every rank may meet alike, and make no event.
The class line becomes ``nccl_error_other`` ``ompi_other`` of the rank its process reported, when the
``reported by process`` line of the same ``[host:pid]`` is at most a few lines above it (cause ``nccl-error``:
queries/_incident.sql).
"""

from __future__ import annotations

import re

from k10s_forensics.parsers.log_classify import Event, with_context
from k10s_forensics.parsers.log_normalize import Normalized

#: lines between the report's first field and its class (the communicator's line between them)
REPORT_GAP = 4

_HOST_PID = r"\[([\w.-]{1,253}):(\d{1,10})\] \*\*\* "
OMPI_ERROR_CALL = re.compile(_HOST_PID + r"An error occurred in (\w{2,60})")
OMPI_REPORTED_BY = re.compile(_HOST_PID + r"reported by process \[[^\],\s]{1,300},(\d{1,7})\]")
OMPI_ERROR_OTHER = re.compile(_HOST_PID + r"MPI_ERR_OTHER: ?([^\n]{0,200}?)\s*$")


class OmpiErrors:
    """The report fields seen per ``(host, pid)``: the failed call and the reporting rank, with their lines."""

    def __init__(self) -> None:
        self._calls: dict[tuple[str, int], tuple[int, str]] = {}
        self._ranks: dict[tuple[str, int], tuple[int, int]] = {}

    def row(self, line_no: int, text: str, norm: Normalized) -> list[Event]:
        """A field of a report: remembered ([]); its MPI_ERR_OTHER class under a known rank: the rank's event; else []."""
        if "] *** " not in text:  # the [host:pid] prefix, which the normalised text drops
            return []
        m = OMPI_ERROR_CALL.search(text)
        if m:
            self._calls[(m.group(1), int(m.group(2)))] = (line_no, m.group(3))
            return []
        m = OMPI_REPORTED_BY.search(text)
        if m:
            self._ranks[(m.group(1), int(m.group(2)))] = (line_no, int(m.group(3)))
            return []
        m = OMPI_ERROR_OTHER.search(text)
        if m is None:
            return []
        key = (m.group(1), int(m.group(2)))
        seen = self._ranks.get(key)
        if seen is None or line_no - seen[0] > REPORT_GAP:
            return []
        call = self._calls.get(key)
        where = f" in {call[1]}" if call and line_no - call[0] <= REPORT_GAP + 1 else ""
        message = f"An error occurred{where}: MPI_ERR_OTHER: {m.group(3)}".rstrip(": ")
        event = {"kind": "nccl_error_other", "subkind": "ompi_other", "rank": seen[1], "nccl_host": key[0], "pid": key[1],
                 "error_message": message[:300]}
        return with_context(text, [event], norm)


__all__ = ["OMPI_ERROR_CALL", "OMPI_ERROR_OTHER", "OMPI_REPORTED_BY", "OmpiErrors"]
