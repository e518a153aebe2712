"""PyTorch 2.14's opt-in NCCL backend (``TORCH_DIST_USE_NCCL2=1``: ``c10d::nccl2``, built on torchcomms) speaks
its own words, none of stock ProcessGroupNCCL's (no ``Watchdog caught collective operation timeout``, no
``WorkNCCL(SeqNum=…)``). Its lines are c10 log records whose message starts ``[TC][rank=N][name=<comm>]``:

* a work past its timeout, in the watchdog thread: ``[TC][rank=3][name=0] Operation timed out after 600031 ms``
  (WorkNCCL.cpp; no op, no sequence number), then ``Aborting process on rank 3 due to timeout - timeout watchdog
  detected operation timeout`` (ProcessGroupNCCL.cpp; ``timeout - collective operation timed out`` where the
  training thread found it; earlier builds ``Aborting process due to timeout on rank 3 - …``, ``Aborting process due to
  timeout``, reconfigurable mode ``Revoking communicator on rank 3 - watchdog detected timeout``); the training thread's
  own check raises ``RuntimeError: NCCL operation timed out``:
  all three are the rank's watchdog timeout (``nccl_watchdog_timeout``: a waiter, no failure of its own);
* the communicator's asynchronous error: ``nccl hit async error on rank 3: <NCCL's words>`` (``Async error on rank 3:
  … (reconfigurable mode)``), ``Aborting process on rank 3 due to error - nccl hit async error: <words>`` (earlier builds
  ``Aborting process due to error on rank 3 - nccl hit async error: <words>``): NCCL's
  error in its words (``log_comm_lines.nccl_other``; ``remote process exited or there was a network error`` is a
  remote error, ``log_comm_lines.remote_error``);
* the work's own CUDA error: ``CUDA error during end event query: an illegal memory access was encountered (700)``.

The rank is the record's ``[TC][rank=N]`` (the communicator's rank, as ``[PG 0 Rank 3]`` is stock c10d's): ``RANK``,
read by ``log_classify.line_context`` where no ``[rankN]:`` tag says whose line it is. Source: pytorch's
torch/csrc/distributed/c10d/nccl2 (Logging.hpp, WorkNCCL.cpp, ProcessGroupNCCL.cpp), read in the public tree;
CUDA-only, so no run of ours records it (tests/test_nccl2_wordings.py writes its lines from those sources).
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: the record's metadata: ``[TC][rank=3][name=0] `` (the comm's name may be absent, and so may the rank: an unnamed record)
RANK = re.compile(r"\[TC\]\[rank=(\d{1,7})\]")
_TIMED_OUT = re.compile(r"\[TC\]\S{0,300}\s+Operation timed out after (\d{1,12}) ms\b")
#: ``Aborting process on rank 3 due to timeout - …`` (earlier builds: ``… due to timeout on rank 3 - …``, the training thread's
#: ``Aborting process due to timeout``); reconfigurable mode's ``Revoking communicator on rank 3 - watchdog detected timeout``
_ABORT_TIMEOUT = re.compile(r"\bAborting process (?:on rank \d{1,7} )?due to timeout\b|\bRevoking communicator on rank \d{1,7} - "
                            r"watchdog detected timeout\b")
_PY_TIMEOUT = re.compile(r"(?:^|[\s:\]])(?:[\w.]{0,80}(?:Error|Exception): )?NCCL operation timed out\s*$")
#: NCCL's error words after nccl2's async-error wordings (log_comm_lines._NCCL_STRING reads them)
ASYNC_ERROR = r"(?:nccl hit async error(?: on rank \d{1,7})?|\bAsync error on rank \d{1,7}): "
_END_EVENT = re.compile(r"\bCUDA error during end event query: ([^\n]{1,300}?)(?: \((\d{1,5})\))?\s*$")


def watchdog(text: str) -> Event | None:
    """nccl2's watchdog timeout of the printing rank: the work that timed out (``ran_for_ms``), the abort it led to,
    or the training thread's ``NCCL operation timed out``; None for any other line."""
    m = _TIMED_OUT.search(text) if "Operation timed out after" in text else None
    if m:
        return {"kind": "nccl_watchdog_timeout", "subkind": "nccl2_timed_out", "ran_for_ms": int(m.group(1))}
    if ("Aborting process" in text or "Revoking communicator" in text) and _ABORT_TIMEOUT.search(text):
        return {"kind": "nccl_watchdog_timeout", "subkind": "nccl2_abort_timeout"}
    if "NCCL operation timed out" in text and _PY_TIMEOUT.search(text):
        return {"kind": "nccl_watchdog_timeout", "subkind": "nccl2_raised"}
    return None


def end_event_message(text: str) -> str | None:
    """The CUDA error nccl2's watchdog found querying a work's end event (the printing rank's own: ``log_failures.cuda_error``
    makes it a ``cuda_error``), its error number dropped; None for any other line."""
    m = _END_EVENT.search(text) if "end event query" in text else None
    return m.group(1) if m else None


__all__ = ["ASYNC_ERROR", "RANK", "end_event_message", "watchdog"]
