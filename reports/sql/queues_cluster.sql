-- name: queues_cluster
-- description: Kueue ClusterQueues with their quota and usage per flavor and resource.
-- inputs: kueue_cluster_queues
-- params: (none)
-- columns: cluster_queue, cohort, flavor, resource VARCHAR; nominal_quota, used, reserved,
--   borrowed, borrowing_limit DOUBLE; pending_workloads, admitted_workloads BIGINT;
--   active BOOLEAN; active_reason, active_message VARCHAR
-- grain: cluster_queue, flavor, resource
SELECT
    cluster_queue::VARCHAR AS cluster_queue, cohort::VARCHAR AS cohort, flavor::VARCHAR AS flavor, resource::VARCHAR AS resource,
    nominal_quota::DOUBLE AS nominal_quota, used::DOUBLE AS used, reserved::DOUBLE AS reserved, borrowed::DOUBLE AS borrowed,
    borrowing_limit::DOUBLE AS borrowing_limit, pending_workloads::BIGINT AS pending_workloads,
    admitted_workloads::BIGINT AS admitted_workloads, active AS active, active_reason::VARCHAR AS active_reason,
    active_message::VARCHAR AS active_message
FROM kueue_cluster_queues
ORDER BY cohort NULLS LAST, cluster_queue, (resource = 'nvidia.com/gpu') DESC, resource, flavor
