"""The fifty-ninth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why: ``_T59[how]``, one
dict each way (``import``, ``podlog``), as recorded (session 64, no rule, parser or query changed).

Three classes. (1) ``logger.error(f"rank {rank}: {e}")`` then ``sys.exit(2)`` (the ``error`` handler: the message only,
no traceback, no exception type): the culprit's record is ``rank 3: batch 17 ... the model expects 8`` (the
``ValueError``) or ``rank 3: `` (the ``MemoryError``, whose message is empty); k10s names the right rank from the
tables' first exit but only as ``exit-2`` ("Only its exit status is in the logs"), both ways. (2) ``traceback.print_exc()``
then ``os._exit(1)`` with every rank's output unprefixed (no ``--tee``): the culprit's traceback and the victims' gloo
tracebacks are alike rank-less in the pod log; the import-logs way reads 'Ranks 0, 1, 2, 3 raised a Python exception;
4 ranks failed the same way within one second: no single culprit' where the pod-logs way names the culprit. (3) The
culprit's own output filtered out by ``--local-ranks-filter`` under a catching handler: the late ``monitored_barrier``
(rank 0's naming error filtered out too) and, on 2.14.1, the ``AssertionError`` (the victims' shown errors gloo
timeouts)."""

from __future__ import annotations

# Read right since session 65 (what k10s said as recorded, kept as the record; docs/rules.md "Session 65: ... caught"):
# raise_rt: 2 x 2, Lightning-like, traceback.print_exc() then os._exit(1), no --tee: rank 0's RuntimeError 'non-
#   finite loss at step 8' printed unprefixed like the victims' gloo 'Connection reset by peer' tracebacks; k10s
#   (import-logs) said 'Ranks 0, 1, 2, 3 raised a Python exception; 4 ranks failed the same way within one second:
#   no single culprit (a node- or job-wide cause)' (rank-failure, warning, python-exception, no rank); the pod-logs
#   way reads it right; truth: rank 0, python-exception
# key: 2 x 2, DeepSpeed-like, traceback.print_exc() then os._exit(1), no --tee: rank 2's KeyError 'labels' printed
#   unprefixed like the victims' gloo tracebacks; k10s (import-logs) said 'Ranks 0, 1, 2, 3 raised a Python
#   exception; 4 ranks failed the same way within one second: no single culprit' (rank-failure, warning, python-
#   exception, no rank); the pod-logs way reads it right; truth: rank 2, python-exception
_VALUE = ("2 x 2, Lightning-like, --tee 3, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 3's record "
          "'[default1]:rank 3: batch 17 at step 7 has 7 features per sample; the model expects 8' (no traceback, no "
          "exception type), the victims' 'rank 2: [...pair.cc:553] Connection closed by peer' alike; k10s said 'Rank 3 "
          "on <node-1> exited with status 2. Only its exit status is in the logs (confidence medium)' (rank-failure, "
          "warning, exit-2, rank 3: the rank right, the cause not); truth: rank 3, python-exception (ValueError). Session "
          "65's reading of a rank's last ERROR record (log_error_records.py) does not reach it: the Lightning-like "
          "program configures no logging, so Python's last-resort handler prints the record's message alone, no level "
          "word (and a bare last line reads as sys.exit(msg)'s, exit-1 elsewhere)")
_MEM = ("2 x 2, DeepSpeed-like, logger.error(f'rank {rank}: {e}') then sys.exit(2), no --tee: rank 3's 1 PiB bytearray "
        "raises a MemoryError with an empty message, its whole record 'rank 3: '; k10s said 'Rank 3 on <node-1> exited "
        "with status 2. Only its exit status is in the logs (confidence medium)' (rank-failure, warning, exit-2, rank "
        "3: the rank right, the cause not); since session 65 the record is read as its exception (its last ERROR record, "
        "'Rank 3 ... raised a Python exception: rank 3:', python-exception, rank 3), but the empty message does not say "
        "MemoryError (an AssertionError's is as empty); truth: rank 3, host-oom")
_BARRIER = ("2 x 2, timestamp-only logging, traceback.print_exc() then os._exit(1), --tee 3 --local-ranks-filter 1: rank "
            "3 reaches monitored_barrier 12 s late at step 8; rank 0's 'Rank 3 failed to pass monitoredBarrier' "
            "filtered out (local 0), the shown rank 1 says 'received errors while waiting for send/recv from rank 0', "
            "rank 3 (shown) SIGTERMed silent; k10s said 'Ranks 0, 1, 2 raised a Python exception; 3 ranks failed the "
            "same way within one second: no single culprit (a node- or job-wide cause)' (rank-failure, warning, "
            "python-exception, no rank); truth: rank 3, never-joined")
_ASSERT_14 = ("2.14.1 only, 2 x 3, timestamp-only logging, logger.exception('training failed') then sys.exit(1), --tee 3 "
              "--local-ranks-filter 0: rank 5's AssertionError at step 3 filtered out (node 1's local 2); the shown "
              "ranks 0 and 3 log 'ERROR training failed' over gloo 'Timed out waiting 3000ms for send/recv' (2.13.0's "
              "victims saw 'Connection closed by peer', read right as rank 5 from the tables); k10s said '2 ranks timed "
              "out waiting in a collective (3s). no evidence names a culprit' (nccl-hang, info, no-single-culprit, no "
              "rank); truth: rank 5, python-exception")
# Read right since session 67 (_VALUE above, kept as the record: a message-only line before the rank's exit 2 is its
# handler's message, docs/rules.md "Session 67: a message-only handler record"): both versions' and both ways'
# t59-trun-2x2-raise-value-rank3-step7-error-lightning-tee (rank 3, python-exception, 'rank 3: batch 17 ... expects 8')
_BOTH = {
    "2.13.0/t59-trun-2x2-memoryerror-rank3-step4-error-deepspeed": _MEM,
    "2.14.1/t59-trun-2x2-memoryerror-rank3-step4-error-deepspeed": _MEM,
    "2.13.0/t59-trun-2x2-monitored-barrier-rank3-step8-print-exc-logging-norank-filter1": _BARRIER,
    "2.14.1/t59-trun-2x2-monitored-barrier-rank3-step8-print-exc-logging-norank-filter1": _BARRIER,
    "2.14.1/t59-trun-2x3-assert-rank5-step3-exception-logging-norank-filter0": _ASSERT_14,
}
# Session 71 (the two ways' agreement): these five miss both ways, the consoles imported without timestamps and the
# captured pod logs with the API's; no line's clock decides them (_MEM: the empty MemoryError record says no cause;
# _BARRIER and _ASSERT_14: the culprit's own lines filtered out, no @record table entry quoting its error), so the
# stamps hold nothing the unstamped logs lack here
_T59: dict[str, dict[str, str]] = {
    "import": {
        **_BOTH,
        # t59-trun-2x2-raise-runtime-rank0-step8-print-exc-lightning and t59-trun-2x2-keyerror-rank2-step5-print-exc-deepspeed
        # (2.13.0 and 2.14.1, import-logs) read right since session 65 (raise_rt, key above: the culprit's bare traceback,
        # the only raised one in its node's log, takes the rank of the agent's `failed (exitcode: 1) local_rank: N` below
        # it, as the pod-logs way's stamped one did: tests/test_caught_failure_agent_rank.py)
    },
    "podlog": dict(_BOTH),
}
