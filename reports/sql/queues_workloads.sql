-- name: queues_workloads
-- description: Kueue Workloads with their state (pending first) and the ClusterQueue they
--   go to: the admitted one, else the one their LocalQueue feeds.
-- inputs: kueue_workloads, kueue_local_queues
-- params: (none)
-- columns: namespace, workload, queue_name, cluster_queue, owner VARCHAR; priority,
--   gpu_request BIGINT; state VARCHAR (admitted, quota reserved, pending, evicted,
--   preempted, finished); message VARCHAR; created_at TIMESTAMPTZ
-- grain: namespace, workload
SELECT
    w.namespace::VARCHAR AS namespace, w.workload::VARCHAR AS workload, w.queue_name::VARCHAR AS queue_name,
    coalesce(w.cluster_queue, lq.cluster_queue)::VARCHAR AS cluster_queue,
    (coalesce(w.owner_kind, '?') || ' ' || coalesce(w.owner_name, '?'))::VARCHAR AS owner,
    w.priority::BIGINT AS priority, w.gpu_request::BIGINT AS gpu_request,
    (CASE
        WHEN coalesce(w.finished, false) THEN 'finished'
        WHEN coalesce(w.preempted, false) THEN 'preempted'
        WHEN coalesce(w.evicted, false) THEN 'evicted'
        WHEN coalesce(w.admitted, false) THEN 'admitted'
        WHEN coalesce(w.quota_reserved, false) THEN 'quota reserved'
        ELSE 'pending'
    END)::VARCHAR AS state,
    w.message::VARCHAR AS message,
    w.created_at AS created_at
FROM kueue_workloads w
LEFT JOIN kueue_local_queues lq ON lq.namespace = w.namespace AND lq.local_queue = w.queue_name
ORDER BY (state = 'pending') DESC, w.created_at, w.namespace, w.workload
