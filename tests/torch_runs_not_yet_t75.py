"""The seventy-fifth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
71, no rule, parser or query changed). ``_T75``: both ways alike (each miss is both ways', import-logs and the pod logs
missing the same run).

One is an ``mp.spawn`` run with two forked DataLoader workers a rank, ``print_exc`` and print without the rank (no
torchrun table, the lines name no rank): rank 3's SIGKILL in step 8's validation, 3 x 2 (rank 3 silent, every victim's
gloo timeout, each spawner 'process N terminated with exit code 1' of a victim: no rank named; since session 71 those
reports are read as victims' and nothing is said). (The other, rank 2's raise at step 1's rank-0 checkpoint save, 2 x 2,
whose innocent named from the pod logs was a spawner's exit-code report under only gloo errors, reads right since
session 71: tests/test_spawn_exit_code_victim.py.) Two are a DataLoader worker's SIGKILL or a filtered every-attempt raise:
rank 0's loader worker SIGKILLed in step 2's validation under static rendezvous, ``--tee 3 --log-dir`` and
``logger.error`` + ``sys.exit(2)`` (the handler's message-only 'rank 0: DataLoader worker (pid(s) N) exited
unexpectedly': the rank right, the cause ``python-exception``), and rank 0's raise at shutdown on both attempts under
``--max-restarts 1 --tee 3 --local-ranks-filter 1`` (the culprit's lines filtered out; every table's four ranks exit 1:
'no single rank' and a crash loop of the pod, no rank). The fourth, 2.13.0 only, is the ``monitored_barrier`` late rank 2
at step 7's sharded checkpoint save under static rendezvous, 3 x 2, ``--tee 3 --local-ranks-filter 0`` (rank 0's
'Rank 2 failed to pass monitoredBarrier' in the console, every table's first observed a victim: 'no single rank';
2.14.1 read right)."""

from __future__ import annotations

_SIGKILL = {
    v: ("mp.spawn 3 x 2 (a spawner per node, no torchrun table), print_exc, print without the rank, DataLoader workers "
        "2: rank 3 (node 1's process 1) SIGKILLs itself in step 8's validation and prints nothing more; ranks 0, 1, 2, 4, "
        "5 print gloo 'Timed out waiting 3000ms for send/recv operation to complete' tracebacks 3 s later, no line naming "
        f"a rank; the spawners: {spawners}; k10s said 'Ranks failed (python-exception) but no single rank brought the job "
        "down' (rank-failure, warning, python-exception, no rank) both ways until session 71; since (each spawner's "
        "'terminated with exit code 1' under only gloo errors read as a victim's, docs/rules.md 'Session 71: mp.spawn's "
        "exit-code report under peers' errors') no finding at all, both ways: rank 3's silence is not read (session 72: node "
        "1's log holds one teardown traceback for its two processes, no SIGTERM by its spawner, but which process printed "
        "nothing is not in the lines, the same as a silent exit 1 of the reported process 0: docs/rules.md 'Session 72: "
        "mp.spawn's silent process'); since session 72 'The job failed, but only its victims' waits are in the logs; no "
        "single rank' (rank-failure, warning, victims-only, no rank: docs/rules.md 'Session 72: a failed job whose only "
        "failure lines are its victims''); truth: rank 3, host-oom-kill")
    for v, spawners in (("2.13.0", "node 0's, 1's and 2's each 'process 0 terminated with exit code 1' (node 1's is rank "
                                   "2, a victim: rank 3's own exit never reported, its forked loader workers likely "
                                   "holding its sentinel)"),
                        ("2.14.1", "node 0's 'process 1', node 1's and node 2's 'process 0 terminated with exit code 1' "
                                   "(node 1's is rank 2, a victim; re-recorded once after a gloo init timeout under "
                                   "load)"))}
_LOADER = {
    v: ("static rendezvous 2 x 2, --tee 3 --log-dir, print without the rank, logger.error(f'rank {rank}: {e}') then "
        "sys.exit(2), DataLoader workers 2: one of rank 0's workers SIGKILLs itself on a batch of step 2's validation "
        "loader; the console holds the handler's message-only '[default0]:rank 0: DataLoader worker (pid(s) N) exited "
        "unexpectedly' (no 'killed by signal'), rank 1's gloo recv timeout record 3 s later; node 0's table rank 0 exit 2 "
        "'first observed', rank 1 SIGTERM; node 1's rank 2 exit 2 first, rank 3 exit 2; k10s said 'Rank 0 raised an "
        "exception and the job was torn down' (rank-failure, warning, python-exception, rank 0: the rank right, the "
        "cause not) both ways; truth: rank 0, host-oom-kill")
    for v in ("2.13.0", "2.14.1")}
_EVERY = {
    v: ("2 x 2, --max-restarts 1, --tee 3 --local-ranks-filter 1 (rank 0 is local rank 0: its lines and rank 2's "
        "filtered out; only ranks 1 and 3 print, their gloo errors), print_exc, rank0-only: rank 0 raises at shutdown "
        "on both attempts; each attempt's agents log 'failed (exitcode: 1) local_rank: 0' on both nodes within "
        f"{gap}; attempt 1's tables: node 0's rank 0 exit 1 'first observed', rank 1 exit 1; node 1's rank 2 exit 1 "
        f"'first observed', rank 3 exit 1; k10s said {said} both ways; truth: rank 0, python-exception")
    for v, gap, said in (
        ("2.13.0", "0.1 s", "'Ranks failed (python-exception) but no single rank brought the job down' (rank-failure, "
                            "warning, python-exception, no rank) and 'train-master-0 exited (exit-1) twice: the job is "
                            "crash-looping' (crashloop, critical, exit-1, no rank)"),
        ("2.14.1", "0.13 s", "'Ranks failed (python-exception) but no single rank brought the job down' (rank-failure, "
                             "warning, python-exception, no rank) and 'train-master-0 exited (exit-1) and the job "
                             "restarted' (crashloop, warning, exit-1, no rank)"))}
_BARRIER = ("static rendezvous 3 x 2, --tee 3 --local-ranks-filter 0 (ranks 0, 2, 4 print), print_exc, DeepSpeed-like: "
            "rank 2 comes late to the monitored_barrier at step 7's sharded checkpoint save; node 0's console holds rank "
            "0's '[Rank 0]: Rank 2 failed to pass monitoredBarrier in 1500 ms' (22 ms after its agent's SIGTERM line), "
            "node 2's rank 4 'successfully reached monitoredBarrier, but received errors ... from rank 0'; the tables' "
            "'first observed': node 0's rank 1 exit 1 (rank 0 exit 1), node 1's rank 3 exit 1 (rank 2 SIGTERM), node "
            "2's rank 4 exit 1 (rank 5 exit 1); k10s said 'Ranks failed (python-exception) but no single rank brought "
            "the job down' (rank-failure, warning, python-exception, no rank) both ways; truth: rank 2, never-joined "
            "(2.14.1's run, node 0's rank 0 record before its agent's lines, read right)")

_T75 = {f"{v}/t75-spawn-3x2-sigkill-rank3-step8-eval-w2-print-exc-norank": why for v, why in _SIGKILL.items()}
_T75.update({f"{v}/t75-static-2x2-loader-sigkill-rank0-step2-eval-w2-error-norank-logdir": why
             for v, why in _LOADER.items()})
_T75.update({f"{v}/t75-trun-2x2-restarts1-raise-rank0-shutdown-w2-print-exc-rank0only-filter1": why
             for v, why in _EVERY.items()})
_T75["2.13.0/t75-static-3x2-monitored-barrier-rank2-step7-ckpt-shards-w0-print-exc-deepspeed-filter0"] = _BARRIER
