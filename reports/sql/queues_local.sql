-- name: queues_local
-- description: Kueue LocalQueues and the ClusterQueue each one feeds.
-- inputs: kueue_local_queues
-- params: (none)
-- columns: namespace, local_queue, cluster_queue VARCHAR; pending_workloads,
--   admitted_workloads BIGINT; active BOOLEAN
-- grain: namespace, local_queue
SELECT
    namespace::VARCHAR AS namespace, local_queue::VARCHAR AS local_queue, cluster_queue::VARCHAR AS cluster_queue,
    pending_workloads::BIGINT AS pending_workloads, admitted_workloads::BIGINT AS admitted_workloads, active AS active
FROM kueue_local_queues
ORDER BY cluster_queue, namespace, local_queue
