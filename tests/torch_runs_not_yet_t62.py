"""The sixty-second set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
66, no rule, parser or query changed). ``_T62``: both ways alike (every miss is both versions' and both ways').

Two are ``--redirects 3 --log-dir`` runs (the consoles hold only torchrun's failure tables; every program line,
traceback and handler record is in the ``--log-dir`` files), as t61's four: a DETAIL op mismatch at a checkpoint save
under ``--standalone`` and a DataLoader worker's SIGBUS in the validation loop (the rank right, the cause not). The
third is a caught ``AssertionError`` under the ``error`` handler (the message only, then exit 2), as t61's missing
shard: the rank right, the cause ``exit-2``."""

from __future__ import annotations

_OP = ("--standalone 1 x 6, --redirects 3 --log-dir, print-norank, uncaught: rank 1 calls all_gather where the others "
       "all_reduce at step 6's rank-0 checkpoint save (TORCH_DISTRIBUTED_DEBUG=DETAIL); the table: a few ranks exit 1 "
       "(2.13.0: 1, 2, 5; 2.14.1: 1, 4), the others SIGTERM, the 'Detected mismatch between collectives' errors in the "
       "--log-dir files only; k10s said 'Ranks failed (python-exception) but no single rank brought the job down' "
       "(rank-failure, warning, python-exception, no rank); truth: rank 1, collective-mismatch")
_LOADER = ("2 x 3, --redirects 3 --log-dir, rank-0-only prints, logger.exception: one of rank 2's two DataLoader "
           "workers SIGBUSes itself on the validation loader's first batch after step 4 (the main process's "
           "'RuntimeError: DataLoader worker (pid N) is killed by signal: Bus error.' in the --log-dir files only); the "
           "tables: rank 2 exit 1, ranks 0, 1 SIGTERM; k10s said 'Rank 2 raised an exception and the job was torn "
           "down' (rank-failure, warning, python-exception, rank 2: the rank right, the cause not); truth: rank 2, sigbus")
#: read right since session 67 (kept for the record)
_ASSERT = ("3 x 2, --tee 3 --log-dir, rank-0-only prints, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 0's "
           "AssertionError in step 1's validation loop ('rank 0: expected 4 samples in the batch at step 1, got 3', the "
           "exception's type never printed); the tables: rank 0 exit 2, rank 1 SIGTERM; k10s said 'Rank 0 exited with "
           "status 2 and the job was torn down' (rank-failure, warning, exit-2, rank 0: the rank right, the cause not); "
           "truth: rank 0, python-exception")
# Read right since session 67 (a message-only line before an exit of the program's own status: docs/rules.md "Session 67:
# a message-only handler record"; both versions, both ways): t62-trun-3x2-assert-rank0-step1-eval-w0-error-rank0only-logdir
# (_ASSERT above, kept as the record of what k10s said)
_RUNS = {"t62-standalone-1x6-op-mismatch-rank1-step6-ckpt-rank0-w2-uncaught-norank-redirects": _OP,
         "t62-trun-2x3-loader-sigbus-rank2-step4-eval-w2-exception-rank0only-redirects": _LOADER}
_T62 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in _RUNS.items()}
