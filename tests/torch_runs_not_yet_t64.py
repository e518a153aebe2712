"""The sixty-fourth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
67, no rule, parser or query changed). ``_T64``: both ways alike (every miss is both versions' and both ways').

One is a ``--redirects 3 --log-dir`` run (the console holds only torchrun's failure table; every program line and
traceback is in the ``--log-dir`` files), as t61's four and t62's two: a missing shard at shutdown under
``--standalone`` 1 x 4 and ``print_exc``, every rank exit 1 in the same second. The other is a DataLoader worker's
SIGKILL in the validation loop under the ``error`` handler (the message only, then exit 2), its rank hidden by the
``--local-ranks-filter``, as t62's AssertionError and t61's missing shard: the rank right, the cause ``exit-2``."""

from __future__ import annotations

_SHARD = ("--standalone 1 x 4, --redirects 3 --log-dir, logging with the rank (slash), traceback.print_exc then "
          "os._exit(1): rank 0 opens its missing shard at shutdown (after the last step, before the closing barrier; "
          "'FileNotFoundError: [Errno 2] No such file or directory: 'data/train/shard-00000.bin'' and the others' "
          "'Connection reset by peer' in the --log-dir files only); the table: ranks 0-3 all exit 1 in the same second "
          "(rank 0 the 'first observed'); k10s said 'Ranks failed (python-exception) but no single rank brought the job "
          "down' (rank-failure, warning, python-exception, no rank); truth: rank 0, python-exception (FileNotFoundError)")
_LOADER = ("2 x 3, --tee 3 --local-ranks-filter 2 (ranks 2 and 5 shown, not the culprit), rank-0-only prints, "
           "logger.error(f'rank {rank}: {e}') then sys.exit(2): one of rank 4's two DataLoader workers SIGKILLs itself "
           "on the validation loader's first batch after step 3 (the main process's 'DataLoader worker (pid N) is "
           "killed by signal: Killed.' as a message only, and hidden by the filter); node 1's table: rank 4 exit 2, "
           "ranks 3, 5 SIGTERM; node 0's, 3-4 s later: rank 2 exit 2, ranks 0, 1 SIGTERM (2.14.1: ranks 0-2 exit 2, their "
           "gloo errors); k10s said 'Rank 4 exited with status 2 and "
           "the job was torn down' (rank-failure, warning, exit-2, rank 4: the rank right, the cause not); truth: "
           "rank 4, host-oom-kill (the worker's SIGKILL). Session 71 checked: the consoles hold no line of rank 4's (local "
           "rank 1, filtered out): only ranks 2 and 5's gloo 'Connection closed by peer' / 'Timed out waiting' messages; "
           "nothing in these logs names the worker's kill, so its status is all there is")
_RUNS = {"t64-standalone-1x4-missing-shard-rank0-shutdown-w2-print-exc-logging-slash-redirects": _SHARD,
         "t64-trun-2x3-loader-sigkill-rank4-step3-eval-w2-error-rank0only-filter2": _LOADER}
_T64 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in _RUNS.items()}
