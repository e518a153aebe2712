-- name: job_ranks
-- description: One row per rank of a job: its latest pod incarnation, node and GPU.
-- inputs: ranks, pods
-- params: job_key VARCHAR
-- columns:
--   rank BIGINT
--   pod VARCHAR           -- pod of the latest incarnation
--   node VARCHAR
--   gpu_uuid VARCHAR      -- null when unknown
--   incarnations BIGINT   -- pod incarnations the rank ran in
--   node_unknown VARCHAR  -- why node is null: named-ranks, unscheduled or no-node (k10s_forensics/analyze/node_unknown.py); null when known
-- grain: rank
SELECT
    rank::BIGINT AS rank,
    arg_max(pod, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod))::VARCHAR AS pod,
    arg_max(node, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod))::VARCHAR AS node,
    arg_max(gpu_uuid, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod))::VARCHAR AS gpu_uuid,
    count(DISTINCT r.pod_uid)::BIGINT AS incarnations,
    CASE WHEN arg_max(r.node, (coalesce(r.started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), r.pod_uid, r.pod)) IS NULL THEN
        arg_max(CASE WHEN r.rank_source = 'named-ranks' THEN 'named-ranks' WHEN p.scheduled IS FALSE OR p.phase = 'Pending' THEN 'unscheduled'
                     ELSE 'no-node' END, (coalesce(r.started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), r.pod_uid, r.pod)) END::VARCHAR AS node_unknown
FROM ranks r LEFT JOIN (SELECT pod_uid, bool_or(scheduled) AS scheduled, min(phase) AS phase FROM pods GROUP BY pod_uid) p USING (pod_uid)
WHERE r.namespace || '/' || r.job = $job_key AND r.rank IS NOT NULL
GROUP BY r.rank
ORDER BY rank
