"""The seventy-fourth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
71, no rule, parser or query changed). ``_T74``: both ways alike (every miss is both versions' and both ways', the same
findings from import-logs and the pod logs).

All three are runs under the ``error`` handler (``logger.error(f'rank {rank}: {e}')`` then ``sys.exit(2)``: every
failing rank exits 2, no traceback field in the tables). Two are ``--redirects 3 --log-dir`` runs whose consoles hold
only torchrun's failure tables: the never-joining rank 2, 3 x 2 (every other rank's 'wait timeout ... keys:
/default_pg/0//cpu//0/2' in the --log-dir files only; the culprit SIGTERMed: no rank named) and rank 3's caught
``ValueError`` at step 4 under static rendezvous, 2 x 2 (the message only, in the files only: the rank right from the
tables, the cause ``exit-2``); both read right with their trees (tests/test_import_log_dir.py ``FIXED``). The third is
the ``monitored_barrier`` late rank 2 at init under ``--standalone --tee 3 --local-ranks-filter 3``, 1 x 4: the
culprit's and rank 0's (the barrier's checker's) lines filtered out, the one shown rank 3 saying 'received errors while
waiting for send/recv from rank 0': no rank named (as t59's filtered barrier)."""

from __future__ import annotations

_NEVER = {
    v: ("3 x 2, --redirects 3 --log-dir, DeepSpeed-like, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 2 "
        "never calls init_process_group; the consoles hold only the tables (every other rank's 'rank N: wait timeout "
        "after 3000ms, keys: /default_pg/0//cpu//0/2' in the --log-dir files only): " + tables + "; k10s said 'Ranks "
        "failed (exit-2) but no single rank brought the job down' (rank-failure, warning, exit-2, no rank); truth: "
        "rank 2, never-joined")
    for v, tables in (("2.13.0", "node 0's rank 1 exit 2 'first observed', rank 0 SIGTERM; node 1's rank 3 exit 2 'first "
                                 "observed', rank 2 SIGTERM; node 2's rank 4 exit 2 'first observed', rank 5 exit 2"),
                      ("2.14.1", "node 0's rank 0 exit 2 'first observed', rank 1 exit 2; node 1's rank 3 exit 2 'first "
                                 "observed', rank 2 SIGTERM; node 2's rank 4 exit 2 'first observed', rank 5 exit 2"))}
_BARRIER = {
    v: ("--standalone 1 x 4, --tee 3 --local-ranks-filter 3 (rank 2 is local rank 2: its lines filtered out, and rank "
        "0's, the barrier's checker's), rank-0-only prints, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 2 "
        "reaches monitored_barrier 12 s late at init; the console shows only rank 3's 'Rank 3 successfully reached "
        "monitoredBarrier, but received errors while waiting for send/recv from rank 0' (the gloo line and its "
        "handler's 'rank 3: ...' record, over 'Connection closed by peer'); the one table: " + table + "; k10s said "
        "'Ranks failed (exit-2) but no single rank brought the job down' (rank-failure, warning, exit-2, no rank); "
        "truth: rank 2, never-joined")
    for v, table in (("2.13.0", "rank 0 exit 2 'first observed', rank 3 exit 2, ranks 1 and 2 SIGTERM"),
                     ("2.14.1", "rank 3 exit 2 'first observed', ranks 0 and 1 exit 2, rank 2 SIGTERM"))}
_VALUE = {
    v: ("static rendezvous 2 x 2, --redirects 3 --log-dir, Lightning-like, logger.error(f'rank {rank}: {e}') then "
        "sys.exit(2): rank 3 raises ValueError('batch 17 at step 4 has 7 features per sample; the model expects 8') at "
        "step 4's training ('rank 3: batch 17 ...', the message only, in the --log-dir files only); node 1's table: "
        f"rank 3 exit 2 'first observed', rank 2 SIGTERM; node 0's, {gap} later: rank 1 exit 2 (its gloo 'Timed out "
        "waiting 3000ms for recv' in the files only), rank 0 SIGTERM; k10s said 'Rank 3 exited with status 2 and the "
        "job was torn down' (rank-failure, warning, exit-2, rank 3: the rank right, the cause not); truth: rank 3, "
        "python-exception")
    for v, gap in (("2.13.0", "4.1 s"), ("2.14.1", "6.1 s"))}

_T74 = {f"{v}/t74-trun-3x2-never-joins-rank2-w0-error-deepspeed-redirects": why for v, why in _NEVER.items()}
_T74.update({f"{v}/t74-standalone-1x4-monitored-barrier-rank2-init-w0-error-rank0only-filter3": why
             for v, why in _BARRIER.items()})
_T74.update({f"{v}/t74-static-2x2-raise-value-rank3-step4-train-w0-error-lightning-redirects": why
             for v, why in _VALUE.items()})
