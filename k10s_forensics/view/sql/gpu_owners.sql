-- name: gpu_owners
-- description: Each GPU and the rank (job, pod) that used it last, from the ranks table.
-- inputs: ranks
-- params: (none)
-- columns: gpu_uuid VARCHAR, job_key VARCHAR, rank BIGINT, pod VARCHAR (namespace/pod)
-- grain: gpu_uuid
SELECT
    gpu_uuid::VARCHAR AS gpu_uuid,
    arg_max(namespace || '/' || job, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, rank))::VARCHAR AS job_key,
    arg_max(rank, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, rank))::BIGINT AS rank,
    arg_max(namespace || '/' || pod, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, rank))::VARCHAR AS pod
FROM ranks WHERE gpu_uuid IS NOT NULL
GROUP BY gpu_uuid
