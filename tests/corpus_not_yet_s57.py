"""The corpus' expectations k10s does not meet yet from session 57's blind batches (340-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 57's batches that we do not meet, with why.
NOT_YET_S57: dict[str, str] = {
    # batch 340 (newest-threads-2026-late-nov-dec): 3 of 4 read right both ways as collected (ab8224cc): the three
    # controls (slime#1851 Ray's OOM-killer table, host-oom-kill of no rank; ms-swift#9724 rank 6's traceback head, an
    # info suspect; vime#56 a memory report and the driver's traceback, nothing) name no one
    "molmo2-26-vision-cp-ranks5-7-batch-size-must-be-positive": "the log is the one untagged line the reporter quotes, "
    "`RuntimeError: batch size must be positive`, read as a Python failure of no rank (python-exception, warning), "
    "pasted alone or laid out as the thread's 8 A100s (CP=8); even tagged `[rank5]:`/`[rank6]:`/`[rank7]:` alike the "
    "three read as a common-mode failure of no one (one tagged rank is named): that vision context parallelism gave "
    "ranks 5-7 empty image shards (identical start and end indices from `compute_image_shard_boundaries()`) while "
    "ranks 0-4 waited in NCCL until the watchdog is the reporter's account, not a line",
    # session 57 leftovers
}
