-- name: fleet_nodes
-- description: GPU nodes with their GPUs' allocation, mean utilisation, power, memory and
--   temperature over the capture, and how long their idle GPUs have been idle; idle
--   nodes first, longest idle first. A GPU sample is idle when tensor/SM activity is
--   below 2% (or, without profiling metrics, util below 5%) and power below 25% of its
--   limit (the idle-gpu rule's definition); a GPU is idle when >= 95% of at least 2 of its
--   samples are. It has been idle since its last busy sample, else since its pod started
--   (allocated the whole time), else since its first sample (a lower bound).
-- inputs: nodes, gpus, gpu_samples, pods, ranks
-- params: (none)
-- columns:
--   node VARCHAR, model VARCHAR, gpu_capacity BIGINT, gpu_allocatable BIGINT, gpus_seen BIGINT,
--   allocated BIGINT (GPUs requested by live pods), workloads VARCHAR[] (job or pod keys),
--   util_pct DOUBLE, activity_pct DOUBLE, power_w DOUBLE, power_limit_w DOUBLE,
--   fb_used_pct DOUBLE, temp_c DOUBLE, temp_max_c DOUBLE, samples BIGINT,
--   idle_gpus BIGINT, idle_allocated_gpus BIGINT, idle_since TIMESTAMPTZ, idle_hours DOUBLE,
--   idle_lower_bound BOOLEAN (idle since the first sample: at least that long),
--   ready BOOLEAN, unschedulable BOOLEAN, taints VARCHAR[]
-- grain: node
WITH rank_pod AS (
    SELECT gpu_uuid, arg_max(namespace || '/' || pod, (coalesce(started_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), pod_uid, pod)) AS pod_key
    FROM ranks WHERE gpu_uuid IS NOT NULL GROUP BY gpu_uuid
),
g AS (
    SELECT
        s.node, s.gpu_uuid, s.ts, s.util_pct, s.power_w, s.power_limit_w, s.fb_used_mib, s.fb_total_mib, s.temp_c, s.model_name,
        coalesce(s.namespace || '/' || s.pod, rp.pod_key) AS pod_key,
        coalesce(s.tensor_active, s.sm_active, s.gr_engine_active) AS act,
        coalesce(coalesce(s.tensor_active, s.sm_active, s.gr_engine_active) < 0.02, true)
            AND coalesce(s.util_pct < 5, coalesce(s.tensor_active, s.sm_active, s.gr_engine_active) IS NOT NULL)
            AND coalesce(s.power_w < 0.25 * coalesce(s.power_limit_w, 400), true) AS idle
    FROM gpu_samples s LEFT JOIN rank_pod rp ON rp.gpu_uuid = s.gpu_uuid
),
per_gpu AS (
    SELECT
        node, gpu_uuid, count(*) AS n, count(*) FILTER (WHERE idle) AS idle_n, min(ts) AS first_ts, max(ts) AS last_ts,
        max(ts) FILTER (WHERE NOT idle) AS last_busy, arg_max(pod_key, (ts, pod_key)) AS pod_key
    FROM g GROUP BY node, gpu_uuid
),
pod_start AS (
    SELECT namespace || '/' || pod AS pod_key, min(coalesce(started_at, created_at)) AS started FROM pods GROUP BY 1
),
idle_gpu AS (
    SELECT
        p.*, p.n >= 2 AND p.idle_n >= 0.95 * p.n AS is_idle,
        CASE WHEN p.last_busy IS NOT NULL THEN p.last_busy WHEN ps.started < p.first_ts THEN ps.started ELSE p.first_ts END AS idle_since,
        p.last_busy IS NULL AND coalesce(ps.started >= p.first_ts, true) AS lower_bound
    FROM per_gpu p LEFT JOIN pod_start ps ON ps.pod_key = p.pod_key
),
node_idle AS (
    SELECT
        node,
        count(*) FILTER (WHERE is_idle) AS idle_gpus,
        count(*) FILTER (WHERE is_idle AND pod_key IS NOT NULL) AS idle_allocated_gpus,
        min(idle_since) FILTER (WHERE is_idle) AS idle_since,
        max(last_ts) AS last_ts,
        bool_and(lower_bound) FILTER (WHERE is_idle) AS idle_lower_bound,
        count(DISTINCT gpu_uuid) AS gpus_seen
    FROM idle_gpu GROUP BY node
),
node_stats AS (
    SELECT
        node, avg(util_pct) AS util_pct, avg(act) * 100 AS activity_pct, avg(power_w) AS power_w, avg(power_limit_w) AS power_limit_w,
        avg(fb_used_mib / nullif(fb_total_mib, 0)) * 100 AS fb_used_pct, avg(temp_c) AS temp_c, max(temp_c) AS temp_max_c,
        min(model_name) AS model, count(*) AS samples
    FROM g GROUP BY node
),
alloc AS (
    SELECT
        node, sum(gpu_request) AS allocated,
        list(DISTINCT CASE WHEN job IS NOT NULL THEN namespace || '/' || job ELSE namespace || '/' || pod END
             ORDER BY CASE WHEN job IS NOT NULL THEN namespace || '/' || job ELSE namespace || '/' || pod END) AS workloads
    FROM pods
    WHERE coalesce(gpu_request, 0) > 0 AND node IS NOT NULL AND coalesce(phase, '') NOT IN ('Succeeded', 'Failed') AND finished_at IS NULL
    GROUP BY node
),
inv AS (SELECT node, min(product) AS product, count(*) FILTER (WHERE NOT coalesce(is_mig, false)) AS gpus FROM gpus GROUP BY node),
all_nodes AS (
    SELECT node FROM nodes WHERE coalesce(gpu_capacity, 0) > 0
    UNION SELECT node FROM node_stats UNION SELECT node FROM inv WHERE node IS NOT NULL
)
SELECT
    a.node::VARCHAR AS node,
    coalesce(nd.gpu_product, inv.product, ns.model)::VARCHAR AS model,
    nd.gpu_capacity::BIGINT AS gpu_capacity,
    nd.gpu_allocatable::BIGINT AS gpu_allocatable,
    coalesce(inv.gpus, ni.gpus_seen)::BIGINT AS gpus_seen,
    coalesce(al.allocated, 0)::BIGINT AS allocated,
    coalesce(al.workloads, []::VARCHAR[]) AS workloads,
    ns.util_pct::DOUBLE AS util_pct, ns.activity_pct::DOUBLE AS activity_pct, ns.power_w::DOUBLE AS power_w,
    ns.power_limit_w::DOUBLE AS power_limit_w, ns.fb_used_pct::DOUBLE AS fb_used_pct, ns.temp_c::DOUBLE AS temp_c,
    ns.temp_max_c::DOUBLE AS temp_max_c, coalesce(ns.samples, 0)::BIGINT AS samples,
    coalesce(ni.idle_gpus, 0)::BIGINT AS idle_gpus, coalesce(ni.idle_allocated_gpus, 0)::BIGINT AS idle_allocated_gpus,
    ni.idle_since AS idle_since,
    CASE WHEN ni.idle_gpus > 0 THEN (epoch(ni.last_ts) - epoch(ni.idle_since)) / 3600.0 END::DOUBLE AS idle_hours,
    coalesce(ni.idle_lower_bound, false) AS idle_lower_bound,
    nd.ready AS ready, nd.unschedulable AS unschedulable,
    [t.key || coalesce('=' || t.value, '') || ':' || t.effect FOR t IN coalesce(nd.taints, [])] AS taints
FROM all_nodes a
LEFT JOIN nodes nd ON nd.node = a.node
LEFT JOIN node_stats ns ON ns.node = a.node
LEFT JOIN node_idle ni ON ni.node = a.node
LEFT JOIN alloc al ON al.node = a.node
LEFT JOIN inv ON inv.node = a.node
ORDER BY (coalesce(ni.idle_gpus, 0) > 0) DESC, idle_hours DESC NULLS LAST, idle_gpus DESC, a.node
