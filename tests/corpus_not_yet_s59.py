"""The corpus' expectations k10s does not meet yet from session 59's blind batches (361-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 59's batches that we do not meet, with why.
NOT_YET_S59: dict[str, str] = {
    # batch 364 (dataloader-worker-killed-shm-bus-error-2024-2026): 3 of 3 read right both ways as collected (cd6c3f5d):
    # none (3/3 controls, 0 of 3 named: codalab-worksheets#3742's unranked `DataLoader worker (pid 52) is killed by
    # signal: Bus error` a warning sigbus of no rank, 3DRS#7's unranked `... killed by signal: Killed.` a warning
    # host-oom-kill of no rank, streaming#493's lone `ERROR: Unexpected bus error encountered in worker.` nothing): see
    # tests/test_dataloader_worker_killed_shm_bus_error_2024_2026_batch364_wordings.py
    # session 59 leftovers
}
