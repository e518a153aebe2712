-- name: job_gpu_bins
-- description: GPU metrics of every rank of a job, downsampled to at most $max_bins time
--   bins (never finer than the sampling interval): the ranks x time heatmaps. A rank's
--   samples are those of its GPU (by UUID) while its pod incarnation ran; a rank without a
--   known GPU takes its pod's samples when the pod runs one rank.
-- inputs: ranks, pods, gpu_samples
-- params: job_key VARCHAR, max_bins BIGINT
-- columns:
--   rank BIGINT
--   bin BIGINT                 -- 0-based time bin
--   t0 TIMESTAMP WITH TIME ZONE -- start of bin 0
--   bin_s DOUBLE               -- bin width (s)
--   tensor_active DOUBLE       -- mean ratio 0..1
--   sm_active DOUBLE           -- mean ratio 0..1
--   util_pct DOUBLE            -- mean 0-100
--   power_w DOUBLE             -- mean
--   fb_used_mib DOUBLE         -- max
--   fb_total_mib DOUBLE        -- max
--   sm_clock_mhz DOUBLE        -- mean
--   temp_c DOUBLE              -- max
--   throttle_reasons BIGINT    -- OR of the bitmasks
--   xid BIGINT                 -- max Xid seen
-- grain: rank, bin
WITH r AS (
    SELECT
        r.rank, r.namespace, r.pod, r.gpu_uuid, coalesce(r.nproc_per_node, 1) AS nproc,
        coalesce(r.started_at, p.started_at, p.created_at, TIMESTAMPTZ '1970-01-01 00:00:00+00') AS valid_from,
        coalesce(r.finished_at, p.finished_at, p.deleted_at, TIMESTAMPTZ '2999-01-01 00:00:00+00') AS valid_to
    FROM ranks r
    LEFT JOIN pods p ON p.pod_uid = r.pod_uid
    WHERE r.namespace || '/' || r.job = $job_key AND r.rank IS NOT NULL
),
s AS (
    SELECT r.rank, g.ts, g.gpu_uuid, g.tensor_active, g.sm_active, g.util_pct, g.power_w, g.fb_used_mib, g.fb_total_mib,
           g.sm_clock_mhz, g.temp_c, g.throttle_reasons, g.xid
    FROM r JOIN gpu_samples g ON g.gpu_uuid = r.gpu_uuid AND g.ts BETWEEN r.valid_from AND r.valid_to
    WHERE r.gpu_uuid IS NOT NULL
    UNION ALL
    SELECT r.rank, g.ts, g.gpu_uuid, g.tensor_active, g.sm_active, g.util_pct, g.power_w, g.fb_used_mib, g.fb_total_mib,
           g.sm_clock_mhz, g.temp_c, g.throttle_reasons, g.xid
    FROM r JOIN gpu_samples g ON g.namespace = r.namespace AND g.pod = r.pod AND g.ts BETWEEN r.valid_from AND r.valid_to
    WHERE r.gpu_uuid IS NULL AND r.nproc = 1
),
gaps AS (
    SELECT epoch(ts) - epoch(lag(ts) OVER (PARTITION BY rank, gpu_uuid ORDER BY ts)) AS gap_s FROM s
),
bounds AS (
    SELECT
        (SELECT min(ts) FROM s) AS t0,
        greatest(
            coalesce((SELECT quantile_cont(gap_s, 0.5) FROM gaps WHERE gap_s > 0), 1.0),
            coalesce((SELECT (epoch(max(ts)) - epoch(min(ts))) FROM s), 0.0) / $max_bins,
            1.0
        ) AS bin_s
)
SELECT
    s.rank::BIGINT AS rank,
    floor((epoch(s.ts) - epoch(b.t0)) / b.bin_s)::BIGINT AS bin,
    min(b.t0) AS t0,
    min(b.bin_s)::DOUBLE AS bin_s,
    avg(s.tensor_active)::DOUBLE AS tensor_active,
    avg(s.sm_active)::DOUBLE AS sm_active,
    avg(s.util_pct)::DOUBLE AS util_pct,
    avg(s.power_w)::DOUBLE AS power_w,
    max(s.fb_used_mib)::DOUBLE AS fb_used_mib,
    max(s.fb_total_mib)::DOUBLE AS fb_total_mib,
    avg(s.sm_clock_mhz)::DOUBLE AS sm_clock_mhz,
    max(s.temp_c)::DOUBLE AS temp_c,
    bit_or(s.throttle_reasons)::BIGINT AS throttle_reasons,
    max(s.xid)::BIGINT AS xid
FROM s CROSS JOIN bounds b
GROUP BY 1, 2
ORDER BY 1, 2
