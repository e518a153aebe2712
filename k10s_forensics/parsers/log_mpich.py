"""Cray MPICH's (HPE Cray EX: Perlmutter, Frontier, LUMI, Alps, ARCHER2) report of a rank's fatal MPI error.

When an MPI call fails and the communicator's error handler is the default ``MPI_ERRORS_ARE_FATAL``, Cray MPICH prints
one line for the rank whose call failed and aborts the whole job from it (srun then reports that task's exit status,
usually 255, and terminates the others)::

    MPICH ERROR [Rank 5] [job id 40341.0] [Tue Dec 12 17:52:24 2023] [nid001097] - Abort(404347151) (rank 5 in comm 0): Fatal error in PMPI_Send: Other MPI error, error stack:

followed by MPICH's error stack (``MPIDI_OFI_send_lightweight(34): OFI tagged injectdata failed``,
``MPIDI_OFI_handle_cq_error(1059): OFI poll failed``, ``MPIDI_UCX_send(95)...: returned failed request in UCX netmod``).
Some versions put a field more before the node (``[unknown] [nid001192]``). ``[Rank N]`` is the rank in
``MPI_COMM_WORLD`` (``rank N in comm C`` the rank in the communicator of the failed call).

Read here: the error class ``Other MPI error`` (``MPI_ERR_OTHER``), which MPICH reports for its network layer's own
failures (libfabric/OFI, UCX): the rank's communication-library failure, as NCCL's system error is a PyTorch rank's
(``nccl_error_other`` ``mpich_other``, cause ``nccl-error``: queries/_incident.sql). The other classes (``Invalid
count``, ``Message truncated``, an ``Internal error`` assertion, ``application called MPI_Abort``) are not read yet:
a program's misuse every rank may meet alike, or the program's own abort, each needing its own reading.
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: ``MPICH ERROR [Rank 5] [job id 40341.0] [<date>] [nid001097] - Abort(404347151) (rank 5 in comm 0): Fatal error in
#: PMPI_Send: Other MPI error, error stack:`` (bracketed fields between the rank and the node: job id, date, ``unknown``)
#: the line's head: the rank, then bracketed fields of which the last is the node, then `` - `` (group 1 the rank,
#: group 2 the node as written; k10s_forensics/parsers/log_unplaced.py places a rank by it)
MPICH_HEAD = re.compile(r"\bMPICH ERROR \[Rank (\d{1,7})\](?: \[[^\]\n]{0,120}\]){0,5} \[([^\]\n]{0,120})\] - ")
MPICH_FATAL = re.compile(MPICH_HEAD.pattern + r"Abort\(-?\d{1,12}\)"
                         r"(?: \(rank \d{1,7} in comm \d{1,10}\))?: ?Fatal error in (P?MPI_\w{1,60}): ([A-Za-z][^,\n]{0,120})")
#: the error class read as the rank's communication-library failure
OTHER_MPI_ERROR = "Other MPI error"


def mpich_fatal(text: str) -> Event | None:
    """The rank whose MPI call failed in MPICH's network layer (``Other MPI error``): its own communication failure."""
    m = MPICH_FATAL.search(text) if "MPICH ERROR [Rank" in text else None
    if m is None or m.group(4).strip() != OTHER_MPI_ERROR:
        return None
    return {"kind": "nccl_error_other", "subkind": "mpich_other", "rank": int(m.group(1)),
            "error_message": f"Fatal error in {m.group(3)}: {OTHER_MPI_ERROR}"}


__all__ = ["MPICH_FATAL", "MPICH_HEAD", "mpich_fatal"]
