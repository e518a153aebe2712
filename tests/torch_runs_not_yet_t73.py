"""The seventy-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
70, no rule, parser or query changed). ``_T73``: both ways alike (each miss is both ways', the same findings from
import-logs and the pod logs).

Three are ``--redirects 3 --log-dir`` runs whose consoles hold only torchrun's failure tables, two of them under
``@record`` (the table's traceback field holds each rank's error): the never-joining rank 3 under ``--standalone``, 1 x
6 (every victim's field 'DistStoreError: wait timeout after 3000ms, keys: /default_pg/0//cpu//0/3', the culprit
SIGTERMed: no rank named), rank 2's caught ``MemoryError`` at step 2 (its field 'MemoryError', first observed 1.2-1.3 s
before node 0's table: no rank named) and the node-lost CONTROL (node 1 killed whole at init, its console without a
table; node 0's table's 'first observed' a victim's exit 1: a rank named where none may be). The fourth, 2.13.0 only,
is rank 5's ``logger.error`` + ``sys.exit(2)`` at init under ``--tee 3 --log-dir`` (the cause ``exit-2``; 2.14.1 read
right). (The every-attempt SIGABRT of rank 3 under ``--tee 3 --local-ranks-filter 0``, both versions, reads right since
session 71: docs/rules.md, "Session 71: a victim's exit 1 beside a crash-looping abort".)"""

from __future__ import annotations

_NEVER = {
    v: ("--standalone 1 x 6, --redirects 3 --log-dir, @record, print without the rank: rank 3 never calls "
        "init_process_group; the one table: " + table + ", rank 3 SIGTERM, every failing rank's traceback field "
        "'torch.distributed.DistStoreError: wait timeout after 3000ms, keys: /default_pg/0//cpu//0/3' (the key of the "
        "rank that never joined); k10s said 'Ranks failed (python-exception) but no single rank brought the job down' "
        "(rank-failure, warning, python-exception, no rank); truth: rank 3, never-joined")
    for v, table in (("2.13.0", "rank 4 exit 1 'first observed', rank 1 exit 1, ranks 0, 2, 5 SIGTERM"),
                     ("2.14.1", "rank 1 exit 1 'first observed', ranks 0, 2, 4, 5 exit 1"))}
_MEMORY = {
    v: ("2 x 2, --redirects 3 --log-dir, @record, logging without the rank: rank 2 raises MemoryError in step 2's "
        f"training; node 1's table ({t1}): rank 2 exit 1 'first observed' with 'MemoryError' in its traceback field, "
        f"rank 3 SIGTERM; node 0's ({t0}): rank 1 exit 1 'first observed' (its gloo 'Connection closed by peer'), rank 0 "
        "SIGTERM; k10s said 'Ranks failed (python-exception) but no single rank brought the job down' (rank-failure, "
        "warning, python-exception, no rank); truth: rank 2, host-oom")
    for v, t1, t0 in (("2.13.0", "17:30:13", "17:30:14, 1.2 s later"), ("2.14.1", "17:34:40", "17:34:42, 1.3 s later"))}
_NODE = {
    v: ("CONTROL: 2 x 3, --redirects 3 --log-dir, logger.exception, print without the rank: node 1 is killed whole at "
        "init by its rank 3 (the agent and its workers SIGKILLed, exit -9: node 1's console empty); node 0's one "
        f"table: rank {r} exit 1 'first observed' (its gloo 'Connection closed by peer' in the --log-dir files only), "
        f"{others} SIGTERM; k10s said 'Rank {r} raised an exception and the job was torn down' (rank-failure, warning, "
        f"python-exception, rank {r}): a control named; truth: no rank may be named (node 1 lost whole)")
    for v, r, others in (("2.13.0", 2, "ranks 0 and 1"), ("2.14.1", 0, "ranks 1 and 2"))}
_RAISE = ("2 x 3, --tee 3 --log-dir, logger.error(f'rank {rank}: {e}') then sys.exit(2), print without the rank: rank 5 "
          "raises 'bad batch at step 6: sample 17 has no tokens' at init; node 1's console holds the handler's "
          "message-only line '[default2]:rank 5: bad batch ...' and its table: rank 5 exit 2 'first observed', ranks 3 "
          "and 4 SIGTERM; node 0's table: ranks 2 and 0 exit 2 (their handlers' gloo 'Connection closed by peer' "
          "records), rank 1 SIGTERM; k10s said 'Rank 5 exited with status 2 and the job was torn down' (rank-failure, "
          "warning, exit-2, rank 5: the rank right, the cause not); truth: rank 5, python-exception (2.14.1's run, node "
          "0's table rank 2 exit 2 and ranks 0, 1 SIGTERM, read right)")

_T73 = {f"{v}/t73-standalone-1x6-never-joins-rank3-w0-record-norank-redirects": why for v, why in _NEVER.items()}
_T73.update({f"{v}/t73-trun-2x2-memoryerror-rank2-step2-train-w2-record-logging-norank-redirects": why
             for v, why in _MEMORY.items()})
_T73.update({f"{v}/t73-trun-2x3-node1-killed-by-rank3-init-w0-exception-norank-redirects": why
             for v, why in _NODE.items()})
_T73["2.13.0/t73-trun-2x3-raise-rank5-init-w0-error-norank-logdir"] = _RAISE
