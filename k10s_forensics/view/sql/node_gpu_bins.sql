-- name: node_gpu_bins
-- description: Every GPU of every node over time, downsampled to at most $max_bins bins
--   per node: the node drill-down's sparklines of tensor/SM activity, power, memory,
--   temperature and clocks (one query for all nodes, so Enter on a node is a lookup).
-- inputs: gpu_samples
-- params: max_bins BIGINT
-- columns:
--   node VARCHAR
--   gpu_uuid VARCHAR
--   gpu_index BIGINT           -- device index on the node (null when unknown)
--   model VARCHAR
--   bin BIGINT                 -- 0-based time bin of the node's capture span
--   activity_pct DOUBLE        -- mean tensor/SM activity x 100, else util
--   power_w DOUBLE             -- mean
--   fb_used_pct DOUBLE         -- max memory used / total x 100
--   temp_c DOUBLE              -- max
--   sm_clock_mhz DOUBLE        -- mean
--   xid BIGINT                 -- max Xid seen in the bin
-- grain: node, gpu_uuid, bin
WITH s AS (
    SELECT node, gpu_uuid, gpu_index, model_name, ts,
           coalesce(coalesce(tensor_active, sm_active, gr_engine_active) * 100, util_pct) AS act,
           power_w, fb_used_mib / nullif(fb_total_mib, 0) * 100 AS fb_pct, temp_c, sm_clock_mhz, xid
    FROM gpu_samples WHERE node IS NOT NULL AND gpu_uuid IS NOT NULL
),
b AS (
    SELECT node, min(ts) AS t0, greatest((epoch(max(ts)) - epoch(min(ts))) / $max_bins, 1.0) AS bin_s FROM s GROUP BY node
)
SELECT
    s.node::VARCHAR AS node,
    s.gpu_uuid::VARCHAR AS gpu_uuid,
    min(s.gpu_index)::BIGINT AS gpu_index,
    min(s.model_name)::VARCHAR AS model,
    least(floor((epoch(s.ts) - epoch(b.t0)) / b.bin_s), $max_bins - 1)::BIGINT AS bin,
    avg(s.act)::DOUBLE AS activity_pct,
    avg(s.power_w)::DOUBLE AS power_w,
    max(s.fb_pct)::DOUBLE AS fb_used_pct,
    max(s.temp_c)::DOUBLE AS temp_c,
    avg(s.sm_clock_mhz)::DOUBLE AS sm_clock_mhz,
    max(s.xid)::BIGINT AS xid
FROM s JOIN b USING (node)
GROUP BY s.node, s.gpu_uuid, 5
ORDER BY s.node, gpu_index NULLS LAST, s.gpu_uuid, bin
