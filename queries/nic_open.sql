-- id: nic-open
-- title: NCCL could not open a network device on some ranks only
-- severity: warning
-- requires: log_events
-- description: NCCL's IB/RoCE transport prints, per process, the devices it will use (`NET/IB : Using
--   [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE …; OOB …`) or that it could not open one (`NCCL WARN NET/IB : Unable to
--   open device erdma_1`) or found none (`NCCL INFO NET/IB : No device found.`). Where the ranks that could not
--   open a device (or found none) are a strict subset of the job's ranks that printed their NET/IB devices, while
--   the others list at least one device and report no failure, those ranks' node lacks what its peers have (a
--   device the container does not admit, a missing HCA, a driver not loaded): a warning naming them (cause
--   nccl-error, medium: the peers' channels on the missing device wait, or the job falls back to a slower path).
--   Every rank alike is the job's configuration (NCCL_IB_HCA, a cluster without IB) and names no one; a rank whose
--   peers printed no device list (a lone rank's paste) names no one either.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- nccl-error
--   ranks BIGINT[]             -- the ranks that could not open a device (or found none)
--   pods VARCHAR[]             -- their pods
--   nodes VARCHAR[]            -- their nodes (or NCCL's host names)
--   started_at TIMESTAMP WITH TIME ZONE -- the first such line's time, when the log gives one
--   healthy_ranks BIGINT[]     -- the ranks that listed their devices with no failure
--   devices VARCHAR[]          -- the devices named unopenable (empty: none found at all)
--   confidence VARCHAR         -- medium
--   evidence STRUCT[]          -- the failing ranks' lines
WITH nic AS (  -- each NET/IB device line of a process placed on a rank
    SELECT job_key, rank_resolved AS rank, pod_key, coalesce(node_resolved, nccl_host) AS node, ts, line,
           CASE WHEN kind = 'nccl_net_missing' THEN 'none'
                WHEN kind = 'nccl_error_other' AND regexp_matches(line, 'NET/IB ?: ?Unable to open device') THEN 'unopenable'
                WHEN kind = 'nccl_bootstrap' AND subkind = 'net_ib_oob' AND regexp_matches(line, 'NET/IB ?: ?Using \[\d+\][A-Za-z]') THEN 'listed'
           END AS state,
           regexp_extract(line, 'Unable to open device ([\w.:-]{1,64})', 1) AS device
    FROM k10s_log
    WHERE job_key IS NOT NULL AND rank_resolved IS NOT NULL AND kind IN ('nccl_net_missing', 'nccl_error_other', 'nccl_bootstrap')
),
per_rank AS (
    SELECT job_key, rank, bool_or(state IN ('none', 'unopenable')) AS failed, bool_or(state = 'listed') AS listed,
           min(pod_key) AS pod_key, min(node) FILTER (WHERE node IS NOT NULL) AS node,
           min(ts) FILTER (WHERE state IN ('none', 'unopenable')) AS ts,
           list_sort(list(DISTINCT device) FILTER (WHERE state = 'unopenable' AND device <> '')) AS devices,
           min(line) FILTER (WHERE state IN ('none', 'unopenable')) AS line
    FROM nic WHERE state IS NOT NULL
    GROUP BY job_key, rank
),
per_job AS (
    SELECT job_key,
           list(rank ORDER BY rank) FILTER (WHERE failed) AS failed_ranks,
           list(rank ORDER BY rank) FILTER (WHERE listed AND NOT failed) AS healthy_ranks
    FROM per_rank GROUP BY job_key
)
SELECT j.job_key AS job, 'nccl-error' AS cause, j.failed_ranks AS ranks,
       list_sort(list_distinct(list(r.pod_key) FILTER (WHERE r.pod_key IS NOT NULL))) AS pods,
       list_sort(list_distinct(list(r.node) FILTER (WHERE r.node IS NOT NULL))) AS nodes,
       min(r.ts) AS started_at, j.healthy_ranks,
       list_sort(list_distinct(flatten(list(coalesce(r.devices, []::VARCHAR[]))))) AS devices,
       'medium' AS confidence,
       list({'rank': r.rank, 'node': r.node, 'line': r.line} ORDER BY r.rank) AS evidence
FROM per_job j
JOIN per_rank r ON r.job_key = j.job_key AND r.failed
WHERE len(coalesce(j.failed_ranks, [])) > 0 AND len(coalesce(j.healthy_ranks, [])) > 0
GROUP BY j.job_key, j.failed_ranks, j.healthy_ranks
ORDER BY job
