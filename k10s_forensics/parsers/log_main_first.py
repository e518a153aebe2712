"""A rank timing out on rank 0's NCCL id inside ``main_process_first``: rank 0 is working alone, and late.

transformers' ``TrainingArguments.main_process_first`` and accelerate's ``main_process_first`` /
``local_main_process_first`` let the main process (global rank 0; with ``local``, each node's local rank 0) run the
block first (a dataset's map, tokenisation, a download) while every other rank waits in a barrier; the main process
enters the barrier only when its work is done. That barrier is often the job's first NCCL collective: a waiting rank
sets up the communicator and fetches rank 0's ncclUniqueId from the c10d store, which rank 0 writes only when it
reaches the barrier. A waiter whose fetch timed out (``[6] is setting up NCCL communicator and retrieving ncclUniqueId
from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout``; torch 1.12's
``retreiving``, the FileStore's ``Timeout waiting for key``) with a ``main_process_first`` frame of its own traceback
above the exception (``MAIN_FIRST_GAP`` lines at most) was waiting for rank 0, still working alone: rank 0 never
joined in time (an ``nccl_desync`` event, subkind ``main_first``, naming rank 0, the waiter its reporter).

Only rank 0, the rank the waiter names, and only a timeout: a connection reset (rank 0's store gone: a crash, or the
network) or a fetch outside such a block (DDP's construction, a first all-reduce) names no one here. The same timeout
without the frame stays what it was (pytorch-82091's launch error, LlamaFactory-2470's reset: controls).
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: a traceback frame of the main-process-first context manager (transformers' ``training_args.py``, accelerate's
#: ``accelerator.py`` / ``state.py``): ``File ".../training_args.py", line 2035, in main_process_first``
MAIN_FIRST_FRAME = re.compile(r"^\s*File \"[^\"]{1,400}\", line \d{1,7}, in (?:local_)?main_process_first\s*$")
#: lines from that frame down to the exception (the barrier's frames, c10d's wrappers, 3.11's ``^^^`` lines)
MAIN_FIRST_GAP = 40
#: the waiter's fetch of the NCCL id from the store timing out: (waiter, the rank whose id it waited for)
NCCL_ID_TIMEOUT = re.compile(r"\[(\d{1,7})\] is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from \[(\d{1,7})\]"
                             r" via c10d key-value store by key '[^']{0,40}',? but store->get\('[^']{0,40}'\) got error: "
                             r"(?:Socket Timeout|Timeout waiting for key|[^.]{0,80}\btimed out\b)")


def main_first_wait(frames: dict[int | None, int], line_no: int, rank: int | None, events: list[Event], text: str) -> None:
    """``frames``: per printing rank, the line of its last ``MAIN_FIRST_FRAME``. An exception (``events[0]``) on
    ``text`` that is the waiter's timed-out fetch of rank 0's id under such a frame of the same printer adds the
    ``main_first`` event naming rank 0 (the frame is used up either way)."""
    frame = frames.pop(rank, None) if events[0]["kind"] in ("python_exception", "nccl_error_other") else None
    m = NCCL_ID_TIMEOUT.search(text) if frame is not None and "ncclUniqueId" in text else None
    if m is None or line_no - frame > MAIN_FIRST_GAP or int(m.group(2)) != 0 or int(m.group(1)) == 0:
        return
    events.append({"kind": "nccl_desync", "subkind": "main_first", "rank": 0, "reporter_rank": int(m.group(1)),
                   "error_message": "the waiter timed out on rank 0's NCCL id inside main_process_first (rank 0 working alone)"})


__all__ = ["MAIN_FIRST_FRAME", "MAIN_FIRST_GAP", "NCCL_ID_TIMEOUT", "main_first_wait"]
