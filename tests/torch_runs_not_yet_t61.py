"""The sixty-first set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
66, no rule, parser or query changed). ``_T61``: both ways alike; ``_T61_WAY``: one way only.

Four of the five are ``--redirects 3 --log-dir`` runs (the consoles hold only torchrun's failure tables; every program
line, traceback and handler record is in the ``--log-dir`` files): a rank's ``os.abort()`` at shutdown among its
victims' exit 1, a rank that never joins (SIGTERMed, the others' init timeouts exit 1), a ``monitored_barrier`` late
rank under the ``error`` handler (every failing rank exits 2) and a missing shard at shutdown under the ``error``
handler (the rank right from the tables, the cause ``exit-2``). The fifth is new: a DataLoader worker's SIGBUS, whose
own handler (torch/csrc/DataLoader.cpp ``write(STDERR_FILENO, msg, sizeof(msg))``) writes the message's terminating
NUL byte into the rank's stderr: ``k10s import-logs`` refuses the node log as binary data (any NUL in the first 64 KiB
without a UTF-16 shape: parsers/log_encoding.py), the pod-log capture reads it right."""

from __future__ import annotations

_ABORT = ("--redirects 3 --log-dir, 2 x 2, rank-in-logging (paren), traceback.print_exc then os._exit(1): rank 1 "
          "os.abort()s at shutdown (after the last step, before the closing barrier); the consoles hold only the "
          "tables: rank 1 exitcode -6 (SIGABRT) but rank 0's exit 1 'first observed', ranks 0, 2, 3 exit 1 (their "
          "barrier's connection reset, in the --log-dir files only); k10s said 'Ranks failed (python-exception) but "
          "no single rank brought the job down' (rank-failure, warning, python-exception, no rank); truth: rank 1, abort")
_NEVER = ("--redirects 3 --log-dir, 3 x 2, rank-in-logging (paren), uncaught: rank 5 sleeps 18 s before "
          "init_process_group; the tables: ranks 0-4 exit 1 (their init's gloo timeouts, in the --log-dir files "
          "only), rank 5 SIGTERM; k10s said 'Ranks failed (python-exception) but no single rank brought the job "
          "down' (rank-failure, warning, python-exception, no rank); truth: rank 5, never-joined")
_BARRIER = ("--redirects 3 --log-dir, static rendezvous 3 x 2, DeepSpeed-like, logger.error(f'rank {rank}: {e}') then "
            "sys.exit(2): rank 4 reaches monitored_barrier 12 s late at step 5; the tables: ranks 1, 3, 5 exit 2 "
            "(rank 0's 'Ranks 4 failed to pass monitoredBarrier' and the others' errors in the --log-dir files only), "
            "ranks 0, 2, 4 SIGTERM; k10s said 'Ranks failed (exit-2) but no single rank brought the job down' "
            "(rank-failure, warning, exit-2, no rank); truth: rank 4, never-joined")
# _SHARD: with its --log-dir tree beside the consoles read right in both versions since session 67 (the tree's agents
# placed by their workers' records' ranks: tests/test_import_log_dir.py FIXED); the consoles alone hold only the tables
_SHARD = ("--redirects 3 --log-dir, 2 x 3, DeepSpeed-like, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 0 "
          "opens its missing shard at shutdown ('[ERROR] [engine.py:112:step] rank 0: [Errno 2] No such file or "
          "directory: 'data/train/shard-00000.bin'' in the --log-dir files only); node 0's table: rank 0 exit 2, ranks 1, "
          "2 SIGTERM (node 1's agent: the c10d store lost); k10s said 'Rank 0 exited with status 2 and the job was torn down' (rank-failure, warning, exit-2, "
          "rank 0: the rank right, the cause not); truth: rank 0, python-exception (FileNotFoundError). Session 71 checked: "
          "no line of rank 0's own is in either console (node 0's holds its table alone, node 1's its agent's store "
          "errors), so no reading of the consoles can say more than the status; the tree says it (FIXED there)")
# Read right since session 66 (a stray NUL in a log is dropped, not refused: parsers/log_encoding.py), both versions,
# import-logs: "static rendezvous 2 x 2, --tee 3 --local-ranks-filter 1, rank-0-only prints, logger.exception: one of rank "
# "1's two DataLoader workers SIGBUSes itself fetching the batch prefetched at step 8 ('ERROR: Unexpected bus "
# "error encountered in worker. This might be caused by insufficient shared memory (shm).' then a NUL byte, "
# "then the main process's 'RuntimeError: DataLoader worker (pid N) is killed by signal: Bus error.' raised "
# "while step 8's validation builds its loader); k10s import-logs refused node0.log: 'binary data, not a "
# "text log' (the worker handler's NUL); the pod-log reading is right (rank 1, sigbus); truth: rank 1, sigbus"
_RUNS = {"t61-trun-2x2-abort-rank1-shutdown-w0-print-exc-logging-paren-redirects": _ABORT,
         "t61-trun-3x2-never-joins-rank5-w2-uncaught-logging-paren-redirects": _NEVER,
         "t61-static-3x2-monitored-barrier-rank4-step5-train-w2-error-deepspeed-redirects": _BARRIER,
         "t61-trun-2x3-missing-shard-rank0-shutdown-w2-error-deepspeed-redirects": _SHARD}
_T61 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in _RUNS.items()}
_T61_WAY: dict[str, dict[str, str]] = {
    "import": {},
    "podlog": {},
}
