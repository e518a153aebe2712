-- name: pending_pods
-- description: Pods waiting in the scheduler (phase Pending, not finished) at the end of
--   the capture, with their job, GPU request, queue label and the scheduler's last word:
--   the Queue view's rows when Kueue does not (or does not yet) hold them.
-- inputs: pods
-- params: (none)
-- columns: pod VARCHAR (namespace/pod), job_key VARCHAR, gpu_request BIGINT, queue_name VARCHAR,
--   created_at TIMESTAMPTZ, message VARCHAR
-- grain: pod
SELECT
    (namespace || '/' || pod)::VARCHAR AS pod,
    CASE WHEN job IS NOT NULL THEN namespace || '/' || job END::VARCHAR AS job_key,
    gpu_request::BIGINT AS gpu_request, queue_name::VARCHAR AS queue_name, created_at,
    coalesce(unschedulable_message, message, reason)::VARCHAR AS message
FROM pods
WHERE phase = 'Pending' AND finished_at IS NULL AND deleted_at IS NULL
QUALIFY row_number() OVER (PARTITION BY namespace, pod ORDER BY last_seen_at DESC NULLS LAST, pod_uid) = 1
ORDER BY job_key NULLS LAST, pod
