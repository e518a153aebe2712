-- id: crashloop
-- title: The job keeps restarting and failing the same way
-- severity: critical
-- requires: pods, containers | log_events | jobs
-- description: A job whose pods or worker group restarted (container restartCount, new
--   pod incarnations under the same name, JobSet restart attempts, torchrun "Worker group
--   FAILED. k/N attempts left") and failed again. Each failure is keyed by its first
--   failing rank and kind (CUDA OOM, fatal Xid, non-signal exit; container deaths when
--   the logs are silent); the signature that repeats names the culprit and counts the
--   loops. Critical when the same rank fails the same way at least twice.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- repeating failure: cuda-oom, host-oom, xid-<code>, exit-<code>
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
--   evidence STRUCT[]          -- one entry per failure
WITH l AS (
    SELECT * FROM k10s_log WHERE job_key IS NOT NULL
),
log_failures AS (
    SELECT job_key, rank_resolved AS rank, pod_key, node_resolved AS node, gpu_uuid, ts,
           CASE WHEN kind = 'cuda_oom' THEN 'cuda-oom' ELSE 'exit-' || exit_code END AS sig, left(line, 300) AS line, previous
    FROM l WHERE kind = 'cuda_oom' OR (kind = 'torchrun_failure' AND exit_code > 0 AND rank_resolved IS NOT NULL)
    UNION ALL
    SELECT job_key, rank, pod_key, node, gpu_uuid, ts, 'xid-' || xid, coalesce(left(line, 300), 'Xid ' || xid), NULL
    FROM k10s_xid_event WHERE fatal AND job_key IS NOT NULL
),
sessions AS (
    SELECT *, sum(new_failure) OVER (PARTITION BY job_key ORDER BY ts ROWS UNBOUNDED PRECEDING) AS failure_no
    FROM (SELECT *, CASE WHEN ts - lag(ts) OVER (PARTITION BY job_key ORDER BY ts) <= INTERVAL 2 MINUTE THEN 0 ELSE 1 END AS new_failure FROM log_failures)
),
log_firsts AS (  -- first failing rank of each failure (a CUDA OOM beats the torchrun line about it)
    SELECT * FROM sessions
    QUALIFY row_number() OVER (PARTITION BY job_key, failure_no ORDER BY ts, sig <> 'cuda-oom', rank) = 1
),
deaths AS (  -- container terminations with a failure exit, when the logs say nothing
    SELECT pj.job_key, pj.pod_key, pj.node, pj.nranks, pj.ranks, d.pod_uid, d.ts, d.sig
    FROM (
        SELECT pod_uid, finished_at AS ts, CASE WHEN reason = 'OOMKilled' THEN 'host-oom' ELSE 'exit-' || exit_code END AS sig
        FROM containers WHERE state = 'terminated' AND coalesce(exit_code, 0) <> 0 AND finished_at IS NOT NULL
        UNION ALL
        SELECT pod_uid, last_finished_at, CASE WHEN last_reason = 'OOMKilled' THEN 'host-oom' ELSE 'exit-' || last_exit_code END
        FROM containers WHERE coalesce(last_exit_code, 0) <> 0 AND last_finished_at IS NOT NULL
    ) d JOIN k10s_pod_job pj ON pj.pod_uid = d.pod_uid
    WHERE pj.job_key IS NOT NULL
),
death_firsts AS (  -- earliest death per job and its signature (used only without log failures)
    SELECT d.job_key, CASE WHEN d.nranks = 1 THEN d.ranks[1] END AS rank, d.pod_key, d.node,
           (SELECT any_value(gpu_uuid) FROM k10s_rank r WHERE r.pod_uid = d.pod_uid AND d.nranks = 1) AS gpu_uuid,
           d.ts, d.sig, 'container of ' || d.pod_key || ' died: ' || d.sig AS line, NULL::BOOLEAN AS previous,
           row_number() OVER (PARTITION BY d.job_key, d.pod_key ORDER BY d.ts) AS failure_no
    FROM deaths d
    WHERE d.job_key NOT IN (SELECT job_key FROM log_failures)
    QUALIFY d.pod_key = first_value(d.pod_key) OVER (PARTITION BY d.job_key ORDER BY d.ts)
),
firsts AS (
    SELECT job_key, rank, pod_key, node, gpu_uuid, ts, sig, line, previous, failure_no FROM log_firsts
    UNION ALL
    SELECT job_key, rank, pod_key, node, gpu_uuid, ts, sig, line, previous, failure_no FROM death_firsts
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
    QUALIFY row_number() OVER (PARTITION BY job_key ORDER BY n DESC, first_ts) = 1
),
per_job AS (
    SELECT
        f.job_key,
        count(*) AS failures,
        min(f.ts) AS started_at, max(f.ts) AS ended_at,
        list({'failure': f.failure_no, 'at': f.ts, 'rank': f.rank, 'pod': f.pod_key, 'node': f.node, 'gpu': f.gpu_uuid,
              'signature': f.sig, 'previous_container': f.previous, 'line': f.line} ORDER BY f.ts) AS evidence
    FROM firsts f GROUP BY f.job_key
)
SELECT
    pj.job_key AS job,
    t.sig AS cause,
    CASE WHEN t.n >= 2 THEN 'critical' WHEN pj.failures >= 2 THEN 'warning' ELSE 'info' END AS severity,
    (SELECT list(DISTINCT f.rank ORDER BY f.rank) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who AND f.rank IS NOT NULL) AS ranks,
    (SELECT list(DISTINCT f.pod_key) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who) AS pods,
    (SELECT list(DISTINCT f.node) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who AND f.node IS NOT NULL) AS nodes,
    (SELECT list(DISTINCT f.gpu_uuid) FROM firsts f WHERE f.job_key = pj.job_key AND f.sig = t.sig AND coalesce(f.rank::VARCHAR, f.pod_key) = t.who AND f.gpu_uuid IS NOT NULL) AS gpus,
    pj.started_at, pj.ended_at,
    t.n AS loops,
    pj.failures,
    greatest(coalesce(r.container_restarts, 0), coalesce(i.pod_incarnations, 1) - 1, coalesce(a.restart_attempts, 0), coalesce(w.worker_group_restarts, 0)) AS restarts,
    r.container_restarts, i.pod_incarnations, a.restart_attempts, w.worker_group_restarts, w.attempts_left, w.attempts_max,
    pj.evidence
FROM per_job pj
JOIN top_sig t ON t.job_key = pj.job_key
LEFT JOIN restarts r ON r.job_key = pj.job_key
LEFT JOIN incarnations i ON i.job_key = pj.job_key
LEFT JOIN attempts a ON a.job_key = pj.job_key
LEFT JOIN worker_group w ON w.job_key = pj.job_key
WHERE greatest(coalesce(r.container_restarts, 0), coalesce(i.pod_incarnations, 1) - 1, coalesce(a.restart_attempts, 0), coalesce(w.worker_group_restarts, 0)) >= 1
   OR pj.failures >= 2
ORDER BY job
