-- name: fleet_activity
-- description: Mean GPU activity per node over time (tensor/SM activity, else util), at
--   most $max_bins bins: the fleet heatmap where idle nodes are dark rows.
-- inputs: gpu_samples
-- params: max_bins BIGINT
-- columns:
--   node VARCHAR
--   bin BIGINT
--   t0 TIMESTAMP WITH TIME ZONE
--   bin_s DOUBLE
--   activity_pct DOUBLE   -- mean over the node's GPUs, 0-100
-- grain: node, bin
WITH s AS (
    SELECT node, gpu_uuid, ts, coalesce(coalesce(tensor_active, sm_active, gr_engine_active) * 100, util_pct) AS act FROM gpu_samples
),
gaps AS (SELECT epoch(ts) - epoch(lag(ts) OVER (PARTITION BY gpu_uuid ORDER BY ts)) AS gap_s FROM s),
b AS (
    SELECT (SELECT min(ts) FROM s) AS t0,
           greatest(coalesce((SELECT quantile_cont(gap_s, 0.5) FROM gaps WHERE gap_s > 0), 1.0),
                    coalesce((SELECT epoch(max(ts)) - epoch(min(ts)) FROM s), 0.0) / $max_bins, 1.0) AS bin_s
)
SELECT
    s.node::VARCHAR AS node,
    floor((epoch(s.ts) - epoch(b.t0)) / b.bin_s)::BIGINT AS bin,
    min(b.t0) AS t0,
    min(b.bin_s)::DOUBLE AS bin_s,
    avg(s.act)::DOUBLE AS activity_pct
FROM s CROSS JOIN b
GROUP BY 1, 2
ORDER BY 1, 2
