-- id: oom-cascade
-- title: A rank ran out of memory and took the job down
-- severity: critical
-- requires: log_events | containers | gpu_samples, ranks | pods
-- gate: EXISTS (SELECT 1 FROM log_events WHERE kind = 'cuda_oom')
--   OR (SELECT coalesce(bool_or(reason = 'OOMKilled' OR exit_code = 137 OR last_reason = 'OOMKilled' OR last_exit_code = 137), false)
--         OR (coalesce(bool_or(coalesce(exit_code, 0) <> 0 OR coalesce(last_exit_code, 0) <> 0), false)
--             AND EXISTS (SELECT 1 FROM gpu_samples WHERE fb_used_mib / nullif(fb_total_mib, 0) >= 0.97))
--       FROM containers)
-- description: The first out-of-memory of each failure: a CUDA OOM in the logs, an
--   OOMKilled / exit 137 container (host OOM), or a framebuffer at >= 97% of its total in
--   the two minutes before a rank's container died. OOMs belong to one incident unless 2
--   minutes pass or a rank already in it runs out of memory again (a restarted process); ranks that run out at the
--   first's allocation at once (within a second, or without a clock) ran out together: no rank is named; nor where, in a log
--   without a clock, another rank failed beside it and the incident analysis cannot order the two (k10s_incident's
--   together_ranks: a traceback cut before its exception, the same error); nor for three or more OOM reports naming no
--   process in a pasted pod of several ranks (as many processes ran out), nor for a report with Ray's dedup note
--   (`[repeated 7x across cluster]`: as many more processes ran out alike). Then the cascade it caused: ranks that
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
--   first_rank BIGINT          -- rank of the first OOM (none when several ran out together)
--   together_ranks BIGINT[]    -- ranks out of memory at the first OOM's allocation at once (no single culprit)
--   unordered_ranks BIGINT[]   -- the first OOM's rank and ranks failing beside it that no clock orders (no single culprit)
--   step BIGINT                -- training step of the first OOM, when logged
--   total_mib DOUBLE           -- GPU memory total at the first OOM
--   in_use_mib DOUBLE          -- memory in use by the process (or framebuffer used)
--   requested_mib DOUBLE       -- allocation that failed
--   headroom_mib DOUBLE        -- total - in use at death
--   watchdog_ranks BIGINT      -- ranks that then hit the NCCL watchdog timeout
--   timeout_ms BIGINT          -- their Timeout(ms)
--   sigterm_ranks BIGINT       -- siblings terminated by torchrun (exitcode -15)
--   remote_error_ranks BIGINT  -- ranks that saw the remote peer close
--   gpu_hours_lost DOUBLE      -- job GPUs x (abort - OOM), summed over incidents (k10s_incident: the same in every rule)
--   evidence STRUCT[]          -- one entry per incident
--   severity VARCHAR           -- warning where medium_why says so, else the rule's (critical)
--   confidence VARCHAR         -- medium where medium_why says so, else null (the finding's own evidence says how it was found)
--   medium_why VARCHAR         -- lone-paste-oom: one rank's CUDA OOM in a paste of that rank's lines only (no other rank's line, no teardown, no watchdog: whether the others ran out too the paste cannot say), else null
WITH RECURSIVE l AS (  -- the columns read below (a CTE carries every column it selects)
    SELECT job_key, rank_resolved, rank AS rank_named, local_rank, kind, pod_key, node_resolved, gpu_uuid, ts, event_id, oom_total_mib,
           oom_in_use_mib, oom_free_mib, oom_requested_mib, step, line, timeout_ms, exit_code, incarnation_uid, pid, repeated
    FROM k10s_log WHERE job_key IS NOT NULL
),
unnamed_many AS (  -- a pod of several ranks whose log holds three or more CUDA OOM reports naming no process (no rank, local
                   -- rank or pid): as many processes ran out of memory, so the rank import-logs guessed for those lines
                   -- owns none of them (k10s_incident's alike_unnamed; docs/rules.md, "Session 23: batch 62")
    -- in one incident and one container incarnation (a crashloop's restarts each print their own OOM: one process each time)
    SELECT job_key, pod_key, incident, incarnation_uid FROM k10s_incident_line
    WHERE kind = 'cuda_oom' AND rank IS NULL AND local_rank IS NULL AND pid IS NULL
      AND pod_key IN (SELECT pod_key FROM k10s_rank GROUP BY pod_key HAVING count(DISTINCT rank) >= 2)
      -- in a pod import-logs made up from a paste, where a line's rank is only the importer's guess
      AND incarnation_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
    GROUP BY ALL HAVING count(*) >= 3
),
oom_owner AS (  -- a job whose one failing rank the incident analysis found by its exit status, its cause a CUDA OOM in a
               -- line naming no rank in the same pod (k10s_incident): that rank's is the unranked OOM of that pod
    SELECT job_key, first_pod, min(first_rank) AS rank FROM k10s_incident
    WHERE cause = 'cuda-oom' AND len(culprit_ranks) = 1 GROUP BY ALL HAVING count(*) = 1
),
log_oom AS (  -- a line without a timestamp takes the nearest stamped line of its log (k10s_failure_line)
    -- a line with Ray's dedup note (`[repeated 7x across cluster]`) is N + 1 processes' alike OOM: its rank or pid only the
    -- first copy's, no rank (k10s_incident's `repeated`; docs/rules.md, "Session 59: Ray's dedup note")
    SELECT l.job_key, CASE WHEN um.job_key IS NOT NULL AND l.rank_named IS NULL AND l.local_rank IS NULL AND l.pid IS NULL THEN NULL
                           WHEN l.repeated IS NOT NULL THEN NULL
                           ELSE coalesce(l.rank_resolved, ray.rank, ow.rank) END AS rank, coalesce(ray.pod_key, l.pod_key) AS pod_key,
           coalesce(ray.node, l.node_resolved) AS node, coalesce(ray.gpu_uuid, l.gpu_uuid) AS gpu_uuid, coalesce(l.ts, fl.ts_filled) AS ts, 'cuda-oom' AS cause,
           l.oom_total_mib AS total_mib, coalesce(l.oom_in_use_mib, l.oom_total_mib - l.oom_free_mib) AS in_use_mib,
           l.oom_requested_mib AS requested_mib, l.step, l.line
    FROM l LEFT JOIN k10s_failure_line fl ON fl.event_id = l.event_id
    -- Ray's task error header whose line carries torch's CUDA OOM: the process it names (its pid's rank in Ray Train's group,
    -- its IP's captured pod), placed by k10s_failure_line, never the printer's pod (session 69)
    LEFT JOIN LATERAL (SELECT fl.rank_eff AS rank, fl.pod_key, fl.node_resolved AS node, fl.gpu_uuid
                       WHERE regexp_matches(coalesce(l.line, ''), 'RayTaskError\(\w')) ray ON true
    LEFT JOIN oom_owner ow ON ow.job_key = l.job_key AND ow.first_pod = l.pod_key AND l.rank_resolved IS NULL
    LEFT JOIN (SELECT DISTINCT event_id, incident FROM k10s_incident_line) li ON li.event_id = l.event_id
    LEFT JOIN unnamed_many um ON um.job_key = l.job_key AND um.pod_key = l.pod_key AND um.incident = li.incident
                             AND um.incarnation_uid = l.incarnation_uid
    WHERE l.kind = 'cuda_oom'
),
host_oom AS (
    SELECT d.job_key, CASE WHEN d.nranks = 1 THEN d.ranks[1] END AS rank, d.pod_key, d.node,
           CASE WHEN d.nranks = 1 THEN (SELECT min(gpu_uuid) FROM k10s_rank r WHERE r.pod_uid = d.pod_uid) END AS gpu_uuid,
           d.ts, 'host-oom' AS cause, NULL::DOUBLE AS total_mib, NULL::DOUBLE AS in_use_mib, NULL::DOUBLE AS requested_mib,
           NULL::BIGINT AS step, 'container ' || coalesce(d.reason, '') || ' exit ' || d.exit_code AS line
    FROM k10s_death d
    WHERE d.job_key IS NOT NULL AND (d.reason = 'OOMKilled' OR d.exit_code = 137)
),
fb_oom AS (  -- framebuffer at its limit just before a rank's container died (logs absent or silent)
    SELECT job_key, rank, pod_key, node, gpu_uuid, ts, 'cuda-oom' AS cause, total_mib, used_mib AS in_use_mib,
           NULL::DOUBLE AS requested_mib, NULL::BIGINT AS step,
           'framebuffer ' || round(used_mib) || ' of ' || round(total_mib) || ' MiB before exit ' || exit_code AS line
    FROM k10s_fb_oom
),
ooms AS (
    SELECT * FROM log_oom
    UNION ALL SELECT * FROM host_oom
    UNION ALL SELECT f.* FROM fb_oom f
    WHERE NOT EXISTS (SELECT 1 FROM log_oom o WHERE o.job_key = f.job_key AND o.rank = f.rank AND abs(epoch(o.ts) - epoch(f.ts)) <= 300)
),
ordered AS (
    SELECT *, coalesce(rank::VARCHAR, pod_key, '?') AS who,
           row_number() OVER (PARTITION BY job_key ORDER BY ts, cause = 'host-oom', rank NULLS LAST, pod_key, line, requested_mib, in_use_mib) AS n
    FROM ooms
),
walk AS (  -- incidents, in time order: a new one after a 2-minute gap, or when a rank that
           -- already ran out of memory in this incident does so again > 10 s later (a new process)
    SELECT job_key, n, 1::BIGINT AS incident, ts AS last_ts, [{'who': who, 'ts': ts}] AS seen
    FROM ordered WHERE n = 1
    UNION ALL
    SELECT o.job_key, o.n, w.incident + b.brk, o.ts,
           CASE WHEN b.brk = 1 THEN [{'who': o.who, 'ts': o.ts}] ELSE list_append(w.seen, {'who': o.who, 'ts': o.ts}) END
    FROM walk w
    JOIN ordered o ON o.job_key = w.job_key AND o.n = w.n + 1
    CROSS JOIN LATERAL (SELECT CASE WHEN o.ts - w.last_ts > INTERVAL 2 MINUTE
                                      OR len(list_filter(w.seen, lambda x: x.who = o.who AND o.ts - x.ts > INTERVAL 10 SECOND)) > 0
                                    THEN 1 ELSE 0 END AS brk) b
),
sessions AS (
    SELECT o.*, w.incident FROM ordered o JOIN walk w USING (job_key, n)
),
firsts AS (  -- the first OOM of each incident (a log line wins over a container status at the same time)
    SELECT * FROM sessions
    QUALIFY row_number() OVER (PARTITION BY job_key, incident ORDER BY n) = 1
),
together AS (  -- other ranks out of memory at the first's allocation at once (within a second of it, or in a log
               -- without a clock): the job fits on none of them, so whichever printed first is no culprit
    SELECT f.job_key, f.incident, list_sort(list_distinct(list(s.rank) || [f.rank])) AS ranks
    FROM firsts f JOIN sessions s ON s.job_key = f.job_key AND s.incident = f.incident AND s.who <> f.who
    WHERE f.cause = 'cuda-oom' AND s.cause = 'cuda-oom' AND f.rank IS NOT NULL AND s.rank IS NOT NULL
      AND s.requested_mib IS NOT DISTINCT FROM f.requested_mib  -- the same size, or neither sized (NCCL's `Cuda failure 2 'out of memory'`)
      AND coalesce(abs(epoch(s.ts) - epoch(f.ts)) <= 1.0, s.ts IS NULL AND f.ts IS NULL)
    GROUP BY f.job_key, f.incident, f.rank
),
unordered AS (  -- in a log without a clock, or within the second of the OOM (a clock the lines share says no more:
                -- docs/rules.md, "Real incidents batch 48", "Session 26: batch 80"), ranks the incident analysis found
                -- failing beside the first OOM's rank in another way (another rank's cut traceback): which came first is
                -- unknown (ranks out of memory at other allocations are this rule's own call: the first is named)
    SELECT f.job_key, f.incident, min(ki.together_ranks) AS ranks
    FROM firsts f JOIN k10s_incident ki ON ki.job_key = f.job_key AND list_contains(ki.together_ranks, f.rank)
    JOIN (SELECT job_key, incident, list(DISTINCT rank ORDER BY rank) FILTER (WHERE rank IS NOT NULL) AS ranks FROM sessions
          WHERE cause = 'cuda-oom' GROUP BY ALL) o ON o.job_key = f.job_key AND o.incident = f.incident
    WHERE f.cause = 'cuda-oom' AND len(ki.together_ranks) > 1
      AND ((f.ts IS NULL AND ki.first_failure_at IS NULL) OR abs(epoch(f.ts) - epoch(ki.first_failure_at)) <= 1.0)
      AND len(list_filter(ki.together_ranks, lambda r: NOT list_contains(o.ranks, r))) > 0
    GROUP BY ALL
),
bounded AS (
    SELECT f.* REPLACE (CASE WHEN t.job_key IS NULL AND u.job_key IS NULL THEN f.rank END AS rank), t.ranks AS together_ranks,
           CASE WHEN t.job_key IS NULL THEN u.ranks END AS unordered_ranks,
           lead(f.ts) OVER (PARTITION BY f.job_key ORDER BY f.ts, f.incident) AS next_ts
    FROM firsts f LEFT JOIN together t USING (job_key, incident) LEFT JOIN unordered u USING (job_key, incident)
),
cascade AS (
    SELECT
        b.job_key, b.incident,
        count(DISTINCT l.rank_resolved) FILTER (WHERE l.kind = 'nccl_watchdog_timeout') AS watchdog_ranks,
        max(l.timeout_ms) FILTER (WHERE l.kind = 'nccl_watchdog_timeout') AS timeout_ms,
        greatest(count(DISTINCT coalesce(l.rank_resolved, l.local_rank)) FILTER (WHERE l.kind = 'torchrun_failure' AND l.exit_code = -15),
                 count(DISTINCT (l.incarnation_uid, l.pid)) FILTER (WHERE l.kind = 'torchrun_sigterm')) AS sigterm_ranks,
        count(DISTINCT l.rank_resolved) FILTER (WHERE l.kind = 'nccl_remote_error') AS remote_error_ranks,
        max(l.ts) AS last_ts
    FROM bounded b
    JOIN l ON l.job_key = b.job_key AND l.ts > b.ts AND l.ts < coalesce(b.next_ts, TIMESTAMPTZ '2999-01-01 00:00:00+00')
     AND l.ts <= b.ts + INTERVAL 45 MINUTE
     AND l.kind IN ('nccl_watchdog_timeout', 'torchrun_failure', 'torchrun_sigterm', 'nccl_remote_error')
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
),
found AS (
SELECT
    i.job_key AS job,
    arg_min(i.cause, i.n) AS cause,
    list(DISTINCT i.rank ORDER BY i.rank) FILTER (WHERE i.rank IS NOT NULL) AS ranks,
    list(DISTINCT i.pod_key ORDER BY i.pod_key) FILTER (WHERE i.pod_key IS NOT NULL) AS pods,
    list(DISTINCT i.node ORDER BY i.node) FILTER (WHERE i.node IS NOT NULL) AS nodes,
    list(DISTINCT i.gpu_uuid ORDER BY i.gpu_uuid) FILTER (WHERE i.gpu_uuid IS NOT NULL) AS gpus,
    min(i.ts) AS started_at,
    max(i.cascade_end) AS ended_at,
    count(*) AS incidents,
    arg_min(i.rank, i.n) AS first_rank,
    coalesce(arg_min(i.together_ranks, i.n), []::BIGINT[]) AS together_ranks,
    coalesce(arg_min(i.unordered_ranks, i.n), []::BIGINT[]) AS unordered_ranks,
    arg_min(i.step, i.n) AS step,
    arg_min(i.total, i.n) AS total_mib,
    arg_min(i.in_use, i.n) AS in_use_mib,
    arg_min(i.requested_mib, i.n) AS requested_mib,
    arg_min(i.total - i.in_use, i.n) AS headroom_mib,
    coalesce(min(ki.watchdog_victims), arg_min(coalesce(i.watchdog_ranks, 0), i.n)) AS watchdog_ranks,
    arg_min(i.timeout_ms, i.n) AS timeout_ms,
    arg_min(coalesce(i.sigterm_ranks, 0), i.n) AS sigterm_ranks,
    arg_min(coalesce(i.remote_error_ranks, 0), i.n) AS remote_error_ranks,
    -- one incident, one cost: the incidents' own (k10s_incident), else job GPUs x (cascade end - OOM)
    coalesce(min(ki.gpu_hours_lost), round(sum(coalesce(js.gpus, 1) * epoch(i.cascade_end - i.ts) / 3600.0), 3)) AS gpu_hours_lost,
    list({'incident': i.incident, 'at': i.ts, 'rank': i.rank, 'pod': i.pod_key, 'node': i.node, 'gpu': i.gpu_uuid,
          'cause': i.cause, 'step': i.step, 'total_mib': i.total, 'in_use_mib': i.in_use, 'requested_mib': i.requested_mib,
          'watchdog_ranks': i.watchdog_ranks, 'timeout_ms': i.timeout_ms, 'sigterm_ranks': i.sigterm_ranks,
          'remote_error_ranks': i.remote_error_ranks, 'line': left(i.line, 300)} ORDER BY i.ts, i.incident) AS evidence
FROM inc i
LEFT JOIN k10s_job_size js ON js.job_key = i.job_key
LEFT JOIN (SELECT job_key, sum(gpu_hours_lost) AS gpu_hours_lost, arg_min(watchdog_victims, incident) AS watchdog_victims
           FROM k10s_incident WHERE cause = 'cuda-oom' GROUP BY job_key) ki ON ki.job_key = i.job_key
GROUP BY i.job_key
)
SELECT r.* EXCLUDE (lone_in_paste),
       CASE WHEN r.lone_in_paste THEN 'warning' END AS severity,
       CASE WHEN r.lone_in_paste THEN 'medium' END AS confidence,
       CASE WHEN r.lone_in_paste THEN 'lone-paste-oom' END AS medium_why
FROM (SELECT r.*,
             r.cause = 'cuda-oom' AND r.incidents = 1 AND len(r.ranks) = 1 AND r.watchdog_ranks = 0 AND r.sigterm_ranks = 0
             AND r.remote_error_ranks = 0
             -- every line of the job is from a pod import-logs made up from a paste, and none is another rank's
             AND EXISTS (SELECT 1 FROM k10s_paste_job p WHERE p.job_key = r.job
                         AND list_has_all([r.ranks[1]], p.tagged_ranks)) AS lone_in_paste
      FROM found r) r
ORDER BY job
