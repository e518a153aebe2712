-- name: job_rank_events
-- description: Per rank of a job, how many incident log lines it logged by family
--   (OOM, NCCL/watchdog, restarts/exits, Xid) and container restarts of its pods.
-- inputs: ranks, log_events, containers
-- params: job_key VARCHAR
-- columns:
--   rank BIGINT
--   oom BIGINT        -- CUDA/host OOM lines
--   nccl BIGINT       -- NCCL watchdog, remote-error and desync lines
--   exits BIGINT      -- torchrun failures, process exits, worker-group restarts
--   restarts BIGINT   -- container restarts of the rank's pod incarnations (max restartCount summed)
-- grain: rank
WITH r AS (
    SELECT rank, pod_uid, namespace, pod, local_rank, pci_bus_id, coalesce(nproc_per_node, 1) AS nproc
    FROM ranks WHERE namespace || '/' || job = $job_key AND rank IS NOT NULL
),
le AS (
    SELECT coalesce(e.rank, r.rank) AS rank, e.kind
    FROM log_events e
    JOIN r ON r.namespace = e.namespace AND r.pod = e.pod
          AND (e.pod_uid IS NULL OR e.pod_uid = r.pod_uid)
          AND ((e.rank IS NOT NULL AND e.rank = r.rank)
            OR (e.rank IS NULL AND e.local_rank IS NOT NULL AND e.local_rank = r.local_rank)
            OR (e.rank IS NULL AND e.local_rank IS NULL AND e.cuda_dev IS NOT NULL AND r.nproc > 1 AND e.cuda_dev < r.nproc AND r.local_rank = e.cuda_dev)
            OR (e.rank IS NULL AND e.local_rank IS NULL AND e.bus_id IS NOT NULL AND r.pci_bus_id = e.bus_id)
            OR (e.rank IS NULL AND e.local_rank IS NULL AND r.nproc = 1))
),
ev AS (
    SELECT
        rank,
        count(*) FILTER (WHERE kind LIKE '%oom%') AS oom,
        count(*) FILTER (WHERE kind LIKE 'nccl%' AND kind NOT IN ('nccl_bootstrap', 'nccl_comm_init') OR kind LIKE '%watchdog%' OR kind LIKE '%desync%') AS nccl,
        count(*) FILTER (WHERE kind IN ('torchrun_failure', 'torchrun_sigterm', 'process_exit', 'worker_group_restart')) AS exits
    FROM le GROUP BY rank
),
rs AS (
    SELECT r.rank, sum(c.restarts) AS restarts
    FROM r JOIN (SELECT pod_uid, max(restart_count) AS restarts FROM containers WHERE NOT coalesce(init, false) GROUP BY pod_uid) c
      ON c.pod_uid = r.pod_uid
    GROUP BY r.rank
)
SELECT
    r.rank::BIGINT AS rank,
    coalesce(max(ev.oom), 0)::BIGINT AS oom,
    coalesce(max(ev.nccl), 0)::BIGINT AS nccl,
    coalesce(max(ev.exits), 0)::BIGINT AS exits,
    coalesce(max(rs.restarts), 0)::BIGINT AS restarts
FROM (SELECT DISTINCT rank FROM r) r
LEFT JOIN ev USING (rank)
LEFT JOIN rs USING (rank)
GROUP BY r.rank
ORDER BY r.rank
