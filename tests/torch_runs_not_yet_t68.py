"""The sixty-eighth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
68, no rule, parser or query changed). ``_T68``: both ways alike (each miss is both ways'; the op mismatch 2.13.0's only).

One is a DataLoader worker's SIGKILL in the validation loop under ``--redirects 3 --log-dir`` (the consoles hold only
torchrun's failure tables; the main process's 'DataLoader worker (pid N) is killed by signal: Killed.' is in the
``--log-dir`` files only): the tables give rank 5 exit 1 first, so the rank is right and the cause ``python-exception``
(with its tree, tests/test_import_log_dir.py reads it right). The other is the op mismatch at ``init`` under ``mp.spawn``
(2 x 2) in 2.13.0, where the two errors that reached the consoles are rank 0's and rank 2's, each naming the other (2.14.1:
ranks 1 and 3, both naming rank 2, read right)."""

from __future__ import annotations

_LOADER = ("3 x 2, --redirects 3 --log-dir, logger.exception (prints with no rank): one of rank 5's two DataLoader "
           "workers SIGKILLs itself on the validation loader's first batch after step 8; the main process's 'RuntimeError: "
           "DataLoader worker (pid N) is killed by signal: Killed.' and its 'exited unexpectedly' are in the --log-dir "
           "files only; node 2's table first: rank 5 exit 1, rank 4 SIGTERM (then nodes 1 and 0: ranks 3 and 0 or 1 exit "
           "1, their gloo errors); k10s said 'Rank 5 raised an exception and the job was torn down' (rank-failure, "
           "warning, python-exception, rank 5: the rank right, the cause not); truth: rank 5, host-oom-kill (the worker's "
           "SIGKILL); read right with the run's --log-dir tree (tests/test_import_log_dir.py)")
_SPAWN = ("mp.spawn 2 x 2 (a launcher per node, no torchrun table), logging with the rank (rank=), uncaught: rank 2 runs "
          "all_gather where the others run all_reduce at init (sequence number 0); in 2.13.0 the process each node's "
          "spawn reports is local rank 0: rank 0's 'Detected mismatch ... Rank 0 is running ALLREDUCE ... but Rank 2 is "
          "running ALLGATHER' and rank 2's 'Rank 2 is running ALLGATHER ... but Rank 0 is running ALLREDUCE', each "
          "naming the other; k10s import-logs said 'Ranks 0, 2 did not match the other ranks' collectives ...; 2 ranks "
          "failed in different files with no clock between them ...: no single culprit' (no rank; until session 69 rank 0, "
          "a wrong name read from the order the files were given in) and the pod-log reading 'Ranks failed "
          "(collective-mismatch) but no single rank brought the job down' (no rank); truth: rank 2, collective-mismatch "
          "(2.14.1 reports ranks 1 and 3, both naming rank 2: read right both ways); the fingerprints give {0, 1} on "
          "ALLREDUCE against {2} on ALLGATHER with rank 3 unseen, a split at node 1's boundary that node 1 running ALLGATHER "
          "as a whole gives alike (docs/rules.md, \"Session 68: the odd rank in DETAIL's mismatch reports\")")
_RUNS = {"t68-trun-3x2-loader-sigkill-rank5-step8-eval-w2-exception-norank-redirects": _LOADER}
_T68 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in _RUNS.items()}
_T68["2.13.0/t68-spawn-2x2-op-mismatch-rank2-init-w2-uncaught-logging-rank"] = _SPAWN
