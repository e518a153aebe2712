-- Failure lines and their incidents (docs/rules.md "Incidents"): the first of the four files that decide
-- one incident, one cost (_failure_line.sql, _incident_own.sql, _incident_common_mode.sql, _incident.sql).
-- Created after _views.sql, _views_net_xid.sql and _evidence_fingerprint.sql (its `program_odd` reads the fingerprint
-- evidence's culprits).
--
-- k10s_failure_line: every log line about a process failing on its own or being torn down,
--   with its rank (a pid is resolved through the launcher lines that name pid and rank),
--   its role (own failure or victim), cause and strength (tier 1: the line says why;
--   tier 2: only an exit status), and a clock filled from the nearest stamped line of the
--   same log body when the line has no timestamp of its own.
-- k10s_incident_line: each failure line with its incident (islands of overlapping spans per job).

-- k10s_unordered_paste: jobs import-logs made up from a paste whose line order nothing proves (its times or tracebacks
-- run both ways: pod label k10s.io/imported-order, parsers/log_newest_first.py): a line with no clock of its own takes
-- none from its neighbours (k10s_failure_line), and no first failure is read from the lines' order (k10s_incident_own,
-- k10s_incident)
CREATE OR REPLACE TEMP VIEW k10s_unordered_paste AS
SELECT DISTINCT x.job_key FROM k10s_log x JOIN pods p ON p.pod_uid = x.incarnation_uid
WHERE json_extract_string(p.labels_json, '$."k10s.io/imported-order"') = 'unknown';

-- k10s_failure_line's every row is a container log line of a job of these kinds (its CTE `l`): a bundle without one
-- (a healthy or pending job, a straggler) gets it empty, with k10s_log's columns and its own
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE container IS NOT NULL AND kind IN ('cuda_oom', 'cuda_error',
--     'python_exception', 'torchrun_failure', 'process_exit', 'torchrun_sigterm', 'nccl_watchdog_timeout',
--     'watchdog_exception_summary', 'nccl_error_other', 'nccl_remote_error', 'rank_spawn', 'python_traceback'))
-- empty-columns: k10s_log.*, ts_filled TIMESTAMPTZ, ts_floor TIMESTAMPTZ, rank_eff BIGINT, status BIGINT, outside_sigterm BOOLEAN,
--     was_sigtermed BOOLEAN, rank_timed_out BOOLEAN, rank_torn_down BOOLEAN, rank_raised BOOLEAN, cause VARCHAR,
--     victim_role VARCHAR, relayed VARCHAR, loader_signal VARCHAR, training_went_on BOOLEAN, rank_went_on BOOLEAN, tier INTEGER, role VARCHAR,
--     span_start TIMESTAMPTZ, span_end TIMESTAMPTZ
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
unordered_paste AS (SELECT * FROM k10s_unordered_paste),  -- its lines take no clock from their neighbours
quoted AS (  -- (session 71) a failure table's quote of a worker's error file (torch's @record: the entry's `traceback :`
             -- field's exception, read as the python_exception of the entry's rank and pid below its entry by
             -- parsers/log_failure_table.py), where the rank's own output holds an exception of its own: that line said
             -- it first, at its own time; the quote, dated by the entry's whole second, is the same failure again
             -- (another table's quote of the rank, a restart's, is no line of its own output)
    SELECT q.event_id FROM (
        SELECT q.event_id, q.job_key, q.rank_resolved FROM k10s_log q
        WHERE q.kind = 'python_exception' AND q.pid IS NOT NULL AND q.rank_resolved IS NOT NULL AND q.job_key IS NOT NULL
          AND EXISTS (SELECT 1 FROM k10s_log e WHERE e.raw_row = q.raw_row AND e.kind = 'torchrun_failure' AND e.pid = q.pid
                        AND e.subkind IN ('failures', 'root_cause', 'table') AND e.line_no < q.line_no)) q
    WHERE EXISTS (SELECT 1 FROM k10s_log o WHERE o.job_key = q.job_key AND o.rank_resolved = q.rank_resolved
                    AND o.kind IN ('python_exception', 'cuda_oom', 'cuda_error') AND (o.pid IS NULL
                         OR NOT EXISTS (SELECT 1 FROM k10s_log e WHERE e.raw_row = o.raw_row AND e.kind = 'torchrun_failure'
                                          AND e.pid = o.pid AND e.subkind IN ('failures', 'root_cause', 'table')
                                          AND e.line_no < o.line_no)))
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
ray_group AS (  -- pid -> world rank in Ray Train's worker group (`- (ip=…, pid=N) world_rank=R, …`: parsers/log_ray_workers.py),
                -- across the job's pods (its trainer prints the group in one log; a paste's lines are laid out apart): the rank of
                -- the worker Ray's memory monitor names by pid (its notice's `name=RayTrainWorker…, pid=N`), one rank per pid
    SELECT job_key AS rg_job, pid AS rg_pid, min(rank) AS rg_rank FROM k10s_log
    WHERE kind = 'rank_spawn' AND subkind = 'ray' AND pid IS NOT NULL AND rank IS NOT NULL AND job_key IS NOT NULL
    GROUP BY ALL HAVING count(DISTINCT rank) = 1
),
ray_pod_ip AS (  -- a captured pod's IP -> its one rank (session 67): the node a Ray notice or a relayed worker's prefix names
                 -- by IP (`Memory on the node (IP: 10.0.0.5, …)`, `(RayTrainWorker pid=N, ip=10.0.0.5)`, Ray < 2's task error
                 -- header's `(pid=N, ip=…)`) is a Ray node, the pod of that IP in Kubernetes: its rank, where the pod holds one;
                 -- never a pod import-logs made up from a paste (its addresses are its own invention)
    -- (the line is then that pod's: its pod, node and GPU replace the printer's in k10s_failure_line)
    SELECT ip.job_key AS rp_job, ip.ip AS rp_ip, min(ip.ranks[1]) AS rp_rank, min(ip.pod_key) AS rp_pod, min(ip.node) AS rp_node,
           min(r.gpu_uuid) AS rp_gpu
    FROM k10s_ip ip LEFT JOIN k10s_rank r ON r.pod_uid = ip.pod_uid AND r.rank = ip.ranks[1]
    WHERE ip.ip_kind = 'pod' AND ip.job_key IS NOT NULL AND len(coalesce(ip.ranks, [])) = 1
      AND ip.pod_uid NOT IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
    GROUP BY ALL HAVING count(DISTINCT ip.ranks[1]) = 1 AND count(DISTINCT ip.pod_key) = 1
),
rank_pod AS (  -- a rank -> the one captured pod of the job that holds it (session 68): where a Ray line's rank runs (Ray Train's
               -- group gives its pid that rank; a relayed worker's tag), when its printer (the driver's, the head's pod) holds it not;
               -- never a pod import-logs made up (a paste's pods say nothing of where a rank ran)
    SELECT job_key AS gp_job, rank AS gp_rank, min(pod_key) AS gp_pod, min(node) AS gp_node, min(gpu_uuid) AS gp_gpu FROM k10s_rank
    WHERE job_key IS NOT NULL AND pod_uid NOT IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
    GROUP BY ALL HAVING count(DISTINCT pod_key) = 1
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
             -- Ray's memory monitor on the Ray Train worker it killed: that worker's pid's rank, else none (session 66)
             -- (Ray < 2's `RayOutOfMemoryError`: the pid of the task error header above it, log_owners.py; session 67),
             -- else the rank of the captured pod whose IP the line names (ray_pod_ip)
             -- (and Ray's task error header read alone, in the process it names: session 68)
             WHEN rank IS NULL AND (subkind = 'ray_memory_monitor' OR ray_oom OR ray_header) THEN coalesce(rg.rg_rank, rp.rp_rank)
             -- a process Ray relays, its pid kept and no rank named: not the pod's one rank (the driver) by the pod's
             -- place; its rank is its pid's, where Ray Train's worker group gives it (pid_rank), else its prefix's IP's pod's
             WHEN rank IS NULL AND relayed = 'process' AND rg.rg_rank IS NULL THEN rp.rp_rank
             WHEN rank IS NULL AND relayed = 'process' THEN NULL
             WHEN rank IS NULL AND local_rank IS NOT NULL AND job_key IN (SELECT job_key FROM unplaced) THEN NULL
             ELSE rank_resolved END AS rank_resolved,
        -- the pod its IP names, where that gave the line its rank (ray_pod_ip): the line is that pod's, not its printer's
        CASE WHEN rank IS NULL AND rg.rg_rank IS NULL AND rp.rp_rank IS NOT NULL AND (subkind = 'ray_memory_monitor' OR ray_oom OR ray_header OR relayed = 'process')
             THEN rp.rp_pod END AS ip_pod, rp.rp_node AS ip_node, rp.rp_gpu AS ip_gpu,
        ray_oom OR ray_header AS ray_task,
        local_rank, exit_code,
        error_type, error_message, ran_for_ms, timeout_ms,
        -- the signal a DataLoader worker died of, where the line is torch's report of that kill: the rank's exception
        -- (`DataLoader worker (pid N) is killed by signal: X`, or the worker handler's own line, read `DataLoader worker` /
        -- `killed by signal: X` by parsers/log_py_exceptions.py), or (session 70) a failure table's entry whose
        -- `traceback :` field (torch's @record error file) ends in it (parsers/log_failure_table.py keeps that line)
        nullif(CASE WHEN kind = 'python_exception' AND (error_message LIKE 'DataLoader worker (pid%) is killed by signal: %'
                                                       OR error_type = 'DataLoader worker' AND error_message LIKE 'killed by signal: %')
                    THEN regexp_extract(error_message, 'killed by signal: ([A-Za-z ]*[A-Za-z])', 1)
                    WHEN kind = 'torchrun_failure' THEN regexp_extract(line,
                    '\n\s*(?:\w+\.)*\w+: DataLoader worker \(pid \d+\) is killed by signal: ([A-Za-z ]*[A-Za-z])', 1) END, '') AS loader_signal,
        CASE WHEN job_key IN (SELECT job_key FROM unordered_paste) THEN ts ELSE coalesce(ts,
                 last_value(ts IGNORE NULLS) OVER (PARTITION BY raw_row, container ORDER BY line_no, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                 first_value(ts IGNORE NULLS) OVER (PARTITION BY raw_row, container ORDER BY line_no, event_id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)) END AS ts_filled,
        -- what the line's time is known not to precede: its own, else its log's last stamp above it (a stamp borrowed
        -- from below bounds it from above only: printed at or before that line)
        CASE WHEN job_key IN (SELECT job_key FROM unordered_paste) THEN ts ELSE coalesce(ts,
                 last_value(ts IGNORE NULLS) OVER (PARTITION BY raw_row, container ORDER BY line_no, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) END AS ts_floor
    FROM (  -- a Ray memory-monitor failure (Ray < 2's `RayOutOfMemoryError`; Ray >= 2.2's `OutOfMemoryError: … killed due to
            -- the node …`) and the IP a Ray line names the node by (the event's own: Ray < 2's task header; the notice's
            -- `IP: …`; a relayed worker's prefix `(… pid=N, ip=…)`): session 67
        SELECT *, kind = 'python_exception' AND (regexp_matches(coalesce(error_type, ''), '(?:^|\.)RayOutOfMemoryError$')
                  OR regexp_matches(coalesce(error_type, ''), '(?:^|\.)OutOfMemoryError$') AND coalesce(error_message, '') LIKE '%killed due to the node%') AS ray_oom,
            -- (whatever reads its class: `RayTaskError(DistBackendError)` an NCCL error, torch's CUDA OOM on its line; session 69)
            kind IN ('python_exception', 'cuda_oom', 'cuda_error', 'nccl_error_other', 'nccl_remote_error') AND regexp_matches(coalesce(line, ''), 'RayTaskError\(\w') AS ray_header,
            CASE WHEN kind IN ('python_exception', 'process_exit', 'cuda_oom', 'cuda_error', 'python_traceback', 'nccl_error_other')
                 THEN coalesce(ip, nullif(regexp_extract(line, '\bMemory on the node \(IP: ([^,)\s]{1,64})', 1), ''),
                               nullif(regexp_extract(line, '^\((?:[A-Za-z_][\w.]{0,80} )?pid=[^,)\s]{1,40}, ip=([^,)\s]{1,64})\)', 1), '')) END AS ray_ip
        FROM k10s_log) k10s_log
    LEFT JOIN table_rank tr ON tr.tr_uid = k10s_log.incarnation_uid AND tr.tr_pid = k10s_log.pid
                           AND tr.tr_local IS NOT DISTINCT FROM k10s_log.local_rank
    LEFT JOIN ray_group rg ON rg.rg_job = k10s_log.job_key AND rg.rg_pid = k10s_log.pid
    LEFT JOIN ray_pod_ip rp ON rp.rp_job = k10s_log.job_key AND rp.rp_ip = k10s_log.ray_ip
    WHERE job_key IS NOT NULL AND container IS NOT NULL AND event_id NOT IN (SELECT event_id FROM quoted)
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
lone_report AS (  -- a launcher's report of one failing process, each exception above it in the same log (torn_down reads them)
    -- a pod whose launcher reports one worker failing (its `failed (exitcode: 1) local_rank: 0 (pid: N)`, its table),
    -- above which every exception in the pod's log names no process and says another failed (gloo's unprefixed
    -- `Connect timeout`, `Connection closed by peer`: torch 2.13's workers print no [rankN]: tag at start-up): that
    -- worker's, its exit status that teardown's, as where the exception is tagged (docs/rules.md, "Session 18")
    SELECT 'agent' AS report, f.job_key, f.rank, x.rank_resolved, x.pid, x.kind, x.subkind FROM (
        SELECT l.job_key, l.incarnation_uid, l.raw_row, min(coalesce(l.rank_resolved, pr.rank)) AS rank, min(l.line_no) AS line_no
        FROM l LEFT JOIN pid_rank pr ON pr.incarnation_uid = l.incarnation_uid AND pr.pid = l.pid
        WHERE l.kind = 'torchrun_failure' AND l.exit_code > 0
        GROUP BY ALL
        HAVING count(DISTINCT l.pid) = 1 AND count(DISTINCT coalesce(l.rank_resolved, pr.rank)) = 1 AND count(*) = count(l.pid)
    ) f
    JOIN l x ON x.incarnation_uid = f.incarnation_uid AND x.raw_row = f.raw_row AND x.line_no < f.line_no
            AND x.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other')
    UNION ALL
    -- (session 71) mp.spawn's `ProcessExitedException: process N terminated with exit code K` (K > 0: the process ended
    -- itself, having printed what it printed to the console; not `terminated with the following error`, whose traceback
    -- is the process's own, nor a signal) above which every exception in the same log names no process and says another
    -- failed (gloo's `Connection closed by peer`, a send/recv timeout): the reported process is one of those victims, as a
    -- torchrun agent's lone report is above; the spawner reaps whichever process it sees end first, a victim when the
    -- culprit's exit is seen late (forked DataLoader workers: the seventy-fifth set)
    SELECT 'spawn', f.job_key, f.rank_resolved, x.rank_resolved, x.pid, x.kind, x.subkind FROM l f
    JOIN l x ON x.raw_row = f.raw_row AND x.container IS NOT DISTINCT FROM f.container AND x.line_no < f.line_no
            AND x.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other')
    WHERE f.kind = 'process_exit' AND f.subkind = 'spawn' AND f.exit_code > 0 AND f.rank_resolved IS NOT NULL
      AND f.event_id IN (SELECT event_id FROM k10s_log WHERE kind = 'process_exit' AND subkind = 'spawn' AND line LIKE '%terminated with exit code%')
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
    -- a launcher's lone report of one process (lone_report: a torchrun agent's, mp.spawn's) above which every exception
    -- in the same log names no process and says another failed: that process's exit status is that teardown's; each
    -- kind of report read apart (a rank both report is torn down where either says so)
    SELECT job_key, rank FROM lone_report r
    WHERE NOT EXISTS (SELECT 1 FROM l y WHERE y.job_key = r.job_key AND y.rank_resolved = r.rank
                      AND y.kind IN ('python_exception', 'nccl_remote_error', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
    GROUP BY job_key, rank, report
    HAVING bool_and(rank_resolved IS NULL AND pid IS NULL)
       AND bool_and(kind = 'nccl_remote_error' OR (kind = 'python_exception' AND subkind = 'teardown'))
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
                   -- are shown behind the same prefix (stderr is teed): a traceback of that rank would be there too;
                   -- (session 61) or another pod's of the same job: every node's agent runs the same torchrun command, so
                   -- one node's teed traceback says every node's stderr is teed (a node showing only the rank that
                   -- left silently, `--local-ranks-filter`: the fifty-fourth set)
    SELECT DISTINCT s.incarnation_uid, s.local_rank FROM k10s_log s
    WHERE s.kind = 'rank_stream' AND s.local_rank IS NOT NULL
      AND EXISTS (SELECT 1 FROM k10s_log x WHERE (x.incarnation_uid = s.incarnation_uid OR x.job_key = s.job_key)
                  AND x.kind IN ('python_exception', 'python_traceback') AND regexp_matches(x.line, '^\[default\d+\]:'))
),
rank_tag_shown AS (  -- a rank's own training lines in its pod's log, in a job whose tracebacks carry torch's `[rankN]:` tag
                     -- (torch 2.2+ tags each line of a rank's uncaught exception so, on the stderr its pod's log holds beside
                     -- those lines): a traceback of that rank would be there too, tagged (the DeiT/timm check's `Loss is nan,
                     -- stopping training` then sys.exit(1): the forty-first launcher set)
    SELECT DISTINCT s.incarnation_uid, s.rank AS rank
    FROM (SELECT incarnation_uid, job_key, raw_row, rank_resolved AS rank, false AS by_script FROM k10s_log
          WHERE kind = 'training_step' AND rank_resolved IS NOT NULL AND job_key IS NOT NULL
          UNION ALL
          -- (session 69) where no rank is resolved, the script's own tag opening its progress line (`rank 2 step 3 loss …`,
          -- parsers' log_sql.SCRIPT_RANK_OPENING, as k10s_incident_nonfinite_one reads it): the join below is by the pod, so
          -- a local rank printed as `rank N` on another node meets no rank there
          SELECT incarnation_uid, job_key, raw_row, try_cast(nullif(regexp_extract(line,
                     '^(?:\[default\d+\]:)?\s*\[?(?i:rank)[ =]?(\d{1,7})(?:\]|:|,)?\s', 1), '') AS BIGINT), true
          FROM k10s_log WHERE kind = 'training_step' AND rank_resolved IS NULL AND job_key IS NOT NULL) s
    WHERE s.rank IS NOT NULL
      AND EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = s.job_key AND x.kind IN ('python_exception', 'python_traceback')
                  AND regexp_matches(x.line, '^\[rank\d+\]:'))
      -- a script-tagged rank with a traceback line of its own in the same log of any shape (an exception group's `|` box,
      -- read only as a cut frame, not in k10s_log), or whose failure-table row holds the exception its error file recorded
      -- (`traceback : ValueError: …`, torch's @record), said why it failed: not silent
      AND NOT (s.by_script AND EXISTS (SELECT 1 FROM log_events x WHERE x.raw_row = s.raw_row AND x.rank = s.rank
                                       AND x.kind IN ('python_exception', 'python_traceback')))
      AND NOT (s.by_script AND EXISTS (
              SELECT 1 FROM k10s_log x WHERE x.job_key = s.job_key AND x.rank_resolved = s.rank
              AND (x.kind = 'torchrun_failure' AND coalesce(regexp_extract(x.line, '\btraceback\s*:\s*(\S[^\n]*)', 1), '')
                      NOT IN ('', '<N/A>') AND NOT regexp_matches(regexp_extract(x.line, '\btraceback\s*:\s*(\S[^\n]*)', 1),
                                                                   '^(?:To enable traceback|Signal \d+)'))))
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
program_odd AS (  -- the ranks whose compiled program the Neuron runtime's check across ranks found odd (`mismatching number
                  -- of cc ops, expected 6 received 3. Check if ranks 1 and 0 are using the same neff`: parsers/log_reports.py):
                  -- the fingerprint evidence's culprits of a job whose every report is such a check, decided there once
                  -- (_evidence_fingerprint.sql: the ranks off the one largest count's side; of exactly ranks 0 and 1, rank 0;
                  -- docs/rules.md, "Session 61: the Neuron runtime's program mismatch", "Session 62: one decision in one
                  -- place"); its raised exception is the failed load of that program
    SELECT e.job_key, unnest(e.culprit_ranks) AS rank FROM k10s_logs_fingerprint_ev e
    WHERE e.job_key IN (SELECT job_key FROM k10s_fingerprint_obs GROUP BY job_key HAVING bool_and(program))
),
srun_failed AS (  -- srun logs that report a task failing on its own
    SELECT DISTINCT raw_row FROM l WHERE kind = 'process_exit' AND subkind IN ('srun', 'srun_oom') AND exit_code NOT IN (-15, -1, -2)
),
step_end AS (  -- per log body: where Slurm began ending the job step (srun's SIGTERM or its wait, the step daemon's
                -- cancellation, its reason: parsers' `step_end`, `scheduler_stop`); these lines are no failures and not in `l`
    SELECT raw_row, container, min(line_no) AS line_no FROM k10s_log WHERE kind IN ('step_end', 'scheduler_stop') AND container IS NOT NULL GROUP BY ALL
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
qp_beside_rank AS (  -- jobs with a line of a rank's own besides NCCL's queue pair set-up (ib_qp_setup): that line is no failure there
    SELECT DISTINCT job_key FROM l WHERE rank_resolved IS NOT NULL AND kind <> 'python_traceback'
      AND NOT (kind = 'nccl_error_other' AND subkind = 'ib_qp_setup')
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
went_on_exc AS (  -- rank_went_on's exceptions: not one torch tagged `[rankN]:` (2.2+ tags the lines of a rank's UNCAUGHT
                 -- exception so): the rank's end, whatever of its stdout the pipe flushed after it (`rank 3: step 3 writing
                 -- batch cache ...` below its OSError)
    SELECT event_id, raw_row, line_no, rank_resolved AS rank, nullif(regexp_extract(line, '^\[default\d+\]:'), '') AS tee
    FROM k10s_log
    WHERE kind IN ('python_exception', 'python_traceback') AND container IS NOT NULL
      AND NOT regexp_matches(line, '^(?:\[default\d+\]:)?\[rank\d+\]:')
),
went_on_step AS (  -- progress lines by the rank their line names
    SELECT raw_row, rank, line_no, ts FROM k10s_log WHERE kind = 'training_step' AND container IS NOT NULL AND rank IS NOT NULL
),
went_on_step_tee AS (  -- progress lines by their torchrun --tee prefix
    SELECT raw_row, tee, line_no, ts
    FROM (SELECT raw_row, line_no, ts, regexp_extract(line, '^\[default\d+\]:') AS tee FROM k10s_log
          WHERE kind = 'training_step' AND container IS NOT NULL)
    WHERE tee <> ''
),
went_on_agent AS (  -- a torchrun agent's report of a worker's end: an attempt's end
    SELECT raw_row, line_no FROM k10s_log WHERE kind = 'torchrun_failure'
),
rank_went_on AS (  -- exceptions after which the SAME rank trained on in the same log and attempt: its progress lines
                   -- behind the same torchrun --tee prefix (`[default1]:`) or the same `[rankN]:` tag follow, no agent's
                   -- report (an attempt's end) between: a caught, logged exception, not the rank's end, teardown or not
                   -- (docs/rules.md, "Session 61: a handled traceback is not the rank's end"). Each exception meets only
                   -- the FIRST such progress line after it and the first agent's report after it (ASOF joins, not every
                   -- later line: linear in a huge log; benchmarks/results/handled-tracebacks.md): trained on when that
                   -- progress line comes before that report
    SELECT DISTINCT e.event_id FROM went_on_exc e
    ASOF LEFT JOIN went_on_step sr ON sr.raw_row = e.raw_row AND sr.rank = e.rank AND e.line_no < sr.line_no
    ASOF LEFT JOIN went_on_step_tee st ON st.raw_row = e.raw_row AND st.tee = e.tee AND e.line_no < st.line_no
    ASOF LEFT JOIN went_on_agent a ON a.raw_row = e.raw_row AND e.line_no < a.line_no
    WHERE coalesce(sr.line_no, st.line_no) IS NOT NULL
      AND (a.line_no IS NULL OR a.line_no >= least(sr.line_no, st.line_no))
),
said_exit AS (  -- (session 65) a rank's own LAST ERROR/CRITICAL-level record (parsers/log_error_records.py: one per body and
                 -- rank, the last) in the body of its launcher's report of its non-zero, non-signal exit, before that report
                 -- (line order) and, where both have clocks, at most 10 s before it (the agent's monitor polls every 5 s),
                 -- the rank trained on after it by no progress line of its rank or --tee prefix: what a program that caught
                 -- its failure at the top said of it (`logger.error(f"rank {rank}: {e}")` then sys.exit(2)); a peer's or
                 -- teardown's wording (subkind `peer`) keeps the exit a victim's (docs/rules.md, "Session 65: a handler's
                 -- ERROR record")
    SELECT f.event_id, max_by(s.subkind, s.line_no) AS said_subkind, max_by(s.error_type, s.line_no) AS said_type,
           max_by(s.error_message, s.line_no) AS said_message
    FROM l f
    LEFT JOIN pid_rank pr ON pr.incarnation_uid = f.incarnation_uid AND pr.pid = f.pid
    JOIN (SELECT job_key, raw_row, line_no, ts, rank_resolved AS rank, subkind, error_type, coalesce(error_message, '') AS error_message,
                 nullif(regexp_extract(line, '^\[default\d+\]:'), '') AS tee
          FROM k10s_log WHERE kind = 'error_record' AND rank_resolved IS NOT NULL AND job_key IS NOT NULL) s
      ON s.job_key = f.job_key AND s.raw_row = f.raw_row AND s.line_no < f.line_no
     AND s.rank = coalesce(f.rank_resolved, CASE WHEN f.subkind <> 'launcher_last_cmd' THEN pr.rank END)
     AND (s.ts IS NULL OR f.ts_filled IS NULL OR s.ts BETWEEN f.ts_filled - INTERVAL 10 SECOND AND f.ts_filled + INTERVAL 1 SECOND)
     -- (session 67) a message-only line (subkind `bare`): an exit status of the program's own choosing, 2..125 (sys.exit(msg)
     -- prints its message and exits 1: exit-1; a shell's 126/127 are its own)
     AND (s.subkind <> 'bare' OR f.exit_code BETWEEN 2 AND 125)
    WHERE f.kind IN ('torchrun_failure', 'process_exit') AND f.exit_code BETWEEN 1 AND 128
      -- (session 67) the rank's stdout may reach the console after its stderr's record (two files --tee reads in one
      -- poll, two pipes): a progress line within 0.5 s after the record by their clocks, or where the record has none
      -- ONE progress line after it, is that flush, not training gone on
      AND (SELECT count(*) FROM went_on_step sr WHERE sr.raw_row = s.raw_row AND sr.rank = s.rank
           AND sr.line_no > s.line_no AND sr.line_no < f.line_no
           AND NOT coalesce(sr.ts <= s.ts + INTERVAL 500 MILLISECOND, false)) <= CASE WHEN s.ts IS NULL THEN 1 ELSE 0 END
      AND (SELECT count(*) FROM went_on_step_tee st WHERE st.raw_row = s.raw_row AND st.tee = s.tee
           AND st.line_no > s.line_no AND st.line_no < f.line_no
           AND NOT coalesce(st.ts <= s.ts + INTERVAL 500 MILLISECOND, false)) <= CASE WHEN s.ts IS NULL THEN 1 ELSE 0 END
    GROUP BY f.event_id
),
loader_said AS (  -- (session 70) a rank's "worker lost while handing a batch over" (parsers/log_owners.py) and the signal its
                  -- own process named a worker's death by before it, in the same log body (the worker's handler line `ERROR:
                  -- Unexpected bus error encountered in worker.`, the rank's `... is killed by signal: X`): the worker's death
    SELECT f.event_id, max_by(s.loader_signal, s.line_no) AS signal_name
    FROM l f JOIN l s ON s.raw_row = f.raw_row AND s.container = f.container AND s.line_no < f.line_no
     AND (s.local_rank = f.local_rank OR s.rank_resolved = f.rank_resolved) AND s.kind = 'python_exception' AND s.loader_signal IS NOT NULL
    WHERE f.kind = 'python_exception' AND f.error_message LIKE 'DataLoader worker lost while handing a batch over: %'
    GROUP BY f.event_id
),
ranked AS (
    SELECT l.event_id, l.kind, l.subkind, l.raw_row, l.line_no, l.rank_resolved, l.error_type, l.error_message, l.ran_for_ms, l.relayed, l.ip_pod, l.ip_node, l.ip_gpu, l.ray_task,
           l.timeout_ms, l.loader_signal, l.ts_filled, l.ts_floor, coalesce(l.rank_resolved, CASE WHEN l.subkind <> 'launcher_last_cmd' THEN pr.rank END) AS rank_eff,
           -- 128 + N: a shell's or a container runtime's way of saying the process died of signal N
           CASE WHEN l.exit_code BETWEEN 129 AND 159 THEN 128 - l.exit_code ELSE l.exit_code END AS status,
           -- a worker's SIGTERM (-15) that its torchrun agent, whose SIGTERMs to other pids are in the log, did not send
           l.kind = 'torchrun_failure' AND l.pid IS NOT NULL AND st.pid IS NULL AND ss.incarnation_uid IS NOT NULL AS outside_sigterm,
           -- srun's "task N: Killed" where srun reports another task failing on its own is srun's teardown SIGKILL
           st.pid IS NOT NULL OR (l.subkind = 'srun_killed' AND sf.raw_row IS NOT NULL) AS was_sigtermed,
           sx.event_id IS NOT NULL AS srun_torn_down,
           tw.rank IS NOT NULL OR wa.event_id IS NOT NULL AS rank_timed_out,
           td.rank IS NOT NULL AS rank_torn_down, rx.rank IS NOT NULL AS rank_raised,
           ld.job_key IS NOT NULL AS lone_dump, qb.job_key IS NOT NULL AS qp_beside_rank,
           rm.raw_row IS NOT NULL AS rank_said_more, ar.raw_row IS NOT NULL AS agent_reported, sm.raw_row IS NOT NULL AS size_mismatch,
           sg.rank IS NOT NULL AS size_mismatch_lagged,
           (sh.incarnation_uid IS NOT NULL OR rs.rank IS NOT NULL) AND tb.rank IS NULL AS silent_exit,
           hk.rank IS NOT NULL AND coalesce(hk.ts <= l.ts_filled, true) AS hook_logged, fp.rank IS NOT NULL AS fingerprinted,
           po.rank IS NOT NULL AS program_odd,
           CASE WHEN tb.rank IS NULL AND se.said_subkind <> 'peer' THEN se.said_subkind END AS said_subkind,
           se.said_type, se.said_message, ls.signal_name AS loader_said_signal,
           CASE WHEN tb.rank IS NULL AND se.said_subkind <> 'peer' THEN coalesce(
               nullif(regexp_extract(se.said_message, '^(?:\[?[Rr]ank:? ?\d+\]?:? ?)?(?:[\w.]*(?:Error|Exception): )?DataLoader worker \(pid \d+\) is killed by signal: ([A-Za-z ]*[A-Za-z])', 1), ''),
               nullif(regexp_extract(se.said_type, '^DataLoader worker \(pid \d+\) is killed by signal: ([A-Za-z ]*[A-Za-z])', 1), '')) END AS said_loader_signal
    FROM l
    LEFT JOIN said_exit se ON se.event_id = l.event_id
    LEFT JOIN loader_said ls ON ls.event_id = l.event_id
    LEFT JOIN size_mismatch_log sm ON sm.raw_row = l.raw_row
    LEFT JOIN lone_dump ld ON ld.job_key = l.job_key
    LEFT JOIN qp_beside_rank qb ON qb.job_key = l.job_key
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
    LEFT JOIN program_odd po ON po.job_key = l.job_key AND po.rank = coalesce(l.rank_resolved, pr.rank)
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
            -- Ray's memory monitor killed the task or actor: the node's host memory ran low (`ray.exceptions.OutOfMemoryError:
            -- Task was killed due to the node running low on memory.`; newer Ray: `1 worker(s) were killed due to the node
            -- running low on memory. Memory on the node (IP: …) was …`, its wrapped pieces joined by parsers/log_cut_wordings.py,
            -- its first piece alone read alike: session 66), an outside kill for host memory, not the GPU's
            WHEN kind = 'python_exception' AND subkind = 'raised' AND regexp_matches(error_type, '(?:^|\.)OutOfMemoryError$')
                 AND error_message LIKE '%killed due to the node%' THEN 'host-oom-kill'
            -- Ray < 2's memory monitor: the task raised `ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory
            -- on node <host> is used (X / Y GB)` itself (checked before it ran; the worker lives on): its node's host
            -- memory, raised, not a kill (session 67)
            WHEN kind = 'python_exception' AND subkind = 'raised' AND regexp_matches(error_type, '(?:^|\.)RayOutOfMemoryError$') THEN 'host-oom'
            -- a DataLoader worker killed by a signal: the rank's failure is the worker's signal, as the main process reports
            -- it or as the worker's own handler does (`ERROR: Unexpected bus error encountered in worker.`: parsers/log_py_exceptions.py),
            -- mapped by k10s_loader_signal_cause (queries/_views.sql): a worker's `Aborted` is the rank's RuntimeError, since
            -- `abort` is the rank's own -6, the cause the NCCL watchdog's teardown of a waiter ends in (session 69)
            WHEN kind = 'python_exception' AND subkind = 'raised' AND loader_signal IS NOT NULL THEN k10s_loader_signal_cause(loader_signal)
            -- the rank's connection to its DataLoader worker lost while a batch was handed over (parsers/log_owners.py):
            -- the worker was killed without the loader saying by what, read as the loader's own "killed by signal: Killed",
            -- unless the rank's own process said by what before (loader_said: a bus error, a segfault; session 70)
            WHEN kind = 'python_exception' AND subkind = 'raised' AND error_message LIKE 'DataLoader worker lost while handing a batch over: %' THEN
                CASE WHEN loader_said_signal IS NULL THEN 'host-oom-kill' ELSE k10s_loader_signal_cause(loader_said_signal) END
            -- DDP's check that every rank built the same model (a parameter's count, shape or strides differ
            -- from rank 0's): the ranks' gradient collectives could never match
            WHEN kind = 'python_exception' AND subkind = 'raised' AND regexp_matches(error_message,
                 'appears not to match (?:sizes|strides) of the same param in process|DDP expects same model across all ranks') THEN 'collective-mismatch'
            -- the rank whose compiled program the Neuron runtime's check across ranks found odd (program_odd): its raise is
            -- that program's failed load (`Nrt::Load failed`), the ranks ran different graphs
            WHEN kind = 'python_exception' AND subkind = 'raised' AND program_odd THEN 'collective-mismatch'
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
            -- IBV_EVENT_DEVICE_FATAL): the reporting process's host adapter failed, not a peer or a link (batch 145);
            -- its queue pair that would not come up (`Call to ibv_modify_qp failed`, ib_qp_setup): read with no rank (session 63)
            WHEN kind = 'nccl_error_other' AND subkind = 'ib_qp_setup' AND (qp_beside_rank OR rank_resolved IS NOT NULL) THEN NULL
            WHEN kind = 'nccl_error_other' AND subkind IN ('ncclUnhandledCudaError', 'ncclSystemError', 'ncclInternalError', 'ncclInvalidUsage', 'mpich_other', 'ompi_other',
                                                          'ib_device_fatal', 'ib_qp_setup') THEN 'nccl-error'
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
                    -- (session 65) its own last ERROR record just before it (said_exit), no traceback of its own: that
                    -- record is its exception's text, its cause the message's wording (a CUDA OOM, a MemoryError)
                    WHEN status > 0 AND said_subkind = 'cuda_oom' THEN 'cuda-oom'
                    WHEN status > 0 AND said_subkind IS NOT NULL AND regexp_matches(coalesce(said_type, '') || ' ' || said_message,
                         '(?:^|[\s.:])_?(?:Array)?MemoryError\b|DefaultCPUAllocator: can''t allocate memory') THEN 'host-oom'
                    -- (session 69) its record IS torch's DataLoader worker kill (a handler's message-only `rank 2: DataLoader
                    -- worker (pid N) is killed by signal: Killed.`), or its record is the loader's next error (`... (pid(s) N)
                    -- exited unexpectedly`) and the rank's own output named that worker's kill before it (under `Exception
                    -- ignored in:`, parsers/log_error_records.py puts it in error_type): the worker's signal, as the exception
                    -- form above reads it, by the same k10s_loader_signal_cause
                    WHEN status > 0 AND said_loader_signal IS NOT NULL THEN
                        k10s_loader_signal_cause(said_loader_signal)
                    WHEN status > 0 AND kind = 'torchrun_failure' AND loader_signal IS NOT NULL THEN k10s_loader_signal_cause(loader_signal)
                    WHEN status > 0 AND said_subkind IS NOT NULL THEN 'python-exception'
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
                    -- Ray's report of a Ray Train worker whose node died (drained, preempted, lost: "The actor died because
                    -- its node has died"): the process went with its node, no exit status, as HCCL's lost heartbeat
                    -- (or Ray Train v2's preemption notice naming the rank whose node is being drained)
                    WHEN status IS NULL AND subkind IN ('ray_node_died', 'ray_node_preempted') THEN 'rank-dead'
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
    -- an exit read by its rank's ERROR record (said_exit): the record's message is its error's, typed `logged error`
    k.* REPLACE (CASE WHEN c.kind IN ('torchrun_failure', 'process_exit') AND c.said_subkind IS NOT NULL
                           AND (c.cause IN ('cuda-oom', 'host-oom', 'python-exception') OR c.said_loader_signal IS NOT NULL)
                      THEN CASE c.said_subkind WHEN 'bare' THEN 'logged message' ELSE 'logged error' END ELSE k.error_type END AS error_type,
                 CASE WHEN c.kind IN ('torchrun_failure', 'process_exit') AND c.said_subkind IS NOT NULL
                           AND (c.cause IN ('cuda-oom', 'host-oom', 'python-exception') OR c.said_loader_signal IS NOT NULL)
                      THEN c.said_message ELSE k.error_message END AS error_message,
                 -- a Ray line placed by the IP it names (ray_pod_ip): that pod's, not its printer's (session 67)
                 -- a Ray line of a rank its printer's pod holds not (the driver's line on a worker its pid or tag names): the
                 -- captured pod holding that rank (rank_pod), else its node unknown, never the printer's (session 68)
                 coalesce(c.ip_pod, CASE WHEN elsewhere THEN gp.gp_pod END, k.pod_key) AS pod_key,
                 CASE WHEN c.ip_pod IS NOT NULL THEN c.ip_node WHEN elsewhere THEN gp.gp_node ELSE k.node_resolved END AS node_resolved,
                 CASE WHEN c.ip_pod IS NOT NULL THEN c.ip_gpu WHEN elsewhere THEN gp.gp_gpu ELSE k.gpu_uuid END AS gpu_uuid),
    c.ts_filled, c.ts_floor, c.rank_eff, c.status, c.outside_sigterm, c.was_sigtermed, c.rank_timed_out, c.rank_torn_down, c.rank_raised,
    c.cause, c.victim_role, c.relayed,
    -- the DataLoader worker's kill signal the line names (its exception's, or a failure table's traceback field's):
    -- read by the narrative's wording of a table's loader kill (queries/rank_failure.py, session 71)
    c.loader_signal,
    -- training went on in the same log after this line: a logged (caught) exception, unless the job was torn down
    c.kind IN ('python_exception', 'python_traceback') AND coalesce(ls.line_no > c.line_no, false) AS training_went_on,
    -- the same rank trained on after it (rank_went_on): handled, whether or not the job was torn down later
    rw.event_id IS NOT NULL AS rank_went_on,
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
CROSS JOIN LATERAL (SELECT c.ip_pod IS NULL AND c.rank_eff IS NOT NULL AND (c.relayed = 'process' OR c.subkind = 'ray_memory_monitor' OR c.ray_task)
                           AND NOT EXISTS (SELECT 1 FROM k10s_rank o WHERE o.pod_uid = k.incarnation_uid AND o.rank = c.rank_eff) AS elsewhere) e
LEFT JOIN rank_pod gp ON gp.gp_job = k.job_key AND gp.gp_rank = c.rank_eff
LEFT JOIN last_step ls ON ls.raw_row = c.raw_row
LEFT JOIN rank_went_on rw ON rw.event_id = c.event_id
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
