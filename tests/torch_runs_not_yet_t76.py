"""The seventy-sixth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
71, no rule, parser or query changed). ``_T76``: both ways alike (every miss is both versions' and both ways', the same
findings from import-logs and the pod logs).

Three runs, each a family an earlier set holds: the DETAIL size mismatch of rank 3 under ``--redirects 3 --log-dir``
(the ``Detected mismatch`` lines in the --log-dir files only, the tables' exit 1s: 'no single rank', python-exception;
read right with its tree, tests/test_import_log_dir.py ``FIXED``), the DataLoader worker's SIGBUS of rank 2 under
``--local-ranks-filter 1`` (the culprit's lines filtered out, both tables' 'first observed' an exit 1 of local rank 2:
'no single rank', python-exception; no tree) and the recovered run's raise of rank 2 under ``logger.error`` and
``--redirects 3 --log-dir`` (the first attempt's 'failed (exitcode: 2) local_rank: 0' only, then a clean second
attempt: the rank right, the cause ``exit-2``; wrong with its tree too, its NOT_YET: the message-only handler
record)."""

from __future__ import annotations

_SIZE = (
    "2 x 2, --redirects 3 --log-dir, print-norank, logger.exception then sys.exit(1): rank 3 all_reduces a tensor of 5 "
    "where the others give 8 at step 5's training; the 'Detected mismatch ... Rank 3 is running collective: "
    "CollectiveFingerPrint(... OpType=ALLREDUCE, TensorShape=[5] ...)' lines are in the --log-dir files only; the "
    "consoles hold only the two tables, each 'first observed' an exit 1 of the same second (node 0: rank 0; node 1: "
    "rank 3), the others exit 1 (2.13.0) or rank 2 SIGTERM (2.14.1); k10s said 'no single rank' (rank-failure, "
    "warning, python-exception, no rank); truth: rank 3, collective-mismatch (read right with its tree)")
_LOADER = (
    "static rendezvous 2 x 3, --tee 3 --local-ranks-filter 1 (rank 2 is local rank 2: its lines filtered out), "
    "DeepSpeed-like, print_exc then sys.exit(1): a DataLoader worker of rank 2 is killed by SIGBUS at step 7's "
    "validation; the consoles show only local rank 1's start lines and the two tables, each 'first observed' an exit 1 "
    "of local rank 2 within a second (node 0: rank 2; node 1: rank 5, the victim), the others SIGTERM; k10s said 'no "
    "single rank' (rank-failure, warning, python-exception, no rank); truth: rank 2, sigbus")
_RECOVERED = (
    "2 x 2, --max-restarts 1 --redirects 3 --log-dir, Lightning-like, logger.error(f'rank {rank}: {e}') then "
    "sys.exit(2): rank 2 raises at shutdown on the first attempt only ('rank 2: bad batch at step 3: sample 17 has no "
    "tokens', the message only, in the --log-dir files only); the consoles hold node 1's 'failed (exitcode: 2) "
    "local_rank: 0' and the restart, then a clean second attempt (exit 0 on both agents); k10s said 'Rank 2 exited "
    "with status 2' (rank-failure, warning, exit-2, rank 2: the rank right, the cause not); truth: rank 2, "
    "python-exception")

_T76 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in (
    ("t76-trun-2x2-size-mismatch-rank3-step5-train-w2-exception-norank-redirects", _SIZE),
    ("t76-static-2x3-loader-sigbus-rank2-step7-eval-w2-print-exc-deepspeed-filter1", _LOADER),
    ("t76-trun-2x2-restarts1-recovered-raise-rank2-shutdown-w2-error-lightning-redirects", _RECOVERED))}
