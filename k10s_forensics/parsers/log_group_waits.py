"""Waits that say which part of the world a rank waits on (queries/nccl_hang.sql ``group_hang``; docs/rules.md, "Session
35: leftovers"): pipelining's shape-inference record and c10d's socket poll that woke with nothing to read.

* ``pipeline_stage`` / ``shape_receive``: torch.distributed.pipelining's debug record of a stage's first step,
  ``stage.py:1354] Shape inference: stage 2 receiving from stage 1`` (``TORCH_LOGS``/verbose logging on): the stage
  waits for the previous stage's output metadata, a point-to-point receive between two stages. ``pg`` is
  ``stage 2 receiving from stage 1``, ``pg_rank`` the receiving stage. A record alone is a healthy start's; only a wait read
  beside it makes it a hang's.
* ``c10d_wait`` / ``poll_zero``: ``[c10d] waitForInput: poll for socket SocketImpl(…) returned 0, likely a timeout``
  (c10d's store client, PyTorch 2.6 on): its poll woke with nothing to read and it goes on waiting for a key a peer
  is to set (a communicator's id, a barrier). A wait in progress, no failure: the store's own timeout
  (``waitForInput: socket … timed out after``) is read as before (log_failures.store_timeout).

* ``serving_wait`` / ``shm_broadcast``: vLLM's message queue (vllm/distributed/device_communicators/shm_broadcast.py)
  waiting on its shared-memory ring, ``No available shared memory broadcast block found in 60 second(s).`` (repeated
  each minute): the writer waits for a reader (or a reader for the writer), some worker slow or stuck (a hung TP worker,
  a long compile, one GPU's fault). The waiter's message, never its printer's failure: no rank (session 63).

The rank is the process's own tag where the launcher's prefix wraps torch's (``[rank0]:[rank4]:``: torchrun's local
tag outside, torch's global ``[rank4]:`` inside; log_normalize reads the inner one).
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized
from k10s_forensics.parsers.log_shape_inference import SHAPE_RECORD

Event = dict[str, Any]

#: c10d's store client's poll waking with nothing to read (it then polls again until its own timeout)
POLL_ZERO = re.compile(r"\[c10d\] waitForInput: poll for socket .{0,400}?returned 0, likely a timeout")

#: vLLM's shared-memory broadcast queue waiting on its peers (see the module doc)
SHM_BROADCAST_WAIT = re.compile(r"No available shared memory broadcast block found")


def group_wait(text: str, norm: Normalized) -> Event | None:
    """The line's wait event (see the module doc), or None."""
    if "Shape inference: stage" in text and (m := SHAPE_RECORD.search(text)):
        ev: Event = {"kind": "pipeline_stage", "subkind": "shape_receive",
                     "pg": f"stage {m.group(1)} receiving from stage {m.group(2)}", "pg_rank": int(m.group(1))}
    elif "waitForInput: poll for socket" in text and POLL_ZERO.search(text):
        ev = {"kind": "c10d_wait", "subkind": "poll_zero"}
    elif "shared memory broadcast block" in text and SHM_BROADCAST_WAIT.search(text):
        return {"kind": "serving_wait", "subkind": "shm_broadcast", "_no_rank": True}  # the waiter's, no rank of its own
    else:
        return None
    if norm.rank is not None:  # the process's own tag (the inner one of two)
        ev["rank"] = norm.rank
    return ev


__all__ = ["POLL_ZERO", "SHM_BROADCAST_WAIT", "group_wait"]
