-- id: idle-gpu
-- title: GPUs allocated to a pod but idle
-- severity: warning
-- requires: gpu_samples
-- params: window_s
-- description: A GPU is idle in a sample when tensor/SM activity is below 2% (or, without
--   DCGM profiling metrics, util below 5%) and power is below 25% of its limit. A pod whose
--   GPUs were idle in >= 95% of at least 3 samples spanning half the capture window (or
--   30 minutes) holds idle GPUs: idle duration counts from pod start when it idled
--   throughout, GPU-hours and cost use the price per GPU model (k10s_gpu_prices). Healthy
--   unallocated GPUs left idle are reported once (info) with the fragmentation they cause:
--   enough free GPUs in total for a pending pod but not on any single node.
-- columns:
--   cause VARCHAR              -- allocated-idle or unallocated-idle
--   severity VARCHAR           -- warning (allocated) or info (unallocated)
--   job VARCHAR                -- job of the pod, if any
--   pods VARCHAR[]             -- the pods holding idle GPUs (one finding per job)
--   ranks BIGINT[]             -- its ranks
--   nodes VARCHAR[]            -- nodes
--   gpus VARCHAR[]             -- idle GPUs
--   started_at TIMESTAMP WITH TIME ZONE -- idle since
--   ended_at TIMESTAMP WITH TIME ZONE   -- last idle sample
--   idle_gpus BIGINT           -- GPUs idle
--   idle_hours DOUBLE          -- hours idle (per GPU, longest)
--   gpu_hours_lost DOUBLE      -- GPU-hours idle
--   cost_usd DOUBLE            -- GPU-hours x price per GPU-hour of the model
--   usd_per_gpu_hour DOUBLE    -- price used
--   model VARCHAR              -- GPU model
--   fragmentation VARCHAR      -- for unallocated: pending pods that would fit in total but on no node
--   evidence STRUCT[]          -- per GPU
WITH s AS (
    SELECT
        g.*,
        coalesce(g.namespace || '/' || g.pod, r.pod_key) AS alloc_pod,
        r.rank, r.job_key,
        coalesce(coalesce(g.tensor_active, g.sm_active, g.gr_engine_active) < 0.02, true)
            AND coalesce(g.util_pct < 5, coalesce(g.tensor_active, g.sm_active, g.gr_engine_active) IS NOT NULL)
            AND coalesce(g.power_w < 0.25 * coalesce(g.power_limit_w, 400), true) AS idle
    FROM gpu_samples g
    LEFT JOIN k10s_rank r ON r.gpu_uuid = g.gpu_uuid AND g.ts BETWEEN r.valid_from AND r.valid_to
),
per_gpu AS (
    SELECT
        alloc_pod, gpu_uuid, arg_max(node, (ts, node)) AS node, arg_max(model_name, (ts, model_name)) AS model,
        arg_max(job_key, (ts, job_key, rank)) AS job_key, arg_max(rank, (ts, job_key, rank)) AS rank, count(*) AS n, count(*) FILTER (WHERE idle) AS idle_n,
        min(ts) AS first_ts, max(ts) AS last_ts,
        min(ts) FILTER (WHERE idle) AS first_idle, max(ts) FILTER (WHERE idle) AS last_idle,
        max(power_w) AS max_power_w, max(coalesce(tensor_active, sm_active, gr_engine_active)) AS max_activity, max(util_pct) AS max_util_pct,
        max(fb_used_mib) AS max_fb_used_mib
    FROM s GROUP BY alloc_pod, gpu_uuid
),
idle_gpus AS (
    SELECT
        p.*, ps.valid_from AS pod_started_at, ps.phase,
        -- idle throughout: count from pod start, else from the first idle sample
        CASE WHEN p.idle_n = p.n AND ps.valid_from IS NOT NULL AND ps.valid_from < p.first_ts THEN ps.valid_from ELSE p.first_idle END AS idle_since,
        k10s_price(coalesce(p.model, gi.product)) AS price
    FROM per_gpu p
    LEFT JOIN (SELECT pod_key, arg_max(valid_from, valid_from) AS valid_from, arg_max(phase, (valid_from, phase)) AS phase FROM k10s_pod_span GROUP BY pod_key) ps
      ON ps.pod_key = p.alloc_pod
    LEFT JOIN (SELECT gpu_uuid, min(product) AS product, bool_or(coalesce(mig_mode, '') = 'Enabled') AS mig_enabled FROM gpus GROUP BY gpu_uuid) gi ON gi.gpu_uuid = p.gpu_uuid
    WHERE p.n >= 3 AND p.idle_n >= 0.95 * p.n
      -- a GPU split into MIG devices is judged per MIG device, not by its whole-GPU rows
      AND NOT coalesce(gi.mig_enabled, false)
      AND p.gpu_uuid NOT IN (SELECT parent_gpu_uuid FROM gpus WHERE coalesce(is_mig, false) AND parent_gpu_uuid IS NOT NULL)
      AND epoch(p.last_ts - p.first_ts) >= least(0.5 * $window_s, 1800) - 1
),
allocated AS (
    SELECT
        'allocated-idle' AS cause, 'warning' AS severity, min(job_key) AS job, list(DISTINCT alloc_pod ORDER BY alloc_pod) AS pods,
        list(DISTINCT rank ORDER BY rank) FILTER (WHERE rank IS NOT NULL) AS ranks,
        list(DISTINCT node ORDER BY node) AS nodes, list(gpu_uuid ORDER BY gpu_uuid, alloc_pod) AS gpus,
        min(idle_since) AS started_at, max(last_idle) AS ended_at,
        count(*) AS idle_gpus,
        round(max(epoch(last_idle - idle_since)) / 3600.0, 3) AS idle_hours,
        round(sum(epoch(last_idle - idle_since) ORDER BY gpu_uuid, alloc_pod) / 3600.0, 3) AS gpu_hours_lost,
        round(sum(epoch(last_idle - idle_since) / 3600.0 * price ORDER BY gpu_uuid, alloc_pod), 2) AS cost_usd,
        max(price) AS usd_per_gpu_hour,
        min(model) AS model,
        NULL::VARCHAR AS fragmentation,
        list({'gpu': gpu_uuid, 'node': node, 'samples': n, 'idle_samples': idle_n, 'max_power_w': max_power_w,
              'max_activity': max_activity, 'max_util_pct': max_util_pct, 'max_fb_used_mib': max_fb_used_mib,
              'idle_since': idle_since, 'pod_started_at': pod_started_at} ORDER BY gpu_uuid, alloc_pod) AS evidence
    FROM idle_gpus WHERE alloc_pod IS NOT NULL
    GROUP BY coalesce(job_key, alloc_pod)  -- one finding per job (or per pod outside a job)
),
free_per_node AS (  -- allocatable minus what running/pending-bound pods request
    SELECT n.node, coalesce(n.gpu_allocatable, 0) - coalesce(sum(p.gpu_request) FILTER (WHERE p.phase IN ('Running', 'Pending') AND p.node IS NOT NULL), 0) AS free
    FROM nodes n LEFT JOIN pods p ON p.node = n.node
    WHERE coalesce(n.ready, false) AND NOT coalesce(n.unschedulable, false)
    GROUP BY n.node, n.gpu_allocatable
),
frag AS (
    SELECT string_agg(p.namespace || '/' || p.pod || ' needs ' || p.gpu_request, '; ' ORDER BY p.namespace, p.pod, p.pod_uid) AS text
    FROM pods p
    WHERE p.phase = 'Pending' AND coalesce(p.gpu_request, 0) > 0
      AND p.gpu_request <= (SELECT sum(greatest(free, 0)) FROM free_per_node)
      AND p.gpu_request > (SELECT coalesce(max(free), 0) FROM free_per_node)
),
unallocated AS (
    SELECT
        'unallocated-idle' AS cause, 'info' AS severity, NULL::VARCHAR AS job, []::VARCHAR[] AS pods, []::BIGINT[] AS ranks,
        list(DISTINCT i.node ORDER BY i.node) AS nodes, list(i.gpu_uuid ORDER BY i.gpu_uuid) AS gpus,
        min(i.first_idle) AS started_at, max(i.last_idle) AS ended_at,
        count(*) AS idle_gpus,
        round(max(epoch(i.last_idle - i.first_idle)) / 3600.0, 3) AS idle_hours,
        round(sum(epoch(i.last_idle - i.first_idle) ORDER BY i.gpu_uuid) / 3600.0, 3) AS gpu_hours_lost,
        round(sum(epoch(i.last_idle - i.first_idle) / 3600.0 * i.price ORDER BY i.gpu_uuid), 2) AS cost_usd,
        max(i.price) AS usd_per_gpu_hour, min(i.model) AS model,
        CASE WHEN (SELECT text FROM frag) IS NOT NULL
             THEN 'free GPUs are fragmented: ' || (SELECT text FROM frag) || '; most free on one node: ' || (SELECT coalesce(max(free), 0) FROM free_per_node)
        END AS fragmentation,
        list({'gpu': i.gpu_uuid, 'node': i.node, 'samples': i.n, 'idle_samples': i.idle_n, 'max_power_w': i.max_power_w,
              'max_activity': i.max_activity, 'max_util_pct': i.max_util_pct, 'max_fb_used_mib': i.max_fb_used_mib,
              'idle_since': i.first_idle, 'pod_started_at': NULL::TIMESTAMPTZ} ORDER BY i.gpu_uuid, i.node, i.first_idle) AS evidence
    FROM idle_gpus i
    JOIN nodes n ON n.node = i.node AND coalesce(n.ready, false) AND NOT coalesce(n.unschedulable, false)
    WHERE i.alloc_pod IS NULL
    HAVING count(*) > 0
)
SELECT * FROM allocated
UNION ALL
SELECT * FROM unallocated
ORDER BY severity DESC, gpu_hours_lost DESC, job, gpus
