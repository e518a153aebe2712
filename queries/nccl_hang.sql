-- id: nccl-hang
-- title: A rank stopped answering and the others timed out waiting for it
-- severity: critical
-- requires: k10s_job_log, ranks
-- gate: EXISTS (SELECT 1 FROM log_events WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary', 'nccl_desync',
--                                                    'flight_recorder_missing_ranks', 'pipeline_stage', 'serving_wait')
--          OR (kind = 'collective_mismatch' AND subkind IN ('fingerprint', 'fingerprint_self', 'fingerprint_cut', 'neff_cc_ops'))
--          OR (kind = 'rank_joining' AND subkind = 'store_barrier')
--          OR (kind = 'python_exception' AND (error_message LIKE '%clients joined%'
--              OR regexp_matches(error_message, '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation|\b(?:read|write) timeout\b|application timeout caused pair closure|^operation timed out!')
--              OR (subkind = 'teardown' AND regexp_matches(error_message, '(?i)connection (?:closed|reset) by peer')))))
--   OR EXISTS (SELECT 1 FROM flight_recorder) OR EXISTS (SELECT 1 FROM nccl_ras)
--   OR EXISTS (SELECT 1 FROM log_events e JOIN pods p ON p.pod_ip = e.peer_ip WHERE e.kind = 'nccl_remote_error')
-- description: Ranks that timed out in the PyTorch NCCL watchdog on the same SeqNum and
--   OpType (or in a gloo send/recv) are victims; a desync report or collective fingerprint mismatch is a hang
--   incident even without a timeout, and so are NCCL remote errors naming a pod of the job's own with no timeout and
--   no rank failing on its own (the peer died without a word). The culprit comes from the hang evidence verdict
--   (k10s_hang_verdict: flight-recorder > ras > desync-report > fingerprint >
--   watchdog-compare > first-failure, strongest confidence first) and from the rule's own
--   first-failure tiers: a high-confidence verdict, else a rank that failed before the
--   collective timed out (CUDA OOM, Xid, non-signal exit), else a medium verdict or one that
--   says there is no single culprit, else a rank named as the closed remote peer by the
--   others, else a low-confidence verdict. decided_by and confidence say which evidence won.
--   Every IP in NCCL WARN, remote-error and watchdog lines is resolved to pod, ranks and
--   node using the addresses valid then. A hang that none of that names, whose every wait line names
--   one process group smaller than the world (a watchdog's non-default group whose group rank is not
--   the global one, a model-parallel group's name, a p2p op; pipelining's shape-inference records
--   beside a wait), and no rank's own failure, is said at info with no rank (group-hang): which
--   ranks wait, in which group, which ranks of the job print nothing. A serving engine's own wait on its workers
--   (vLLM's `No available shared memory broadcast block found in 60 second.`: some worker slow or stuck), with no
--   rank's own failure and no other hang evidence, is said at info with no rank (serving-wait).
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- what the culprit did: rank-failed, peer-closed, never-joined, lagging-rank, collective-mismatch (fingerprint, Flight Recorder, or the watchdog compare's op/size mismatch or earlier SeqNum of another op/size), behind, desync, rank-dead, segfault/sigbus/abort/sigfpe/sigill (a two-rank desync report's named rank dead of that signal); no-single-culprit; group-hang (info, no rank: every wait line names one process group smaller than the world); serving-wait (info, no rank: a serving engine waiting on its workers)
--   severity VARCHAR           -- info when the first failure is a CUDA OOM (oom-cascade owns it) or the verdict is weak; warning when the culprit is named only by its absence from a paste
--   ranks BIGINT[]             -- culprit ranks (empty: no single culprit)
--   pods VARCHAR[]             -- their pods
--   nodes VARCHAR[]            -- their nodes
--   gpus VARCHAR[]             -- their GPUs
--   started_at TIMESTAMP WITH TIME ZONE -- when the stuck collective began (first timeout - Timeout(ms))
--   ended_at TIMESTAMP WITH TIME ZONE   -- last watchdog timeout
--   seq_num BIGINT             -- SeqNum the victims waited on
--   op_type VARCHAR            -- OpType the victims waited on
--   timeout_ms BIGINT          -- watchdog Timeout(ms)
--   victims BIGINT             -- ranks whose watchdog fired in this incident (k10s_incident)
--   victim_ranks BIGINT[]      -- which
--   job_ranks BIGINT           -- ranks of the job
--   failure_kind VARCHAR       -- for rank-failed: cuda_oom, xid-<code>, exit-<code>
--   gpu_hours_lost DOUBLE      -- job GPUs x (abort - first failure), from k10s_incident (the same in every rule)
--   decided_by VARCHAR         -- flight-recorder, ras, desync-report, fingerprint, watchdog-compare, first-failure; group-wait (group-hang); serving-wait (serving-wait)
--   confidence VARCHAR         -- high, medium, low; none when the evidence says there is no single culprit
--   medium_why VARCHAR         -- absent-from-paste: ranks named never-joined only because a paste of the others' waits holds no line of theirs (said at warning), else null
--   suspect_ranks BIGINT[]     -- other candidates the deciding evidence names
--   decision_detail VARCHAR    -- what the deciding evidence says
--   considered VARCHAR[]       -- every hang evidence of the job: evidence/confidence: ranks
--   evidence STRUCT[]          -- resolved peer addresses and culprit events
--   wait_group VARCHAR         -- group-hang: the group every wait line names (`process group <pg>`, pipelining's shape inference)
--   group_ranks BIGINT[]       -- group-hang: each waiter's rank in that group (the watchdog's `Rank k`), in rank order
--   hand_overs VARCHAR[]       -- group-hang: the stage hand-overs the shape-inference records name (`stage 2 receiving from stage 1`)
--   silent_ranks BIGINT[]      -- group-hang: ranks of the job no line read names (silent, or not in the logs; the finding's evidence writes them as runs, `0-3, 8`)
WITH l AS (  -- the columns read below (a CTE carries every column it selects)
    SELECT job_key, rank_resolved, kind, subkind, seq_num, op_type, timeout_ms, ran_for_ms, ts, pod_key, event_id, incarnation_uid,
           xid, exit_code, raw_row, line_no, line, peer_ip
    FROM k10s_log WHERE job_key IS NOT NULL
),
timeouts AS (  -- the NCCL watchdog's, and gloo's own send/recv wait timeouts (no SeqNum: k10s_gloo_wait)
    SELECT job_key, rank_resolved AS rank, seq_num, op_type, timeout_ms, ran_for_ms, ts, pod_key, event_id
    FROM l WHERE kind = 'nccl_watchdog_timeout' AND rank_resolved IS NOT NULL
    UNION ALL  -- torch >= 2.4's `Exception (either an error or timeout) detected by watchdog at work: W` of a rank with no
               -- timeout line of its own: it waits on work W as `Timeout at NCCL work: W` says (session 60)
    SELECT job_key, rank_resolved, seq_num, NULL::VARCHAR, NULL::BIGINT, NULL::BIGINT, ts, pod_key, event_id
    FROM l WHERE kind = 'watchdog_exception_summary' AND subkind = 'exception_detected' AND seq_num IS NOT NULL
      AND rank_resolved IS NOT NULL
      AND (job_key, rank_resolved) NOT IN (SELECT (job_key, rank_resolved) FROM l WHERE kind = 'nccl_watchdog_timeout')
    UNION ALL
    SELECT job_key, rank, NULL::BIGINT, NULL::VARCHAR, timeout_ms, NULL::BIGINT, ts, pod_key, event_id FROM k10s_gloo_wait
),
incident_wd AS (  -- per job: the collective most ranks timed out on
    SELECT
        job_key, seq_num, op_type, count(DISTINCT rank) AS victims, list(DISTINCT rank ORDER BY rank) AS victim_ranks,
        min(ts) AS t_first, max(ts) AS t_last, max(timeout_ms) AS timeout_ms, max(ran_for_ms) AS ran_for_ms
    FROM timeouts GROUP BY job_key, seq_num, op_type
    -- ties: the collective the lines name most fully (a line without OpType is a sibling of one with it)
    QUALIFY row_number() OVER (PARTITION BY job_key ORDER BY count(DISTINCT rank) DESC, min(ts), op_type IS NULL, seq_num IS NULL,
                                                             max(timeout_ms) IS NULL, seq_num, op_type) = 1
),
incident_v AS (  -- plus jobs whose desync report / fingerprint / FR / RAS evidence names a culprit without a timeout
    SELECT * FROM incident_wd
    UNION ALL
    SELECT v.job_key, v.seq_num, v.op_type, 0, []::BIGINT[], v.ts, v.ts, NULL, NULL  -- "failed before" = before the report
    FROM k10s_hang_verdict v
    WHERE (v.evidence IN ('flight-recorder', 'ras', 'desync-report', 'fingerprint')
           OR (v.evidence = 'watchdog-compare' AND v.job_key NOT IN (SELECT job_key FROM timeouts)))  -- a peer that ended without a word
      AND len(v.culprit_ranks) > 0
      AND v.confidence IN ('high', 'medium') AND v.job_key NOT IN (SELECT job_key FROM incident_wd)
),
remote_only AS (  -- plus jobs whose ranks got NCCL's remote error naming a peer address that is a pod of the same job,
                  -- with no watchdog timeout and no rank failing on its own: that pod died without a word (its node lost,
                  -- its container killed from outside), and the others' errors are all the logs hold; the closed-peer tier
                  -- below names its ranks (a paste's addresses name no pod: never an import's)
    SELECT l.job_key, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type, count(DISTINCT l.rank_resolved) AS victims,
           list(DISTINCT l.rank_resolved ORDER BY l.rank_resolved) AS victim_ranks, min(l.ts) AS t_first, max(l.ts) AS t_last,
           NULL::BIGINT AS timeout_ms, NULL::BIGINT AS ran_for_ms
    FROM l JOIN k10s_ip ip ON ip.ip = l.peer_ip AND ip.ip_kind = 'pod' AND ip.job_key = l.job_key
     AND l.ts BETWEEN ip.valid_from - INTERVAL 5 MINUTE AND ip.valid_to + INTERVAL 5 MINUTE
    WHERE l.kind = 'nccl_remote_error' AND l.incarnation_uid IS DISTINCT FROM ip.pod_uid  -- another pod's report (its rank or none)
      AND NOT list_contains(coalesce(ip.ranks, []::BIGINT[]), l.rank_resolved)
      AND l.job_key NOT IN (SELECT job_key FROM incident_v)
      AND l.job_key NOT IN (SELECT job_key FROM k10s_failure_line WHERE role = 'own' AND job_key IS NOT NULL)
    GROUP BY l.job_key
),
incident AS (
    SELECT * FROM incident_v
    UNION ALL
    SELECT * FROM remote_only
),
job_ranks AS (  -- the incarnation of every rank alive when the collective started
    SELECT i.job_key, r.rank, r.pod_key, r.pod_uid, r.node, r.gpu_uuid
    FROM incident i JOIN k10s_rank r ON r.job_key = i.job_key
     AND (i.t_first IS NULL  -- a report without a timestamp: the newest incarnation of every rank
          OR (i.t_first - to_milliseconds(coalesce(i.timeout_ms, 600000)) - INTERVAL 10 MINUTE <= r.valid_to AND r.valid_from <= i.t_last))
    QUALIFY row_number() OVER (PARTITION BY i.job_key, r.rank ORDER BY r.valid_from DESC, r.pod_key, r.pod_uid) = 1
),
pods_with_logs AS (
    SELECT DISTINCT incarnation_uid FROM l
),
failed AS (  -- errors before the collective timed out
    SELECT l.job_key, l.rank_resolved AS rank, min(l.ts) AS ts,
           arg_min(CASE WHEN l.kind = 'cuda_oom' THEN 'cuda_oom'
                        WHEN l.kind = 'xid' THEN 'xid-' || l.xid
                        ELSE 'exit-' || l.exit_code END, (l.ts, l.raw_row, l.line_no, l.event_id)) AS failure_kind,
           arg_min(l.line, (l.ts, l.raw_row, l.line_no, l.event_id)) AS line
    FROM l JOIN incident i USING (job_key)
    WHERE l.rank_resolved IS NOT NULL
      AND (l.kind IN ('cuda_oom', 'xid') OR (l.kind = 'torchrun_failure' AND l.exit_code > 0
           -- an exit status its own "Connection closed/reset by peer" explains (within a minute before) is a victim's
           AND NOT EXISTS (SELECT 1 FROM k10s_peer_closed p WHERE p.job_key = l.job_key AND p.rank = l.rank_resolved
                           AND p.incarnation_uid IS NOT DISTINCT FROM l.incarnation_uid
                           AND p.ts BETWEEN l.ts - INTERVAL 60 SECOND AND l.ts)
           -- nor the exit status the first-failure reading found in a log cut at its head mid-incident (k10s_incident's
           -- head_cut: the rank's own error, or an earlier failure, may lie above the cut)
           AND NOT EXISTS (SELECT 1 FROM k10s_incident hc WHERE hc.job_key = l.job_key AND hc.head_cut AND hc.first_rank = l.rank_resolved)
           -- (session 72) nor a waiter's: an exit status whose rank's own errors are all a wait's or a peer's (its line's,
           -- or its failure-table entry's quoted error file: gloo's `Timed out waiting 3000ms for recv operation`, a
           -- closed connection; the failure lines' victim, k10s_failure_line), or a rank's bare exit that a shown rank's
           -- timed-out wait explains (k10s_wait_exit_alike): it waited, it did not fail first
           AND l.event_id NOT IN (SELECT event_id FROM k10s_failure_line WHERE role = 'victim')
           AND l.event_id NOT IN (SELECT event_id FROM k10s_wait_exit_alike)))
      AND l.ts <= i.t_first AND l.ts >= i.t_first - to_milliseconds(coalesce(i.timeout_ms, 600000)) - INTERVAL 15 MINUTE
    GROUP BY l.job_key, l.rank_resolved
    UNION ALL
    SELECT x.job_key, x.rank, min(x.ts), arg_min('xid-' || x.xid, (x.ts, x.xid, x.source, x.line)),
           arg_min(coalesce(x.line, 'Xid ' || x.xid || ' (' || x.source || ')'), (x.ts, x.xid, x.source, x.line))
    FROM k10s_xid_event x JOIN incident i USING (job_key)
    WHERE x.rank IS NOT NULL AND x.fatal
      AND x.ts <= i.t_first AND x.ts >= i.t_first - to_milliseconds(coalesce(i.timeout_ms, 600000)) - INTERVAL 15 MINUTE
    GROUP BY x.job_key, x.rank
),
peer_refs AS (  -- every address named in NCCL WARN / remote-error / watchdog lines, resolved
    SELECT
        l.job_key, l.rank_resolved AS reporter, l.kind, l.ts, l.peer_ip,
        ip.pod_key AS peer_pod, ip.node AS peer_node, ip.ranks AS peer_ranks, ip.ip_kind
    FROM l
    LEFT JOIN LATERAL (
        SELECT * FROM k10s_ip ip
        WHERE ip.ip = l.peer_ip AND l.ts BETWEEN ip.valid_from - INTERVAL 5 MINUTE AND ip.valid_to + INTERVAL 5 MINUTE
        ORDER BY ip.ip_kind = 'pod' DESC, ip.valid_from DESC, ip.ip_kind, ip.pod_uid, ip.node LIMIT 1
    ) ip ON true
    WHERE l.peer_ip IS NOT NULL
),
named AS (  -- ranks of peer pods that others say closed the connection (not themselves victims)
    SELECT job_key, rank, count(*) AS mentions
    FROM (SELECT p.job_key, unnest(p.peer_ranks) AS rank FROM peer_refs p WHERE p.kind = 'nccl_remote_error' AND p.peer_ranks IS NOT NULL)
    GROUP BY job_key, rank
),
status AS (
    SELECT
        jr.*, i.seq_num, i.op_type, i.victim_ranks,
        f.ts AS failed_at, f.failure_kind, f.line AS failure_line,
        n.mentions,
        t.seq_num AS own_seq, t.op_type AS own_op,
        jr.pod_uid IN (SELECT incarnation_uid FROM pods_with_logs) AS has_logs
    FROM job_ranks jr
    JOIN incident i USING (job_key)
    LEFT JOIN failed f ON f.job_key = jr.job_key AND f.rank = jr.rank
    LEFT JOIN named n ON n.job_key = jr.job_key AND n.rank = jr.rank AND NOT list_contains(i.victim_ranks, jr.rank)
    LEFT JOIN (SELECT job_key, rank, arg_max(seq_num, (ts, event_id)) FILTER (WHERE ts IS NOT NULL) AS seq_num,
                      arg_max(op_type, (ts, event_id)) FILTER (WHERE ts IS NOT NULL) AS op_type FROM timeouts GROUP BY ALL) t
      ON t.job_key = jr.job_key AND t.rank = jr.rank
),
own AS (  -- the rule's own first-failure tiers: a rank that failed first, a closed remote peer
    SELECT *, CASE WHEN failed_at IS NOT NULL THEN 1 WHEN mentions IS NOT NULL THEN 2 END AS tier,
           min(failed_at) OVER (PARTITION BY job_key) AS first_failed_at
    FROM status
),
own_best AS (
    SELECT job_key, min(tier) AS tier FROM own WHERE tier IS NOT NULL GROUP BY job_key
),
decision AS (  -- which evidence decides (see the header)
    SELECT i.job_key, v.evidence, v.confidence, v.culprit_ranks, v.suspect_ranks, v.detail, v.considered, o.tier,
        CASE
            WHEN v.confidence = 'high' AND len(v.culprit_ranks) > 0 THEN 'verdict'
            WHEN o.tier = 1 THEN 'own'
            WHEN v.confidence = 'medium' AND len(v.culprit_ranks) > 0 THEN 'verdict'
            WHEN v.confidence = 'none' THEN 'none'
            WHEN o.tier = 2 THEN 'own'
            WHEN len(v.culprit_ranks) > 0 THEN 'verdict'
        END AS source
    FROM incident i
    LEFT JOIN k10s_hang_verdict v ON v.job_key = i.job_key
    LEFT JOIN own_best o ON o.job_key = i.job_key
),
culprits AS (
    SELECT c.*, d.source FROM own c JOIN decision d ON d.job_key = c.job_key AND d.source = 'own' AND c.tier = d.tier
    WHERE c.tier <> 1 OR c.failed_at <= c.first_failed_at + INTERVAL 60 SECOND
    UNION ALL BY NAME
    SELECT s.*, NULL AS tier, NULL AS first_failed_at, d.source FROM status s JOIN decision d ON d.job_key = s.job_key AND d.source = 'verdict' AND list_contains(d.culprit_ranks, s.rank)
),
picked AS (  -- one row per incident: its culprits (none when no evidence names one)
    SELECT i.*, d.source, d.tier AS own_tier, d.evidence AS v_evidence, d.confidence AS v_confidence, d.culprit_ranks AS v_ranks,
           d.suspect_ranks AS v_suspects, d.detail AS v_detail, d.considered,
           -- ranks named never-joined only by their absence from a paste (docs/rules.md, "What a paste cannot prove"): every
           -- line of the job is from a pod import-logs made up from a paste and none is a named rank's own: whether they
           -- hung or their lines were left out of the paste, the paste cannot say
           coalesce(d.source = 'verdict' AND d.evidence = 'watchdog-compare' AND starts_with(d.detail, 'never-joined:')
                    AND EXISTS (SELECT 1 FROM k10s_paste_job p WHERE p.job_key = i.job_key
                                AND NOT list_has_any(p.own_ranks, d.culprit_ranks)), false) AS absent_in_paste
    FROM incident i JOIN decision d USING (job_key)
    -- (a lone rank's wait is still said, at info with no rank: the job hung, though the logs cannot say who stalled it)
    WHERE d.source IS NOT NULL OR i.victims >= 1
),
-- group_hang (docs/rules.md, "Session 35: leftovers"): a hang whose every wait line names one process group smaller
-- than the world, said at info with no rank named: what the log shows (which ranks wait, in which group, the rest
-- silent), not who is at fault (the stalled member may be any rank of the group, or one outside it)
gwait AS (  -- the wait lines that say their group: the watchdog's `[PG ID 6 PG GUID 266(PIPELINE_MODEL_PARALLEL_GROUP) Rank 6]`,
            -- pipelining's `Shape inference: stage 2 receiving from stage 1` (its pg), c10d's poll waking empty
    SELECT job_key, rank_resolved AS rank, kind, pg, pg_rank, seq_num, op_type, timeout_ms, ts,
           (pg = '0' OR pg LIKE '0(%' OR pg LIKE '%default\_pg%' ESCAPE '\') AS default_pg  -- NULL where no group is named
    FROM k10s_log WHERE job_key IS NOT NULL
      AND kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary', 'pipeline_stage', 'c10d_wait')
),
gwr AS (  -- per waiter of the watchdog: the group its lines name (a line may name it, its neighbour only `[Rank 13]`)
    SELECT job_key, rank,
        min(pg) FILTER (WHERE NOT default_pg) AS pg_named,
        bool_or(default_pg) AS on_default,
        min(pg_rank) AS pg_rank_min,
        -- smaller than the world by the lines' own words: a group rank that is not the global one, a model-parallel
        -- group's name (Megatron's PIPELINE/TENSOR/EXPERT/CONTEXT_MODEL_PARALLEL_GROUP, a device mesh's dimension), a p2p op
        bool_or(pg_rank <> rank OR regexp_matches(coalesce(pg, ''), '(?i)(?:pipeline|tensor|expert|context)_(?:model_)?parallel|\(mesh_|\((?:pp|tp|ep|cp)\)')
                OR op_type IN ('SEND', 'RECV', '_SEND', '_RECV')) AS smaller
    FROM gwait WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') GROUP BY job_key, rank
),
gjob AS (  -- per job: the watchdogs' group (each waiter's a group's other than the default one, one group), or the stages
    SELECT w.job_key,
        coalesce(d.wd_ranks, 0) AS wd_lines, coalesce(d.wd_groups, 0) AS wd_groups, d.wd_pg, coalesce(d.wd_world, 0) AS wd_world,
        coalesce(d.wd_smaller, false) AS wd_smaller,
        count(*) FILTER (WHERE w.kind = 'pipeline_stage') AS stage_lines,
        count(*) FILTER (WHERE w.kind = 'c10d_wait') AS polls
    FROM gwait w
    LEFT JOIN (SELECT job_key, count(rank) AS wd_ranks, count(DISTINCT pg_named) AS wd_groups, min(pg_named) AS wd_pg,
                      -- a waiter on the default group, or one whose lines name no group and no group rank of their own (the
                      -- untagged lines of no known rank, a watchdog's C++ stack, say nothing of it either way)
                      count(*) FILTER (WHERE coalesce(on_default, false)
                                          OR (rank IS NOT NULL AND pg_named IS NULL AND NOT coalesce(smaller, false))) AS wd_world,
                      bool_or(coalesce(smaller, false)) AS wd_smaller
               FROM gwr GROUP BY job_key) d ON d.job_key = w.job_key
    GROUP BY w.job_key, d.wd_ranks, d.wd_groups, d.wd_pg, d.wd_world, d.wd_smaller
),
gsel AS (  -- the jobs it speaks for: no rank's own failure (the incident reading's: a member's own error names it, or is
           -- said at info, as before) and no evidence deciding the hang above (a verdict, a first failure): the row
           -- above that only says no evidence names a culprit gives way to it
    SELECT g.*, CASE WHEN g.wd_lines > 0 THEN 'pg' ELSE 'stages' END AS how
    FROM gjob g
    WHERE ((g.wd_lines > 0 AND g.wd_world = 0 AND g.wd_groups = 1 AND g.wd_smaller)
           -- the stages' records are a healthy start's too: only beside a wait (c10d's poll, gloo's own timeout)
           OR (g.wd_lines = 0 AND g.stage_lines > 0 AND (g.polls > 0 OR g.job_key IN (SELECT job_key FROM k10s_gloo_wait))))
      AND g.job_key NOT IN (SELECT job_key FROM picked WHERE source IS NOT NULL)  -- its evidence-less hang is said so instead
      AND g.job_key NOT IN (SELECT job_key FROM k10s_incident WHERE cause IS NOT NULL OR len(culprit_ranks) > 0)
      -- two waiters of one group rank are in two groups of one id (each rank's own instance of it): no one group
      AND g.job_key NOT IN (SELECT job_key FROM gwr WHERE rank IS NOT NULL AND pg_rank_min IS NOT NULL
                            GROUP BY job_key, pg_rank_min HAVING count(*) > 1)
),
gwaiters AS (  -- each waiting rank: its group rank (the watchdog's) or its stage hand-over (the last record it printed)
    SELECT s.job_key, w.rank, s.how,
           min(w.pg_rank) AS group_rank, arg_max(w.pg, (w.ts IS NOT NULL, w.ts, w.pg)) AS hand_over,
           min(w.seq_num) AS seq_num, min(w.op_type) AS op_type, max(w.timeout_ms) AS timeout_ms, min(w.ts) AS t0, max(w.ts) AS t1
    FROM gsel s JOIN gwait w ON w.job_key = s.job_key
     AND CASE s.how WHEN 'pg' THEN w.kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') ELSE w.kind = 'pipeline_stage' END
    WHERE w.rank IS NOT NULL
    GROUP BY s.job_key, w.rank, s.how
),
group_hang AS (
    SELECT s.job_key, s.how, s.wd_pg, list(w.rank ORDER BY w.rank) AS waiters,
           list(DISTINCT w.hand_over ORDER BY w.hand_over) FILTER (WHERE s.how = 'stages') AS hand_overs,
           list(w.group_rank ORDER BY w.rank) FILTER (WHERE s.how = 'pg') AS group_ranks,
           min(w.seq_num) AS seq_num, min(w.op_type) AS op_type, max(w.timeout_ms) AS timeout_ms,
           min(w.t0) AS t0, (SELECT max(ts) FROM gwait x WHERE x.job_key = s.job_key) AS t1
    FROM gsel s JOIN gwaiters w USING (job_key)
    GROUP BY s.job_key, s.how, s.wd_pg
),
group_rows AS (
    SELECT g.job_key AS job, 'group-hang' AS cause, 'info' AS severity, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods,
           []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus,
           CASE WHEN g.t0 IS NOT NULL AND g.how = 'pg' THEN g.t0 - to_milliseconds(coalesce(g.timeout_ms, 0)) ELSE g.t0 END AS started_at,
           g.t1 AS ended_at, g.seq_num, g.op_type, g.timeout_ms, len(g.waiters)::BIGINT AS victims, g.waiters AS victim_ranks,
           (SELECT count(DISTINCT r.rank) FROM k10s_rank r WHERE r.job_key = g.job_key) AS job_ranks,
           NULL::VARCHAR AS failure_kind,
           -- one incident, one cost: the incident reading's (none where it saw no wait, pipelining's records alone)
           (SELECT max(ki.gpu_hours_lost) FROM k10s_incident ki WHERE ki.job_key = g.job_key) AS gpu_hours_lost,
           'group-wait' AS decided_by, 'none' AS confidence,
           []::BIGINT[] AS suspect_ranks,
           CASE g.how WHEN 'pg' THEN 'process group ' || g.wd_pg ELSE 'pipelining''s shape inference' END AS wait_group,
           g.group_ranks, g.hand_overs,
           (SELECT list(DISTINCT r.rank ORDER BY r.rank) FROM k10s_rank r WHERE r.job_key = g.job_key
              AND r.rank NOT IN (SELECT x.rank_resolved FROM k10s_log x WHERE x.job_key = g.job_key AND x.rank_resolved IS NOT NULL)) AS silent_ranks
    FROM group_hang g
),
serving_rows AS (  -- (serving-wait, session 63) a serving engine waiting on its workers: the waiter's words, no rank
    SELECT w.job_key AS job, 'serving-wait' AS cause, 'info' AS severity, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods,
           []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus, min(w.ts) AS started_at, max(w.ts) AS ended_at,
           0::BIGINT AS victims, []::BIGINT[] AS victim_ranks, 'serving-wait' AS decided_by, 'none' AS confidence,
           []::BIGINT[] AS suspect_ranks, count(*) || ' wait line(s): ' || min(w.subkind) AS decision_detail,
           (SELECT count(DISTINCT r.rank) FROM k10s_rank r WHERE r.job_key = w.job_key) AS job_ranks
    FROM k10s_log w
    WHERE w.kind = 'serving_wait' AND w.job_key IS NOT NULL
      AND w.job_key NOT IN (SELECT job_key FROM picked)
      AND w.job_key NOT IN (SELECT job_key FROM gsel)
      AND w.job_key NOT IN (SELECT job_key FROM k10s_incident WHERE cause IS NOT NULL OR len(culprit_ranks) > 0)
    GROUP BY w.job_key
)
SELECT
    i.job_key AS job,
    CASE i.source
        WHEN 'own' THEN CASE i.own_tier WHEN 1 THEN 'rank-failed' ELSE 'peer-closed' END
        WHEN 'verdict' THEN CASE  -- what the culprit did, by what the deciding evidence says
            -- a two-rank report whose named rank died of a fatal signal (queries/_evidence_logs.sql desync_dead): that signal
            WHEN i.v_evidence = 'desync-report' AND regexp_matches(i.v_detail, 'did not join died \((segfault|sigbus|abort|sigfpe|sigill)\)')
                THEN regexp_extract(i.v_detail, 'did not join died \((\w+)\)', 1)
            WHEN i.v_evidence = 'desync-report' THEN CASE WHEN i.v_detail LIKE '%(not\_finished)%' ESCAPE '\' THEN 'lagging-rank' ELSE 'never-joined' END
            WHEN i.v_evidence = 'fingerprint' THEN 'collective-mismatch'
            -- another op or size on the SeqNum the others wait on is a collective mismatch, as the fingerprint's and the
            -- Flight Recorder's are (the detail keeps which: op-mismatch / size-mismatch); so is an earlier SeqNum of another
            -- op or size than the others' (seq-mismatch, session 30)
            WHEN i.v_evidence = 'watchdog-compare' THEN CASE WHEN split_part(i.v_detail, ':', 1) IN ('op-mismatch', 'size-mismatch', 'seq-mismatch')
                THEN 'collective-mismatch' ELSE split_part(i.v_detail, ':', 1) END
            WHEN i.v_evidence = 'first-failure' THEN 'rank-failed'
            WHEN i.v_evidence = 'flight-recorder' AND i.v_detail LIKE '%differs across ranks%' THEN 'collective-mismatch'
            WHEN i.v_evidence = 'ras' AND i.v_detail LIKE '%: dead %' THEN 'rank-dead'
            WHEN i.v_evidence = 'ras' AND i.v_detail LIKE '%MISMATCH%' THEN 'behind'
            ELSE 'never-joined' END
        ELSE 'no-single-culprit'
    END AS cause,
    CASE WHEN i.source IS NULL THEN 'info'
         -- weak evidence (two silent ranks among few reports, a 2-rank op mismatch) is said, not charged
         WHEN i.source = 'verdict' AND i.v_confidence = 'low' THEN 'info'
         WHEN i.source = 'none' THEN 'warning'
         WHEN i.absent_in_paste THEN 'warning'
         WHEN i.source = 'own' AND i.own_tier = 1 AND min(c.failure_kind) = 'cuda_oom' THEN 'info'
         ELSE 'critical' END AS severity,
    CASE WHEN i.source = 'verdict' THEN list_sort(i.v_ranks)
         ELSE coalesce(list(DISTINCT c.rank ORDER BY c.rank) FILTER (WHERE c.rank IS NOT NULL), []) END AS ranks,
    coalesce(list(DISTINCT c.pod_key ORDER BY c.pod_key) FILTER (WHERE c.pod_key IS NOT NULL), []) AS pods,
    coalesce(list(DISTINCT c.node ORDER BY c.node) FILTER (WHERE c.node IS NOT NULL), []) AS nodes,
    coalesce(list(DISTINCT c.gpu_uuid ORDER BY c.gpu_uuid) FILTER (WHERE c.gpu_uuid IS NOT NULL), []) AS gpus,
    CASE WHEN i.victims > 0 THEN i.t_first - to_milliseconds(coalesce(i.timeout_ms, 600000)) ELSE i.t_first END AS started_at,
    i.t_last AS ended_at,
    i.seq_num, i.op_type, i.timeout_ms,
    coalesce(min(ki.watchdog_victims), i.victims) AS victims, i.victim_ranks,
    (SELECT count(*) FROM job_ranks jr WHERE jr.job_key = i.job_key) AS job_ranks,
    min(c.failure_kind) AS failure_kind,
    -- one incident, one cost: read from k10s_incident (queries/_incident.sql); none when no watchdog wait was logged
    CASE WHEN i.victims > 0 THEN coalesce(min(ki.gpu_hours_lost), round(coalesce(js.gpus, i.victims) * coalesce(i.ran_for_ms, i.timeout_ms, 600000) / 3600000.0, 3)) END AS gpu_hours_lost,
    CASE i.source WHEN 'own' THEN 'first-failure' ELSE i.v_evidence END AS decided_by,
    CASE i.source WHEN 'own' THEN CASE i.own_tier WHEN 1 THEN 'high' ELSE 'medium' END
                  WHEN 'verdict' THEN i.v_confidence ELSE 'none' END AS confidence,
    CASE WHEN i.absent_in_paste AND i.v_confidence <> 'low' THEN 'absent-from-paste' END AS medium_why,
    CASE WHEN i.source = 'verdict' THEN coalesce(i.v_suspects, []) ELSE []::BIGINT[] END AS suspect_ranks,
    CASE WHEN i.source IN ('verdict', 'none') THEN i.v_detail
         WHEN i.source = 'own' THEN CASE i.own_tier WHEN 1 THEN 'a rank failed before the collective timed out' ELSE 'the others name its address as the closed remote peer' END
         -- one rank's wait alone (a lone watchdog pasted, session 57): the job hung, and who left it waiting is not in the logs
         WHEN i.victims = 1 THEN 'one rank''s wait alone: the job hung, and no other rank''s wait or failure is in the logs, so '
              || 'which rank failed to join the collective is not said'
         ELSE 'no evidence names a culprit: ' || i.victims || ' rank(s) timed out and no rank is known to have failed, lagged or been silent while most ranks reported'
    END AS decision_detail,
    coalesce(i.considered, []::VARCHAR[]) AS considered,
    list_concat(
        coalesce(list({'what': 'culprit', 'rank': c.rank, 'pod': c.pod_key, 'node': c.node, 'gpu': c.gpu_uuid,
              'own_seq_num': c.own_seq, 'own_op_type': c.own_op, 'failure': c.failure_line,
              'named_by_peers': c.mentions, 'has_logs': c.has_logs,
              'peer_ip': NULL::VARCHAR, 'resolved_pod': NULL::VARCHAR, 'resolved_node': NULL::VARCHAR, 'resolved_ranks': NULL::BIGINT[], 'reports': NULL::BIGINT}
             ORDER BY c.rank, c.pod_key, c.node, c.gpu_uuid, c.failure_line, c.own_seq, c.own_op) FILTER (WHERE c.rank IS NOT NULL), []),
        coalesce((SELECT list({'what': 'peer-address', 'rank': NULL::BIGINT, 'pod': NULL::VARCHAR, 'node': NULL::VARCHAR, 'gpu': NULL::VARCHAR,
                               'own_seq_num': NULL::BIGINT, 'own_op_type': NULL::VARCHAR, 'failure': NULL::VARCHAR,
                               'named_by_peers': NULL::BIGINT, 'has_logs': NULL::BOOLEAN,
                               'peer_ip': peer_ip, 'resolved_pod': peer_pod, 'resolved_node': peer_node, 'resolved_ranks': peer_ranks, 'reports': n}
                              ORDER BY n DESC, peer_ip)
                  FROM (SELECT peer_ip, arg_max(peer_pod, (ts IS NOT NULL, ts, peer_pod)) AS peer_pod,  -- the newest resolution
                               arg_max(peer_node, (ts IS NOT NULL, ts, peer_pod, peer_node)) AS peer_node,
                               arg_max(peer_ranks, (ts IS NOT NULL, ts, peer_pod, peer_ranks)) AS peer_ranks, count(*) AS n
                        FROM peer_refs p WHERE p.job_key = i.job_key GROUP BY peer_ip)), [])
    ) AS evidence
FROM picked i
LEFT JOIN culprits c ON c.job_key = i.job_key
LEFT JOIN k10s_job_size js ON js.job_key = i.job_key
LEFT JOIN LATERAL (  -- the incident of this hang: the one whose collective started nearest (k10s_incident)
    SELECT ki.gpu_hours_lost, ki.watchdog_victims FROM k10s_incident ki
    WHERE ki.job_key = i.job_key AND ki.watchdog_victims > 0
    ORDER BY abs(epoch(ki.hang_started_at) - epoch(i.t_first - to_milliseconds(coalesce(i.timeout_ms, 600000)))) NULLS LAST, ki.incident
    LIMIT 1
) ki ON true
WHERE i.source IS NOT NULL OR i.job_key NOT IN (SELECT job_key FROM gsel)
GROUP BY i.job_key, i.seq_num, i.op_type, i.timeout_ms, i.victims, i.victim_ranks, i.t_first, i.t_last, i.ran_for_ms, js.gpus,
         i.source, i.own_tier, i.v_evidence, i.v_confidence, i.v_detail, i.v_suspects, i.considered, i.v_ranks, i.absent_in_paste
UNION ALL BY NAME
SELECT * FROM group_rows
UNION ALL BY NAME
SELECT * FROM serving_rows
ORDER BY job
