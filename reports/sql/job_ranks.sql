-- name: job_ranks
-- description: One row per rank of a job: its latest pod incarnation, node and GPU.
-- inputs: ranks
-- params: job_key VARCHAR
-- columns:
--   rank BIGINT
--   pod VARCHAR           -- pod of the latest incarnation
--   node VARCHAR
--   gpu_uuid VARCHAR      -- null when unknown
--   incarnations BIGINT   -- pod incarnations the rank ran in
-- grain: rank
SELECT
    rank::BIGINT AS rank,
    arg_max(pod, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod))::VARCHAR AS pod,
    arg_max(node, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod))::VARCHAR AS node,
    arg_max(gpu_uuid, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod))::VARCHAR AS gpu_uuid,
    count(DISTINCT pod_uid)::BIGINT AS incarnations
FROM ranks
WHERE namespace || '/' || job = $job_key AND rank IS NOT NULL
GROUP BY rank
ORDER BY rank
