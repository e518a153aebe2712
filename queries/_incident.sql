-- One incident, one cost (docs/rules.md "Incidents"). Created after _views.sql and
-- _views_net_xid.sql, before the hang-evidence files; read by rank-failure, oom-cascade,
-- nccl-hang and crashloop, so the same incident costs the same GPU-hours everywhere.
--
-- k10s_failure_line: every log line about a process failing on its own or being torn down,
--   with its rank (a pid is resolved through the launcher lines that name pid and rank),
--   its role (own failure or victim), cause and strength (tier 1: the line says why;
--   tier 2: only an exit status), and a clock filled from the nearest stamped line of the
--   same log body when the line has no timestamp of its own.
-- k10s_incident: one row per incident of a job (failure lines whose spans, a watchdog's from
--   the collective's start to the timeout, lie within 2 minutes of each other): the first
--   failing rank(s) on their own, cause, confidence, first failure and abort, victims, and
--   gpu_hours_lost = job GPUs x (abort - first failure), or x the watchdog's wait when the
--   lines carry no timestamps.
-- k10s_hang_evidence_first_failure: the same decision in the shared hang-evidence columns.

-- k10s_failure_line's every row is a container log line of a job of these kinds (its CTE `l`): a bundle without one
-- (a healthy or pending job, a straggler) gets it empty, with k10s_log's columns and its own
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE container IS NOT NULL AND kind IN ('cuda_oom', 'cuda_error',
--     'python_exception', 'torchrun_failure', 'process_exit', 'torchrun_sigterm', 'nccl_watchdog_timeout',
--     'watchdog_exception_summary', 'nccl_error_other', 'nccl_remote_error', 'rank_spawn', 'python_traceback'))
-- empty-columns: k10s_log.*, ts_filled TIMESTAMPTZ, ts_floor TIMESTAMPTZ, rank_eff BIGINT, status BIGINT, outside_sigterm BOOLEAN,
--     was_sigtermed BOOLEAN, rank_timed_out BOOLEAN, rank_torn_down BOOLEAN, rank_raised BOOLEAN, cause VARCHAR,
--     victim_role VARCHAR, relayed VARCHAR, training_went_on BOOLEAN, tier INTEGER, role VARCHAR, span_start TIMESTAMPTZ,
--     span_end TIMESTAMPTZ
CREATE OR REPLACE TEMP TABLE k10s_failure_line AS
WITH lone_interrupt AS (  -- a KeyboardInterrupt is a Ctrl-C's teardown (the job's, its launcher's), unless one rank alone
                          -- raised it in a job where a torchrun agent reports a worker's SIGINT (-2) and no agent got a
                          -- signal itself (its SignalException): a SIGINT sent to that one process, its own failure
    SELECT job_key FROM k10s_log WHERE job_key IS NOT NULL
    GROUP BY job_key
    HAVING count(DISTINCT rank_resolved) FILTER (WHERE kind = 'python_exception' AND error_type = 'KeyboardInterrupt') = 1
       AND count(*) FILTER (WHERE kind = 'python_exception' AND error_type = 'KeyboardInterrupt' AND rank_resolved IS NULL) = 0
       AND count(*) FILTER (WHERE kind = 'torchrun_failure' AND exit_code = -2) > 0
       AND count(*) FILTER (WHERE kind = 'python_exception' AND (error_type LIKE '%SignalException' OR error_message LIKE '%got signal%')) = 0
),
unplaced AS (  -- jobs of several nodes import-logs made up from a paste it could not route: every line in one pasted
               -- pod, the first (where an unrouted paste lands), none naming a global rank; a local rank there (torchrun's
               -- `local_rank: 1`) may be any node's, so it names no rank of the job. Lines in a later node's pod were put
               -- there (a file per node, a routed line): its local ranks are that node's
    SELECT x.job_key FROM k10s_log x
    JOIN (SELECT job_key FROM k10s_rank GROUP BY job_key HAVING count(DISTINCT pod_uid) > 1) m ON m.job_key = x.job_key
    LEFT JOIN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known) p ON p.pod_uid = x.incarnation_uid
    LEFT JOIN (SELECT DISTINCT pod_uid FROM k10s_rank WHERE node_rank = 0) first_node ON first_node.pod_uid = x.incarnation_uid
    WHERE x.container IS NOT NULL
    GROUP BY x.job_key
    HAVING count(DISTINCT x.incarnation_uid) = 1 AND count(x.rank) = 0 AND bool_and(p.pod_uid IS NOT NULL)
       AND bool_and(first_node.pod_uid IS NOT NULL)
),
unordered_paste AS (  -- jobs import-logs made up from a paste whose line order nothing proves (its times or tracebacks run
                     -- both ways: pod label k10s.io/imported-order, parsers/log_newest_first.py): a line with no clock of its
                     -- own takes none from its neighbours, and no first failure is read from the lines' order (together)
    SELECT DISTINCT x.job_key FROM k10s_log x JOIN pods p ON p.pod_uid = x.incarnation_uid
    WHERE json_extract_string(p.labels_json, '$."k10s.io/imported-order"') = 'unknown'
),
table_rank AS (  -- pid -> the global rank its launcher's failure table gives it (`rank : 2 (local_rank: 0)` above
                 -- `exitcode : 1 (pid: N)`), one per pid of a pod incarnation: the launcher's own word, which a line naming
                 -- only the local rank (the agent's `failed (exitcode: 1) local_rank: 0 (pid: N)`) takes over the rank
                 -- its pod's place gives (import-logs' guess of a node's rank from the files' order, or a pod's node rank
                 -- that another agent also claimed: docs/rules.md, "Session 18")
    SELECT incarnation_uid AS tr_uid, pid AS tr_pid, local_rank AS tr_local, min(rank) AS tr_rank FROM k10s_log
    WHERE kind = 'torchrun_failure' AND rank IS NOT NULL AND pid IS NOT NULL AND container IS NOT NULL
    GROUP BY ALL HAVING count(DISTINCT rank) = 1
),
l AS (  -- only the columns the steps below read; the rest is joined back at the end (docs/architecture.md, "Narrow CTEs")
    SELECT event_id, ts, container, kind, line_no,
        CASE WHEN kind = 'python_exception' AND error_type = 'KeyboardInterrupt' AND job_key IN (SELECT job_key FROM lone_interrupt)
             THEN 'raised' ELSE subkind END AS subkind,
        raw_row, job_key, incarnation_uid, pid,
        -- a line Ray's log monitor relays to the driver from another process, behind that process's prefix: 'process' for an
        -- actor's or a task's (`(RayWorkerWrapper pid=N, ip=…)`, `(pid=N)`, its pid maybe masked), 'ray' for Ray's own
        -- (`(raylet)`, `(TorchTrainer pid=N)`: its reports of the workers); NULL for the driver's own lines
        -- (parsers/log_normalize.py; vLLM's own `(VllmWorkerProcess pid=N)` writes to the same terminal)
        CASE WHEN NOT starts_with(line, '(') THEN NULL
             WHEN regexp_matches(line, '^\(\w{0,40}(?:Controller|Cleaner|Watcher|Trainer|raylet|gcs_server|autoscaler)\b[^)]{0,200}\)') THEN 'ray'
             WHEN regexp_matches(line, '^\((?:[A-Za-z_][\w.]{0,80} )?pid=[^,)\s]{1,40}(?:, ip=[^)\s]{1,64})?\)')
                  AND NOT regexp_matches(line, '^\((?:VllmWorker|EngineCore|APIServer )') THEN 'process' END AS relayed,
        CASE WHEN rank IS NULL AND tr.tr_rank IS NOT NULL THEN tr.tr_rank
             -- a process Ray relays, its pid kept and no rank named: not the pod's one rank (the driver) by the pod's
             -- place; its rank is its pid's, where Ray Train's worker group gives it (pid_rank)
             WHEN rank IS NULL AND relayed = 'process' THEN NULL
             WHEN rank IS NULL AND local_rank IS NOT NULL AND job_key IN (SELECT job_key FROM unplaced) THEN NULL
             ELSE rank_resolved END AS rank_resolved,
        local_rank, exit_code,
        error_type, error_message, ran_for_ms, timeout_ms,
        CASE WHEN job_key IN (SELECT job_key FROM unordered_paste) THEN ts ELSE coalesce(ts,
                 last_value(ts IGNORE NULLS) OVER (PARTITION BY raw_row, container ORDER BY line_no, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                 first_value(ts IGNORE NULLS) OVER (PARTITION BY raw_row, container ORDER BY line_no, event_id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)) END AS ts_filled,
        -- what the line's time is known not to precede: its own, else its log's last stamp above it (a stamp borrowed
        -- from below bounds it from above only: printed at or before that line)
        CASE WHEN job_key IN (SELECT job_key FROM unordered_paste) THEN ts ELSE coalesce(ts,
                 last_value(ts IGNORE NULLS) OVER (PARTITION BY raw_row, container ORDER BY line_no, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) END AS ts_floor
    FROM k10s_log
    LEFT JOIN table_rank tr ON tr.tr_uid = k10s_log.incarnation_uid AND tr.tr_pid = k10s_log.pid
                           AND tr.tr_local IS NOT DISTINCT FROM k10s_log.local_rank
    WHERE job_key IS NOT NULL AND container IS NOT NULL
      AND kind IN ('cuda_oom', 'cuda_error', 'python_exception', 'torchrun_failure', 'process_exit', 'torchrun_sigterm',
                   'nccl_watchdog_timeout', 'watchdog_exception_summary', 'nccl_error_other', 'nccl_remote_error', 'rank_spawn',
                   'python_traceback')
      -- srun's task is a rank only when srun started the training processes itself: where a launcher of
      -- its own (torchrun, torch.distributed.launch, mp.spawn, DeepSpeed) reports in the same log, each
      -- srun task is one node's launcher, not a rank; where the task's program could not even be run
      -- (`slurmstepd: error: execve(): torchrun: No such file or directory`), no process ran at all
      AND NOT (kind = 'process_exit' AND subkind LIKE 'srun%' AND raw_row IN (
          SELECT raw_row FROM k10s_log WHERE kind IN ('torchrun_failure', 'torchrun_sigterm', 'rank_spawn', 'launch_failed')
                                          OR (kind = 'process_exit' AND subkind IN ('spawn', 'launcher_last_cmd'))))
      -- a pasted pod's end names the rank of its pod's name only when each pod runs one process
      AND NOT (kind = 'process_exit' AND subkind = 'pod_status' AND job_key IN (
          SELECT job_key FROM k10s_rank GROUP BY job_key, pod_uid HAVING count(DISTINCT rank) > 1))
),
pid_rank AS (  -- pid -> rank within a pod incarnation, from lines that name both
    SELECT incarnation_uid, pid, min(rank_resolved) AS rank
    FROM l WHERE pid IS NOT NULL AND rank_resolved IS NOT NULL AND kind IN ('torchrun_failure', 'rank_spawn')
    GROUP BY ALL HAVING count(DISTINCT rank_resolved) = 1
),
sigtermed AS (  -- pids the launcher sent SIGTERM: a later -9 of theirs is the escalation, not a host OOM kill
    SELECT DISTINCT incarnation_uid, pid FROM l WHERE kind = 'torchrun_sigterm' AND subkind IN ('SIGTERM', 'escalated_SIGKILL')
),
sigterm_seen AS (  -- launcher logs that show whom their agent SIGTERMed (a -15 of another pid came from outside)
    SELECT DISTINCT incarnation_uid FROM l WHERE kind = 'torchrun_sigterm' AND subkind = 'SIGTERM'
),
timed_out AS (  -- ranks whose own watchdog fired: their -6 is the watchdog's abort
    SELECT DISTINCT job_key, rank_resolved AS rank FROM l
    WHERE rank_resolved IS NOT NULL AND (kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary')
                                         OR (kind = 'nccl_error_other' AND subkind = 'async_error_teardown'))
),
watchdog_above AS (  -- a launcher's report of a SIGABRT right below watchdog lines that name no rank, in the same log
                    -- body (a paste of the watchdog's stack without torch's [rankN]: tag, the launcher's line after it):
                    -- the reported process's -6 is that watchdog's abort, as a rank's whose own watchdog fired
    SELECT DISTINCT x.event_id FROM l x JOIN l w
      ON w.raw_row = x.raw_row AND w.container IS NOT DISTINCT FROM x.container AND w.rank_resolved IS NULL
     AND w.kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') AND w.line_no < x.line_no AND w.line_no >= x.line_no - 300
    WHERE x.kind IN ('torchrun_failure', 'process_exit') AND x.exit_code = -6
),
raised AS (  -- ranks that raised an exception of their own: a -6 of theirs is the C++ runtime ending the
             -- process after it ("terminate called without an active exception"), not a separate abort; so is
             -- a rank's own CUDA error or CUDA OOM (`torch.AcceleratorError: CUDA error: misaligned address`,
             -- then "terminate called after throwing an instance of 'c10::AcceleratorError'"): its cause is that.
             -- Not a communication library's report of its own failed CUDA call (UCX's `cuCtxGetDevice(…) is failed`,
             -- `transport_call`): the library goes on, and a SIGABRT after it is how the process ended (below)
    SELECT DISTINCT l.job_key, coalesce(l.rank_resolved, pr.rank) AS rank FROM l
    LEFT JOIN pid_rank pr ON pr.incarnation_uid = l.incarnation_uid AND pr.pid = l.pid  -- a logging record's pid (log_owners.py)
    WHERE coalesce(l.rank_resolved, pr.rank) IS NOT NULL
      AND ((l.kind = 'python_exception' AND l.subkind = 'raised') OR (l.kind IN ('cuda_error', 'cuda_oom') AND l.subkind IS DISTINCT FROM 'transport_call'))
),
torn_down AS (  -- ranks whose only exception says another rank failed (gloo "Connection closed by peer",
                -- DistBackendError, a remote error): their exit status 1 is that teardown's, not a failure of their own
    SELECT l.job_key, coalesce(l.rank_resolved, pr.rank) AS rank FROM l
    LEFT JOIN pid_rank pr ON pr.incarnation_uid = l.incarnation_uid AND pr.pid = l.pid
    WHERE coalesce(l.rank_resolved, pr.rank) IS NOT NULL
      AND l.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other')
      AND l.subkind IS DISTINCT FROM 'transport_call'  -- a library's failed CUDA call is no exception the rank ended on
    GROUP BY ALL
    HAVING bool_and(l.kind = 'nccl_remote_error' OR (l.kind = 'python_exception' AND l.subkind = 'teardown'))
    UNION
    -- a pod whose launcher reports one worker failing (its `failed (exitcode: 1) local_rank: 0 (pid: N)`, its table),
    -- above which every exception in the pod's log names no process and says another failed (gloo's unprefixed
    -- `Connect timeout`, `Connection closed by peer`: torch 2.13's workers print no [rankN]: tag at start-up): that
    -- worker's, its exit status that teardown's, as where the exception is tagged (docs/rules.md, "Session 18")
    SELECT f.job_key, f.rank FROM (
        SELECT l.job_key, l.incarnation_uid, l.raw_row, min(coalesce(l.rank_resolved, pr.rank)) AS rank, min(l.line_no) AS line_no
        FROM l LEFT JOIN pid_rank pr ON pr.incarnation_uid = l.incarnation_uid AND pr.pid = l.pid
        WHERE l.kind = 'torchrun_failure' AND l.exit_code > 0
        GROUP BY ALL
        HAVING count(DISTINCT l.pid) = 1 AND count(DISTINCT coalesce(l.rank_resolved, pr.rank)) = 1 AND count(*) = count(l.pid)
    ) f
    JOIN l x ON x.incarnation_uid = f.incarnation_uid AND x.raw_row = f.raw_row AND x.line_no < f.line_no
            AND x.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other')
    WHERE NOT EXISTS (SELECT 1 FROM l y WHERE y.job_key = f.job_key AND y.rank_resolved = f.rank
                      AND y.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
    GROUP BY f.job_key, f.rank
    HAVING bool_and(x.rank_resolved IS NULL AND x.pid IS NULL)
       AND bool_and(x.kind = 'nccl_remote_error' OR (x.kind = 'python_exception' AND x.subkind = 'teardown'))
    UNION
    -- a restarted attempt's failing worker (its agent's `failed (exitcode: 1) local_rank: N (pid: P)` after an earlier
    -- report of the same agent: torchrun restarted the workers) above which every exception since that earlier report
    -- names no process and says another failed (the new group's store wait on a peer's address timing out, gloo's
    -- `Connect timeout`): that attempt never re-formed; its exit status is that teardown's, no failure of its own
    -- (docs/rules.md, "Real launcher runs, twenty-second set")
    SELECT f.job_key, f.rank FROM (
        SELECT l.job_key, l.raw_row, l.line_no, coalesce(l.rank_resolved, pr.rank) AS rank,
               lag(l.line_no) OVER (PARTITION BY l.raw_row ORDER BY l.line_no) AS since
        FROM l LEFT JOIN pid_rank pr ON pr.incarnation_uid = l.incarnation_uid AND pr.pid = l.pid
        WHERE l.kind = 'torchrun_failure' AND l.subkind = 'agent' AND l.exit_code > 0
    ) f
    JOIN k10s_log x ON x.raw_row = f.raw_row AND x.line_no > f.since AND x.line_no < f.line_no
            AND (x.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other')
                 OR (x.kind = 'nccl_desync' AND x.subkind = 'store_wait'))
    WHERE f.rank IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM l y WHERE y.job_key = f.job_key AND y.rank_resolved = f.rank
                      AND y.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
    GROUP BY f.job_key, f.rank
    -- a store wait's rank is the peer whose key it waited for, not the rank that printed it
    HAVING bool_and((x.kind = 'nccl_desync' AND x.subkind = 'store_wait')
                    OR (x.rank_resolved IS NULL AND x.pid IS NULL
                        AND (x.kind = 'nccl_remote_error' OR (x.kind = 'python_exception' AND x.subkind = 'teardown'))))
    UNION
    -- mp.spawn's report of a process whose error (the exception its traceback ends on, no other between) is gloo's
    -- rendezvous key wait (`-- Process 2 terminated with the following error:` … `DistStoreError: wait timeout after
    -- 20000ms, keys: /default_pg/0//cpu//0/0`): the process waited for a peer's address, torn down (docs/rules.md, "Session 20")
    SELECT p.job_key, p.rank_resolved FROM l p
    JOIN k10s_log w ON w.raw_row = p.raw_row AND w.line_no > p.line_no AND w.line_no <= p.line_no + 300
                   AND w.kind = 'nccl_desync' AND w.subkind = 'store_wait'
    WHERE p.kind = 'process_exit' AND p.subkind = 'spawn' AND p.rank_resolved IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.raw_row = p.raw_row AND x.line_no > p.line_no AND x.line_no < w.line_no
                      AND x.kind IN ('python_exception', 'process_exit', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
),
tracebacked AS (  -- ranks with a traceback or an exception of their own in the logs
    SELECT DISTINCT job_key, rank_resolved AS rank FROM l WHERE kind IN ('python_exception', 'python_traceback') AND rank_resolved IS NOT NULL
),
stream_shown AS (  -- a local rank's own output behind torchrun's --tee prefix in its pod's log, where that pod's tracebacks
                   -- are shown behind the same prefix (stderr is teed): a traceback of that rank would be there too
    SELECT DISTINCT s.incarnation_uid, s.local_rank FROM k10s_log s
    WHERE s.kind = 'rank_stream' AND s.local_rank IS NOT NULL
      AND EXISTS (SELECT 1 FROM k10s_log x WHERE x.incarnation_uid = s.incarnation_uid AND x.kind IN ('python_exception', 'python_traceback')
                  AND regexp_matches(x.line, '^\[default\d+\]:'))
),
rank_tag_shown AS (  -- a rank's own training lines in its pod's log, in a job whose tracebacks carry torch's `[rankN]:` tag
                     -- (torch 2.2+ tags each line of a rank's uncaught exception so, on the stderr its pod's log holds beside
                     -- those lines): a traceback of that rank would be there too, tagged (the DeiT/timm check's `Loss is nan,
                     -- stopping training` then sys.exit(1): the forty-first launcher set)
    SELECT DISTINCT s.incarnation_uid, s.rank_resolved AS rank FROM k10s_log s
    WHERE s.kind = 'training_step' AND s.rank_resolved IS NOT NULL AND s.job_key IS NOT NULL
      AND EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = s.job_key AND x.kind IN ('python_exception', 'python_traceback')
                  AND regexp_matches(x.line, '^\[rank\d+\]:'))
),
hook_logged AS (  -- ranks whose script logged an exception it did not handle as one record and no traceback (its own
                 -- sys.excepthook: `ERROR train: uncaught KeyError: 'labels'`, parsers/log_failures.py): no failure by itself,
                 -- it says why a silent exit 1 of that rank reported after it ended (below)
    SELECT job_key, rank_resolved AS rank, min(ts) AS ts FROM k10s_log
    WHERE kind = 'logged_exception' AND rank_resolved IS NOT NULL AND job_key IS NOT NULL GROUP BY ALL
),
fingerprinted AS (  -- ranks a collective fingerprint report names (torch's `Detected mismatch between collectives on ranks.
                   -- Rank 1 is running collective: …, but Rank 0 is running …`): the RuntimeError every rank the check
                   -- compares raises, in older releases without a rank tag, so an exit 1 of such a rank is that raise
    SELECT DISTINCT job_key, rank_resolved AS rank FROM k10s_log
    WHERE kind = 'collective_mismatch' AND subkind LIKE 'fingerprint%' AND rank_resolved IS NOT NULL AND job_key IS NOT NULL
),
srun_failed AS (  -- srun logs that report a task failing on its own
    SELECT DISTINCT raw_row FROM l WHERE kind = 'process_exit' AND subkind IN ('srun', 'srun_oom') AND exit_code NOT IN (-15, -1, -2)
),
step_end AS (  -- per log body: where Slurm began ending the job step (srun's SIGTERM or its wait, the step daemon's
                -- cancellation: parsers' `step_end`); step_end lines are no failures and not in `l`
    SELECT raw_row, container, min(line_no) AS line_no FROM k10s_log WHERE kind = 'step_end' AND container IS NOT NULL GROUP BY ALL
),
srun_before_end AS (  -- srun's task exits reported before it ended the step in the same log body: the failure that made it end it
    SELECT DISTINCT l.event_id, l.job_key FROM l JOIN step_end se ON se.raw_row = l.raw_row AND se.container = l.container
    WHERE l.kind = 'process_exit' AND l.subkind LIKE 'srun%' AND l.line_no < se.line_no
),
srun_torn AS (  -- in a job where srun ended the step after a task's exit, a task's exit status srun reports otherwise
                -- (after the step's end, or in another log body a paste was split into) is that teardown's: a task that
                -- handles SIGTERM ("bypassing sigterm") and exits 1, not a failure of its own (real incidents batch 31)
    SELECT l.event_id FROM l
    WHERE l.kind = 'process_exit' AND l.subkind LIKE 'srun%' AND l.exit_code > 0
      AND l.job_key IN (SELECT job_key FROM srun_before_end)
      AND l.event_id NOT IN (SELECT event_id FROM srun_before_end)
),
rank_said_more AS (  -- ranks with a line other than a traceback in a log
    SELECT DISTINCT raw_row, rank_resolved FROM l WHERE kind <> 'python_traceback' AND rank_resolved IS NOT NULL
),
lone_dump AS (  -- jobs whose only failure lines are faulthandler's (`Fatal Python error: Aborted` and its thread dump): the
                -- dump says where Python was when native code aborted, not why (NCCL's watchdog aborts a process stuck in a
                -- collective so, as a teardown does) nor that it failed first; a launcher's report would say which failed
    SELECT job_key FROM l GROUP BY job_key HAVING bool_and(kind = 'process_exit' AND subkind = 'faulthandler')
),
agent_reported AS (  -- logs with a torchrun agent's own failure report
    SELECT DISTINCT raw_row FROM l WHERE kind = 'torchrun_failure'
),
size_mismatch_log AS (  -- logs where gloo's size check aborted a receiving rank (a peer sent more than the collective
                        -- expected: a collective mismatch, the sender unnamed): a SIGABRT there is that report's, no own failure
    SELECT DISTINCT raw_row FROM k10s_log WHERE kind = 'collective_mismatch' AND subkind = 'gloo_size'
),
rank_progress AS (  -- each rank's last training step its own progress lines name
    SELECT job_key, rank_resolved AS rank, max(step) AS step FROM k10s_log
    WHERE kind = 'training_step' AND rank_resolved IS NOT NULL AND step IS NOT NULL AND job_key IS NOT NULL
    GROUP BY ALL
),
size_mismatch_lag AS (  -- the receiver of gloo's size check is the rank that left the common path: its last step is behind
                        -- every other rank's (each logged one later: they went on to the next step's collective while it
                        -- called one they never call, `if rank == N: dist.all_reduce(metric)`), every rank of the job
                        -- logging progress, three or more; the receiver at the others' step (a peer sending a larger
                        -- tensor in the same call) stays no culprit (docs/rules.md, "Session 41: the forty-third launcher set")
    SELECT DISTINCT g.job_key, g.rank_resolved AS rank FROM k10s_log g
    JOIN rank_progress me ON me.job_key = g.job_key AND me.rank = g.rank_resolved
    JOIN (SELECT job_key, count(DISTINCT rank) AS n FROM k10s_rank GROUP BY job_key) jn ON jn.job_key = g.job_key
    WHERE g.kind = 'collective_mismatch' AND g.subkind = 'gloo_size' AND g.rank_resolved IS NOT NULL AND jn.n >= 3
      AND (SELECT count(*) FROM rank_progress o WHERE o.job_key = g.job_key) = jn.n
      AND NOT EXISTS (SELECT 1 FROM rank_progress o WHERE o.job_key = g.job_key AND o.rank <> g.rank_resolved AND o.step <= me.step)
),
last_step AS (  -- each log's last training-progress line
    SELECT raw_row, max(line_no) AS line_no FROM k10s_log WHERE container IS NOT NULL AND kind = 'training_step' GROUP BY raw_row
),
ranked AS (
    SELECT l.event_id, l.kind, l.subkind, l.raw_row, l.line_no, l.rank_resolved, l.error_type, l.error_message, l.ran_for_ms, l.relayed,
           l.timeout_ms, l.ts_filled, l.ts_floor, coalesce(l.rank_resolved, CASE WHEN l.subkind <> 'launcher_last_cmd' THEN pr.rank END) AS rank_eff,
           -- 128 + N: a shell's or a container runtime's way of saying the process died of signal N
           CASE WHEN l.exit_code BETWEEN 129 AND 159 THEN 128 - l.exit_code ELSE l.exit_code END AS status,
           -- a worker's SIGTERM (-15) that its torchrun agent, whose SIGTERMs to other pids are in the log, did not send
           l.kind = 'torchrun_failure' AND l.pid IS NOT NULL AND st.pid IS NULL AND ss.incarnation_uid IS NOT NULL AS outside_sigterm,
           -- srun's "task N: Killed" where srun reports another task failing on its own is srun's teardown SIGKILL
           st.pid IS NOT NULL OR (l.subkind = 'srun_killed' AND sf.raw_row IS NOT NULL) AS was_sigtermed,
           sx.event_id IS NOT NULL AS srun_torn_down,
           tw.rank IS NOT NULL OR wa.event_id IS NOT NULL AS rank_timed_out,
           td.rank IS NOT NULL AS rank_torn_down, rx.rank IS NOT NULL AS rank_raised,
           ld.job_key IS NOT NULL AS lone_dump,
           rm.raw_row IS NOT NULL AS rank_said_more, ar.raw_row IS NOT NULL AS agent_reported, sm.raw_row IS NOT NULL AS size_mismatch,
           sg.rank IS NOT NULL AS size_mismatch_lagged,
           (sh.incarnation_uid IS NOT NULL OR rs.rank IS NOT NULL) AND tb.rank IS NULL AS silent_exit,
           hk.rank IS NOT NULL AND coalesce(hk.ts <= l.ts_filled, true) AS hook_logged, fp.rank IS NOT NULL AS fingerprinted
    FROM l
    LEFT JOIN size_mismatch_log sm ON sm.raw_row = l.raw_row
    LEFT JOIN lone_dump ld ON ld.job_key = l.job_key
    LEFT JOIN srun_failed sf ON sf.raw_row = l.raw_row
    LEFT JOIN srun_torn sx ON sx.event_id = l.event_id
    LEFT JOIN rank_said_more rm ON rm.raw_row = l.raw_row AND rm.rank_resolved = l.rank_resolved
    LEFT JOIN agent_reported ar ON ar.raw_row = l.raw_row
    LEFT JOIN pid_rank pr ON pr.incarnation_uid = l.incarnation_uid AND pr.pid = l.pid
    LEFT JOIN size_mismatch_lag sg ON sg.job_key = l.job_key AND sg.rank = coalesce(l.rank_resolved, CASE WHEN l.subkind <> 'launcher_last_cmd' THEN pr.rank END)
    LEFT JOIN sigtermed st ON st.incarnation_uid = l.incarnation_uid AND st.pid = l.pid AND l.kind <> 'torchrun_sigterm'
    LEFT JOIN sigterm_seen ss ON ss.incarnation_uid = l.incarnation_uid
    LEFT JOIN timed_out tw ON tw.job_key = l.job_key AND tw.rank = coalesce(l.rank_resolved, pr.rank)
    LEFT JOIN watchdog_above wa ON wa.event_id = l.event_id
    LEFT JOIN raised rx ON rx.job_key = l.job_key AND rx.rank = coalesce(l.rank_resolved, CASE WHEN l.subkind <> 'launcher_last_cmd' THEN pr.rank END)
    LEFT JOIN torn_down td ON td.job_key = l.job_key AND td.rank = coalesce(l.rank_resolved, CASE WHEN l.subkind <> 'launcher_last_cmd' THEN pr.rank END)
    LEFT JOIN stream_shown sh ON sh.incarnation_uid = l.incarnation_uid AND sh.local_rank = l.local_rank
    LEFT JOIN tracebacked tb ON tb.job_key = l.job_key AND tb.rank = coalesce(l.rank_resolved, pr.rank)
    LEFT JOIN rank_tag_shown rs ON rs.incarnation_uid = l.incarnation_uid AND rs.rank = coalesce(l.rank_resolved, pr.rank)
    LEFT JOIN hook_logged hk ON hk.job_key = l.job_key AND hk.rank = coalesce(l.rank_resolved, pr.rank)
    LEFT JOIN fingerprinted fp ON fp.job_key = l.job_key AND fp.rank = coalesce(l.rank_resolved, pr.rank)
),
classified AS (
    SELECT r.*,
        CASE
            WHEN kind = 'cuda_oom' THEN 'cuda-oom'
            WHEN kind = 'cuda_error' THEN 'cuda-error'
            -- host memory: a MemoryError (numpy's own subclasses: `numpy.core._exceptions.MemoryError` of 1.17,
            -- `..._ArrayMemoryError` since 1.18) or the CPU allocator's failure (docs/rules.md "host memory and data-loader workers")
            WHEN kind = 'python_exception' AND subkind = 'raised' AND (regexp_matches(error_type, '(?:^|\.)_?(?:Array)?MemoryError$')
                 OR error_message LIKE '%DefaultCPUAllocator: can''t allocate memory%') THEN 'host-oom'
            -- a DataLoader worker killed by a signal: the rank's failure is the worker's signal
            WHEN kind = 'python_exception' AND subkind = 'raised' AND error_message LIKE 'DataLoader worker (pid%) is killed by signal: %' THEN
                CASE regexp_extract(error_message, 'killed by signal: ([A-Za-z ]+)', 1)
                    WHEN 'Killed' THEN 'host-oom-kill' WHEN 'Bus error' THEN 'sigbus' WHEN 'Segmentation fault' THEN 'segfault'
                    WHEN 'Aborted' THEN 'abort' WHEN 'Floating point exception' THEN 'sigfpe' ELSE 'python-exception' END
            -- the rank's connection to its DataLoader worker lost while a batch was handed over (parsers/log_owners.py):
            -- the worker was killed without the loader saying by what, read as the loader's own "killed by signal: Killed"
            WHEN kind = 'python_exception' AND subkind = 'raised' AND error_message LIKE 'DataLoader worker lost while handing a batch over: %' THEN 'host-oom-kill'
            -- DDP's check that every rank built the same model (a parameter's count, shape or strides differ
            -- from rank 0's): the ranks' gradient collectives could never match
            WHEN kind = 'python_exception' AND subkind = 'raised' AND regexp_matches(error_message,
                 'appears not to match (?:sizes|strides) of the same param in process|DDP expects same model across all ranks') THEN 'collective-mismatch'
            -- argparse's usage error: it prints usage and exits with status 2 (sys.exit(2), no traceback)
            WHEN kind = 'python_exception' AND error_type = 'argparse usage error' THEN 'exit-2'
            WHEN kind = 'python_exception' AND subkind = 'raised' THEN 'python-exception'
            -- a rank-tagged traceback and nothing else of that rank in the log (its exception line
            -- was cut off): it raised, what is unknown
            WHEN kind = 'python_traceback' AND rank_resolved IS NOT NULL AND NOT rank_said_more THEN 'python-exception'
            -- ncclInvalidUsage: the program's misuse of NCCL (or two ranks on one GPU), which every rank
            -- running the same code and configuration meets alike (common_mode below)
            -- Cray MPICH's fatal `Other MPI error` of a rank (its network layer failed: parsers/log_mpich.py), as NCCL's system error
            -- NCCL's IB async thread reporting the HCA's own fatal device event (`Got async event : local catastrophic error`,
            -- IBV_EVENT_DEVICE_FATAL): the reporting process's host adapter failed, not a peer or a link (batch 145)
            WHEN kind = 'nccl_error_other' AND subkind IN ('ncclUnhandledCudaError', 'ncclSystemError', 'ncclInternalError', 'ncclInvalidUsage', 'mpich_other', 'ompi_other',
                                                          'ib_device_fatal') THEN 'nccl-error'
            WHEN kind IN ('torchrun_failure', 'process_exit') AND (subkind NOT IN ('exit_code') OR kind = 'torchrun_failure') THEN
                CASE
                    WHEN status = -9 AND NOT was_sigtermed THEN 'host-oom-kill'
                    WHEN status = -7 THEN 'sigbus'
                    WHEN status = -11 THEN 'segfault'
                    WHEN status = -8 THEN 'sigfpe'
                    WHEN status = -4 THEN 'sigill'
                    WHEN status = -15 AND outside_sigterm THEN 'sigterm'
                    WHEN status = -6 AND lone_dump THEN NULL  -- a lone faulthandler abort (lone_dump): session 33
                    WHEN status = -6 AND size_mismatch_lagged THEN 'collective-mismatch'  -- size_mismatch_lag
                    WHEN status = -6 AND NOT rank_timed_out AND NOT rank_raised AND NOT size_mismatch THEN 'abort'
                    -- any other signal but the teardown's (HUP, INT, KILL after a SIGTERM, ABRT after a timeout, TERM):
                    -- named after it (sigsys: a seccomp kill, sigxcpu / sigxfsz: a resource limit, sigtrap, ...)
                    WHEN status < 0 AND status NOT IN (-1, -2, -6, -9, -15) THEN
                        coalesce('sig' || CASE -status WHEN 3 THEN 'quit' WHEN 5 THEN 'trap' WHEN 10 THEN 'usr1' WHEN 12 THEN 'usr2'
                            WHEN 13 THEN 'pipe' WHEN 14 THEN 'alrm' WHEN 16 THEN 'stkflt' WHEN 24 THEN 'xcpu' WHEN 25 THEN 'xfsz'
                            WHEN 26 THEN 'vtalrm' WHEN 27 THEN 'prof' WHEN 29 THEN 'io' WHEN 30 THEN 'pwr' WHEN 31 THEN 'sys' END,
                                 'signal-' || (-status))
                    WHEN status = 1 AND rank_torn_down THEN NULL
                    WHEN status > 0 AND srun_torn_down THEN NULL
                    -- its own output and its node's tracebacks are in the log, and no traceback of its own: it raised
                    -- nothing (sys.exit(msg), os._exit(1)); the status alone is all there is
                    -- a rank a collective fingerprint report names: its exit 1 is the check's RuntimeError (untagged)
                    WHEN status = 1 AND fingerprinted AND NOT rank_raised THEN 'collective-mismatch'
                    -- unless the script's own hook logged the exception it did not handle (one record, no traceback)
                    WHEN status = 1 AND silent_exit AND hook_logged THEN 'python-exception'
                    WHEN status = 1 AND silent_exit THEN 'exit-1'
                    WHEN status = 1 THEN 'python-exception'
                    WHEN status > 1 THEN 'exit-' || status
                    -- a failure-table entry cut before its exit code: the process failed, how is unknown
                    WHEN status IS NULL AND kind = 'torchrun_failure' AND subkind IN ('root_cause', 'failures') THEN 'exit-unknown'
                    -- Ray: a worker process that died without raising (no exit status; "worker process has died",
                    -- exit type SYSTEM_ERROR / NODE_OUT_OF_MEMORY): killed from outside, as a SIGKILL not from its launcher
                    WHEN status IS NULL AND subkind = 'ray_worker_died' THEN 'host-oom-kill'
                    -- a pod whose container ended in Error / CrashLoopBackOff, a Ray actor whose worker process
                    -- died (ActorDiedError, SYSTEM_ERROR): it ended, how is unknown
                    -- Ray Train's trainer a worker ("Worker 0 has failed.", by world rank)
                    -- JAX's coordination service lost a task (heartbeat timeout, set to ERROR), vLLM's executor a worker
                    -- process that "died unexpectedly": it ended, how is unknown
                    -- Paddle's legacy launcher's aborted trainer (its rank, no status): the same
                    -- MindSpore's scheduler / msrun on a worker whose heartbeat it lost ("The node: 3 is timed out"), as JAX's
                    WHEN status IS NULL AND subkind IN ('pod_status', 'ray_actor_died', 'ray_train_worker_failed', 'jax_task_error', 'vllm_worker_died',
                                                      'paddle_abort', 'msrun_timed_out') THEN 'exit-unknown'
                    -- HCCL's rank whose heartbeat its peers lost (Ascend: "Heartbeat Lost Occurred", the process exited or its
                    -- network went down): declared dead by its peers' monitor, as NCCL RAS's dead process (nccl-hang's
                    -- rank-dead); how it ended is as unknown, so it weighs as exit-unknown does (tier 2, together)
                    WHEN status IS NULL AND subkind = 'hccl_heartbeat_lost' THEN 'rank-dead'
                    -- torch elastic's @record on a worker that failed "with no error file": the same, unless the agent's
                    -- own report of that failure (its `failed (exitcode: …)` line, its failure table) is in the log,
                    -- which says how it ended (and whether it was torn down): then this line adds nothing
                    WHEN status IS NULL AND subkind = 'elastic_no_error_file' AND NOT agent_reported THEN 'exit-unknown'
                END
        END AS cause,
        CASE
            WHEN kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary', 'torchrun_sigterm', 'nccl_remote_error') THEN 'victim'
            WHEN kind = 'python_exception' AND subkind = 'teardown' THEN 'victim'
            WHEN kind = 'nccl_error_other' AND subkind = 'async_error_teardown' THEN 'victim'
            WHEN kind IN ('torchrun_failure', 'process_exit') AND (status IN (-15, -1, -2) OR (status = -9 AND was_sigtermed)
                                                                  OR (status = -6 AND (rank_timed_out OR (size_mismatch AND NOT size_mismatch_lagged)))
                                                                  OR (status = 1 AND rank_torn_down)
                                                                  OR (status > 0 AND srun_torn_down)) THEN 'victim'
        END AS victim_role
    FROM ranked r
)
SELECT
    k.*, c.ts_filled, c.ts_floor, c.rank_eff, c.status, c.outside_sigterm, c.was_sigtermed, c.rank_timed_out, c.rank_torn_down, c.rank_raised,
    c.cause, c.victim_role, c.relayed,
    -- training went on in the same log after this line: a logged (caught) exception, unless the job was torn down
    c.kind IN ('python_exception', 'python_traceback') AND coalesce(ls.line_no > c.line_no, false) AS training_went_on,
    -- tier 2 too: a communication library's report of its own CUDA call that failed (UCX's `cuCtxGetDevice(&cu_device) is
    -- failed. ret:invalid device context`, `transport_call`): it says a call failed, not how the process ended, so a fatal
    -- signal of the same rank after it (UCX's segfault, srun's `task 0: Segmentation fault`) stays the rank's cause, and
    -- any rank's own failure outranks it; it names its rank where nothing says more (docs/rules.md, "Session 19: general
    -- fixes, second round")
    CASE WHEN c.cause IS NULL THEN NULL
         WHEN c.cause IN ('nccl-error', 'exit-unknown', 'rank-dead') OR c.kind = 'python_traceback' OR (c.kind IN ('torchrun_failure', 'process_exit') AND c.status > 0)
              OR (c.kind = 'cuda_error' AND c.subkind = 'transport_call') THEN 2
         ELSE 1 END AS tier,
    CASE WHEN c.cause IS NOT NULL THEN 'own' ELSE c.victim_role END AS role,
    CASE WHEN c.kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') AND c.ts_filled IS NOT NULL
         THEN c.ts_filled - to_milliseconds(coalesce(c.ran_for_ms, c.timeout_ms, 0)) ELSE c.ts_filled END AS span_start,
    c.ts_filled AS span_end
FROM classified c JOIN k10s_log k ON k.event_id = c.event_id  -- the line's every column, in k10s_log's order
LEFT JOIN last_step ls ON ls.raw_row = c.raw_row
WHERE c.cause IS NOT NULL OR c.victim_role IS NOT NULL;

-- empty-without: k10s_failure_line
-- empty-columns: k10s_failure_line.*, brk INTEGER, incident BIGINT
CREATE OR REPLACE TEMP TABLE k10s_incident_line AS
WITH stamped AS (  -- islands of overlapping spans (2-minute slack) per job
    SELECT *,
        CASE WHEN span_start > max(span_end) OVER (PARTITION BY job_key ORDER BY span_start, span_end, raw_row, line_no, event_id
                                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + INTERVAL 2 MINUTE
             THEN 1 ELSE 0 END AS brk
    FROM k10s_failure_line WHERE span_start IS NOT NULL
)
SELECT *, (1 + sum(brk) OVER (PARTITION BY job_key ORDER BY span_start, span_end, raw_row, line_no, event_id ROWS UNBOUNDED PRECEDING))::BIGINT AS incident
FROM stamped
UNION ALL BY NAME
SELECT *, 0 AS brk, 1::BIGINT AS incident FROM k10s_failure_line WHERE span_start IS NULL;  -- no clock at all: the job's first incident

-- k10s_incident: one row per incident of a job (every row of it grows from k10s_incident_line's spans, so a bundle
-- without failure lines, a healthy or pending job, a straggler, gets it empty without binding ~100 KB of SQL)
-- empty-without: k10s_incident_line
-- empty-columns: job_key VARCHAR, incident BIGINT, cause VARCHAR, culprit_ranks BIGINT[], victim_ranks BIGINT[],
--     together_ranks BIGINT[], confidence VARCHAR, no_culprit_reason VARCHAR, first_failure_at TIMESTAMPTZ,
--     abort_at TIMESTAMPTZ, hang_started_at TIMESTAMPTZ, node_wide BOOLEAN, first_rank BIGINT, first_pod VARCHAR,
--     first_node VARCHAR, first_gpu VARCHAR, first_kind VARCHAR, first_subkind VARCHAR, error_type VARCHAR, error_message VARCHAR,
--     head_cut BOOLEAN, xid BIGINT, xid_meaning VARCHAR, kernel_line VARCHAR, first_line VARCHAR, pods VARCHAR[],
--     watchdog_victims BIGINT, victims BIGINT, job_gpus BIGINT, wait_s DOUBLE, gpu_hours_lost DOUBLE
CREATE OR REPLACE TEMP TABLE k10s_incident AS
WITH unordered AS (  -- jobs from a paste whose line order nothing proves (k10s_failure_line's unordered_paste, by the same label)
    SELECT DISTINCT x.job_key FROM k10s_log x JOIN pods p ON p.pod_uid = x.incarnation_uid
    WHERE json_extract_string(p.labels_json, '$."k10s.io/imported-order"') = 'unknown'
),
hang AS (  -- when the collective the watchdogs timed out on started
    SELECT job_key, incident, min(span_start) AS hang_started_at, max(ran_for_ms) AS wait_ms,
           count(DISTINCT rank_eff) FILTER (WHERE kind = 'nccl_watchdog_timeout') AS watchdog_victims
    FROM k10s_incident_line WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') GROUP BY ALL
),
-- per incident and per log, the facts the own-failure filters below read, each computed once
-- (joins, not correlated subqueries: docs/architecture.md, "Joins over correlated subqueries")
torn_flag AS (  -- incidents in which processes were seen dying or being torn down
    SELECT DISTINCT job_key, incident FROM k10s_incident_line
    WHERE role = 'victim' OR kind IN ('torchrun_failure', 'process_exit', 'cuda_error', 'cuda_oom')
),
first_watchdog AS (  -- the first watchdog line of each log
    SELECT raw_row, min(line_no) AS line_no FROM k10s_incident_line
    WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') GROUP BY raw_row
),
exit_shared AS (  -- ranks whose launcher-reported end (status only) another rank shares in the incident
    SELECT DISTINCT x.job_key, x.incident, x.rank_eff
    FROM k10s_incident_line x JOIN (
        SELECT job_key, incident, status FROM k10s_incident_line
        WHERE role = 'own' AND tier = 2 AND kind IN ('process_exit', 'torchrun_failure') AND coalesce(rank, local_rank) IS NOT NULL
        GROUP BY ALL HAVING count(DISTINCT rank_eff) >= 2
    ) s ON s.job_key = x.job_key AND s.incident = x.incident AND s.status IS NOT DISTINCT FROM x.status
    WHERE x.role = 'own' AND x.tier = 2 AND x.kind IN ('process_exit', 'torchrun_failure') AND coalesce(x.rank, x.local_rank) IS NOT NULL
),
victim_errors AS (  -- incidents where other ranks were visibly torn down by an error
    SELECT DISTINCT job_key, incident FROM k10s_incident_line
    WHERE role = 'victim' AND kind IN ('nccl_remote_error', 'python_exception', 'nccl_error_other')
),
abort_after_other AS (  -- SIGABRTs no later than a second after another rank's own failure of another kind
    SELECT DISTINCT a.event_id FROM k10s_incident_line a JOIN k10s_incident_line o USING (job_key, incident)
    WHERE a.role = 'own' AND a.cause = 'abort' AND a.ts_filled IS NOT NULL
      AND o.role = 'own' AND o.cause <> 'abort' AND o.rank_eff IS NOT NULL AND o.rank_eff IS DISTINCT FROM a.rank_eff
      AND o.ts_filled <= a.ts_filled + INTERVAL 1 SECOND
      -- a line Ray relays from another process and one of the driver's own: the relay's arrival orders nothing (relayed_apart)
      AND (a.relayed IS NULL) = (o.relayed IS NULL)
),
kill_after_other AS (  -- SIGKILLs more than 5 seconds after another rank's own failure
    SELECT DISTINCT a.event_id FROM k10s_incident_line a JOIN k10s_incident_line o USING (job_key, incident)
    WHERE a.role = 'own' AND a.cause = 'host-oom-kill' AND a.ts_filled IS NOT NULL
      AND o.role = 'own' AND o.rank_eff IS DISTINCT FROM a.rank_eff AND o.ts_filled < a.ts_filled - INTERVAL 5 SECOND
      -- not a failure of an attempt torchrun restarted from: its log's agent reported it and then another attempt (two
      -- agent lines from the failure on, the failure's own report counted), after which the SIGKILL is a new attempt's
      -- (twenty-third launcher set)
      AND (SELECT count(*) FROM k10s_incident_line g WHERE g.raw_row = o.raw_row AND g.kind = 'torchrun_failure'
           AND g.subkind = 'agent' AND g.line_no >= o.line_no) < 2
),
agent_lines AS (  -- torchrun agents' "failed (exitcode: …)" lines, and whether the same log has a later one
    SELECT job_key, incident, raw_row, line_no, ts_filled, line_no < max(line_no) OVER (PARTITION BY raw_row) AS later_agent
    FROM k10s_incident_line WHERE kind = 'torchrun_failure' AND subkind = 'agent'
),
restarted_after AS (  -- per log: the last agent line after which a later attempt failed on its own
    SELECT a.raw_row, max(a.line_no) AS line_no
    FROM agent_lines a JOIN k10s_incident_line y ON y.job_key = a.job_key AND y.incident = a.incident
    WHERE y.role = 'own' AND y.tier = 1
      AND (y.kind IN ('python_exception', 'cuda_error', 'cuda_oom', 'nccl_error_other')
           -- or an agent's own report of a later attempt's worker ending by a signal (`failed (exitcode: -9)`): one
           -- agent line per attempt, so one after the earlier report is another attempt's (twenty-third launcher set)
           OR (y.kind = 'torchrun_failure' AND y.subkind = 'agent' AND y.line_no <> a.line_no))
      -- in another log: only where this log shows the restart (its agent reported a later attempt's failure
      -- too); an agent's one report is the end of a job without restarts, after which a peer may still raise
      AND CASE WHEN y.raw_row = a.raw_row THEN y.line_no > a.line_no ELSE y.ts_filled > a.ts_filled AND a.later_agent END
      -- not past the agent's failure table (`Root Cause (first observed failure)`): the agent prints it when it gives up,
      -- restarting nothing; an exception below it is another program's (an outer launcher's `JobException` once its
      -- trainer ended), unless a later agent line shows another attempt (docs/rules.md, "Session 22: batch 59")
      AND (a.later_agent OR NOT EXISTS (SELECT 1 FROM k10s_log s WHERE s.raw_row = a.raw_row AND s.kind = 'torchrun_failure'
                                        AND s.subkind = 'root_cause' AND s.line_no > a.line_no
                                        AND (y.raw_row <> a.raw_row OR s.line_no < y.line_no)))
    GROUP BY a.raw_row
),
restarted_container AS (  -- a failure in a container's previous log (`kubectl logs --previous`: the kubelet restarted
                          -- the container, restartPolicy OnFailure) after which a restarted container of the same job
                          -- failed on its own: as torchrun's own restarts (restarted_after), the job ended with the
                          -- later attempt's failure, not this one (thirty-first launcher set)
    SELECT DISTINCT il.event_id FROM k10s_incident_line il
    JOIN k10s_incident_line y ON y.job_key = il.job_key AND y.incident = il.incident
    WHERE il.role = 'own' AND il.previous AND y.role = 'own' AND y.tier = 1 AND NOT coalesce(y.previous, false)
      AND y.ts_filled > il.ts_filled
      -- the later failure's container is itself a restarted one (its pod has a previous log): another attempt's
      AND EXISTS (SELECT 1 FROM k10s_log p WHERE p.job_key = y.job_key AND p.incarnation_uid = y.incarnation_uid AND p.previous)
),
wait_exit_alike AS (  -- a rank known only by its exit status (its agent's report, its failure table: none of its own
                      -- lines shown, `--local-ranks-filter` hid its stream) that the same log reports within a second of a
                      -- rank whose shown error is gloo's collective wait timing out (`Timed out waiting 5000ms for recv
                      -- operation to complete`), in a job where no shown error says a peer's connection closed or reset:
                      -- the ranks shown waited the whole timeout for a peer that never came (none had ended), so this
                      -- exit is one more such wait's, no failure of its own (twenty-third launcher set)
    SELECT DISTINCT il.event_id FROM k10s_incident_line il
    JOIN k10s_incident_line v ON v.job_key = il.job_key AND v.incident = il.incident AND v.raw_row = il.raw_row
         AND v.kind = 'torchrun_failure' AND v.rank_eff <> il.rank_eff
         AND abs(epoch(v.ts_filled) - epoch(il.ts_filled)) <= 1
    WHERE il.role = 'own' AND il.tier = 2 AND il.kind = 'torchrun_failure' AND il.rank_eff IS NOT NULL
      AND EXISTS (SELECT 1 FROM k10s_log w WHERE w.job_key = il.job_key AND w.rank_resolved = v.rank_eff
                  AND w.kind = 'python_exception'
                  AND regexp_matches(w.error_message, '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation'))
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = il.job_key AND x.rank_resolved = il.rank_eff
                      AND x.kind IN ('python_exception', 'python_traceback', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
      AND NOT EXISTS (SELECT 1 FROM k10s_log c WHERE c.job_key = il.job_key AND c.kind = 'python_exception'
                      AND c.subkind = 'teardown' AND regexp_matches(c.error_message, '(?i)connection (?:closed|reset) by peer'))
      -- nor where the same log shows, before the report, an error no rank tag claims (other than such a wait): it may
      -- be this rank's own, printed before torch tagged its lines (tests/test_log_torch9.py)
      AND NOT EXISTS (SELECT 1 FROM k10s_log u WHERE u.job_key = il.job_key AND u.raw_row = il.raw_row AND u.rank_resolved IS NULL
                      AND u.line_no < il.line_no AND u.kind IN ('python_exception', 'cuda_error', 'cuda_oom', 'nccl_error_other')
                      AND NOT regexp_matches(coalesce(u.error_message, ''), '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation'))
),
own AS (  -- own failures; one that comes a minute after the hung collective began is its consequence;
          -- an exception after which the rank kept training is not one unless the job was torn down;
          -- a SIGKILL seconds after another rank had failed is the teardown escalating (torchrun
          -- SIGKILLs what its SIGTERM did not stop within the grace period), not a host OOM kill;
          -- only the columns read below (docs/architecture.md, "Narrow CTEs")
    SELECT il.job_key, il.incident, il.rank_eff, il.cause, il.tier, il.ts_filled, il.ts AS ts_own, il.raw_row, il.line_no, il.event_id, il.kind, il.subkind,
           il.local_rank, il.pod_key, il.node_resolved, il.gpu_uuid, il.error_type, il.error_message, il.line,
           il.relayed, il.rank AS rank_named, il.pid, il.status
    FROM k10s_incident_line il
    LEFT JOIN hang h USING (job_key, incident)
    LEFT JOIN torn_flag t USING (job_key, incident)
    LEFT JOIN first_watchdog fw ON fw.raw_row = il.raw_row
    LEFT JOIN exit_shared es ON es.job_key = il.job_key AND es.incident = il.incident AND es.rank_eff = il.rank_eff
    LEFT JOIN victim_errors ve USING (job_key, incident)
    LEFT JOIN abort_after_other ab ON ab.event_id = il.event_id
    LEFT JOIN kill_after_other ka ON ka.event_id = il.event_id
    LEFT JOIN restarted_after ra ON ra.raw_row = il.raw_row
    -- a failure printed after the hang began is not its cause; a line of no clock above its log's first stamped line is
    -- not known to be so (a traceback pasted above a glog-stamped watchdog line of another rank: session 44)
    WHERE il.role = 'own' AND (il.ts_floor IS NULL OR h.hang_started_at IS NULL OR il.ts_floor <= h.hang_started_at + INTERVAL 60 SECOND)
      AND (NOT il.training_went_on OR t.job_key IS NOT NULL)
      -- no clock: an exit status reported after a watchdog timeout in the same log is the hang's consequence
      AND NOT (il.ts_filled IS NULL AND il.kind IN ('torchrun_failure', 'process_exit') AND coalesce(fw.line_no < il.line_no, false))
      -- a line naming no process, in a pod import-logs made up from a paste, is that pod's rank's only by the
      -- importer's guess: where the launcher itself reports that rank and others ending with the same status
      -- (srun's `task 1: Exited with exit code 1`, `task 0: …`), it cannot say which of them printed it
      -- (what the line says, an exception or an NCCL error, not the launcher's own status report)
      AND NOT (il.kind NOT IN ('torchrun_failure', 'process_exit') AND il.rank IS NULL AND il.local_rank IS NULL
               AND il.incarnation_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
               AND es.rank_eff IS NOT NULL)
      -- a cut traceback says little where other ranks were visibly torn down: it is likely the same teardown
      AND NOT (il.kind = 'python_traceback' AND ve.job_key IS NOT NULL)
      -- a SIGABRT (no watchdog line of its own) when another rank had already failed in another way, or
      -- in the same second (a failure table's clock), is the NCCL teardown aborting it, not its own failure
      AND ab.event_id IS NULL
      -- torchrun restarted its workers after this failure (its agent's "failed (exitcode: …)" line follows in the
      -- same log) and a later attempt failed on its own (a rank's exception or CUDA error after that line): the
      -- job ended with the last attempt's failure, not this one (--max-restarts: the culprit can move)
      AND NOT coalesce(il.line_no < ra.line_no, false)
      -- the agent line that reported that earlier attempt's failure is the earlier attempt's too (its worker's signal)
      AND NOT coalesce(il.line_no = ra.line_no AND il.kind = 'torchrun_failure' AND il.subkind = 'agent', false)
      AND ka.event_id IS NULL
      AND il.event_id NOT IN (SELECT event_id FROM wait_exit_alike)
      AND il.event_id NOT IN (SELECT event_id FROM restarted_container)
),
best AS (  -- per rank: its strongest, then earliest, own failure
    SELECT * FROM own WHERE rank_eff IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY job_key, incident, rank_eff ORDER BY tier, ts_filled NULLS LAST, raw_row, line_no, event_id) = 1
),
after_teardown AS (  -- own failures without a clock of their own printed below another rank's teardown error (gloo's
                     -- `Connection closed by peer`: a peer had already gone) in the same log body and attempt (no launcher
                     -- report between): the lines' order proves the job was already broken when this rank failed, whatever
                     -- clock they borrow (docs/rules.md, "Real launcher runs, eighteenth set")
    SELECT DISTINCT b.job_key, b.incident, b.rank_eff FROM best b
    JOIN k10s_log t ON t.job_key = b.job_key AND t.raw_row = b.raw_row AND t.line_no < b.line_no
            AND t.kind = 'python_exception' AND t.subkind = 'teardown' AND t.rank_resolved <> b.rank_eff
    WHERE b.ts_own IS NULL  -- not a paste whose line order nothing proves (import-logs' pod label)
      AND b.job_key NOT IN (SELECT job_key FROM unordered)
      AND NOT EXISTS (SELECT 1 FROM k10s_log a WHERE a.job_key = b.job_key AND a.raw_row = b.raw_row
                      AND a.kind IN ('torchrun_failure', 'torchrun_sigterm') AND a.line_no BETWEEN t.line_no AND b.line_no)
),
first AS (  -- the strongest, then earliest failure; by line order not one printed below a peer's teardown (after_teardown)
    SELECT b.* FROM best b
    LEFT JOIN after_teardown a ON a.job_key = b.job_key AND a.incident = b.incident AND a.rank_eff = b.rank_eff
    QUALIFY row_number() OVER (PARTITION BY b.job_key, b.incident
                               ORDER BY b.tier, a.rank_eff IS NOT NULL, b.ts_filled NULLS LAST, b.raw_row, b.line_no, b.rank_eff, b.event_id) = 1
),
together AS (  -- the same way and within the same second as the first: failed together (an exit with no status, or a
              -- traceback cut before its exception, says no way: it cannot be told apart from the first's)
    SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks, list(DISTINCT b.cause ORDER BY b.cause) AS causes
    FROM best b JOIN first f USING (job_key, incident)
    -- not a rank whose log shows its failure below a peer's teardown error where the first's log shows none above its own
    WHERE NOT (b.rank_eff <> f.rank_eff
               AND EXISTS (SELECT 1 FROM after_teardown a WHERE a.job_key = b.job_key AND a.incident = b.incident AND a.rank_eff = b.rank_eff)
               AND NOT EXISTS (SELECT 1 FROM after_teardown a WHERE a.job_key = f.job_key AND a.incident = f.incident AND a.rank_eff = f.rank_eff))
      AND ((b.rank_eff <> f.rank_eff
           -- no clock: another rank's traceback cut before its exception may be the same error as the first's, or
           -- its own; a paste cannot order the two (docs/rules.md, "Session 16: controls")
           -- or within a second of it (a clock the paste's lines share says no more: docs/rules.md, "Real incidents batch 48")
           AND (((b.ts_filled IS NULL AND f.ts_filled IS NULL OR abs(epoch(b.ts_filled) - epoch(f.ts_filled)) <= 1.0)
                 AND b.kind = 'python_traceback'
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
                                 IS NOT DISTINCT FROM regexp_replace(o2.error_message, '[0-9]+', '#', 'g')))))
       OR b.tier = f.tier AND (b.rank_eff = f.rank_eff OR ((b.cause = f.cause OR 'exit-unknown' IN (b.cause, f.cause) OR 'rank-dead' IN (b.cause, f.cause)
                                                            OR 'python_traceback' IN (b.kind, f.kind))
                                                           AND abs(epoch(b.ts_filled) - epoch(f.ts_filled)) <= 1.0)
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
                 -- others'): no single culprit. Some ranks only, or ranks raising different errors, or the same error with
                 -- each rank's own numbers in it, read as before (docs/rules.md, "Session 34: leftovers").
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
           -- torch's re-raise of a DataLoader worker's or a DataParallel replica's exception (`Caught ValueError in
           -- DataLoader worker process 0.`) is not a message of its own: the original follows it (its "Original Traceback")
           coalesce((SELECT max(n) FROM (SELECT count(DISTINCT o.error_message) AS n FROM own o
                                WHERE o.job_key = u.job_key AND o.incident = u.incident AND o.rank_eff IS NULL AND o.tier = 1
                                  AND NOT regexp_matches(coalesce(o.error_message, ''), '^Caught [A-Za-z_.]+ in (DataLoader worker process|replica) ')
                                GROUP BY o.error_type)), 0) AS said_why
    FROM own u WHERE rank_eff IS NULL GROUP BY ALL
),
nccl_unplaced AS (  -- NCCL's report that the communicator itself failed (`unhandled system error` / ncclSystemError, an
                    -- internal or CUDA error, invalid usage) in a line naming no process (no rank, no local rank, no NCCL
                    -- `host:pid` prefix), in a pod import-logs made up from a paste: the pod's rank's only by the importer's
                    -- guess. The collective it failed in is every member's, so where nothing says why in a rank's own line
                    -- (the first failure is an exit status or this NCCL line) a launcher's exit status beside it is only the
                    -- first member it saw exit: no single culprit (docs/rules.md, "Real incidents batch 51"). Not where the
                    -- launcher reports another process's end as its teardown (srun's `task 1: Killed` after task 0's exit
                    -- 1): it saw every member end, and the one exit of its own is the one failure
    SELECT i.job_key, i.incident, min(i.subkind) AS subkind
    FROM k10s_incident_line i
    WHERE i.role = 'own' AND i.cause = 'nccl-error' AND i.rank IS NULL AND i.local_rank IS NULL AND i.pid IS NULL
      AND i.incarnation_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
      AND EXISTS (SELECT 1 FROM k10s_incident_line x WHERE x.job_key = i.job_key AND x.incident = i.incident
                  AND x.role = 'own' AND x.kind IN ('torchrun_failure', 'process_exit') AND x.exit_code IS DISTINCT FROM 0)
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_line v WHERE v.job_key = i.job_key AND v.incident = i.incident
                      AND v.role = 'victim' AND v.kind IN ('torchrun_failure', 'process_exit'))
    GROUP BY ALL
),
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
spawn_nodes_alike AS (  -- srun's tasks are node launchers where mp.spawn reports in the same log body (each task spawned
                        -- its node's processes): two or more of those tasks exiting on their own, two or more spawn reports
                        -- (one per node's parent), and every exception the spawned processes raised the same (type and
                        -- message): each node's first failure is the same error, the code every process runs (real
                        -- incidents batch 41: detectron2 on two nodes, `-- Process 3 terminated` on each with one TypeError)
    SELECT i.job_key, i.incident, min(i.error_type) AS error_type
    FROM k10s_incident_line i
    WHERE i.role = 'own' AND i.kind = 'python_exception'
      AND i.raw_row IN (SELECT raw_row FROM k10s_log WHERE kind = 'process_exit' AND subkind = 'spawn'
                        GROUP BY raw_row HAVING count(*) >= 2)
      AND i.raw_row IN (SELECT raw_row FROM k10s_log WHERE kind = 'process_exit' AND subkind = 'srun' AND exit_code > 0
                        GROUP BY raw_row HAVING count(DISTINCT rank) >= 2)
    GROUP BY i.job_key, i.incident
    HAVING count(*) >= 2 AND count(DISTINCT (i.error_type, i.error_message)) = 1
),
ordinal_alike AS (  -- a process's `CUDA error: invalid device ordinal` (it selected a GPU index past those it sees): every
                    -- local rank at or above the node's GPU count fails it alike, so it is one process's own only where that
                    -- process is its node's last local rank and the node's process count is known (LMFlow-855: two processes,
                    -- rank 1 fails, rank 0 carries on); a lower local rank (the ones above it fail alike, unseen: seven
                    -- workers on one GPU), no rank, or a node whose process count import-logs built from the ranks the log
                    -- names (pod label k10s.io/imported-nproc: its highest rank seen is the last by construction; one rank's
                    -- copy of the error, RAG-Retrieval-27) is every such process alike: no single culprit. A line naming no
                    -- rank is the process the launcher reports failing first (the rank `decided` gives its cause to)
    SELECT o.job_key, o.incident, 'CUDA error: invalid device ordinal' AS error_type
    FROM own o LEFT JOIN first f USING (job_key, incident)
    WHERE o.kind IN ('cuda_error', 'python_exception') AND regexp_matches(o.error_message, '(?i)invalid device ordinal')
      AND NOT EXISTS (SELECT 1 FROM k10s_rank r JOIN pods p ON p.pod_uid = r.pod_uid
                      WHERE r.job_key = o.job_key AND r.rank = coalesce(o.rank_eff, f.rank_eff) AND r.local_rank = r.nproc_per_node - 1
                        AND json_extract_string(p.labels_json, '$."k10s.io/imported-nproc"') IS NULL)
    GROUP BY ALL
),
staging_race AS (  -- the first failure is an exception on a file a process writes and then moves: a rename between two
                   -- paths whose source had vanished or whose target already existed (`[Errno 39] Directory not empty:
                   -- 'out/tmp-checkpoint-x' -> 'out/checkpoint-100'`, `[Errno 2] … 'a' -> 'b'`, `[Errno 17]`), or a
                   -- temporary file gone (`….json.tmp.pid_N_…`, `….incomplete`, `….partial`): another process did the same
                   -- step first (a checkpoint's staging directory, a compiler's or a dataset's shared cache), processes
                   -- racing on shared storage, whichever lost the race (docs/rules.md, "Session 25: batch 72"); or a
                   -- directory created with exist_ok=True that another process created at that moment (the parser's
                   -- mark, log_owners.RACED_MKDIR: its FileExistsError came through an `os.makedirs(d, exist_ok=True)`
                   -- frame; docs/rules.md, "Session 27: batch 85"). A data file missing, a directory that exists (no
                   -- such frame), a path under `/tmp/` are the rank's own as before. The quotes may be a rich-text
                   -- editor's (‘ ’: the same line pasted through one; docs/rules.md, "Session 30: batch 124"). Or a
                   -- compiled kernel gone from a JIT compiler's kernel cache (`[Errno 2]` on a path under Triton's
                   -- `.triton/cache/`, Inductor's `torchinductor_<user>/`, a `triton_cache…`/`inductor_cache…` directory
                   -- a TRITON_CACHE_DIR/TORCHINDUCTOR_CACHE_DIR names): the processes of a launch compile into and read
                   -- one cache, so whichever found another's entry half-written or replaced lost that race, not its
                   -- own fault (torchtitan-2146: rank 6's `.hsaco` on 8 MI250s; docs/rules.md, "Session 32: batch 140").
                   -- Or a marker file the processes signal each other with, gone (`[Errno 2]` on a file named a signal
                   -- file, `._signal_file_node0_KfmwNg`, or named after a node or rank and a state, `.local_rank0_completed_
                   -- autoresume`, `rank3.done`): one process writes it, the others wait for it, one removes it; the process
                   -- that finds it missing met the protocol's race on shared storage (or a leader that never wrote it,
                   -- whose own failure is its event), not a fault of its own (llm-foundry-1736: rank 0 of a multi-node run
                   -- removing its node's signal file; docs/rules.md, "Session 33: batch 153")
    SELECT job_key, incident, race || error_type AS error_type FROM (
        SELECT f.job_key, f.incident, f.error_type,
               CASE WHEN starts_with(f.error_message, 'directory another process created at once (exist_ok=True): ')
                    THEN 'a directory another process created at once, '
                    WHEN regexp_matches(f.error_message, '(?i)(?:\[Errno 2\]|No such file)[^''‘’]*[''‘’][^''‘’]*/(?:\.triton/cache|torchinductor_[^/''‘’]+|(?:torch_?)?inductor[_-]?cache[^/''‘’]*|triton[_-]?cache[^/''‘’]*)/[^''‘’]*[''‘’]')
                    THEN 'a kernel the launch''s processes compile into one cache, gone, '
                    WHEN regexp_matches(f.error_message, '(?i)(?:\[Errno 2\]|No such file)[^''‘’]*[''‘’](?:[^''‘’]*/)?[^/''‘’]*(?:signal[_-]?file|(?:node|rank)[_-]?[0-9]+[^/''‘’]*(?:complete|done|ready|finish|barrier)|(?:complete|done|ready|finish|barrier)[^/''‘’]*(?:node|rank)[_-]?[0-9]+)[^/''‘’]*[''‘’]')
                    THEN 'a marker file the processes signal each other with, gone, '
                    WHEN regexp_matches(f.error_message, '\[Errno (?:2|17|39|66)\][^''‘’]*[''‘’][^''‘’]+[''‘’] -> [''‘’][^''‘’]+[''‘’]')
                      OR regexp_matches(f.error_message, '(?i)(?:\[Errno 2\]|No such file)[^''‘’]*[''‘’][^''‘’]*\.(?:tmp|incomplete|partial)\b[^''‘’]*[''‘’]')
                    THEN 'a file another process moved first, ' END AS race
        FROM first f
        WHERE f.kind = 'python_exception' AND f.subkind = 'raised')
    WHERE race IS NOT NULL
),
shape_inference AS (  -- the first failure is an exception raised under pipelining's shape inference (the parser's mark,
                      -- parsers/log_shape_inference.py): the stage ran its own module on the shape the previous stage sent,
                      -- so a stage built wrong on either side of that hand-over raises in the receiving one: which of the two
                      -- is wrong no line says, no single culprit (docs/rules.md, "Session 34: leftovers")
    SELECT job_key, incident FROM first
    WHERE kind = 'python_exception' AND starts_with(coalesce(error_message, ''), 'raised in pipelining''s shape inference')
),
one_host_alike AS (  -- the first failure is the host's or the binary's, not the rank's: an illegal instruction (SIGILL: a
                    -- binary or library built for another CPU), a shared library missing or a C library too old (`cannot
                    -- open shared object file`, `version `GLIBC_2.32' not found`), a CPU instruction set the build needs
                    -- and the host lacks, in a job whose pasted launch command line starts every process on one host
                    -- (`mpiexec -np 2 ./app`, `mpirun -np 4 -H localhost:4`, `horovodrun -np 2 -H localhost:2`, `torchrun
                    -- --nproc_per_node 8` with no --nnodes but 1: parsers/log_launch_cmd.py): the ranks share that host,
                    -- that binary and its libraries, so each meets it alike, whichever the launcher reports first. Not
                    -- where the log also holds a launch over several hosts (or a hostfile), and not a kill (SIGKILL, an
                    -- OOM: one process's), nor a segfault or an exception (the rank's own code path or data)
                    -- (docs/rules.md, "Session 32: leftovers"). Or a Python module missing (`ModuleNotFoundError: No
                    -- module named 'mpi4py'`): the processes of a one-host launch run one interpreter from one
                    -- environment, so whichever imports it first fails as the others do (spvnas-65: `torchpack dist-run
                    -- -np 4`, mpirun's first exit rank 3); not rank 0's (rank 0 alone runs evaluations and saves, whose
                    -- imports are its own path: docs/rules.md, "Session 40: batch 228")
    SELECT f.job_key, f.incident,
           'a one-host launch (`' || left(trim(c.line), 120) || '`) starts every process on one host from one binary, '
           || CASE WHEN f.cause = 'sigill' THEN 'and an illegal instruction (SIGILL) is the binary''s on that CPU'
                   WHEN f.cause <> 'sigill' AND NOT regexp_matches(coalesce(f.error_message, '') || ' ' || coalesce(f.line, ''),
                                                                    '(?i)shared object|shared librar|\bGLIBC|instructions?\b')
                   THEN 'and a Python module is missing from the environment they all run'
                   ELSE 'and the host''s libraries or CPU refuse it' END AS error_type
    FROM first f
    JOIN (SELECT job_key, arg_min(line, line_no) AS line FROM k10s_log WHERE kind = 'launch_cmd' AND subkind = 'one_host' GROUP BY ALL) c
      ON c.job_key = f.job_key
    WHERE (f.cause = 'sigill'
           OR regexp_matches(coalesce(f.error_message, '') || ' ' || coalesce(f.line, ''),
                             '(?i)cannot open shared object file|error while loading shared libraries|\bGLIBC(?:XX)?_[0-9.]+[''‘’`]? not found'
                             || '|compiled to use \w+ instructions?,? but (?:these|it) (?:aren''t|are not|isn''t|is not) available'
                             || '|\bCPU (?:does not|doesn''t) support (?:the )?(?:AVX|SSE|FMA|AMX)\w*|\billegal (?:hardware )?instruction\b')
           OR (f.rank_eff IS DISTINCT FROM 0 AND f.kind IN ('python_exception', 'process_exit')
               AND EXISTS (SELECT 1 FROM k10s_incident_line m WHERE m.job_key = f.job_key AND m.incident = f.incident
                           AND m.kind = 'python_exception' AND m.rank_eff IS DISTINCT FROM 0
                           AND m.error_type IN ('ModuleNotFoundError', 'ImportError')
                           AND regexp_matches(coalesce(m.error_message, ''), '^No module named\b'))))
      AND NOT EXISTS (SELECT 1 FROM k10s_log h WHERE h.job_key = f.job_key AND h.kind = 'launch_cmd' AND h.subkind = 'hosts')
      -- nor where the log's own lines name two hosts (NCCL's `host:pid:tid`): a launch with no host list may still
      -- span the nodes a batch system allocated it (`mpirun -np 16 ./app` inside an sbatch script)
      AND (SELECT count(DISTINCT n.nccl_host) FROM k10s_log n WHERE n.job_key = f.job_key AND n.nccl_host IS NOT NULL) < 2
),
peer_saw_close AS (  -- the ranks that saw a peer's connection close at teardown (gloo's `Connection closed by
                     -- peer`): a common-mode reading below does not hold for a rank another rank saw leave while it
                     -- got past the call, the failing rank's own path
    SELECT DISTINCT job_key, incident, rank_eff FROM k10s_incident_line
    WHERE role = 'victim' AND kind = 'python_exception' AND subkind = 'teardown' AND rank_eff IS NOT NULL
      AND regexp_matches(error_message, '(?i)connection (?:closed|reset) by peer')
),
common_mode AS (  -- a failure every process of a launch shares whichever reports it first: the command line
                  -- argparse rejected, or source Python cannot parse (the same for every process; only the
                  -- launcher's --local-rank differs), or NCCL's "invalid usage" (the same code's misuse of
                  -- the library, or ranks sharing a GPU: the configuration every rank runs), or a torch build
                  -- without the backend the code calls ("Torch not compiled with CUDA enabled", "Distributed
                  -- package doesn't have NCCL built in": every process imports the same torch), or a library's check
                  -- of the run's settings that rejects their combination (a ValueError: "DeepSpeed Zero-3 is not
                  -- compatible with passing a `device_map`", "… are incompatible"): every process checks the same settings;
                  -- or DTensor's dispatch finding no device mesh for a c10d collective's arguments (batch 82);
                  -- or torch_xla's process unable to reach the mesh master its launcher serves at start (`Failed to
                  -- connect to client mesh master: host:port`, XRT's rendezvous): the launch's setup, which every
                  -- process shares; the spawn parent names whichever child it reaped first (batch 88);
                  -- or a worker forked after its parent initialised CUDA ("Cannot re-initialize CUDA in forked
                  -- subprocess": every worker the launch forks inherits the parent's state; batch 92);
                  -- or a c10d backend refusing a collective it does not implement ("Backend gloo does not support
                  -- alltoall": the backend the launch chose for every process; batch 102);
                  -- or a pydantic model of the run's settings refusing them (`N validation error(s) for …Config`: batch 101);
                  -- or a ZeRO checkpoint resumed on another data-parallel world size (DeepSpeed's `The checkpoint being
                  -- loaded used a DP world size of 8 but the current world size is 16`: batch 112);
                  -- or NCCL's communicator failing on a CUDA call NCCL made that the driver refused as an invalid
                  -- argument, as torch reports it (`ncclUnhandledCudaError: Call to CUDA function failed.` / `Last error:`
                  -- / `Cuda failure 1 'invalid argument'`): NCCL's transport setup (NVLS, P2P, cuMem) on this platform,
                  -- which every member builds alike (batch 103). NCCL's own `NCCL WARN Cuda failure` line is not this
                  -- reading: with the peers' error returns beside it, nccl_several and a peer's remote error place it;
                  -- save where NCCL raised it in its NVLS transport (the node's multicast set-up, every local rank's: batch 175);
                  -- or vLLM's custom all-reduce refusing its CUDA call's arguments ('invalid argument': batch 107).
                  -- Not the torch build's wording where one rank raised it while another rank saw a peer's connection
                  -- close (gloo's teardown): that rank waited in a collective, past the code the first failed in, so the
                  -- code path was the failing rank's own (`.to("cuda")` on one rank only: its own setup fault)
    SELECT job_key, incident, min(error_type) AS error_type FROM (
    SELECT job_key, incident, min(CASE WHEN kind = 'nccl_error_other' THEN subkind
                                       WHEN kind = 'cuda_error' THEN 'NCCL''s CUDA call refused: invalid argument'
                                       ELSE error_type END) AS error_type
    FROM (SELECT *, EXISTS (SELECT 1 FROM k10s_incident_line p WHERE p.job_key = i.job_key AND p.incident = i.incident
                            AND p.kind = 'python_exception' AND p.op_type IS NOT NULL) AS parsed_past
          FROM k10s_incident_line i) i
    WHERE role = 'own' AND ((error_type = 'argparse usage error' AND NOT parsed_past) OR error_type IN ('SyntaxError', 'IndentationError', 'TabError')
                            OR (kind = 'nccl_error_other' AND subkind = 'ncclInvalidUsage')
                            -- torch's report of NCCL's failed CUDA call, refused as an invalid argument (batch 103): the
                            -- platform's setup of the communicator, every member's; not NCCL's own WARN line (see above)
                            OR (kind = 'cuda_error' AND line NOT LIKE '%NCCL WARN%'
                                AND regexp_matches(line, 'Cuda failure (?:\d+ )?[''‘’]invalid argument[''‘’]'))
                            -- NCCL's own WARN of that refusal raised in its NVLS transport (`transport/nvls.cc:254 NCCL WARN
                            -- Cuda failure 1 'invalid argument'`): NVLS is the node's NVSwitch multicast, which every local rank
                            -- sets up together, and the driver or fabric manager refusing it refuses them all (one node's
                            -- driver, batch 175); NCCL's WARN from its other transports stays a rank's (see above)
                            OR (kind = 'cuda_error'
                                AND regexp_matches(line, 'transport/nvls\.cc:\d+ NCCL WARN Cuda failure (?:\d+ )?[''‘’]invalid argument[''‘’]'))
                            OR (kind = 'python_exception' AND error_type = 'XLA mesh master unreachable')
                            OR (error_type IN ('AssertionError', 'RuntimeError')
                                AND (regexp_matches(error_message, 'Torch not compiled with \w+ enabled|Distributed package doesn''t have \w+ built in')
                                     -- a c10d backend refusing a collective it does not implement (`Backend gloo does not
                                     -- support alltoall`, `ProcessGroup gloo does not support alltoall`, `ProcessGroupNCCL does
                                     -- not support scatter`): the backend the launch chose for every process, which every rank
                                     -- calling that collective meets alike (batch 102)
                                     OR regexp_matches(error_message, '^(?:Backend \w+|ProcessGroup\w*(?: \w+)?) does not support \w+')
                                     -- DDP or the c10d store refusing an option the chosen backend or the installed torch build
                                     -- lacks (`Function argument device_ids not supported for the selected backend gloo`, a
                                     -- Windows build's `use_libuv was requested but PyTorch was build without libuv support`):
                                     -- the launch's backend and build, every process's alike (batch 136)
                                     OR regexp_matches(error_message, 'Function argument \w+ not supported for the selected backend \w+|use_libuv was requested but PyTorch was buil[dt] without libuv support')
                                     -- a launcher's rank variables contradicting Open MPI's in one process (DeepSpeed's
                                     -- `LOCAL_RANK (0) != OMPI_COMM_WORLD_LOCAL_RANK (1), not sure how to proceed as we're seeing
                                     -- conflicting local rank info`): the launch set the environment of every process, and each
                                     -- whose two values differ fails alike (Azure ML's MPI under Lightning; batch 104)
                                     OR regexp_matches(error_message, '^(?:LOCAL_RANK|RANK|WORLD_SIZE|LOCAL_SIZE) \(\d+\) != OMPI_COMM_WORLD_(?:LOCAL_RANK|RANK|SIZE|LOCAL_SIZE) \(\d+\)')
                                     -- a worker forked from a parent that had initialised CUDA (torch's `Cannot re-initialize CUDA
                                     -- in forked subprocess`, accelerate's `CUDA has been initialized before the `notebook_launcher`
                                     -- could create a forked subprocess`: a notebook launcher's or a fork strategy's start method):
                                     -- the parent's state, inherited by every forked worker alike (batch 92)
                                     OR regexp_matches(error_message, 'Cannot re-initialize CUDA in forked subprocess|CUDA has been initiali[sz]ed before (?:the )?`?notebook_launcher`?(?:\(\))? could create a forked subprocess')
                                     -- DTensor's dispatch finding no device mesh among a collective's arguments (`found no
                                     -- DeviceMesh from dtensor args for c10d.broadcast_.default`): the program hands DTensor
                                     -- parameters to a plain c10d collective (a module-state sync), the same code on every rank
                                     OR (error_type = 'AssertionError' AND regexp_matches(error_message, '^found no DeviceMesh from dtensor args for ')))
                                AND NOT (rank_eff IS NOT NULL
                                         AND EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                     AND p.rank_eff <> i.rank_eff)))
                            OR (kind = 'python_exception' AND error_type = 'ValueError'
                                AND regexp_matches(error_message, '\b(?:is|are) (?:not compatible|incompatible)\b'))
                            -- a module without the rank or world-size query the program calls (`AttributeError: module
                            -- 'smdistributed.dataparallel.tensorflow' has no attribute 'get_world_size'`, `… 'local_rank'`):
                            -- every process asks its rank and the world's size, through the same installed library, so
                            -- each meets the missing function alike; another missing attribute (a logging call only rank
                            -- 0 makes, `module 'wandb' has no attribute 'init'`) is still its rank's, and so is the query
                            -- where a peer saw the rank's connection close (it got past the call: the torch build's guard);
                            -- an editor's curly quotes around the names alike
                            OR (kind = 'python_exception' AND error_type = 'AttributeError'
                                AND regexp_matches(error_message, '^module [''"‘’“”][\w.]+[''"‘’“”] has no attribute [''"‘’“”](?:get_)?(?:world_size|rank|local_rank|local_size|node_rank|local_world_size|size)[''"‘’“”]')
                                AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                            -- Paddle's dtype type-promotion check (`TypeError: (InvalidType) Type promotion only support
                            -- calculations between floating-point numbers and between complex and real numbers. But got
                            -- different data type x: int64, y: int32.`): the installed build refuses an op on two dtypes,
                            -- and a tensor's dtype is the program's, not the data's: every process running the same code on
                            -- the same build meets it alike, whichever container the launcher reports (batch 98)
                            OR (kind = 'python_exception' AND error_type = 'TypeError'
                                AND regexp_matches(error_message, '^\(InvalidType\) Type promotion only supports? calculations between'))
                            -- a tensor subclass's dispatch with no implementation of an aten op the program calls (torchao's
                            -- `NotImplementedError: OptimState8bit dispatch: attempting to run unimplemented operator/function:
                            -- func=<OpOverload(op='aten.new_zeros', …)>` for its low-bit optimizer states and its quantized or
                            -- float8 tensors, float8_experimental's `attempting to run aten.X, this is not supported`, DTensor's
                            -- `Operator aten.amax.default does not have a sharding strategy registered`): the installed library's
                            -- coverage of the op, pure Python, the same on every rank that runs the step (FSDP's optimizer-state
                            -- gather at a save, a float8 cast under FSDP or TP), whichever rank's copy the paste shows (batch 165).
                            -- Not where a peer saw the rank's connection close (it got past the call: the failing rank's own path)
                            OR (kind = 'python_exception' AND error_type = 'NotImplementedError'
                                AND regexp_matches(error_message, '^(?:\w+ dispatch: attempting to run unimplemented operator/function\b|attempting to run aten\.\S+, this is not supported|Operator aten\.\S+ does not have a sharding strategy registered)')
                                AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                            -- Intel Gaudi's bridge refusing the graph the program built (its asserts in graph.cpp:
                            -- `Graph compile failed. synStatus=synStatus 26 [Generic failure].`, `synNodeCreateWithId failed
                            -- for node: batch_gemm with synStatus 26 [Generic failure]. .`, `… synStatus 1 [Invalid argument]`;
                            -- raised as it is or under the bridge's launch-thread wrapper, parsers/log_habana.py): the host's
                            -- graph compiler refusing an op, its dtype or its graph, the same code on the same Synapse build
                            -- in every process; whichever rank's copy the paste shows (batch 129; batch 93's two ranks alike).
                            -- Not where a peer saw the rank's connection close (it got past the code: the failing rank's own
                            -- path), and not the bridge's device-memory allocation failure (`MODULE:DEVMEM`), the rank's own
                            OR (kind = 'python_exception' AND error_type = 'RuntimeError'
                                AND regexp_matches(error_message, '^(?:\[Rank:\d+\] )?(?:Graph compile failed\. synStatus=|synNodeCreateWithId failed for node: \S+ with synStatus\b)')
                                AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                            -- a pydantic model of the run's settings refusing them (vLLM's `pydantic_core._pydantic_core.
                            -- ValidationError: 1 validation error for ParallelConfig` with `Value error, Tensor parallel size (2)
                            -- cannot be larger than the number of available GPUs (1)`; `… for ModelConfig`, `… for TorchLlmArgs`):
                            -- the launch's configuration, which every process validates alike; a data model's refusal
                            -- (`… for Sample`) is one rank's input and still names it (batch 101)
                            OR (kind = 'python_exception' AND regexp_matches(error_type, '(?:^|\.)ValidationError$')
                                AND regexp_matches(error_message, '^[0-9]+ validation errors? for \w*(?:Config|Args|Arguments|Settings)\b'))
                            -- a checkpoint resumed on a data-parallel world of another size than the one that wrote it
                            -- (DeepSpeed's `ZeRORuntimeException: The checkpoint being loaded used a DP world size of 8 but the
                            -- current world size is 16. Automatic adjustment of ZeRO's optimizer state partitioning with a new
                            -- world size is not currently supported.`): every rank loads the same checkpoint and compares the
                            -- same two sizes, so all raise it alike; whichever rank's copy the paste shows (batch 112)
                            OR (kind = 'python_exception'
                                AND regexp_matches(error_message, '^The checkpoint being loaded used a DP world size of \d+ but the current world size is \d+'))
                            -- a parallel layout the launch's world cannot hold: a framework's check that the world size
                            -- divides by its parallel sizes (ColossalAI's `World size 8 is not divisible by tp_size 1 *
                            -- pp_size 3`, Megatron's `world size (8) is not divisible by total_model_size (3)`, finetrainers'
                            -- `World size 2 must be divisible by the product of all parallel degrees`), or that a model
                            -- dimension divides by the world it is sharded over (`Hidden dim must be divisible by world
                            -- size`): every process compares the same world size with the same settings; whichever rank's
                            -- copy the paste shows (batch 133). A shape divisible by a group's size (a sequence split over
                            -- context-parallel ranks) can be one batch's and is not read so
                            OR (kind = 'python_exception' AND error_type IN ('AssertionError', 'RuntimeError', 'ValueError')
                                AND regexp_matches(error_message, '(?i)\bworld[ _]?size\b[^.;]*?\b(?:is not|isn''t|must be|should be|not) (?:evenly )?divisible by\b|\bdivisible by (?:the )?world[ _]?size\b'))
                            -- Megatron's per-rank NaN/Inf check, raised by whichever rank's local value went non-finite
                            -- first (`Rank 3: found NaN in local grad norm in backwards pass. Device: 3, node: …`; the
                            -- rerun state machine's `Rank 15, node …, device 15, iteration -1: Unexpected result nan
                            -- (message='found NaN in local grad norm for bucket #0 …')`; `found NaN in local forward loss
                            -- calculation`): the detector names where the training's numbers diverged, not a faulty rank;
                            -- a model, precision or learning-rate cause every rank shares shows there alike (batch 95)
                            OR (kind = 'python_exception' AND error_type IN ('AssertionError', 'RuntimeError')
                                AND regexp_matches(error_message, '(?i)\bfound (?:NaN|Inf) in local (?:grad norm|forward loss)\b|\bUnexpected result (?:nan|inf)\b'))
                            -- vLLM's custom all-reduce refusing its own CUDA call's arguments (`Failed: Cuda error
                            -- /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'`, printed by its CUDACHECK, no
                            -- rank): the kernel's IPC buffers and graph addresses are registered alike by every worker of
                            -- the tensor-parallel group, so the launch's configuration (the platform's peer access, a
                            -- quantized model's graph capture) refuses them all; the executor names whichever worker it saw
                            -- exit first (batch 107). Another message (an illegal address) is the printing GPU's own
                            OR (kind = 'cuda_error' AND regexp_matches(error_message, '^invalid argument \(custom_all_reduce\.cuh:[0-9]+\)$'))
                            -- activation checkpointing's own check that the recompute reproduced the forward
                            -- (torch.utils.checkpoint's `CheckpointError: … Recomputed values for the following tensors have
                            -- different metadata than during the forward pass`, `… A different number of tensors was saved
                            -- during the original forward and recomputation`): the program's forward and its replay disagree
                            -- (ZeRO-3's or FSDP's partitioned parameters seen empty by the recompute, a cache or a random
                            -- branch the replay does not repeat), the same code and options on every rank; whichever
                            -- rank's copy the paste shows, it names where the check fired, not a faulty rank (batch 99)
                            -- an exception under a source line reading what the launch gives every process alike
                            -- (parsers/log_shared_inputs.py marks it): a sequence subscripted by the rank running out of
                            -- range (`return rank_to_jsonl_iterator_params[rank]` / `IndexError: list index out of range`:
                            -- the configuration built fewer entries than the launch started ranks, so every rank past the
                            -- last fails alike), or `json.loads(args.x)` refusing the command line's argument (the same
                            -- string in every process); whichever rank's copy the paste shows (session 30, named controls)
                            OR (kind = 'python_exception' AND (starts_with(error_message, 'a sequence indexed by rank is shorter than the launch''s ranks: ')
                                                               OR starts_with(error_message, 'the command line''s argument is no JSON: ')))
                            OR (kind = 'python_exception' AND regexp_matches(error_type, '(?:^|\.)CheckpointError$')
                                AND regexp_matches(error_message, '(?i)\bRecomputed values for the following tensors have different metadata\b|\bdifferent number of tensors was saved during the original forward and recomputation\b'))
                            -- DDP's own check that a parameter's gradient hook fires once an iteration (`RuntimeError:
                            -- Expected to mark a variable ready only once. This error is caused by one of the following
                            -- reasons: 1) Use of a module parameter outside the `forward` function … 2) Reused parameters in
                            -- multiple reentrant backward passes`): a parameter shared across passes, or reentrant activation
                            -- checkpointing wrapping it twice, the model's structure and options on every rank alike; the
                            -- paste's rank is the copy shown (batch 121). DDP's unused-parameter error (`Expected to have
                            -- finished reduction …`), which one rank's batch can cause, is not this reading
                            OR (kind = 'python_exception' AND error_type = 'RuntimeError'
                                AND regexp_matches(error_message, '^Expected to mark a variable ready only once\b'))
                            -- DDP's check that every rank built the same model, in its shape or strides wording (`[5]:
                            -- params[0] in this process with sizes [53, 15] appears not to match sizes of the same param in
                            -- process 0.`, torch 1.x's `replicas[0][0] in this process …`): every rank whose parameter differs
                            -- from process 0's raises it, so a model each process builds from its own share of the data (a
                            -- categorical encoder's cardinality, a vocabulary) fails every rank alike; the message names the pair
                            -- compared, not the side that differs, and the paste's rank is the copy shown (batch 162). Not where a
                            -- peer saw the rank's connection close: the others got past the check, so the reporter's model is the
                            -- odd one (a real two-node run, t7-trun-ddp-shape-mismatch-rank1)
                            OR (kind = 'python_exception' AND error_type = 'RuntimeError'
                                AND regexp_matches(error_message, 'in this process with (?:sizes|strides) .*appears not to match (?:sizes|strides) of the same param in process \d+')
                                AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                            -- a compiled extension that does not match the torch it is loaded into: the dynamic linker
                            -- refusing it at import (`ImportError: …/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so:
                            -- undefined symbol: _ZN3c104cuda9SetDeviceEi`, a paste's wrap cutting the message after
                            -- `undefined`), or its op reading torch's layout enums at other values (`RuntimeError: memory
                            -- format option is only supported by strided tensors` from apex's fused layer norm, mamba's and
                            -- VMamba's selective scans): every process imports the same wheel from the same environment and
                            -- calls it alike, so whichever rank's copy the paste shows, or the launcher's first exit, is no
                            -- culprit (batch 183). Not where a peer saw the rank's connection close (it got past the import)
                            OR (kind = 'python_exception'
                                AND ((error_type IN ('ImportError', 'OSError')
                                      AND regexp_matches(error_message, '\.so(?:\.[0-9]+)*: undefined(?: symbol\b|\s*$)'))
                                     OR (error_type = 'RuntimeError'
                                         AND regexp_matches(error_message, '^memory format option is only supported by strided tensors\b')))
                                AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                            -- a call the installed version of the library it calls no longer takes (`TypeError:
                            -- TransformerEngineBaseModule.get_fp8_workspace() got an unexpected keyword argument
                            -- 'with_transpose'`: Transformer Engine dropped the argument thunder's executor still passed):
                            -- two installed versions that disagree, on the code path every rank runs, raised by a rank other
                            -- than 0 (rank 0 alone runs saves, evaluations and logging, where such a call is its own path and
                            -- still names it); not where a peer saw the rank's connection close (batch 183)
                            OR (kind = 'python_exception' AND error_type = 'TypeError'
                                AND regexp_matches(error_message, '^[\w.<>]+\(\) got an unexpected keyword argument [''"‘’]\w+[''"‘’]')
                                AND rank_eff IS NOT NULL AND rank_eff <> 0
                                AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                AND p.rank_eff IS DISTINCT FROM i.rank_eff)))
    GROUP BY ALL
    UNION ALL
    SELECT job_key, incident, error_type FROM spawn_nodes_alike
    UNION ALL
    SELECT job_key, incident, error_type FROM ordinal_alike
    UNION ALL
    SELECT job_key, incident, error_type FROM staging_race
    UNION ALL
    SELECT job_key, incident, error_type FROM one_host_alike
    UNION ALL
    -- NCCL's bootstrap that found no network interface to use (its `Last error:` payload `Bootstrap : no socket interface
    -- found`, under whichever code the init call returned: ncclInternalError in NCCL 2.21, ncclInvalidUsage in 2.27): the
    -- interface the launch names (NCCL_SOCKET_IFNAME) or the host's network setup, which every process of the launch
    -- reads alike; not where a process of the job got past the bootstrap (`NCCL INFO Bootstrap : Using eth0:…`): then one
    -- host lacks what the others have, and its processes are the odd ones (docs/rules.md, "Session 28: named controls")
    SELECT i.job_key, i.incident, 'NCCL''s bootstrap found no socket interface' AS error_type
    FROM k10s_incident_line i
    WHERE i.role = 'own' AND i.kind = 'nccl_error_other' AND regexp_matches(i.line, 'Bootstrap ?: ?no socket interface found')
      AND NOT EXISTS (SELECT 1 FROM k10s_log b WHERE b.job_key = i.job_key AND b.kind = 'nccl_bootstrap')
    )
    GROUP BY ALL
),
root_unseen AS (  -- the first failure is an entry torchrun's table lists under "Failures:" ([1], [2], …: the failures
                 -- besides its Root Cause [0]; none is written <NO_OTHER_FAILURES>) and no Root Cause entry is in the
                 -- incident (a paste cut before it): another worker failed at that poll too, unseen, so the one shown
                 -- is not known to be alone nor first
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
      -- process had already failed above the cut, by its watchdog, before the rank's line (docs/rules.md, "Session 32:
      -- batch 147")
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
          -- the same error in two or more processes: the same (a node's driver failing every process on it alike;
          -- docs/rules.md, "Session 43: batch 236")
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
        -- every rank of the job failed alike (all_aborted, all_exited, all_raised: together_all's every rank): a reading of
        -- one node's or some ranks' failure (node_alike, subset_alike, …, read on the first second's ranks) names no one
        -- there (the thirty-sixth launcher set: node 0's two ranks raised the same ValueError 3 s before node 1's two)
        CASE WHEN rl.job_key IS NOT NULL OR aa.job_key IS NOT NULL OR ae.job_key IS NOT NULL OR ar.job_key IS NOT NULL
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
        f.gpu_uuid AS first_gpu, f.error_type, f.error_message, f.subkind AS first_subkind, left(f.line, 300) AS first_line,
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
    LEFT JOIN nccl_unplaced nu USING (job_key, incident)
    LEFT JOIN nccl_alike nl ON nl.job_key = s.job_key
     AND (f.ts_filled IS NULL OR nl.t0 IS NULL OR (nl.t0 <= f.ts_filled + INTERVAL 2 MINUTE AND nl.t1 >= f.ts_filled - INTERVAL 2 MINUTE))
    LEFT JOIN signal_alike sg ON sg.job_key = s.job_key
     AND (f.ts_filled IS NULL OR sg.t0 IS NULL OR (sg.t0 <= f.ts_filled + INTERVAL 2 MINUTE AND sg.t1 >= f.ts_filled - INTERVAL 2 MINUTE))
)
SELECT
    d.job_key, d.incident, d.cause,
    d.culprit_ranks,
    list_filter(d.ranks_seen, lambda r: NOT list_contains(d.culprit_ranks, r) AND NOT list_contains(d.together_ranks, r)
                                        AND NOT ((d.root_unseen OR d.head_cut) AND r = d.first_rank)) AS victim_ranks,
    d.together_ranks,
    CASE WHEN d.cause IS NULL THEN 'none'
         WHEN len(d.culprit_ranks) = 0 THEN 'none'
         WHEN d.tier = 1 THEN 'high'
         -- a rank's traceback cut before its exception and nothing else it said: the log does not say what failed,
         -- nor that it failed first (a waiter's teardown traceback reads the same when cut): a suspect, said at
         -- low confidence (docs/rules.md, "Session 27: a cut traceback alone")
         WHEN d.first_kind = 'python_traceback' THEN 'low'
         ELSE 'medium' END AS confidence,
    CASE WHEN d.cause IS NULL THEN 'no rank failed on its own: the job hung'
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
         WHEN len(d.together_ranks) > 1 AND d.job_key IN (SELECT job_key FROM unordered)
              THEN len(d.together_ranks) || ' ranks failed in a paste whose line order is unknown (its times or tracebacks run both '
                   || 'ways), which cannot order them: no single culprit'
         WHEN len(d.together_ranks) > 1 AND d.first_failure_at IS NULL
              THEN len(d.together_ranks) || ' ranks failed alike in a log without a clock, which cannot order them: no single culprit'
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
         WHEN len(d.culprit_ranks) = 0 THEN 'the failing line names no rank (' || coalesce(d.unranked_pod, 'a pod') || ')'
    END AS no_culprit_reason,
    d.first_failure_at, d.abort_at, d.hang_started_at, d.node_wide AND len(d.culprit_ranks) > 1 AS node_wide,
    d.first_rank, d.first_pod, d.first_node, d.first_gpu, d.first_kind, d.first_subkind, d.error_type, d.error_message,
    d.head_cut,
    x.xid, x.xid_meaning, k.kernel_line,
    coalesce(d.first_line, d.unranked_line) AS first_line,
    d.pods,
    d.watchdog_victims,
    -- ranks that failed together are no victims of their own failure, and no job has more victims than ranks
    -- besides its failing ones (a SIGTERMed pid the log ties to no rank may be a rank already seen)
    least(len(list_filter(d.ranks_seen, lambda r: NOT list_contains(d.culprit_ranks, r) AND NOT list_contains(d.together_ranks, r)
                                        AND NOT ((d.root_unseen OR d.head_cut) AND r = d.first_rank)))
          + d.unresolved_sigterms,
          -- (a failure no line ties to a rank is still one process's own: never its victim)
          coalesce(greatest(js.gpus - greatest(len(d.culprit_ranks) + len(d.together_ranks), CASE WHEN d.cause IS NULL THEN 0 ELSE 1 END), 0),
                   1 << 62)) AS victims,
    coalesce(js.gpus, 1) AS job_gpus,
    w.wait_s,
    round(coalesce(js.gpus, 1) * w.wait_s / 3600.0, 3) AS gpu_hours_lost
FROM decided d
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
