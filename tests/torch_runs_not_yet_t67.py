"""The sixty-seventh set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
68, no rule, parser or query changed). ``_T67``: both ways alike (every miss is both versions' and both ways').

Both are ``--redirects 3 --log-dir`` runs under the ``error`` handler (``logger.error(f'rank {rank}: {e}')`` then
``sys.exit(2)``), 2 x 3 multi-node ``torchrun``, in training: the consoles hold only torchrun's failure tables (every
program line and handler record is in the ``--log-dir`` files). A ``monitored_barrier`` whose late rank is rank 0, the
barrier's own checker (every other rank's 'received errors while waiting for send/recv from rank 0' in the files only;
the tables: several ranks exit 2, rank 0 SIGTERM), read as 'no single culprit'; and a caught ``RuntimeError`` of rank 4
at step 1 (the message only, in the files only), the rank right from the tables, the cause ``exit-2``."""

from __future__ import annotations

_BARRIER = ("2 x 3, --redirects 3 --log-dir, DeepSpeed-like, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank "
            "0, the monitored_barrier's own checker, reaches it late at step 4 (ranks 1-5's 'Rank N successfully reached "
            "monitoredBarrier, but received errors while waiting for send/recv from rank 0' in the --log-dir files "
            "only); the tables: 2.13.0 ranks 2, 3, 5 exit 2 (ranks 0, 1, 4 SIGTERM), 2.14.1 ranks 1-5 exit 2 (rank 0 "
            "SIGTERM), node 1's and node 0's tables 0.1-0.3 s apart; k10s said 'Ranks failed (exit-2) but no single "
            "rank brought the job down' (rank-failure, warning, exit-2, no rank); truth: rank 0, never-joined")
_RAISE = ("2 x 3, --redirects 3 --log-dir, Lightning-like, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 4 "
          "raises RuntimeError('bad batch at step 1: sample 17 has no tokens') at step 1 ('rank 4: bad batch ...', the "
          "message only, in the --log-dir files only); node 1's table: rank 4 exit 2 (the 'first observed'), ranks 3, "
          "5 SIGTERM; node 0's, 2 s later: rank 0 exit 2, ranks 1, 2 SIGTERM; k10s said 'Rank 4 exited with status 2 "
          "and the job was torn down' (rank-failure, warning, exit-2, rank 4: the rank right, the cause not); truth: "
          "rank 4, python-exception")
_RUNS = {"t67-trun-2x3-monitored-barrier-rank0-step4-train-w2-error-deepspeed-redirects": _BARRIER,
         "t67-trun-2x3-raise-rank4-step1-train-w0-error-lightning-redirects": _RAISE}
_T67 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in _RUNS.items()}
