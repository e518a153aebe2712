"""The seventy-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
70, no rule, parser or query changed). ``_T73``: both ways alike (each miss is both ways', the same findings from
import-logs and the pod logs).

One remains: the every-attempt SIGABRT of rank 3 under ``--tee 3 --local-ranks-filter 0`` (the culprit's own lines
filtered out): a victim's exit 1 named beside (2.14.1) or instead of (2.13.0) rank 3's crash loop. Read right since
session 71: two ``@record`` runs under ``--redirects 3`` (the never-joining rank 3 under ``--standalone`` 1 x 6, every
victim's traceback field 'DistStoreError: wait timeout after 3000ms, keys: /default_pg/0//cpu//0/3'; rank 2's caught
``MemoryError`` at step 2, its field 'MemoryError'; docs/rules.md, "Session 71: a failure table's traceback field is the
rank's own error"); the node-lost CONTROL under ``--redirects 3 --log-dir`` (node 1 killed whole at init, its console
empty; node 0's table's 'first observed' a victim's exit 1; now no rank named: docs/rules.md "Session 71: a node whose
log went silent"); and 2.13.0's t73-trun-2x3-raise-rank5-init-w0-error-norank-logdir (rank 5's ``logger.error`` +
``sys.exit(2)`` at init under ``--tee 3 --log-dir``, read ``exit-2`` because its stdout's 'starting' line, flushed at
exit, reached the console after the handler's message; now python-exception: docs/rules.md, "Session 71: a handler's
message before its stdout's flush")."""

from __future__ import annotations

_EVERY = {
    "2.13.0": ("2 x 2, --max-restarts 1, --tee 3 --local-ranks-filter 0 (rank 3 is local rank 1: its lines filtered "
               "out), print_exc, DeepSpeed-like: rank 3 os.abort()s at step 6's rank-0 checkpoint save on both "
               "attempts; attempt 0: node 0's 'failed (exitcode: 1) local_rank: 1' 2.6 ms before node 1's 'failed "
               "(exitcode: -6) local_rank: 1'; attempt 1's tables: node 1's rank 2 exit 1 'first observed', rank 3 -6 "
               "(SIGABRT); node 0's rank 0 exit 1 'first observed', rank 1 exit 1; k10s said 'Rank 1 raised an "
               "exception and the job was torn down' (rank-failure, warning, python-exception, rank 1) and 'Rank 1 "
               "exited (exit-1) and the job restarted' (crashloop, warning, exit-1, rank 1); truth: rank 3, abort"),
    "2.14.1": ("2 x 2, --max-restarts 1, --tee 3 --local-ranks-filter 0 (rank 3 is local rank 1: its lines filtered "
               "out), print_exc, DeepSpeed-like: rank 3 os.abort()s at step 6's rank-0 checkpoint save on both "
               "attempts ('failed (exitcode: -6) local_rank: 1' twice); attempt 1's tables: node 1's rank 3 -6 "
               "(SIGABRT) 'first observed', rank 2 exit 1; node 0's rank 1 exit 1 'first observed', rank 0 exit 1; k10s "
               "said 'Rank 3 aborted (SIGABRT) twice: the job is crash-looping' (crashloop, critical, abort, rank 3: "
               "right) beside 'Rank 1 raised an exception and the job was torn down' (rank-failure, warning, "
               "python-exception, rank 1: an innocent named); truth: rank 3, abort"),
}
_T73 = {f"{v}/t73-trun-2x2-restarts1-abort-rank3-step6-ckpt-rank0-w0-print-exc-deepspeed-filter0": why
        for v, why in _EVERY.items()}
