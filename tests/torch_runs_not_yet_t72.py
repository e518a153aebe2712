"""The seventy-second set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
70, no rule, parser or query changed). ``_T72``: both ways alike; ``_T72_WAY``: one way only (the loader run's pod logs
read right since session 70's table traceback reading: docs/rules.md "Session 70: a failure table's traceback field
names the loader's kill").

One is a static-rendezvous ``--redirects 3 --log-dir`` run (the consoles hold only torchrun's failure tables; every
program line, traceback and handler record is in the ``--log-dir`` files): rank 1's caught raise at step 6 under the
``error`` handler (the rank right from the tables, the cause ``exit-2``). The node-lost CONTROL of the same shape (node 0
killed whole at init: its console empty, node 1's table gives rank 5 exit 1 'first observed') reads right since session
71 (docs/rules.md "Session 71: a node whose log went silent": no rank named). The other is a DataLoader worker's SIGBUS of rank 4 at step 5 under ``@record`` and ``--tee 3 --local-ranks-filter 2``
(the culprit's own lines filtered out): its agent's table holds 'RuntimeError: DataLoader worker (pid N) is killed by
signal: Bus error.' in rank 4's traceback field, but the import way names no rank and the pod logs name rank 4 for a
Python exception beside a hang naming other ranks. With their trees (tests/test_import_log_dir.py) the raise and the
node-lost control are read right (the loader run kept no tree)."""

from __future__ import annotations

_RAISE = {
    v: ("static 2 x 3, --redirects 3 --log-dir, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 1 raises "
        "'bad batch at step 6: sample 17 has no tokens' in step 6's training; the consoles hold only the tables: node "
        f"0's rank 1 exit 2 'first observed' ({t0}), ranks 0 and 2 SIGTERM; node 1's ranks 4 and 5 exit 2 ({t1}, their "
        "gloo errors), rank 3 SIGTERM (the handler's records in the --log-dir files only); k10s said 'Rank 1 exited with "
        "status 2 and the job was torn down' (rank-failure, warning, exit-2, rank 1: the rank right, the cause not); "
        "truth: rank 1, python-exception (read right with its tree)")
    for v, t0, t1 in (("2.13.0", "15:56:06", "15:56:09"), ("2.14.1", "16:05:24", "16:05:28"))}
_LOADER = {
    v: ("2 x 3, --tee 3 --local-ranks-filter 2 (only ranks 2 and 5 print), @record, logging with the rank (slash): one "
        "of rank 4's two DataLoader workers SIGBUSes itself on the batch the training loader fetches for step 5; rank 4 "
        "exits 1 and node 1's table gives it 'first observed' "
        f"({t}) with its error file's 'RuntimeError: DataLoader worker (pid N) is killed by signal: Bus error. It is "
        "possible that dataloader's workers are out of shared memory.' in the traceback field; every other rank's "
        f"traceback field holds its gloo timeout ({others}); k10s said, import-logs: 'no single culprit' (nccl-hang, "
        f"info, no rank), pod logs: {pod} and 'Rank 4 raised an exception' (rank-failure, warning, python-exception, "
        "rank 4: the rank right, the cause not); truth: rank 4, sigbus (the worker's SIGBUS). No --log-dir tree")
    for v, t, others, pod in (
        ("2.13.0", "16:00:49", "rank 0 exit 1, ranks 1, 2, 3, 5 SIGTERM, 3 s later",
         "'rank-failed' (nccl-hang, critical, ranks 0 and 4)"),
        ("2.14.1", "16:11:46", "ranks 0, 1, 2 exit 1, 3 and 5 SIGTERM, 4 s later",
         "'rank-failed' (nccl-hang, critical, ranks 0, 1, 2 and 4)"))}
_T72 = {f"{v}/t72-static-2x3-raise-rank1-step6-train-w2-error-logging-norank-redirects": why for v, why in _RAISE.items()}
# t72-trun-2x3-loader-sigbus-rank4-step5-train-w2-record-logging-slash-filter2 (2.13.0 and 2.14.1, import-logs) read right
# since session 71 (_LOADER above, kept as the record; the consoles imported without their API timestamps read 'no single
# culprit', nccl-hang, info, no rank: rank 4's table row was dropped as one more gloo wait's exit, the waits' `[rankN]:`
# lines having no clock of their own; now a wait's time is its rank's failure-table entry quoting the same exception, the
# error file's `time : …_16:00:52` after rank 4's `16:00:49`: docs/rules.md "Session 71: a wait's time from its failure
# table", tests/test_table_time_of_a_wait.py)
_T72_WAY: dict[str, dict[str, str]] = {
    "import": {},
    "podlog": {},
}
