-- One incident, one cost (docs/rules.md "Incidents"): the decision, after _failure_line.sql,
-- _incident_own.sql and _incident_common_mode.sql, before the hang-evidence files; read by rank-failure,
-- oom-cascade, nccl-hang and crashloop, so the same incident costs the same GPU-hours everywhere.
--
-- k10s_incident: one row per incident of a job (failure lines whose spans, a watchdog's from
--   the collective's start to the timeout, lie within 2 minutes of each other): the first
--   failing rank(s) on their own, cause, confidence, first failure and abort, victims, and
--   gpu_hours_lost = job GPUs x (abort - first failure), or x the watchdog's wait when the
--   lines carry no timestamps.
-- k10s_hang_evidence_first_failure: the same decision in the shared hang-evidence columns.

-- k10s_incident: one row per incident of a job (every row of it grows from k10s_incident_line's spans, so a bundle
-- without failure lines, a healthy or pending job, a straggler, gets it empty without binding ~100 KB of SQL)
-- empty-without: k10s_incident_line
-- empty-columns: job_key VARCHAR, incident BIGINT, cause VARCHAR, culprit_ranks BIGINT[], victim_ranks BIGINT[],
--     together_ranks BIGINT[], confidence VARCHAR, no_culprit_reason VARCHAR, first_failure_at TIMESTAMPTZ,
--     abort_at TIMESTAMPTZ, hang_started_at TIMESTAMPTZ, node_wide BOOLEAN, first_rank BIGINT, first_pod VARCHAR,
--     first_node VARCHAR, first_gpu VARCHAR, first_kind VARCHAR, first_subkind VARCHAR, error_type VARCHAR, error_message VARCHAR,
--     head_cut BOOLEAN, xid BIGINT, xid_meaning VARCHAR, kernel_line VARCHAR, first_line VARCHAR, nonfinite_line VARCHAR, table_loader_signal VARCHAR,
--     pods VARCHAR[], watchdog_victims BIGINT, victims BIGINT, job_gpus BIGINT, wait_s DOUBLE, gpu_hours_lost DOUBLE
CREATE OR REPLACE TEMP TABLE k10s_incident AS
WITH unordered AS (SELECT * FROM k10s_unordered_paste),
hang AS (SELECT * FROM k10s_incident_hang),
own AS (SELECT * FROM k10s_incident_own),
best AS (SELECT * FROM k10s_incident_best),
after_teardown AS (SELECT * FROM k10s_incident_after_teardown),
first AS (SELECT * FROM k10s_incident_first),
restarted_after AS (SELECT * FROM k10s_incident_restarted),
common_mode AS (SELECT * FROM k10s_incident_common_mode),
together AS (  -- the same way and within the same second as the first: failed together (an exit with no status, or a
              -- traceback cut before its exception, says no way: it cannot be told apart from the first's)
    SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, list(DISTINCT b.cause ORDER BY b.cause) AS causes
    FROM best b JOIN first f USING (job_key, incident)
    -- not a rank whose log shows its failure below a peer's teardown error where the first's log shows none above its own
    WHERE NOT (b.rank_eff <> f.rank_eff
               AND EXISTS (SELECT 1 FROM after_teardown a WHERE a.job_key = b.job_key AND a.incident = b.incident AND a.rank_eff = b.rank_eff)
               AND NOT EXISTS (SELECT 1 FROM after_teardown a WHERE a.job_key = f.job_key AND a.incident = f.incident AND a.rank_eff = f.rank_eff))
      AND ((b.rank_eff <> f.rank_eff
           -- no clock: another rank's traceback cut before its exception may be the first's error or its own; a paste cannot order them (docs/rules.md "Session 16: controls")
           -- or within a second of it (a clock the paste's lines share says no more: docs/rules.md, "Real incidents batch 48")
           AND (((b.ts_filled IS NULL AND f.ts_filled IS NULL OR abs(epoch(b.ts_filled) - epoch(f.ts_filled)) <= 1.0)
                 AND b.kind = 'python_traceback' AND b.subkind <> 'cut_frame'  -- (one known by its frame only: below)
                 -- unless the agent was tearing the workers down (its `closing signal SIGTERM`): a traceback cut then
                 -- is the terminated process's, not a failure to order against the first's
                 AND NOT EXISTS (SELECT 1 FROM k10s_log s WHERE s.job_key = b.job_key AND s.kind = 'torchrun_sigterm'))
                -- no clock of their own (none, or one borrowed from a stamped line nearby: docs/rules.md, "Session 18"):
                -- a line of the first rank's is printed alike by another rank (the same error, the first
                -- rank's with a line of detail more): the first rank's strongest line is not a failure of its own
                OR (b.ts_own IS NULL AND f.ts_own IS NULL
                AND EXISTS (SELECT 1 FROM own o1 JOIN own o2 USING (job_key, incident, kind, cause)
                           WHERE o1.job_key = b.job_key AND o1.incident = b.incident AND o1.rank_eff = b.rank_eff
                             AND o2.rank_eff = f.rank_eff AND o1.ts_own IS NULL AND o2.ts_own IS NULL
                             -- an error the rank printed, not an exit a launcher reports alike for every task
                             AND o1.kind NOT IN ('python_traceback', 'process_exit', 'torchrun_failure', 'torchrun_sigterm', 'rank_spawn')
                             AND o1.subkind IS NOT DISTINCT FROM o2.subkind
                             AND o1.error_type IS NOT DISTINCT FROM o2.error_type
                             AND regexp_replace(o1.error_message, '[0-9]+', '#', 'g')
                                 IS NOT DISTINCT FROM regexp_replace(o2.error_message, '[0-9]+', '#', 'g')
                             -- not a node-wide state's line beside the first's own device fault (session 62)
                             AND NOT (k10s_node_state_line(o2.kind, o2.subkind, o2.error_message, o2.line)
                                      AND (f.job_key, f.incident, f.rank_eff) IN (SELECT (job_key, incident, rank_eff) FROM k10s_incident_device_fault))))))
       OR b.tier = f.tier AND (b.rank_eff = f.rank_eff OR ((b.cause = f.cause OR 'exit-unknown' IN (b.cause, f.cause) OR 'rank-dead' IN (b.cause, f.cause)
                                                            OR 'python_traceback' IN (b.kind, f.kind))
                                                           AND abs(epoch(b.ts_filled) - epoch(f.ts_filled)) <= 1.0)
                               -- the same exception to the letter within ten seconds: rejected alike (mp.spawn prints each node's report
                               -- after its teardown: docs/rules.md, "Session 63: … to the letter"); so a rank down to the same frame, below
                               OR (b.kind = 'python_exception' AND f.kind = 'python_exception' AND b.subkind = 'raised'
                                   AND f.subkind = 'raised' AND b.cause = f.cause AND b.error_type = f.error_type
                                   AND b.error_message = f.error_message AND length(b.error_message) >= 12
                                   AND abs(epoch(b.ts_filled) - epoch(f.ts_filled)) <= 10.0)
                               -- no clock: ranks that print the same error cannot be ordered (a paste interleaves them),
                               -- nor where only one of the two has a clock (another log's stamped lines lent it), nor
                               -- where a clock is only borrowed (a line without a timestamp takes its log's nearest
                               -- stamped line's, an agent's report seconds later: two nodes' borrowed clocks say
                               -- when each agent spoke, not when each rank failed; docs/rules.md, "Session 18");
                               -- the same error up to its numbers (each rank's own values: `got 1.0` / `got 0.0`)
                               OR ((b.ts_own IS NULL OR f.ts_own IS NULL) AND b.cause = f.cause
                                   AND b.error_type IS NOT DISTINCT FROM f.error_type
                                   AND regexp_replace(b.error_message, '[0-9]+', '#', 'g') = regexp_replace(f.error_message, '[0-9]+', '#', 'g'))
                               -- one line reporting several failures the same way (a flattened report: the agent's
                               -- line fused with its table) lists them in no order
                               OR (b.raw_row = f.raw_row AND b.line_no = f.line_no AND b.cause = f.cause)
                               -- one rank's NCCL library error (`NCCL Error 2: unhandled system error`: a call failed, the
                               -- setup every rank shares) and another rank's exit its launcher reports (a status only: that
                               -- rank raised too, what is unseen), within a second or the NCCL line without a clock of its
                               -- own: the launcher's order and the paste's disagree, neither is first (docs/rules.md,
                               -- "Real incidents batch 46")
                               OR ('nccl-error' IN (b.cause, f.cause) AND b.cause <> f.cause
                                   AND (CASE WHEN b.cause = 'nccl-error' THEN f.kind ELSE b.kind END) IN ('torchrun_failure', 'process_exit')
                                   AND ((CASE WHEN b.cause = 'nccl-error' THEN b.ts_own ELSE f.ts_own END) IS NULL
                                        OR abs(epoch(b.ts_filled) - epoch(f.ts_filled)) <= 1.0)
                                   -- unless the launcher reports the NCCL error's rank exiting too: then its order and
                                   -- the paste's agree (srun's `task 1: Exited` beside task 1's own error, batch 24)
                                   AND NOT EXISTS (SELECT 1 FROM own o WHERE o.job_key = b.job_key AND o.incident = b.incident
                                                   AND o.rank_eff = (CASE WHEN b.cause = 'nccl-error' THEN b.rank_eff ELSE f.rank_eff END)
                                                   AND o.kind IN ('torchrun_failure', 'process_exit')))
                               -- a paste whose line order nothing proves (import-logs' pod label): two failures of the
                               -- same strength, one of them without a clock of its own, in any way: neither is first
                               OR ((b.ts_filled IS NULL OR f.ts_filled IS NULL)
                                   AND b.job_key IN (SELECT job_key FROM unordered)))
           OR (b.job_key, b.incident, b.rank_eff) IN (SELECT (job_key, incident, rank_eff) FROM k10s_incident_same_frame UNION ALL SELECT (job_key, incident, rank_eff) FROM k10s_incident_unclocked)  -- the same frame (session 64); files no clock orders (session 69)
           -- a rank's own raised exception (the code every process runs: a ValueError, a KeyError, a RuntimeError; not
           -- a failure of the rank's own device, a CUDA OOM or CUDA error) and another rank's exit its launcher reports
           -- (a status only, read as an exception: that rank raised too, what is unseen), within a second, or the
           -- exception without a clock of its own: the launcher saw the other rank end first, the one shown is not known
           -- to be first nor alone, and the first's own error is not shown: neither is first (as one rank's NCCL error
           -- beside another's launcher-reported exit, above; docs/rules.md, "Session 25: batch 72")
           OR (b.rank_eff <> f.rank_eff AND f.tier = 1 AND f.kind = 'python_exception' AND f.subkind = 'raised'
               AND b.tier = 2 AND b.kind IN ('torchrun_failure', 'process_exit') AND b.cause = f.cause
               -- the report's time is when the launcher saw the exit: its first SIGTERM to the others just above the
               -- report in the same log (torchrun reports after they ended, seconds later), else the report's own
               AND (f.ts_own IS NULL
                    OR abs(epoch(coalesce((SELECT min(s.ts_filled) FROM k10s_incident_line s
                                           WHERE s.raw_row = b.raw_row AND s.kind = 'torchrun_sigterm' AND s.line_no < b.line_no
                                             AND NOT EXISTS (SELECT 1 FROM k10s_incident_line a WHERE a.raw_row = b.raw_row
                                                             AND a.kind = 'torchrun_failure' AND a.line_no > s.line_no
                                                             AND a.line_no < b.line_no)), b.ts_filled))
                           - epoch(f.ts_filled)) <= 1.0)
               -- unless the launcher reports the exception's rank exiting too: then its order and the paste's agree
               AND NOT EXISTS (SELECT 1 FROM own o WHERE o.job_key = f.job_key AND o.incident = f.incident
                               AND o.rank_eff = f.rank_eff AND o.kind IN ('torchrun_failure', 'process_exit'))))
    GROUP BY ALL
),
job_ranks AS (  -- how many ranks each job has (its pods' ranks)
    SELECT job_key, count(DISTINCT rank) AS n FROM k10s_rank GROUP BY job_key
),
all_aborted AS (  -- every rank of the job aborted (SIGABRT without a watchdog timeout of its own) and nothing in the incident
                  -- failed any other way: the same abort in every process (a crash in the shutdown they all run, "terminate
                  -- called without an active exception" after training completed), whichever the clock or the launcher
                  -- saw first: no single culprit (real incidents batch 31)
    SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, ['abort'] AS causes
    FROM best b JOIN job_ranks jr ON jr.job_key = b.job_key
    LEFT JOIN (SELECT DISTINCT job_key, incident FROM own WHERE cause <> 'abort') other
      ON other.job_key = b.job_key AND other.incident = b.incident
    WHERE other.job_key IS NULL
    GROUP BY b.job_key, b.incident, jr.n
    HAVING bool_and(b.cause = 'abort') AND count(DISTINCT b.rank_eff) >= 2 AND count(DISTINCT b.rank_eff) = jr.n
),
all_exited AS (  -- every rank of the job known only by a launcher's report of its exit (tier 2), every one with the same
                 -- status (horovod.run's `Process 3 exit with status code 250.` … `Process 0 …`), no clock ordering them, and nothing in the incident
                 -- saying why any process failed (no failure of tier 1, a rank's or a line naming none): the same end in every
                 -- process, whichever the launcher reported first: no single culprit (real incidents batch 69)
    SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, list(DISTINCT b.cause ORDER BY b.cause) AS causes,
           min(b.status) AS status
    FROM best b JOIN job_ranks jr ON jr.job_key = b.job_key
    LEFT JOIN (SELECT DISTINCT job_key, incident FROM own WHERE tier = 1) said ON said.job_key = b.job_key AND said.incident = b.incident
    WHERE said.job_key IS NULL
    GROUP BY b.job_key, b.incident, jr.n
    HAVING bool_and(b.kind IN ('process_exit', 'torchrun_failure') AND b.tier = 2 AND b.status > 0)
       AND count(DISTINCT b.status) = 1 AND count(DISTINCT b.rank_eff) >= 2 AND count(DISTINCT b.rank_eff) = jr.n
       -- and no clock orders them (none, or all within a second): a rank whose exit a clock puts a minute before the
       -- others' is the first to fail, theirs the consequence (tests/test_failure_table_wordings.py)
       AND coalesce(epoch(max(b.ts_filled)) - epoch(min(b.ts_filled)), 0) <= 1.0
),
all_raised AS (  -- every rank of the job raised one same exception (its own raised error: the same type and the same message
                 -- to the letter, `ValueError: Number of microbatches (2) must be greater than or equal to the number of
                 -- stages (4).` on each of four ranks) and nothing in the incident failed any other way (no other error said
                 -- why, in a rank's line or one naming none): the code or settings every process runs rejected them all,
                 -- however far apart they raised it (a loaded machine runs one rank's start-up seconds ahead of the
                 -- others'): no single culprit; some ranks only, or different errors, as before (rules.md, "Session 34: leftovers").
                 -- So too every rank but rank 0, three or more ranks, while rank 0 waited alive in a collective (torn down
                 -- there: gloo's `Connection closed by peer`, a remote error, its watchdog): rank 0 ran its own branch of the
                 -- program (`if rank == 0:` writes, downloads or prepares what the others then read), and the code every
                 -- other rank runs failed them alike (`FileNotFoundError` on the vocabulary rank 0 had not yet written):
                 -- no single culprit (docs/rules.md, "Session 41: the forty-third launcher set")
    SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, list(DISTINCT b.cause ORDER BY b.cause) AS causes,
           min(b.error_type) AS error_type, min(b.error_message) AS error_message,
           count(DISTINCT b.rank_eff) < jr.n AS but_rank0
    FROM best b JOIN job_ranks jr ON jr.job_key = b.job_key
    WHERE NOT EXISTS (SELECT 1 FROM own o WHERE o.job_key = b.job_key AND o.incident = b.incident AND o.tier = 1
                      AND (o.kind <> 'python_exception' OR o.error_type IS DISTINCT FROM b.error_type
                           OR o.error_message IS DISTINCT FROM b.error_message))
    GROUP BY b.job_key, b.incident, jr.n
    HAVING bool_and(b.tier = 1 AND b.kind = 'python_exception' AND b.subkind = 'raised' AND b.error_type IS NOT NULL
                    AND b.error_message IS NOT NULL)
       AND count(DISTINCT (b.error_type, b.error_message)) = 1
       AND count(DISTINCT b.rank_eff) >= 2
       AND (count(DISTINCT b.rank_eff) = jr.n
            OR (jr.n >= 3 AND count(DISTINCT b.rank_eff) = jr.n - 1 AND NOT bool_or(b.rank_eff = 0)
                AND EXISTS (SELECT 1 FROM k10s_incident_line v WHERE v.job_key = b.job_key AND v.incident = b.incident
                            AND v.role = 'victim' AND v.rank_eff = 0
                            AND (v.kind IN ('nccl_remote_error', 'nccl_watchdog_timeout', 'watchdog_exception_summary')
                                 OR (v.kind = 'python_exception' AND v.subkind = 'teardown')))))
    UNION ALL BY NAME SELECT * FROM k10s_incident_all_said  -- every rank's own record alike (session 69)
),
together_all AS (  -- together, or every rank aborted, exited or raised alike
    SELECT job_key, incident, ranks, causes FROM all_aborted
    UNION ALL BY NAME
    SELECT e.job_key, e.incident, e.ranks, e.causes FROM all_exited e ANTI JOIN all_aborted a USING (job_key, incident)
    UNION ALL BY NAME
    SELECT r.job_key, r.incident, r.ranks, r.causes FROM all_raised r ANTI JOIN all_aborted a USING (job_key, incident)
                                                                     ANTI JOIN all_exited e USING (job_key, incident)
    UNION ALL BY NAME
    SELECT t.job_key, t.incident, t.ranks, t.causes FROM together t ANTI JOIN all_aborted a USING (job_key, incident)
                                                                    ANTI JOIN all_exited e USING (job_key, incident)
                                                                    ANTI JOIN all_raised r USING (job_key, incident)
),
unranked AS (  -- own failures that name no rank (a launcher naming the wrong command, a pod of several ranks);
               -- said_why: most distinct messages of one error type among those that say why (several processes)
    SELECT job_key, incident, arg_min(cause, (tier, ts_filled, raw_row, line_no, event_id)) AS cause,
           arg_min(subkind, (tier, ts_filled, raw_row, line_no, event_id)) AS subkind, min(ts_filled) AS ts,
           arg_min(left(line, 300), (tier, ts_filled, raw_row, line_no, event_id)) AS line,
           arg_min(pod_key, (tier, ts_filled, raw_row, line_no, event_id)) AS pod_key, min(tier) AS tier,
           arg_min(local_rank, (tier, ts_filled, raw_row, line_no, event_id)) AS local_rank,
           arg_min(kind, (tier, ts_filled, raw_row, line_no, event_id)) AS kind,
           arg_min(raw_row, (tier, ts_filled, raw_row, line_no, event_id)) AS raw_row,
           arg_min(line_no, (tier, ts_filled, raw_row, line_no, event_id)) AS line_no,
           -- (the first line's own note: arg_min skips a NULL, so a later noted line's count would stand in)
           nullif(arg_min(coalesce(repeated, -1), (tier, ts_filled, raw_row, line_no, event_id)), -1) AS repeated,
           -- torch's re-raise of a DataLoader worker's or a DataParallel replica's exception (`Caught ValueError in
           -- DataLoader worker process 0.`) is not a message of its own: the original follows it (its "Original Traceback")
           coalesce((SELECT max(n) FROM (SELECT count(DISTINCT o.error_message) AS n FROM own o
                                WHERE o.job_key = u.job_key AND o.incident = u.incident AND o.rank_eff IS NULL AND o.tier = 1
                                  AND NOT regexp_matches(coalesce(o.error_message, ''), '^Caught [A-Za-z_.]+ in (DataLoader worker process|replica) ')
                                GROUP BY o.error_type)), 0) AS said_why
    FROM own u WHERE rank_eff IS NULL GROUP BY ALL
),
nccl_unplaced AS (SELECT * FROM k10s_incident_nccl_unplaced),  -- (_incident_common_mode.sql)
spans AS (
    SELECT job_key, incident, min(span_start) AS started_at, max(span_end) AS abort_at,
           list(DISTINCT rank_eff ORDER BY rank_eff) FILTER (WHERE rank_eff IS NOT NULL) AS ranks_seen,
           count(DISTINCT (incarnation_uid, pid)) FILTER (WHERE kind = 'torchrun_sigterm' AND rank_eff IS NULL) AS unresolved_sigterms,
           list(DISTINCT pod_key ORDER BY pod_key) AS pods
    FROM k10s_incident_line GROUP BY ALL
),
alike_unnamed AS (  -- three or more uncaught exceptions alike (type and message) in lines that name no process (no rank, local
                    -- rank or pid of their own: a paste's unprefixed tracebacks, whatever rank import-logs guessed for their
                    -- pod), none of them a copy of a line that names its rank (a launcher's `[rank0]:` twin of an unprefixed
                    -- traceback): as many processes raised the same error; a first failure known only by a launcher's status,
                    -- or by one of these lines, is only the first the launcher saw (docs/rules.md, "Session 22: batch 59")
    SELECT job_key, incident, max(n) AS processes FROM (
        SELECT o.job_key, o.incident, count(*) AS n FROM own o
        WHERE o.tier = 1 AND o.kind = 'python_exception' AND o.rank_named IS NULL AND o.local_rank IS NULL AND o.pid IS NULL
          AND NOT EXISTS (SELECT 1 FROM own t WHERE t.job_key = o.job_key AND t.incident = o.incident
                          AND t.rank_named IS NOT NULL AND t.error_message IS NOT DISTINCT FROM o.error_message)
        GROUP BY o.job_key, o.incident, o.error_type, o.error_message HAVING count(*) >= 3
        UNION ALL
        -- and three or more CUDA out-of-memory errors in such lines: each process's allocator reports its own numbers
        -- (the size it asked for, what was free), so they are alike by what they say, not by their text; none a copy of
        -- a line naming its rank (the same report behind `[rank3]:`) (docs/rules.md, "Session 23: batch 62")
        SELECT o.job_key, o.incident, count(*) AS n FROM own o
        WHERE o.tier = 1 AND o.kind = 'cuda_oom' AND o.rank_named IS NULL AND o.local_rank IS NULL AND o.pid IS NULL
          -- in a pod of several ranks (a pod of one holds only its rank's lines)
          AND o.pod_key IN (SELECT pod_key FROM k10s_rank GROUP BY pod_key HAVING count(DISTINCT rank) >= 2)
          AND NOT EXISTS (SELECT 1 FROM own t WHERE t.job_key = o.job_key AND t.incident = o.incident AND t.kind = 'cuda_oom'
                          AND t.rank_named IS NOT NULL
                          AND regexp_extract(t.line, 'out of memory.*', 0) = regexp_extract(o.line, 'out of memory.*', 0))
        GROUP BY o.job_key, o.incident HAVING count(*) >= 3)
    GROUP BY job_key, incident
),
silent_one AS (  -- a launcher's report that names no process (its last spawned command: DeepSpeed, the legacy
                 -- launch) on a pod where every rank but one has a failure or teardown line: that one, without a
                 -- word of its own, is the process whose exit the launcher reports
    SELECT u.job_key, u.incident, min(r.rank) AS rank
    FROM unranked u
    JOIN (SELECT DISTINCT job_key, pod_key, rank, count(DISTINCT rank) OVER (PARTITION BY job_key, pod_key) AS pod_ranks
          FROM k10s_rank) r ON r.job_key = u.job_key AND r.pod_key = u.pod_key AND r.pod_ranks >= 2
    WHERE u.subkind = 'launcher_last_cmd'
      -- not where the launcher's status is an exit code (a Python error's) and another rank of the pod raised or ran out
      -- of GPU memory itself: that rank's end is the one reported, the silent one was only killed after it (DeepSpeed
      -- quotes its last spawned command, local rank 1, for rank 0's CUDA OOM; docs/rules.md, "Session 22: batch 59")
      AND NOT (coalesce((SELECT max(e.exit_code) FROM k10s_incident_line e WHERE e.job_key = u.job_key AND e.raw_row = u.raw_row
                                                                             AND e.line_no = u.line_no), 0) > 0
               AND EXISTS (SELECT 1 FROM k10s_incident_line o WHERE o.job_key = u.job_key AND o.pod_key = u.pod_key
                           AND o.role = 'own' AND o.tier = 1 AND o.kind IN ('python_exception', 'cuda_oom', 'cuda_error')
                           AND o.rank_eff IS NOT NULL AND o.rank_eff <> r.rank))
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = r.job_key AND x.rank_resolved = r.rank
                      AND x.kind IN ('python_exception', 'python_traceback', 'torchrun_failure', 'process_exit', 'cuda_error', 'cuda_oom',
                                     'nccl_error_other', 'nccl_remote_error', 'nccl_watchdog_timeout', 'watchdog_exception_summary'))
    GROUP BY ALL
    HAVING count(*) = 1
),
shape_inference AS (  -- the first failure is an exception raised under pipelining's shape inference (the parser's mark,
                      -- parsers/log_shape_inference.py): the stage ran its own module on the shape the previous stage sent,
                      -- so a stage built wrong on either side of that hand-over raises in the receiving one: which of the two
                      -- is wrong no line says, no single culprit (docs/rules.md, "Session 34: leftovers")
    SELECT job_key, incident FROM first
    WHERE kind = 'python_exception' AND starts_with(coalesce(error_message, ''), 'raised in pipelining''s shape inference')
),
root_unseen AS (  -- the first failure is an entry torchrun's table lists under "Failures:" ([1], [2], …: the failures
                 -- besides its Root Cause [0]; none is written <NO_OTHER_FAILURES>) and no Root Cause entry is in the
                 -- incident (a paste cut before it): another worker failed at that poll too, unseen, so the one shown is not known to be alone nor first
    SELECT f.job_key, f.incident, 'root' AS unseen
    FROM first f
    WHERE f.kind = 'torchrun_failure' AND f.subkind = 'failures' AND regexp_matches(f.line, '^[^\n]*\[[1-9][0-9]*\]:[ \t]*(\n|$)')
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_line r WHERE r.job_key = f.job_key AND r.incident = f.incident
                      AND r.kind = 'torchrun_failure' AND r.subkind = 'root_cause')
    UNION ALL
    -- or an entry of a table whose head the log does not hold (no `Failures:` line above it: the log begins inside the
    -- table), its Root Cause entry below it in the same log, with room above it for entries the log cut off: torchrun
    -- lists the other failures by rank, so its `[N]:` index says N - 1 entries came before it, or, its header cut too,
    -- every local rank below its own but the Root Cause's may have; more than the log shows above it: other workers
    -- may have failed at that poll the same way, unseen, so the one shown is not known to be alone (a full table
    -- listing them reads as ranks failing together) (docs/rules.md, "Session 37: batch 223")
    SELECT f.job_key, f.incident, 'above' AS unseen
    FROM first f
    JOIN k10s_incident_line r ON r.job_key = f.job_key AND r.incident = f.incident AND r.raw_row = f.raw_row
         AND r.kind = 'torchrun_failure' AND r.subkind = 'root_cause' AND r.line_no > f.line_no
    WHERE f.kind = 'torchrun_failure' AND f.subkind = 'table' AND f.tier = 2 AND f.local_rank IS NOT NULL
      AND CASE WHEN regexp_matches(f.line, '^[ \t]*\[[0-9]+\]:')
               THEN TRY_CAST(regexp_extract(f.line, '^[ \t]*\[([0-9]+)\]:', 1) AS BIGINT) - 1
               ELSE f.local_rank - CASE WHEN r.local_rank < f.local_rank THEN 1 ELSE 0 END END
          > (SELECT count(*) FROM k10s_log e WHERE e.raw_row = f.raw_row AND e.kind = 'torchrun_failure'
             AND e.subkind IN ('table', 'failures') AND e.line_no < f.line_no)
),
head_cut AS (  -- the first failure is a rank known only by its launcher's exit status (tier 2: torchrun's `failed (exitcode:
              -- 1)`, its failure table, srun's `Exited with exit code 1`) in a log that begins inside a victim's failure
              -- record (parsers/log_head.py: its first line a traceback's header or frame, and that traceback ends in a
              -- teardown error, `Connection closed by peer`), that report the first after the cut:
              -- the log was cut at its head mid-incident, and the rank's own error, or an earlier failure, may lie above
              -- the cut (a victim's `Connection closed by peer`, another rank's first error): not known to be the first
              -- (docs/rules.md, "Session 22: head-cut logs")
    SELECT f.job_key, f.incident, min(h.subkind) AS head_subkind
    FROM first f JOIN k10s_log h ON h.raw_row = f.raw_row AND h.kind = 'log_head' AND h.line_no < f.line_no
    WHERE ((f.kind IN ('torchrun_failure', 'process_exit')
      -- an exit status alone, or a SIGTERM read as from outside the job because no agent's SIGTERM to its pid is in the
      -- log (outside_sigterm): above the cut, that SIGTERM line may have been
      AND (f.tier = 2 OR f.cause = 'sigterm')
      -- the traceback the log begins in (its header or a frame) ends in a victim's teardown error: the incident was under way
      -- (or, where the log begins at an exception's line, the last of a traceback cut above, that exception is one:
      -- spawn's `-- Process 1 terminated` below a victim's `Connection closed by peer`, session 32)
      AND coalesce((SELECT arg_min(e.subkind, e.line_no) FROM k10s_log e WHERE e.raw_row = h.raw_row
                     AND e.kind = 'python_exception'
                     AND (e.line_no > h.line_no AND h.subkind <> 'error' OR e.line_no = h.line_no AND h.subkind = 'error')) = 'teardown', false))
      -- or a CUDA error a rank's own watchdog reports, in a log that begins in the C++ stack of another watchdog's end
      -- (`Exception raised from ncclCommWatchdog at …`, a process's last record, printed after its own error line): a
      -- process had already failed above the cut, by its watchdog, before the rank's line (docs/rules.md, "Session 32: batch 147")
      OR (h.subkind = 'watchdog_stack' AND f.kind = 'cuda_error' AND f.line LIKE '%watchdog%'))
      AND (SELECT count(*) FROM k10s_log a WHERE a.raw_row = f.raw_row AND a.kind = 'torchrun_failure' AND a.subkind = 'agent'
           AND a.line_no > h.line_no AND a.line_no <= f.line_no) <= 1
      -- unless an error that says why (tier 1: an exception, a CUDA error, naming no rank) is still in the cut log above the
      -- report: the report may be of that error's process (decided's cause reads it so), which the cut did not hide
      AND NOT EXISTS (SELECT 1 FROM own o WHERE o.job_key = f.job_key AND o.incident = f.incident AND o.raw_row = f.raw_row
                      AND o.tier = 1 AND o.line_no < f.line_no)
      -- unless every other rank of the job is seen torn down in the incident (a victim's line of its own: its agent's
      -- SIGTERM, a teardown error, a watchdog): whatever the cut hid, the one rank left failed first
      AND (SELECT count(DISTINCT v.rank_eff) FROM k10s_incident_line v WHERE v.job_key = f.job_key AND v.incident = f.incident
           AND v.role = 'victim' AND v.rank_eff IS NOT NULL AND v.rank_eff <> f.rank_eff)
          < greatest(coalesce((SELECT j.n FROM job_ranks j WHERE j.job_key = f.job_key), 0),  -- the job's ranks, or more seen
                     (SELECT count(DISTINCT a.rank_eff) FROM k10s_incident_line a WHERE a.job_key = f.job_key)) - 1
    GROUP BY ALL
),
nccl_alike AS (  -- two or more processes whose NCCL call failed at the same site with the same code (NCCL's error
                 -- return, `host:pid:tid [dev] NCCL INFO init.cc:1929 -> 2`: the process is its host:pid, no rank): they
                 -- failed alike (a pasted pid masked: the process is its host's CUDA device, `[2]`, `[3]`). A process that
                 -- saw a peer go (a remote error, `-> 6`) is a victim, not failing alike
    SELECT job_key, max(n) AS processes, arg_max(site, (n, site)) AS site, min(t0) AS t0, max(t1) AS t1
    FROM (SELECT x.job_key, x.error_message AS site, count(DISTINCT (x.incarnation_uid, x.nccl_host, x.process)) AS n,
                 min(x.ts) AS t0, max(x.ts) AS t1
          FROM (SELECT *, coalesce('pid ' || pid, 'dev ' || cuda_dev) AS process FROM k10s_log
                WHERE kind IN ('nccl_return', 'nccl_remote_error') AND job_key IS NOT NULL) x
          WHERE x.kind = 'nccl_return' AND x.subkind <> 'ncclRemoteError' AND x.process IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM k10s_log v WHERE v.incarnation_uid IS NOT DISTINCT FROM x.incarnation_uid
                            AND coalesce('pid ' || v.pid, 'dev ' || v.cuda_dev) = x.process AND v.nccl_host IS NOT DISTINCT FROM x.nccl_host
                            AND (v.kind = 'nccl_remote_error' OR (v.kind = 'nccl_return' AND v.subkind = 'ncclRemoteError')))
          GROUP BY ALL
          UNION ALL
          -- NCCL's WARN of a CUDA call it made (`host:pid:tid [dev] NCCL WARN Cuda failure 'initialization error'`) with
          -- the same error in two or more processes: the same (a node's driver failing every process on it alike; docs/rules.md, "Session 43: batch 236")
          SELECT x.job_key, 'Cuda failure ''' || x.error_message || '''' AS site,
                 count(DISTINCT (x.incarnation_uid, x.nccl_host, coalesce('pid ' || x.pid, 'dev ' || x.cuda_dev))) AS n,
                 min(x.ts) AS t0, max(x.ts) AS t1
          FROM k10s_log x
          WHERE x.kind = 'cuda_error' AND x.line LIKE '%NCCL WARN%Cuda failure%' AND x.job_key IS NOT NULL
            AND coalesce(x.pid, x.cuda_dev) IS NOT NULL AND x.error_message IS NOT NULL
          GROUP BY ALL)
    GROUP BY job_key HAVING max(n) >= 2
),
signal_alike AS (  -- two or more processes whose own signal handler (Open MPI's `[host:pid] Signal: Bus error (7)`) reports
                   -- the same signal: they took it alike; an exit status a launcher reports for one rank (mpirun's `process
                   -- rank 3 with PID … exited on signal 11`: the first process it reaped) may be any of theirs (real incidents
                   -- batch 52: four processes of one node, each a bus error then a segfault, mpirun naming rank 3); Open MPI's
                   -- count of the processes that sent its MPI_Abort help text (`7 more processes have sent help message
                   -- help-mpi-api.txt / mpi-abort`: nranks 8) says as much of that many aborts (batch 54); gfortran's
                   -- `Program received signal SIGILL: Illegal instruction.` names no pid, but each is one process's (batch 63)
    SELECT job_key, max(n) AS processes, arg_max(sig, (n, sig)) AS sig, min(t0) AS t0, max(t1) AS t1
    FROM (SELECT job_key, error_message AS sig,
                 greatest(count(DISTINCT (incarnation_uid, nccl_host, pid)) FILTER (WHERE pid IS NOT NULL),
                          count(DISTINCT event_id) FILTER (WHERE subkind = 'gfortran'),
                          max(CASE WHEN subkind = 'ompi_abort' THEN nranks END)) AS n,
                 min(ts) AS t0, max(ts) AS t1
          FROM k10s_log WHERE kind = 'native_signal' AND job_key IS NOT NULL AND (pid IS NOT NULL OR subkind = 'gfortran') GROUP BY ALL)
    GROUP BY job_key HAVING max(n) >= 2
),
node_alike AS (  -- ranks that failed together are every rank of one pod (one node's launcher), and ranks of other
                 -- pods are in the incident's lines, alive: the node's fault, not the job's (docs/rules.md, "one node alike")
    SELECT t.job_key, t.incident
    FROM together t
    JOIN (SELECT job_key, pod_key, list(DISTINCT rank ORDER BY rank) AS ranks FROM k10s_rank GROUP BY ALL) p
      ON p.job_key = t.job_key AND p.ranks = t.ranks
    JOIN spans s ON s.job_key = t.job_key AND s.incident = t.incident
    WHERE len(t.ranks) > 1 AND len(list_filter(s.ranks_seen, lambda r: NOT list_contains(t.ranks, r))) > 0
    GROUP BY ALL
),
teardown_witness AS (  -- per incident, the ranks torn down inside a collective (a teardown exception, a remote error,
                       -- a watchdog timeout: `in_collective`) or only SIGTERMed by their launcher; a teardown of an
                       -- attempt its launcher restarted is no witness of the last attempt's (subset_alike, subset_apart)
    SELECT v.job_key, v.incident,
           list(DISTINCT v.rank_eff ORDER BY v.rank_eff) FILTER (WHERE v.kind <> 'torchrun_sigterm') AS in_collective,
           list(DISTINCT v.rank_eff ORDER BY v.rank_eff) AS ranks
    FROM k10s_incident_line v
    WHERE v.role = 'victim' AND v.rank_eff IS NOT NULL
      AND (v.kind IN ('nccl_remote_error', 'nccl_watchdog_timeout', 'watchdog_exception_summary', 'torchrun_sigterm')
           OR (v.kind = 'python_exception' AND v.subkind = 'teardown')
           OR (v.kind = 'nccl_error_other' AND v.subkind = 'async_error_teardown'))
      AND NOT EXISTS (SELECT 1 FROM restarted_after ra WHERE ra.raw_row = v.raw_row AND v.line_no < ra.line_no)
    GROUP BY ALL
),
strict_subset AS (  -- ranks that failed together, saying why (tier 1), a strict part of the job, with the other ranks'
                    -- teardowns (teardown_witness): not in a paste whose line order nothing proves (import-logs' pod label:
                    -- whose lines came first is unknown); no failing rank printed below a peer's teardown in its own log
                    -- (the job was broken before it failed, so the torn-down ranks do not prove they ran past its
                    -- failure: after_teardown); no other rank failing with a reason of its own (subset_alike, subset_apart)
    SELECT t.job_key, t.incident, t.ranks, jr.n, w.in_collective, w.ranks AS torn_ranks
    FROM together t
    JOIN first f USING (job_key, incident)
    JOIN job_ranks jr ON jr.job_key = t.job_key
    JOIN teardown_witness w ON w.job_key = t.job_key AND w.incident = t.incident
    WHERE len(t.ranks) > 1 AND f.tier = 1 AND len(t.ranks) < jr.n
      AND t.job_key NOT IN (SELECT job_key FROM unordered)
      AND NOT EXISTS (SELECT 1 FROM after_teardown a WHERE a.job_key = t.job_key AND a.incident = t.incident
                      AND list_contains(t.ranks, a.rank_eff))
      AND NOT EXISTS (SELECT 1 FROM best b WHERE b.job_key = t.job_key AND b.incident = t.incident AND b.tier = 1
                      AND NOT list_contains(t.ranks, b.rank_eff))
),
subset_alike AS (  -- ranks that failed together, saying why (tier 1), are a strict part of the job, and every other rank of
                   -- the job is in the incident torn down inside a collective (a teardown exception: gloo's `Connection
                   -- closed by peer`; a remote error; a watchdog timeout), with no failure of its own that says why: those
                   -- ranks ran past the code the failing ones failed in, alive, and did not fail that way, so the failure
                   -- was those ranks' own (data or state only they had), not every process's. A SIGTERM or an exit status
                   -- alone is no such witness (a rank still importing is SIGTERMed though it would have failed alike); every
                   -- rank alike is common mode, as before (docs/rules.md, "Session 19: general fixes, second round")
    SELECT s.job_key, s.incident
    FROM strict_subset s
    WHERE len(list_filter(s.in_collective, lambda r: NOT list_contains(s.ranks, r))) = s.n - len(s.ranks)
      -- not one rank on every host, each refused a host's resource (k10s_incident_host_refused, session 59)
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_host_refused h WHERE h.job_key = s.job_key AND h.incident = s.incident AND h.ranks = s.ranks)
),
subset_apart AS (  -- ranks that failed together (within a second, each saying why) are a strict part of the job and each
                   -- raised an exception of another type (`ZeroDivisionError` on one, `KeyError` on another): no one cause
                   -- failed them alike, each failed its own way; where every other rank of the job is in the incident torn
                   -- down (a teardown exception, as `subset_alike` asks, or its launcher's SIGTERM: the same exception left
                   -- unreached is no question here), they are that many culprits (docs/rules.md, "Twenty-fourth launcher set")
    SELECT s.job_key, s.incident
    FROM strict_subset s
    JOIN (SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, count(DISTINCT b.error_type) AS types,
                 bool_and(b.kind = 'python_exception' AND b.subkind = 'raised' AND b.error_type IS NOT NULL) AS raised
          FROM best b JOIN together t2 ON t2.job_key = b.job_key AND t2.incident = b.incident AND list_contains(t2.ranks, b.rank_eff)
          GROUP BY ALL) e ON e.job_key = s.job_key AND e.incident = s.incident AND e.ranks = s.ranks
    WHERE e.raised AND e.types = len(s.ranks)
      AND len(list_filter(s.torn_ranks, lambda r: NOT list_contains(s.ranks, r))) = s.n - len(s.ranks)
),
launcher_subset AS (  -- ranks that failed together are exactly those one launcher line reports ended with a non-zero status
                      -- at one poll (Paddle's legacy launcher: `ABORT!!! Out of all 4 trainers, the trainer process with
                      -- rank=[1, 2, 3] was aborted.`), a strict part of the world the same line states: the launcher polled
                      -- the others alive (or done), so the failure was those ranks' own; the whole world listed is every
                      -- process alike, no single culprit (docs/rules.md, "Session 21: general fixes")
    SELECT t.job_key, t.incident
    FROM together t
    JOIN (SELECT job_key, incident, raw_row, line_no, list(DISTINCT rank_eff ORDER BY rank_eff) AS ranks,
                 max(TRY_CAST(regexp_extract(line, 'Out of all (\d{1,7}) trainers', 1) AS BIGINT)) AS world
          FROM own WHERE subkind = 'paddle_abort' AND rank_eff IS NOT NULL GROUP BY ALL) a
      ON a.job_key = t.job_key AND a.incident = t.incident AND a.ranks = t.ranks
    WHERE len(t.ranks) > 1 AND a.world > len(t.ranks)
      -- and a strict part of the trainers on their pods (the launcher polls its own node's only): a node's every trainer
      -- listed by its launcher, the other nodes unseen, is one node alike, not proof its peers were alive
      AND EXISTS (SELECT 1 FROM k10s_rank r WHERE r.job_key = t.job_key AND NOT list_contains(t.ranks, r.rank)
                  AND r.pod_key IN (SELECT p.pod_key FROM k10s_rank p WHERE p.job_key = t.job_key AND list_contains(t.ranks, p.rank)))
    GROUP BY ALL
),
hca_fatal AS (  -- ranks that failed together, every one on NCCL's report of its own host adapter's fatal device event (`NET/IB :
                -- Got async event : local catastrophic error`, IBV_EVENT_DEVICE_FATAL: parsers/log_comm_lines.py), all printed on
                -- one host (one pod): that host's HCA failed under its processes, not a peer, a link or the job's setup; several hosts at
                -- once are no one host's fault (docs/rules.md, "Session 32: batch 145")
    SELECT t.job_key, t.incident
    FROM together t
    JOIN (SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, count(DISTINCT x.nccl_host) AS hosts,
                 count(DISTINCT b.pod_key) AS pods, bool_and(b.kind = 'nccl_error_other' AND b.subkind = 'ib_device_fatal') AS fatal
          FROM best b JOIN together t2 ON t2.job_key = b.job_key AND t2.incident = b.incident AND list_contains(t2.ranks, b.rank_eff)
          JOIN k10s_log x ON x.event_id = b.event_id
          GROUP BY ALL) h ON h.job_key = t.job_key AND h.incident = t.incident AND h.ranks = t.ranks
    -- a host the paste masked (`[REDACTED]:***:***`) is no other host: the ranks' one pod then stands for it
    WHERE len(t.ranks) > 1 AND h.fatal AND h.hosts <= 1 AND h.pods = 1
),
relayed_apart AS (  -- a process Ray relays to the driver (its prefix's pid, or a rank its line names) failed on its own, and
                    -- so did a process in the driver's own lines, and nothing shows the two to be one process (the same pid,
                    -- the same rank named by both): Ray's log monitor forwards a process's lines when it reads them, late, so
                    -- neither the lines' order nor their arrival clock orders the two failures: no single culprit
                    -- (docs/rules.md, "Session 20: controls")
    SELECT a.job_key, a.incident, min(a.pid) AS pid
    FROM own a JOIN own b ON b.job_key = a.job_key AND b.incident = a.incident
    WHERE a.relayed IS NOT NULL AND b.relayed IS NULL AND (a.relayed = 'process' OR a.pid IS NOT NULL OR a.rank_named IS NOT NULL)
      AND NOT coalesce(a.pid = b.pid, false) AND NOT coalesce(a.rank_named = b.rank_named, false)
    GROUP BY ALL
),
repeated_alike AS (  -- the first failure is, or is the same as (kind, cause, type, message up to its numbers), a line naming a
                     -- rank with Ray's dedup note (`[repeated 7x across cluster]`): Ray folds the next N copies, alike but for
                     -- their numbers, into one line: N + 1 processes failed alike, no culprit of its own; not a controller's
                     -- line of no rank re-printing a worker's error (Ray Train's, the fifth and thirtieth launcher sets);
                     -- docs/rules.md, "Session 59: Ray's dedup note"
    SELECT f.job_key, f.incident, max(o.repeated) AS repeated FROM first f JOIN own o USING (job_key, incident)
    WHERE o.repeated IS NOT NULL AND o.rank_eff IS NOT NULL AND o.kind = f.kind AND o.cause IS NOT DISTINCT FROM f.cause AND o.error_type IS NOT DISTINCT FROM f.error_type
      AND regexp_replace(coalesce(o.error_message, ''), '[0-9]+', '#', 'g') = regexp_replace(coalesce(f.error_message, ''), '[0-9]+', '#', 'g')
    GROUP BY ALL
),
decided AS (
    SELECT s.job_key, s.incident, rl.job_key IS NOT NULL AS relayed_apart, rl.pid AS relayed_pid, s.started_at, s.abort_at, s.pods, cm.job_key IS NOT NULL AS common_mode, cm.error_type AS common_error,
        na.job_key IS NOT NULL AND cm.job_key IS NULL AS node_wide,
        -- a rank known only by its exit status while several processes say, in lines naming no rank,
        -- that they failed the same way: the launcher's report names only the first exit it saw
        coalesce((f.tier = 2 AND u.said_why >= 2)
                 OR (au.job_key IS NOT NULL AND (f.tier = 2 OR (f.rank_named IS NULL AND f.local_rank IS NULL AND f.pid IS NULL))), false) AS several_unranked,
        -- a rank known only by its exit status or a traceback cut before its exception, while two or more processes say
        -- (NCCL's error returns, naming no rank) that their NCCL call failed alike: the rank may be any of them; so too a
        -- rank known by NCCL's own WARN of a CUDA call NCCL made (`NCCL WARN Cuda failure 'invalid argument'`, RCCL's
        -- alike): one process's view of the communicator setup the others' same returns say failed for them too
        -- (real incidents batch 67: RCCL's P2P transport between two GPUs, both `init.cc:2278 -> 1`)
        nl.job_key IS NOT NULL AND (f.tier = 2 OR (f.kind = 'cuda_error' AND f.line LIKE '%NCCL WARN%Cuda failure%')) AS nccl_several, nl.processes AS nccl_processes, nl.site AS nccl_site, f.kind AS first_kind,
        -- a rank known only by a launcher's report of its exit while two or more processes' signal handlers say they took the
        -- same signal: the launcher names the first it reaped
        sg.job_key IS NOT NULL AND f.kind IN ('process_exit', 'torchrun_failure') AS signal_several, sg.processes AS signal_processes,
        sg.sig AS signal_name,
        nu.job_key IS NOT NULL AND f.tier = 2 AS nccl_unplaced, nu.subkind AS nccl_unplaced_subkind,
        ru.job_key IS NOT NULL AND len(t.ranks) = 1 AS root_unseen, ru.unseen AS unseen_what, aa.job_key IS NOT NULL AS all_aborted,
        ae.job_key IS NOT NULL AS all_exited, ae.status AS all_exited_status,
        ar.job_key IS NOT NULL AND aa.job_key IS NULL AND ae.job_key IS NULL AS all_raised, ar.error_type AS all_raised_type,
        coalesce(ar.but_rank0, false) AS all_raised_but_rank0,
        ar.error_message AS all_raised_message,
        hc.job_key IS NOT NULL AND len(t.ranks) = 1 AS head_cut, hc.head_subkind,
        f.ts_own IS NULL AND f.ts_filled IS NOT NULL AS first_clock_borrowed, si.job_key IS NOT NULL AS shape_inference,
        -- N + 1 processes failed alike by Ray's dedup note (repeated_alike; a line of no rank the same): no single culprit
        coalesce(ra.repeated, CASE WHEN f.job_key IS NULL THEN u.repeated END) AS repeated,
        -- every rank of the job failed alike (all_aborted, all_exited, all_raised: together_all's every rank): a reading of
        -- one node's or some ranks' failure (node_alike, subset_alike, …, read on the first second's ranks) names no one
        -- there (the thirty-sixth launcher set: node 0's two ranks raised the same ValueError 3 s before node 1's two)
        CASE WHEN rl.job_key IS NOT NULL OR aa.job_key IS NOT NULL OR ae.job_key IS NOT NULL OR ar.job_key IS NOT NULL
                  OR ra.job_key IS NOT NULL
             THEN []::BIGINT[]
             WHEN (len(t.ranks) = 1 OR na.job_key IS NOT NULL OR sa.job_key IS NOT NULL OR sp.job_key IS NOT NULL OR ls.job_key IS NOT NULL
                   OR hf.job_key IS NOT NULL) AND NOT coalesce((f.tier = 2 AND u.said_why >= 2)
                 OR (au.job_key IS NOT NULL AND (f.tier = 2 OR (f.rank_named IS NULL AND f.local_rank IS NULL AND f.pid IS NULL))), false) AND cm.job_key IS NULL
                  AND NOT (ru.job_key IS NOT NULL AND len(t.ranks) = 1) AND NOT (hc.job_key IS NOT NULL AND len(t.ranks) = 1)
                  AND NOT (nl.job_key IS NOT NULL AND (f.tier = 2 OR (f.kind = 'cuda_error' AND f.line LIKE '%NCCL WARN%Cuda failure%')))
                  AND NOT (sg.job_key IS NOT NULL AND f.kind IN ('process_exit', 'torchrun_failure'))
                  AND NOT (nu.job_key IS NOT NULL AND f.tier = 2) AND si.job_key IS NULL THEN t.ranks
             WHEN f.job_key IS NULL AND so.rank IS NOT NULL AND cm.job_key IS NULL THEN [so.rank]
             ELSE []::BIGINT[] END AS culprit_ranks,
        -- several ranks failed together: every rank of the job alike, or no reading of the subset names its culprit
        CASE WHEN len(t.ranks) > 1 AND ((aa.job_key IS NOT NULL OR ae.job_key IS NOT NULL OR ar.job_key IS NOT NULL)
                  OR NOT ((na.job_key IS NOT NULL OR sa.job_key IS NOT NULL OR sp.job_key IS NOT NULL OR ls.job_key IS NOT NULL
                   OR hf.job_key IS NOT NULL) AND NOT coalesce((f.tier = 2 AND u.said_why >= 2)
                 OR (au.job_key IS NOT NULL AND (f.tier = 2 OR (f.rank_named IS NULL AND f.local_rank IS NULL AND f.pid IS NULL))), false) AND cm.job_key IS NULL))
             THEN t.ranks ELSE []::BIGINT[] END AS together_ranks,
        -- the one rank that failed on its own is known only by a launcher's exit status (tier 2), and the error that
        -- says why (tier 1: a CUDA OOM, a CUDA error, an exception) is in a line naming no rank in the same pod, one
        -- message only (srun's `task 0: Exited with exit code 1` under a paste's unprefixed OOM): that error is the rank's
        -- (what the line itself says: not a launcher's guess, Ray's "worker process has died", read host-oom-kill)
        -- and only where the report follows the error as a launcher's report of it does (oom_hint0 in _views.sql): within
        -- 5 s before to 90 s after it, or, without a clock, below it in the same log within 300 lines
        -- and the same for the ranks one launcher line reports ended at one poll (launcher_subset), and for a process's own
        -- fatal-signal line naming no rank but its pid (glog's handler: `*** SIGSEGV (@0x0) received by PID 24044`)
        CASE WHEN f.tier = 2 AND (len(t.ranks) = 1 OR ls.job_key IS NOT NULL) AND u.tier = 1 AND u.pod_key = f.pod_key AND coalesce(u.said_why, 0) <= 1
                  AND (u.kind IN ('cuda_oom', 'cuda_error', 'python_exception') OR u.subkind = 'glog_signal')
                  AND (f.ts_filled BETWEEN u.ts - INTERVAL 5 SECOND AND u.ts + INTERVAL 90 SECOND
                       OR (u.raw_row = f.raw_row AND f.line_no > u.line_no AND f.line_no <= u.line_no + 300))
             THEN u.cause
             -- the one rank that failed on its own aborted (SIGABRT) and its GPU runtime's error is in a line naming no rank
             -- in the same pod, one message, just above the report (a SYCL runtime's `hipMemsetAsync() failed (error code =
             -- HIP:1)`, then srun's `task 39: Aborted`): the runtime ended the process for that error, as a rank's own CUDA
             -- error makes its -6 no abort of its own (`raised` above; batch 63)
             WHEN f.cause = 'abort' AND len(t.ranks) = 1 AND u.kind = 'cuda_error' AND u.subkind IS DISTINCT FROM 'transport_call'
                  AND u.pod_key = f.pod_key AND coalesce(u.said_why, 0) <= 1
                  AND (f.ts_filled BETWEEN u.ts - INTERVAL 5 SECOND AND u.ts + INTERVAL 90 SECOND
                       OR (u.raw_row = f.raw_row AND f.line_no > u.line_no AND f.line_no <= u.line_no + 300))
             THEN u.cause ELSE coalesce(f.cause, u.cause) END AS cause,
        coalesce(f.tier, CASE WHEN so.rank IS NOT NULL THEN 2 END) AS tier, coalesce(f.ts_filled, CASE WHEN so.rank IS NOT NULL THEN u.ts END) AS first_failure_at,
        coalesce(f.rank_eff, so.rank) AS first_rank, coalesce(f.pod_key, CASE WHEN so.rank IS NOT NULL THEN u.pod_key END) AS first_pod, f.node_resolved AS first_node,
        f.gpu_uuid AS first_gpu, f.error_type, f.error_message, f.subkind AS first_subkind, left(f.line, 300) AS first_line, CASE WHEN f.kind = 'torchrun_failure' THEN f.loader_signal END AS table_loader_signal,
        u.subkind AS unranked_subkind, u.line AS unranked_line, u.pod_key AS unranked_pod, u.local_rank AS unranked_local,
        h.hang_started_at, h.wait_ms, coalesce(h.watchdog_victims, 0) AS watchdog_victims,
        s.ranks_seen, s.unresolved_sigterms
    FROM spans s
    LEFT JOIN first f USING (job_key, incident)
    LEFT JOIN together_all t USING (job_key, incident)
    LEFT JOIN unranked u USING (job_key, incident)
    LEFT JOIN hang h USING (job_key, incident)
    LEFT JOIN common_mode cm USING (job_key, incident)
    LEFT JOIN silent_one so USING (job_key, incident)
    LEFT JOIN alike_unnamed au USING (job_key, incident)
    LEFT JOIN node_alike na USING (job_key, incident)
    LEFT JOIN subset_alike sa USING (job_key, incident)
    LEFT JOIN subset_apart sp USING (job_key, incident)
    LEFT JOIN launcher_subset ls USING (job_key, incident)
    LEFT JOIN hca_fatal hf USING (job_key, incident)
    LEFT JOIN root_unseen ru USING (job_key, incident)
    LEFT JOIN head_cut hc USING (job_key, incident)
    LEFT JOIN all_aborted aa USING (job_key, incident)
    LEFT JOIN all_exited ae USING (job_key, incident)
    LEFT JOIN all_raised ar USING (job_key, incident)
    LEFT JOIN shape_inference si USING (job_key, incident)
    LEFT JOIN relayed_apart rl USING (job_key, incident)
    LEFT JOIN repeated_alike ra USING (job_key, incident)
    LEFT JOIN nccl_unplaced nu USING (job_key, incident)
    LEFT JOIN nccl_alike nl ON nl.job_key = s.job_key
     AND (f.ts_filled IS NULL OR nl.t0 IS NULL OR (nl.t0 <= f.ts_filled + INTERVAL 2 MINUTE AND nl.t1 >= f.ts_filled - INTERVAL 2 MINUTE))
    LEFT JOIN signal_alike sg ON sg.job_key = s.job_key
     AND (f.ts_filled IS NULL OR sg.t0 IS NULL OR (sg.t0 <= f.ts_filled + INTERVAL 2 MINUTE AND sg.t1 >= f.ts_filled - INTERVAL 2 MINUTE))
),
nonfinite AS (SELECT n.* FROM k10s_incident_nonfinite_one n JOIN decided d0 USING (job_key, incident)
              WHERE len(d0.culprit_ranks) = 0 AND list_contains(d0.together_ranks, n.rank))
SELECT
    d.job_key, d.incident, d.cause,
    d.culprit_ranks,
    list_filter(d.ranks_seen, lambda r: NOT list_contains(d.culprit_ranks, r) AND NOT list_contains(d.together_ranks, r)
                                        AND NOT ((d.root_unseen OR d.head_cut OR d.repeated IS NOT NULL) AND r = d.first_rank)) AS victim_ranks,
    d.together_ranks,
    CASE WHEN d.cause IS NULL THEN 'none'
         WHEN len(d.culprit_ranks) = 0 THEN 'none'
         WHEN d.tier = 1 THEN 'high'
         -- a rank's traceback cut before its exception and nothing else it said: the log does not say what failed,
         -- nor that it failed first (a waiter's teardown traceback reads the same when cut): a suspect, said at
         -- low confidence (docs/rules.md, "Session 27: a cut traceback alone")
         WHEN d.first_kind = 'python_traceback' THEN 'low'
         ELSE 'medium' END AS confidence,
    CASE WHEN d.nonfinite_line IS NOT NULL THEN NULL WHEN d.cause IS NULL THEN 'no rank failed on its own: the job hung'
         WHEN d.common_mode AND starts_with(d.common_error, 'the node''s ')
              THEN d.common_error || ': every process on the node meets it alike, whichever the launcher reports first: no '
              || 'single culprit'
         WHEN d.common_mode AND starts_with(d.common_error, 'a directory the processes share')
              THEN d.common_error || ': the file system they share, or their coordination through it, fails them alike: no single culprit'
         WHEN d.common_mode AND starts_with(d.common_error, 'the launch''s placement')
              THEN d.common_error || ': it fails the communicator''s processes alike, whichever NCCL names: no single culprit'
         WHEN d.common_mode AND starts_with(d.common_error, 'an outside service')
              THEN d.common_error || ': it refuses every process alike, whichever it refused first: no single culprit'
         WHEN d.common_mode THEN 'every process runs the same command line and code (' || d.common_error || ')'
              || ': it fails them all alike, whichever the launcher reports first: no single culprit'
         WHEN d.all_aborted THEN 'every rank aborted (SIGABRT, no watchdog timeout of its own) and nothing failed another way: '
              || 'the same abort in every process, whichever was seen first: no single culprit'
         WHEN d.all_exited THEN 'every rank ended with the same status (' || d.all_exited_status || '), each known only by its launcher''s '
              || 'report, and nothing says why any of them failed: the same end in every process, whichever the launcher reported '
              || 'first: no single culprit'
         WHEN d.shape_inference AND len(d.culprit_ranks) = 0
              THEN 'rank ' || d.first_rank || ' ' || left(d.error_message, 200) || ': its stage ran its own module on the shape '
                   || 'the previous stage sent, so a stage built wrong on either side of that hand-over (its own or the '
                   || 'sender''s) fails there; which one no line says: no single culprit'
         WHEN d.all_raised AND d.all_raised_but_rank0 AND len(d.together_ranks) > 1
              THEN 'every rank but rank 0 (' || len(d.together_ranks) || ') raised the same exception (' || d.all_raised_type || ': '
                   || left(d.all_raised_message, 160) || ') while rank 0 waited in a collective: rank 0 runs a branch of the '
                   || 'program of its own (it writes or fetches what the others read), the code every other rank runs failed '
                   || 'them alike: no single culprit'
         WHEN d.all_raised AND len(d.together_ranks) > 1
              THEN 'every rank (' || len(d.together_ranks) || ') raised the same exception (' || d.all_raised_type || ': '
                   || left(d.all_raised_message, 160) || '), whichever raised it first: the code or settings every process '
                   || 'runs, no single culprit'
         WHEN d.relayed_apart THEN 'a process Ray relays to the driver' || coalesce(' (pid ' || d.relayed_pid || ')', '')
              || ' failed beside a failure in the driver''s own lines: Ray forwards its processes'' lines late, so nothing orders '
              || 'the two: no single culprit'
         WHEN d.repeated IS NOT NULL
              THEN (d.repeated + 1) || ' processes printed this failure alike: Ray''s log deduplication folded the others'' copies '
                   || 'into ' || coalesce('rank ' || d.first_rank || '''s line', 'one line') || ' (`[repeated ' || d.repeated
                   || 'x across cluster]`, their pids, ranks and addresses masked)'
                   || CASE WHEN d.first_rank IS NOT NULL THEN ', so the rank it shows is only one copy''s' ELSE '' END || ': no single culprit'
         WHEN len(d.together_ranks) > 1 AND d.job_key IN (SELECT job_key FROM unordered)
              THEN len(d.together_ranks) || ' ranks failed in a paste whose line order is unknown (its times or tracebacks run both '
                   || 'ways), which cannot order them: no single culprit'
         WHEN len(d.together_ranks) > 1 AND (d.first_failure_at IS NULL OR (d.job_key, d.incident) IN (SELECT (job_key, incident) FROM k10s_incident_unclocked)) THEN len(d.together_ranks) || CASE WHEN (d.job_key, d.incident) IN (SELECT (job_key, incident) FROM k10s_incident_unclocked WHERE pasted) THEN ' ranks failed in different pods'' logs pasted pod after pod with no clock between them (only the order the pods were read in), which cannot order them: no single culprit' WHEN (d.job_key, d.incident) NOT IN (SELECT (job_key, incident) FROM k10s_incident_unclocked) THEN ' ranks failed alike in a log without a clock, which cannot order them: no single culprit' WHEN d.first_failure_at IS NULL THEN ' ranks failed in different files with no clock between them (only the order the files were given in), which cannot order them: no single culprit'
              ELSE ' ranks failed in different files, a line without a clock of its own that its file''s stamped lines do not place before or after the other''s (only the order the files were given in), which cannot order them: no single culprit' END  -- files given apart, pods pasted apart (k10s_incident_unclocked: sessions 69, 70)
         WHEN len(d.together_ranks) > 1 AND d.first_clock_borrowed
              THEN len(d.together_ranks) || ' ranks failed alike in lines without a timestamp of their own (each borrows its log''s '
                   || 'nearest stamped line''s), which cannot order them: no single culprit'
         WHEN len(d.together_ranks) > 1 THEN len(d.together_ranks) || ' ranks failed the same way within one second: no single culprit (a node- or job-wide cause)'
         WHEN d.root_unseen AND d.unseen_what = 'above'
              THEN 'rank ' || d.first_rank || ' is known only by its entry in torchrun''s failure table, whose head the log cut '
                   || '(no `Failures:` line above it): the entries listed before it, other workers that failed at that poll, '
                   || 'are unseen: not known to be alone, no single culprit'
         WHEN d.root_unseen THEN 'torchrun lists rank ' || d.first_rank || ' under "Failures:", beside a Root Cause entry the paste does not hold: '
              || 'another worker failed too, unseen: no single culprit'
         WHEN d.head_cut AND d.head_subkind = 'watchdog_stack'
              THEN 'rank ' || d.first_rank || '''s watchdog reports its CUDA error in a log cut at its head inside another '
                   || 'process''s watchdog end (its first line `Exception raised from ncclCommWatchdog`, a process''s last '
                   || 'record): that process failed before it, above the cut, how is unseen: no single culprit'
         WHEN d.head_cut THEN 'rank ' || d.first_rank || CASE WHEN d.cause = 'sigterm' THEN '''s SIGTERM is read as from outside the job only because no launcher''s SIGTERM to it is seen'
                                                               ELSE ' is known only by its exit status' END
              || ', in a log cut at its head mid-incident (its first line '
              || CASE d.head_subkind WHEN 'frame' THEN 'inside a victim''s traceback' WHEN 'error' THEN 'a victim''s error, its traceback cut above' ELSE 'a victim''s traceback' END
              || '): its own error, its launcher''s SIGTERM, or an earlier failure may lie above the cut: no single culprit'
         WHEN d.nccl_several THEN d.nccl_processes || ' processes report the same NCCL failure (' || d.nccl_site || ') in lines that name no rank; rank '
              || d.first_rank || CASE WHEN d.first_kind = 'python_traceback' THEN '''s traceback, cut before its exception,'
                                      WHEN d.first_kind = 'cuda_error' THEN '''s NCCL CUDA failure' ELSE '''s exit status' END
              || ' may be any of theirs: no single culprit'
         WHEN d.signal_several THEN d.signal_processes || ' processes report taking the same signal (' || d.signal_name
              || ') in their own handlers'' lines, which name no rank; the launcher''s report of rank ' || d.first_rank
              || ' is only the first exit it saw: no single culprit'
         WHEN d.nccl_unplaced THEN 'NCCL reports the communicator failing (' || d.nccl_unplaced_subkind || ') in a line that names no process: '
              || 'the collective it failed in is every member''s, and the exit status of rank ' || d.first_rank
              || ' is only the first the launcher saw: no single culprit'
         WHEN d.several_unranked THEN 'several processes report failing the same way in lines that name no rank; the exit status of rank '
              || d.first_rank || ' is only the first the launcher saw'
         WHEN len(d.culprit_ranks) = 0 AND d.unranked_subkind = 'launcher_last_cmd' THEN 'the launcher reports the failure with the command it spawned last, not the failed process: which rank failed is unknown'
         WHEN len(d.culprit_ranks) = 0 AND d.unranked_local IS NOT NULL
              THEN 'the failing line names local rank ' || d.unranked_local || ', but not which of the job''s nodes printed it: '
                   || 'its global rank is unknown'
         WHEN len(d.culprit_ranks) = 0 THEN coalesce(CASE WHEN regexp_matches(coalesce(d.unranked_line, ''), 'killed due to (?:the node running low on|memory pressure)|RayOutOfMemoryError\b') -- Ray's memory monitor naming no worker: the node by its IP (session 66) or, Ray < 2's, its name (session 67)
              THEN 'Ray''s memory monitor ' || CASE WHEN regexp_matches(d.unranked_line, 'RayOutOfMemoryError\b') THEN '(Ray < 2) stopped a task on ' ELSE 'killed a worker on ' END || coalesce('node ' || coalesce(nullif(regexp_extract(d.unranked_line, '\bIP: ([^,)\s]{1,64})', 1), ''), nullif(regexp_extract(d.unranked_line, 'of the memory on node (\S{1,253}) is used', 1), ''), nullif(regexp_extract(d.unranked_line, '\(pid=\d{1,10}, ip=([^,)\s]{1,64})', 1), '')), 'its node')
                   || coalesce(' (pod ' || (SELECT min(ip.pod_key || ' on ' || ip.node) FROM k10s_ip ip WHERE ip.ip = regexp_extract(d.unranked_line, '\bIP: ([^,)\s]{1,64})', 1) AND ip.ip_kind = 'pod' AND ip.job_key = d.job_key AND ip.pod_uid NOT IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)) || ')', '') -- a captured pod of that IP (session 67)
                   || ' for the node''s host memory; which worker (rank) it does not say, printed' END, 'the failing line names no rank') || ' (' || coalesce(d.unranked_pod, 'a pod') || ')'
    END AS no_culprit_reason,
    d.first_failure_at, d.abort_at, d.hang_started_at, d.node_wide AND len(d.culprit_ranks) > 1 AS node_wide,
    d.first_rank, d.first_pod, d.first_node, d.first_gpu, d.first_kind, d.first_subkind, d.error_type, d.error_message,
    d.head_cut,
    x.xid, x.xid_meaning, k.kernel_line,
    coalesce(d.first_line, d.unranked_line) AS first_line, d.nonfinite_line, d.table_loader_signal,
    d.pods,
    d.watchdog_victims,
    -- ranks that failed together are no victims of their own failure, and no job has more victims than ranks
    -- besides its failing ones (a SIGTERMed pid the log ties to no rank may be a rank already seen)
    least(len(list_filter(d.ranks_seen, lambda r: NOT list_contains(d.culprit_ranks, r) AND NOT list_contains(d.together_ranks, r)
                                        AND NOT ((d.root_unseen OR d.head_cut OR d.repeated IS NOT NULL) AND r = d.first_rank)))
          + d.unresolved_sigterms,
          -- (a failure no line ties to a rank is still one process's own: never its victim)
          coalesce(greatest(js.gpus - greatest(len(d.culprit_ranks) + len(d.together_ranks), CASE WHEN d.cause IS NULL THEN 0 ELSE 1 + coalesce(d.repeated, 0) END), 0),
                   1 << 62)) AS victims,
    coalesce(js.gpus, 1) AS job_gpus,
    w.wait_s,
    round(coalesce(js.gpus, 1) * w.wait_s / 3600.0, 3) AS gpu_hours_lost
-- several ranks failed alike, none named, and one of them alone showed its own progress value non-finite, the others'
-- finite (k10s_incident_nonfinite_one): that rank, said at medium (tier 2: a progress line, not a failure of its own)
FROM (SELECT d0.* REPLACE ([n.rank] AS culprit_ranks, []::BIGINT[] AS together_ranks, 2 AS tier, n.rank AS first_rank, n.pod_key AS first_pod,
                           n.node_resolved AS first_node, n.gpu_uuid AS first_gpu, n.line AS first_line, NULL::VARCHAR AS table_loader_signal), n.line AS nonfinite_line
      FROM decided d0 JOIN nonfinite n USING (job_key, incident)
      UNION ALL BY NAME SELECT * FROM decided ANTI JOIN nonfinite USING (job_key, incident)) d
LEFT JOIN k10s_job_size js ON js.job_key = d.job_key
LEFT JOIN LATERAL (  -- an Xid on the culprit's GPU (or rank) within 5 minutes of its failure
    SELECT xe.xid, xe.meaning AS xid_meaning FROM k10s_xid_event xe
    WHERE xe.job_key = d.job_key AND (xe.gpu_uuid = d.first_gpu OR xe.rank = d.first_rank)
      AND (d.first_failure_at IS NULL OR xe.ts BETWEEN d.first_failure_at - INTERVAL 5 MINUTE AND d.first_failure_at + INTERVAL 5 MINUTE)
    ORDER BY xe.fatal DESC, xe.ts, xe.xid, xe.gpu_uuid, xe.rank, xe.source, xe.line LIMIT 1
) x ON len(d.culprit_ranks) = 1
LEFT JOIN LATERAL (  -- the kernel's OOM-kill line on the culprit's node around a host-oom-kill
    SELECT left(kl.line, 300) AS kernel_line FROM k10s_log kl
    WHERE kl.kind IN ('host_oom', 'cgroup_oom') AND kl.node_resolved = d.first_node
      AND (d.first_failure_at IS NULL OR kl.ts BETWEEN d.first_failure_at - INTERVAL 2 MINUTE AND d.first_failure_at + INTERVAL 1 MINUTE)
    ORDER BY kl.ts, kl.raw_row, kl.line_no, kl.event_id LIMIT 1
) k ON d.cause = 'host-oom-kill'
CROSS JOIN LATERAL (  -- abort - first failure, and never less than the watchdog says the victims waited
    SELECT CASE WHEN d.wait_ms IS NULL AND NOT coalesce(coalesce(d.first_failure_at, d.hang_started_at, d.started_at) < d.abort_at, false) THEN NULL
                ELSE greatest(coalesce(epoch(d.abort_at - coalesce(d.first_failure_at, d.hang_started_at, d.started_at)), 0),
                              coalesce(d.wait_ms / 1000.0, 0)) END AS wait_s
) w;

-- k10s_hang_evidence_first_failure: the first-failure decision in the columns every hang
-- evidence family shares (queries/_hang_evidence.sql unions them).
CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_first_failure AS
SELECT
    i.job_key,
    'first-failure' AS evidence,
    i.culprit_ranks,
    CASE WHEN len(i.together_ranks) > 1 THEN i.together_ranks ELSE []::BIGINT[] END AS suspect_ranks,
    i.confidence,
    NULL::VARCHAR AS pg,
    NULL::BIGINT AS seq_num,
    NULL::VARCHAR AS op_type,
    coalesce(i.first_failure_at, i.hang_started_at) AS ts,
    coalesce(i.cause || ': ' || coalesce(i.first_line, ''), i.no_culprit_reason) AS detail
FROM k10s_incident i
WHERE i.cause IS NOT NULL;
