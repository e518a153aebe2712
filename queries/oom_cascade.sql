-- id: oom-cascade
-- title: A rank ran out of memory and took the job down
-- severity: critical
-- requires: log_events | containers | gpu_samples, ranks | pods
-- description: The first out-of-memory of each failure: a CUDA OOM in the logs, an
--   OOMKilled / exit 137 container (host OOM), or a framebuffer at >= 97% of its total in
--   the two minutes before a rank's container died. Then the cascade it caused: ranks that
--   hit the NCCL watchdog (and their Timeout(ms)), siblings SIGTERM'd by torchrun, remote
--   errors naming the dead peer; the memory headroom at death and the GPU-hours wasted.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- cuda-oom or host-oom (of the first incident)
--   ranks BIGINT[]             -- ranks that ran out of memory first (one per incident)
--   pods VARCHAR[]             -- their pods
--   nodes VARCHAR[]            -- their nodes
--   gpus VARCHAR[]             -- their GPUs
--   started_at TIMESTAMP WITH TIME ZONE -- first OOM
--   ended_at TIMESTAMP WITH TIME ZONE   -- last cascade event
--   incidents BIGINT           -- separate OOM failures (a crashloop repeats them)
--   first_rank BIGINT          -- rank of the first OOM
--   step BIGINT                -- training step of the first OOM, when logged
--   total_mib DOUBLE           -- GPU memory total at the first OOM
--   in_use_mib DOUBLE          -- memory in use by the process (or framebuffer used)
--   requested_mib DOUBLE       -- allocation that failed
--   headroom_mib DOUBLE        -- total - in use at death
--   watchdog_ranks BIGINT      -- ranks that then hit the NCCL watchdog timeout
--   timeout_ms BIGINT          -- their Timeout(ms)
--   sigterm_ranks BIGINT       -- siblings terminated by torchrun (exitcode -15)
--   remote_error_ranks BIGINT  -- ranks that saw the remote peer close
--   gpu_hours_lost DOUBLE      -- job GPUs x (cascade end - OOM), summed over incidents
--   evidence STRUCT[]          -- one entry per incident
WITH l AS (
    SELECT * FROM k10s_log WHERE job_key IS NOT NULL
),
log_oom AS (
    SELECT job_key, rank_resolved AS rank, pod_key, node_resolved AS node, gpu_uuid, ts, 'cuda-oom' AS cause,
           oom_total_mib AS total_mib, coalesce(oom_in_use_mib, oom_total_mib - oom_free_mib) AS in_use_mib,
           oom_requested_mib AS requested_mib, step, line
    FROM l WHERE kind = 'cuda_oom'
),
deaths AS (  -- container terminations (current or last state) of pods that run ranks
    SELECT c.namespace, c.pod, c.pod_uid, c.finished_at AS ts, c.reason, c.exit_code
    FROM containers c WHERE c.state = 'terminated' AND coalesce(c.exit_code, 0) <> 0 AND c.finished_at IS NOT NULL
    UNION ALL
    SELECT c.namespace, c.pod, c.pod_uid, c.last_finished_at, c.last_reason, c.last_exit_code
    FROM containers c WHERE coalesce(c.last_exit_code, 0) <> 0 AND c.last_finished_at IS NOT NULL
),
host_oom AS (
    SELECT pj.job_key, CASE WHEN pj.nranks = 1 THEN pj.ranks[1] END AS rank, pj.pod_key, pj.node,
           CASE WHEN pj.nranks = 1 THEN (SELECT any_value(gpu_uuid) FROM k10s_rank r WHERE r.pod_uid = d.pod_uid) END AS gpu_uuid,
           d.ts, 'host-oom' AS cause, NULL::DOUBLE AS total_mib, NULL::DOUBLE AS in_use_mib, NULL::DOUBLE AS requested_mib,
           NULL::BIGINT AS step, 'container ' || coalesce(d.reason, '') || ' exit ' || d.exit_code AS line
    FROM deaths d JOIN k10s_pod_job pj ON pj.pod_uid = d.pod_uid
    WHERE pj.job_key IS NOT NULL AND (d.reason = 'OOMKilled' OR d.exit_code = 137)
),
fb_oom AS (  -- framebuffer at its limit just before a rank's container died (logs absent or silent)
    SELECT r.job_key, r.rank, r.pod_key, r.node, r.gpu_uuid, d.ts, 'cuda-oom' AS cause,
           max(s.fb_total_mib) AS total_mib, max(s.fb_used_mib) AS in_use_mib, NULL::DOUBLE AS requested_mib,
           NULL::BIGINT AS step, 'framebuffer ' || round(max(s.fb_used_mib)) || ' of ' || round(max(s.fb_total_mib)) || ' MiB before exit ' || any_value(d.exit_code) AS line
    FROM deaths d
    JOIN k10s_rank r ON r.pod_uid = d.pod_uid
    JOIN gpu_samples s ON s.gpu_uuid = r.gpu_uuid AND s.ts BETWEEN d.ts - INTERVAL 2 MINUTE AND d.ts
    WHERE d.exit_code NOT IN (137, 143, -15, 130) AND coalesce(d.reason, '') <> 'OOMKilled'
    GROUP BY r.job_key, r.rank, r.pod_key, r.node, r.gpu_uuid, d.ts
    HAVING max(s.fb_used_mib / nullif(s.fb_total_mib, 0)) >= 0.97
),
ooms AS (
    SELECT * FROM log_oom
    UNION ALL SELECT * FROM host_oom
    UNION ALL SELECT f.* FROM fb_oom f
    WHERE NOT EXISTS (SELECT 1 FROM log_oom o WHERE o.job_key = f.job_key AND o.rank = f.rank AND abs(epoch(o.ts) - epoch(f.ts)) <= 300)
),
sessions AS (  -- OOMs more than 2 minutes apart are separate incidents
    SELECT *, sum(new_incident) OVER (PARTITION BY job_key ORDER BY ts ROWS UNBOUNDED PRECEDING) AS incident
    FROM (SELECT *, CASE WHEN ts - lag(ts) OVER (PARTITION BY job_key ORDER BY ts) <= INTERVAL 2 MINUTE THEN 0 ELSE 1 END AS new_incident FROM ooms)
),
firsts AS (  -- the first OOM of each incident (a log line wins over a container status at the same time)
    SELECT * FROM sessions
    QUALIFY row_number() OVER (PARTITION BY job_key, incident ORDER BY ts, cause = 'host-oom', rank NULLS LAST) = 1
),
bounded AS (
    SELECT f.*, lead(f.ts) OVER (PARTITION BY f.job_key ORDER BY f.ts) AS next_ts FROM firsts f
),
cascade AS (
    SELECT
        b.job_key, b.incident,
        count(DISTINCT l.rank_resolved) FILTER (WHERE l.kind = 'nccl_watchdog_timeout') AS watchdog_ranks,
        max(l.timeout_ms) FILTER (WHERE l.kind = 'nccl_watchdog_timeout') AS timeout_ms,
        count(DISTINCT coalesce(l.rank_resolved, l.local_rank)) FILTER (WHERE l.kind = 'torchrun_failure' AND l.exit_code = -15) AS sigterm_ranks,
        count(DISTINCT l.rank_resolved) FILTER (WHERE l.kind = 'nccl_remote_error') AS remote_error_ranks,
        max(l.ts) AS last_ts
    FROM bounded b
    JOIN l ON l.job_key = b.job_key AND l.ts > b.ts AND l.ts < coalesce(b.next_ts, TIMESTAMPTZ '2999-01-01 00:00:00+00')
     AND l.ts <= b.ts + INTERVAL 45 MINUTE
     AND l.kind IN ('nccl_watchdog_timeout', 'torchrun_failure', 'nccl_remote_error')
    GROUP BY b.job_key, b.incident
),
fb_at_death AS (  -- framebuffer of the culprit GPU in the minute before its OOM
    SELECT b.job_key, b.incident, max(s.fb_used_mib) AS fb_used_mib, max(s.fb_total_mib) AS fb_total_mib
    FROM bounded b JOIN gpu_samples s ON s.gpu_uuid = b.gpu_uuid AND s.ts BETWEEN b.ts - INTERVAL 60 SECOND AND b.ts + INTERVAL 5 SECOND
    GROUP BY b.job_key, b.incident
),
inc AS (
    SELECT
        b.*, c.watchdog_ranks, c.timeout_ms, c.sigterm_ranks, c.remote_error_ranks,
        greatest(coalesce(c.last_ts, b.ts), b.ts) AS cascade_end,
        coalesce(b.total_mib, fb.fb_total_mib) AS total,
        coalesce(b.in_use_mib, fb.fb_used_mib) AS in_use
    FROM bounded b
    LEFT JOIN cascade c USING (job_key, incident)
    LEFT JOIN fb_at_death fb USING (job_key, incident)
)
SELECT
    i.job_key AS job,
    arg_min(i.cause, i.ts) AS cause,
    list(DISTINCT i.rank ORDER BY i.rank) FILTER (WHERE i.rank IS NOT NULL) AS ranks,
    list(DISTINCT i.pod_key) FILTER (WHERE i.pod_key IS NOT NULL) AS pods,
    list(DISTINCT i.node) FILTER (WHERE i.node IS NOT NULL) AS nodes,
    list(DISTINCT i.gpu_uuid) FILTER (WHERE i.gpu_uuid IS NOT NULL) AS gpus,
    min(i.ts) AS started_at,
    max(i.cascade_end) AS ended_at,
    count(*) AS incidents,
    arg_min(i.rank, i.ts) AS first_rank,
    arg_min(i.step, i.ts) AS step,
    arg_min(i.total, i.ts) AS total_mib,
    arg_min(i.in_use, i.ts) AS in_use_mib,
    arg_min(i.requested_mib, i.ts) AS requested_mib,
    arg_min(i.total - i.in_use, i.ts) AS headroom_mib,
    arg_min(coalesce(i.watchdog_ranks, 0), i.ts) AS watchdog_ranks,
    arg_min(i.timeout_ms, i.ts) AS timeout_ms,
    arg_min(coalesce(i.sigterm_ranks, 0), i.ts) AS sigterm_ranks,
    arg_min(coalesce(i.remote_error_ranks, 0), i.ts) AS remote_error_ranks,
    round(sum(coalesce(js.gpus, 1) * epoch(i.cascade_end - i.ts) / 3600.0), 3) AS gpu_hours_lost,
    list({'incident': i.incident, 'at': i.ts, 'rank': i.rank, 'pod': i.pod_key, 'node': i.node, 'gpu': i.gpu_uuid,
          'cause': i.cause, 'step': i.step, 'total_mib': i.total, 'in_use_mib': i.in_use, 'requested_mib': i.requested_mib,
          'watchdog_ranks': i.watchdog_ranks, 'timeout_ms': i.timeout_ms, 'sigterm_ranks': i.sigterm_ranks,
          'remote_error_ranks': i.remote_error_ranks, 'line': left(i.line, 300)} ORDER BY i.ts) AS evidence
FROM inc i
LEFT JOIN k10s_job_size js ON js.job_key = i.job_key
GROUP BY i.job_key
ORDER BY job
