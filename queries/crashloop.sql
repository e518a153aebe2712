-- id: crashloop
-- title: The job keeps restarting and failing the same way
-- severity: critical
-- requires: pods, containers | log_events | jobs
-- gate: (SELECT (l.failures + s.xids > 0 OR c.deaths)
--           AND (c.restarted OR p.reborn OR j.attempts OR l.worker_restarts OR l.failures + s.xids >= 2 OR c.deaths)
--         FROM (SELECT count(*) FILTER (WHERE kind = 'cuda_oom' OR (kind = 'torchrun_failure' AND (exit_code > 0 OR exit_code IN (-4, -6, -7, -8, -11))) OR (kind = 'xid' AND coalesce(xid, 0) > 0)) AS failures,
--                      count(*) FILTER (WHERE kind = 'worker_group_restart') > 0 AS worker_restarts FROM log_events) l,
--              (SELECT count(*) FILTER (WHERE coalesce(xid, 0) > 0) AS xids FROM gpu_samples) s,
--              (SELECT coalesce(bool_or(coalesce(exit_code, 0) <> 0 OR coalesce(last_exit_code, 0) <> 0), false) AS deaths,
--                      coalesce(bool_or(restart_count >= 1), false) AS restarted FROM containers) c,
--              (SELECT EXISTS (SELECT 1 FROM pods GROUP BY namespace || '/' || pod HAVING count(DISTINCT pod_uid) > 1) AS reborn) p,
--              (SELECT coalesce(bool_or(restart_attempts >= 1), false) AS attempts FROM jobs) j)
-- description: A job whose pods or worker group restarted (container restartCount, new
--   pod incarnations under the same name, JobSet restart attempts, torchrun "Worker group
--   FAILED. k/N attempts left") and failed again. Each failure is keyed by its root cause
--   (CUDA OOM, fatal Xid before any plain exit; exits of ranks whose NCCL collective failed
--   first are victims) and first failing rank; a rank's death by a signal it raised itself
--   (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL: torchrun's exitcode -11, -6, -7, -8, -4) is a
--   failure when no other rank died of the same signal with it (the launcher's teardown
--   signals, SIGTERM and SIGKILL, are never one); container deaths (a full framebuffer names
--   the rank and a CUDA OOM) when the logs are silent; a rank that failed alike with others
--   (an incident of no single culprit: every rank's same exception) is its pod's failure, not
--   its rank's. A failure ends after 2 minutes of quiet or when a rank in it fails again
--   (another process: one exit reported twice, by its agent and its failure table, is one).
--   The signature that repeats names the culprit and counts the loops. Critical when the
--   same rank fails the same way at least twice.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- repeating failure: cuda-oom, host-oom, xid-<code>, segfault, abort, sigbus, sigfpe, sigill, exit-<code>
--   severity VARCHAR           -- critical (same failure repeated), warning (restarted, failures differ), info (one failure so far)
--   ranks BIGINT[]             -- the repeating culprit rank(s)
--   pods VARCHAR[]             -- their pods
--   nodes VARCHAR[]            -- their nodes
--   gpus VARCHAR[]             -- their GPUs
--   started_at TIMESTAMP WITH TIME ZONE -- first failure
--   ended_at TIMESTAMP WITH TIME ZONE   -- last failure
--   loops BIGINT               -- failures with the repeating signature
--   failures BIGINT            -- all failures seen
--   restarts BIGINT            -- restarts seen (max of the counters below)
--   container_restarts BIGINT  -- max restartCount of the job's containers
--   pod_incarnations BIGINT    -- max incarnations of one pod name
--   restart_attempts BIGINT    -- JobSet/job restart attempts
--   worker_group_restarts BIGINT -- torchrun worker-group restarts logged
--   attempts_left BIGINT       -- fewest torchrun attempts left
--   attempts_max BIGINT        -- torchrun max restarts
--   gpu_hours_lost DOUBLE      -- the failures' incidents, each job GPUs x (abort - first failure), from k10s_incident
--   evidence STRUCT[]          -- one entry per failure
WITH RECURSIVE l AS (  -- the columns read below (a CTE carries every column it selects)
    SELECT job_key, rank_resolved, kind, subkind, pod_key, node_resolved, gpu_uuid, ts, exit_code, line, previous, incarnation_uid, pid,
           raw_row, line_no, attempts_left, attempts_max
    FROM k10s_log WHERE job_key IS NOT NULL
),
log_failures AS (  -- failures in the logs; a rank whose NCCL collective failed in the minute before it exited is a victim, not a failure
    SELECT f.job_key, f.rank_resolved AS rank, f.pod_key, f.node_resolved AS node, f.gpu_uuid, f.ts,
           CASE WHEN f.kind = 'cuda_oom' THEN 'cuda-oom' ELSE coalesce(k10s_signal_cause(f.exit_code), 'exit-' || f.exit_code) END AS sig, left(f.line, 300) AS line, f.previous,
           -- the process that exited (its pid in its container: the agent's line and its failure table report one exit)
           f.pid || '@' || f.incarnation_uid || CASE WHEN f.previous THEN '/previous' ELSE '' END AS proc
    FROM l f
    WHERE f.kind = 'cuda_oom'
       OR (f.kind = 'torchrun_failure' AND f.rank_resolved IS NOT NULL
           AND (f.exit_code > 0
                -- a signal the process raised itself (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL), alone: ranks killed by one
                -- signal together (every rank's SIGABRT after a watchdog timeout, a common fault) are no one rank's failure;
                -- the launcher's teardown (SIGTERM, SIGKILL after it) never counts
                OR (k10s_signal_cause(f.exit_code) IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM l o WHERE o.job_key = f.job_key AND o.kind = 'torchrun_failure'
                                      AND o.exit_code = f.exit_code AND o.rank_resolved IS DISTINCT FROM f.rank_resolved
                                      AND (o.ts BETWEEN f.ts - INTERVAL 60 SECOND AND f.ts + INTERVAL 60 SECOND
                                           OR (o.ts IS NULL AND o.raw_row = f.raw_row)))))
           AND NOT EXISTS (SELECT 1 FROM l e WHERE e.incarnation_uid = f.incarnation_uid
                             AND coalesce(e.rank_resolved = f.rank_resolved, true)
                             AND (e.kind IN ('nccl_remote_error', 'nccl_watchdog_timeout', 'nccl_error_other')
                                  -- gloo's "Connection closed by peer", a DistBackendError: another rank failed first
                                  OR (e.kind = 'python_exception' AND e.subkind = 'teardown'))
                             AND (e.ts BETWEEN f.ts - INTERVAL 60 SECOND AND f.ts
                                  -- a line without a clock (a paste): just before the exit in the same log
                                  OR (e.ts IS NULL AND e.raw_row = f.raw_row AND e.line_no BETWEEN f.line_no - 200 AND f.line_no))))
    UNION ALL
    SELECT job_key, rank, pod_key, node, gpu_uuid, ts, 'xid-' || xid, coalesce(left(line, 300), 'Xid ' || xid), NULL, NULL
    FROM k10s_xid_event WHERE fatal AND job_key IS NOT NULL
),
log_alike AS (  -- a rank's exit inside an incident where it failed alike with other ranks and no single culprit was named
                -- (k10s_incident's together_ranks: every rank's same exception in each attempt of a restarted job): the
                -- first exit the launcher reported is no rank's own repeating failure; the failure keeps its pod, not its rank
    SELECT f.* REPLACE (CASE WHEN EXISTS (SELECT 1 FROM k10s_incident i WHERE i.job_key = f.job_key AND len(i.culprit_ranks) = 0
                                            AND list_contains(i.together_ranks, f.rank)
                                            AND f.ts BETWEEN i.first_failure_at - INTERVAL 1 SECOND
                                                         AND coalesce(i.abort_at, i.first_failure_at) + INTERVAL 5 SECOND)
                             THEN NULL ELSE f.rank END AS rank)
    FROM log_failures f
),
death_failures AS (  -- used only when the logs show no failure: container deaths, named by rank when its framebuffer was full
    SELECT d.job_key, coalesce(fb.rank, CASE WHEN d.nranks = 1 THEN d.ranks[1] END) AS rank, d.pod_key, d.node,
           coalesce(fb.gpu_uuid, (SELECT min(gpu_uuid) FROM k10s_rank r WHERE r.pod_uid = d.pod_uid AND d.nranks = 1)) AS gpu_uuid,
           d.ts, CASE WHEN fb.rank IS NOT NULL THEN 'cuda-oom' WHEN d.reason = 'OOMKilled' THEN 'host-oom' ELSE 'exit-' || d.exit_code END AS sig,
           'container of ' || d.pod_key || ' died: ' || coalesce(d.reason, '') || ' exit ' || d.exit_code
               || coalesce(' (framebuffer ' || round(fb.used_mib) || ' of ' || round(fb.total_mib) || ' MiB)', '') AS line,
           NULL::BOOLEAN AS previous, NULL::VARCHAR AS proc
    FROM k10s_death d
    LEFT JOIN k10s_fb_oom fb ON fb.pod_uid = d.pod_uid AND fb.ts = d.ts
    WHERE d.job_key IS NOT NULL AND d.job_key NOT IN (SELECT job_key FROM log_failures)
),
ordered AS (
    SELECT *, coalesce(rank::VARCHAR, pod_key, '?') AS who,
           row_number() OVER (PARTITION BY job_key ORDER BY ts, sig LIKE 'exit-%', rank, pod_key, sig, line, node, gpu_uuid, previous, proc) AS n
    FROM (SELECT * FROM log_alike UNION ALL SELECT * FROM death_failures)
),
walk AS (  -- failures, in time order: a new one after a 2-minute gap, or when a rank (pod) that
           -- already failed in this one fails again > 10 s later (a restarted process: another pid; the same
           -- process's exit reported twice, by its agent's line and by its failure table, is one failure whatever
           -- the clocks of the two reports say), or at once where the launcher reported it in the same log under
           -- another known pid (a restarted worker: the 10 s gate only where a pid is unknown)
    SELECT job_key, n, 1::BIGINT AS failure_no, ts AS last_ts, [{'who': who, 'ts': ts, 'proc': proc, 'sig': sig}] AS seen
    FROM ordered WHERE n = 1
    UNION ALL
    SELECT o.job_key, o.n, w.failure_no + b.brk, o.ts,
           CASE WHEN b.brk = 1 THEN [{'who': o.who, 'ts': o.ts, 'proc': o.proc, 'sig': o.sig}]
                ELSE list_append(w.seen, {'who': o.who, 'ts': o.ts, 'proc': o.proc, 'sig': o.sig}) END
    FROM walk w
    JOIN ordered o ON o.job_key = w.job_key AND o.n = w.n + 1
    CROSS JOIN LATERAL (SELECT CASE WHEN o.ts - w.last_ts > INTERVAL 2 MINUTE
                                      OR len(list_filter(w.seen, lambda x: x.who = o.who AND NOT coalesce(x.proc = o.proc, false)
                                                                      AND (o.ts - x.ts > INTERVAL 10 SECOND
                                                                           -- two launcher reports of one rank in one log with two
                                                                           -- known pids: a restarted worker failing again, however
                                                                           -- close (session 68: 9.65 s apart)
                                                                           -- (a rank's: a pod's processes are several ranks)
                                                                           OR (o.rank IS NOT NULL AND x.sig <> 'cuda-oom' AND o.sig <> 'cuda-oom'
                                                                               AND substr(x.proc, strpos(x.proc, '@'))
                                                                                   = substr(o.proc, strpos(o.proc, '@')))))) > 0
                                    THEN 1 ELSE 0 END AS brk) b
),
firsts AS (  -- the root cause of each failure: a CUDA OOM, host OOM or Xid beats any plain exit or signal death, then the earliest;
            -- a signal death the process raised itself beats a bare exit status reported within one agent poll (0.1 s) of the
            -- failure's first report: two agents' reports so close are not ordered, and an exit status alone says nothing of
            -- why (docs/rules.md, "Session 71: a victim's exit 1 beside a crash-looping abort")
    SELECT job_key, rank, pod_key, node, gpu_uuid, ts, sig, line, previous, failure_no
    FROM (SELECT o.*, w.failure_no, min(o.ts) OVER (PARTITION BY o.job_key, w.failure_no) AS start
          FROM ordered o JOIN walk w USING (job_key, n))
    QUALIFY row_number() OVER (PARTITION BY job_key, failure_no
                               ORDER BY sig LIKE 'exit-%' OR sig IN ('segfault', 'abort', 'sigbus', 'sigfpe', 'sigill'),
                                        CASE WHEN ts IS NULL OR ts > start + INTERVAL 100 MILLISECOND THEN 2
                                             WHEN sig LIKE 'exit-%' THEN 1 ELSE 0 END, n) = 1
),
restarts AS (
    SELECT pj.job_key,
           max(c.restart_count) AS container_restarts,
           bool_or(c.reason = 'CrashLoopBackOff') AS backoff
    FROM containers c JOIN k10s_pod_job pj ON pj.pod_uid = c.pod_uid
    WHERE pj.job_key IS NOT NULL AND NOT coalesce(c.init, false)
    GROUP BY pj.job_key
),
incarnations AS (
    SELECT job_key, max(n) AS pod_incarnations FROM (
        SELECT job_key, pod_key, count(DISTINCT pod_uid) AS n FROM k10s_pod_job WHERE job_key IS NOT NULL GROUP BY ALL
    ) GROUP BY job_key
),
attempts AS (
    SELECT namespace || '/' || job AS job_key, max(restart_attempts) AS restart_attempts FROM jobs GROUP BY ALL
),
worker_group AS (
    SELECT job_key, count(DISTINCT (pod_key, ts)) AS worker_group_restarts, min(attempts_left) AS attempts_left, max(attempts_max) AS attempts_max
    FROM l WHERE kind = 'worker_group_restart' GROUP BY job_key
),
sig_counts AS (
    SELECT job_key, sig, coalesce(rank::VARCHAR, pod_key) AS who, count(*) AS n, min(ts) AS first_ts
    FROM firsts GROUP BY ALL
),
top_sig AS (
    SELECT * FROM sig_counts
    QUALIFY row_number() OVER (PARTITION BY job_key ORDER BY n DESC, first_ts, who, sig) = 1
),
per_job AS (
    SELECT
        f.job_key,
        count(*) AS failures,
        min(f.ts) AS started_at, max(f.ts) AS ended_at,
        list({'failure': f.failure_no, 'at': f.ts, 'rank': f.rank, 'pod': f.pod_key, 'node': f.node, 'gpu': f.gpu_uuid,
              'signature': f.sig, 'previous_container': f.previous, 'line': f.line} ORDER BY f.ts, f.failure_no) AS evidence
    FROM firsts f GROUP BY f.job_key
)
SELECT
    pj.job_key AS job,
    t.sig AS cause,
    CASE WHEN t.n >= 2 THEN 'critical' WHEN pj.failures >= 2 THEN 'warning' ELSE 'info' END AS severity,
    (SELECT list(DISTINCT f.rank ORDER BY f.rank) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who AND f.rank IS NOT NULL) AS ranks,
    (SELECT list(DISTINCT f.pod_key ORDER BY f.pod_key) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who) AS pods,
    (SELECT list(DISTINCT f.node ORDER BY f.node) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who AND f.node IS NOT NULL) AS nodes,
    (SELECT list(DISTINCT f.gpu_uuid ORDER BY f.gpu_uuid) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who AND f.gpu_uuid IS NOT NULL) AS gpus,
    pj.started_at, pj.ended_at,
    t.n AS loops,
    pj.failures,
    greatest(coalesce(r.container_restarts, 0), coalesce(i.pod_incarnations, 1) - 1, coalesce(a.restart_attempts, 0), coalesce(w.worker_group_restarts, 0)) AS restarts,
    r.container_restarts, i.pod_incarnations, a.restart_attempts, w.worker_group_restarts, w.attempts_left, w.attempts_max,
    ki.gpu_hours_lost,
    pj.evidence
FROM per_job pj
JOIN top_sig t ON t.job_key = pj.job_key
LEFT JOIN restarts r ON r.job_key = pj.job_key
LEFT JOIN incarnations i ON i.job_key = pj.job_key
LEFT JOIN attempts a ON a.job_key = pj.job_key
LEFT JOIN worker_group w ON w.job_key = pj.job_key
LEFT JOIN (SELECT job_key, round(sum(gpu_hours_lost), 3) AS gpu_hours_lost FROM k10s_incident WHERE cause IS NOT NULL OR watchdog_victims > 0 GROUP BY job_key) ki
  ON ki.job_key = pj.job_key  -- the failures' incidents, each costed once (k10s_incident)
WHERE greatest(coalesce(r.container_restarts, 0), coalesce(i.pod_incarnations, 1) - 1, coalesce(a.restart_attempts, 0), coalesce(w.worker_group_restarts, 0)) >= 1
   OR pj.failures >= 2
ORDER BY job
