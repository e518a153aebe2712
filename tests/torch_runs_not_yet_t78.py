"""The seventy-eighth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
72, no rule, parser or query changed). ``_T78``: both ways alike (every miss is both versions' and both ways', the same
findings from import-logs and the pod logs).

Two runs, each a family an earlier set holds: rank 3's raise under static rendezvous, ``logger.error`` and
``--redirects 3 --log-dir`` (the handler's message-only record in the --log-dir files only, the tables' exit 2s: the
rank right, the cause ``exit-2``; read right with its tree, tests/test_import_log_dir.py ``FIXED``) and the recovered
run's raise of rank 0 under ``--local-ranks-filter 2`` (the culprit's lines filtered out, the first attempt's two
'failed (exitcode: 1) local_rank: ...' agent lines only, then a clean second attempt: 'no single rank',
python-exception; no tree)."""

from __future__ import annotations

_RAISE = (
    "static rendezvous 2 x 2, --redirects 3 --log-dir, Lightning-like, logger.error(f'rank {rank}: {e}') then "
    "sys.exit(2): rank 3 raises at step 2's validation ('rank 3: bad batch at step 2: sample 17 has no tokens', the "
    "message only, in the --log-dir files only); the consoles hold only the two tables, node 1's 'first observed' rank "
    "3's exit 2 (rank 2 SIGTERM), node 0's rank 0's exit 2 (2.13.0: rank 1 SIGTERM; 2.14.1: ranks 0 and 1 exit 2); k10s "
    "said 'Rank 3 exited with status 2 and the job was torn down' (rank-failure, warning, exit-2, rank 3: the rank "
    "right, the cause not); truth: rank 3, python-exception (read right with its tree)")
_RECOVERED = (
    "2 x 3, --max-restarts 1 --tee 3 --local-ranks-filter 2 (rank 0 is local rank 0: its lines filtered out), print_exc "
    "then sys.exit(1), logging without the rank: rank 0 raises in step 3's rank-0 checkpoint save on the first attempt "
    "only; the consoles show local rank 2's (ranks 2 and 5, victims) gloo 'Connection closed by peer' at the save's "
    "barrier, then each agent's 'failed (exitcode: 1) local_rank: N' (node 0: local rank 0, rank 0; node 1: local rank "
    "0, rank 3 (2.13.0) or local rank 1, rank 4 (2.14.1)), no table, and a clean second attempt (exit 0 on both agents); "
    "k10s said 'Ranks failed (python-exception) but no single rank brought the job down' (rank-failure, warning, "
    "python-exception, no rank); truth: rank 0, python-exception")

_T78 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in (
    ("t78-static-2x2-raise-rank3-step2-eval-w2-error-lightning-redirects", _RAISE),
    ("t78-trun-2x3-restarts1-recovered-raise-rank0-step3-ckpt-rank0-w2-print-exc-logging-norank-filter2", _RECOVERED))}
