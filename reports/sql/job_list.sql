-- name: job_list
-- description: Training jobs that have ranks, biggest first, with state and restarts.
-- inputs: ranks, jobs, pods
-- params: (none)
-- columns:
--   job_key VARCHAR      -- namespace/job
--   kind VARCHAR         -- PyTorchJob, JobSet, ...
--   world_size BIGINT    -- from the spec (null when unknown)
--   ranks_n BIGINT       -- distinct ranks seen
--   nodes_n BIGINT       -- distinct nodes the ranks ran on
--   incarnations BIGINT  -- pod incarnations (restarts make more)
--   state VARCHAR        -- job state (last condition)
--   restart_attempts BIGINT
--   message VARCHAR      -- message of the last condition
--   unplaced_n BIGINT    -- distinct ranks with no node
--   node_unknown VARCHAR -- why they have none: named-ranks, unscheduled or no-node (k10s_forensics/analyze/node_unknown.py)
-- grain: job_key
WITH latest AS (  -- each rank's latest incarnation, as job_ranks shows it: on no node, and why
    SELECT
        r.namespace || '/' || r.job AS job_key,
        r.rank,
        arg_max(r.node, (coalesce(r.started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), r.pod_uid, r.pod)) IS NULL AS unplaced,
        arg_max(CASE WHEN r.rank_source = 'named-ranks' THEN 'named-ranks' WHEN p.scheduled IS FALSE OR p.phase = 'Pending' THEN 'unscheduled'
                     ELSE 'no-node' END, (coalesce(r.started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), r.pod_uid, r.pod)) AS why
    FROM ranks r LEFT JOIN (SELECT pod_uid, bool_or(scheduled) AS scheduled, min(phase) AS phase FROM pods GROUP BY pod_uid) p USING (pod_uid)
    WHERE r.job IS NOT NULL AND r.rank IS NOT NULL
    GROUP BY 1, 2
),
rk AS (
    SELECT
        namespace || '/' || job AS job_key,
        min(job_kind) AS kind,
        max(world_size) AS world_size,
        count(DISTINCT rank) AS ranks_n,
        count(DISTINCT node) AS nodes_n,
        count(DISTINCT pod_uid) AS incarnations
    FROM ranks
    WHERE job IS NOT NULL AND rank IS NOT NULL
    GROUP BY 1
),
un AS (
    SELECT job_key, count(*) FILTER (WHERE unplaced) AS unplaced_n, min(why) FILTER (WHERE unplaced) AS node_unknown
    FROM latest GROUP BY 1
),
j AS (
    SELECT
        namespace || '/' || job AS job_key,
        arg_max(kind, (created_at, kind, uid)) FILTER (WHERE created_at IS NOT NULL) AS kind,
        arg_max(state, (created_at, kind, uid)) FILTER (WHERE created_at IS NOT NULL) AS state,
        arg_max(world_size, (created_at, kind, uid)) FILTER (WHERE created_at IS NOT NULL) AS world_size,
        arg_max(restart_attempts, (created_at, kind, uid)) FILTER (WHERE created_at IS NOT NULL) AS restart_attempts,
        arg_max(message, (created_at, kind, uid)) FILTER (WHERE created_at IS NOT NULL) AS message
    FROM jobs
    GROUP BY 1
)
SELECT
    rk.job_key::VARCHAR AS job_key,
    coalesce(j.kind, rk.kind)::VARCHAR AS kind,
    coalesce(j.world_size, rk.world_size)::BIGINT AS world_size,
    rk.ranks_n::BIGINT AS ranks_n,
    rk.nodes_n::BIGINT AS nodes_n,
    rk.incarnations::BIGINT AS incarnations,
    j.state::VARCHAR AS state,
    j.restart_attempts::BIGINT AS restart_attempts,
    j.message::VARCHAR AS message,
    un.unplaced_n::BIGINT AS unplaced_n,
    un.node_unknown::VARCHAR AS node_unknown
FROM rk LEFT JOIN j USING (job_key) LEFT JOIN un USING (job_key)
ORDER BY rk.ranks_n DESC, rk.job_key
