-- id: straggler
-- title: A straggler rank slows the whole job
-- severity: warning
-- requires: ranks, gpu_samples
-- optional: tcp_samples, log_events
-- description: Per job and 60 s window, each rank's power, tensor/SM activity, SM clock
--   and GPU utilisation are compared with the job median using robust z-scores
--   ((x - median) / max(1.4826 MAD, floor)); a rank that is an outlier (|z| > 3.5) in at
--   least half of the job's windows is a straggler. Busier than its peers (they wait in
--   NCCL at "100% util" and low power) = compute straggler: gpu-throttle when clock-event
--   bits, a low SM clock or a hot GPU show it, else gpu-degraded. Idle while peers spin =
--   host-input. A pod whose NCCL sockets are degraded towards most peers = network. The
--   classic "util more than 2 std dev below the job mean" count is kept as evidence.
--   Windows in which the job hung in a collective (watchdog timeouts) are left out, and so
--   are a rank's windows with no GPU activity at all (util < 5%, tensor/SM < 2%): a stalled
--   GPU (hung, dead, finished) is not a straggler, and an idle GPU's low clock is no throttle.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- gpu-throttle, gpu-degraded, host-input, network
--   direction VARCHAR          -- busy (compute straggler), idle (input-bound) or network
--   ranks BIGINT[]             -- straggler ranks
--   pods VARCHAR[]             -- their pods (namespace/name)
--   nodes VARCHAR[]            -- their nodes
--   gpus VARCHAR[]             -- their GPU UUIDs
--   severity VARCHAR           -- critical when the job is slowed by 1.5x or more
--   started_at TIMESTAMP WITH TIME ZONE -- first outlier window
--   ended_at TIMESTAMP WITH TIME ZONE   -- end of the last outlier window
--   job_ranks BIGINT           -- ranks of the job with GPU samples
--   job_windows BIGINT         -- 60 s windows in which the job had >= 3 ranks sampled
--   outlier_windows BIGINT     -- windows in which the straggler was an outlier
--   slowdown DOUBLE            -- estimated job slowdown factor (>= 1)
--   gpu_hours_lost DOUBLE      -- job GPUs x outlier time x (1 - 1/slowdown)
--   evidence STRUCT[]          -- per straggler rank: its medians vs the job's, z-scores, window counts, socket stats
WITH hangs AS (  -- while a job is hung in a collective no rank makes progress: not straggling
    SELECT job_key, min(ts - to_milliseconds(coalesce(timeout_ms, 600000))) AS hang_from, max(ts) AS hang_to
    FROM k10s_log WHERE kind = 'nccl_watchdog_timeout' AND job_key IS NOT NULL GROUP BY job_key
),
w AS (  -- per rank and 60 s window
    SELECT
        job_key, rank,  -- a rank's pod, node and GPU at its last sample of the window
        arg_max(pod_key, (ts, pod_key, gpu_uuid)) AS pod_key, arg_max(rank_node, (ts, pod_key, gpu_uuid)) AS node,
        arg_max(gpu_uuid, (ts, pod_key, gpu_uuid)) AS gpu_uuid,
        time_bucket(INTERVAL 60 SECOND, ts) AS win,
        avg(power_w) AS power_w, avg(tensor_active) AS tensor_active, avg(coalesce(sm_active, gr_engine_active)) AS sm_active,
        avg(sm_clock_mhz) AS sm_clock_mhz, avg(util_pct) AS util_pct, avg(temp_c) AS temp_c,
        bit_or(coalesce(throttle_reasons, 0)) & 236 AS throttle_bits  -- SwPowerCap|HwSlowdown|SwThermal|HwThermal|HwPowerBrake
    FROM k10s_rank_sample rs
    WHERE NOT EXISTS (SELECT 1 FROM hangs h WHERE h.job_key = rs.job_key AND rs.ts BETWEEN h.hang_from AND h.hang_to)
    GROUP BY job_key, rank, win
),
g AS (  -- job medians per window (needs a gang of >= 3 ranks)
    SELECT
        job_key, win, count(*) AS n_ranks,
        median(power_w) AS m_power, median(tensor_active) AS m_tensor, median(sm_active) AS m_sm,
        median(sm_clock_mhz) AS m_clock, median(util_pct) AS m_util, median(temp_c) AS m_temp,
        avg(util_pct) AS mean_util, stddev_samp(util_pct) AS sd_util
    FROM w GROUP BY job_key, win HAVING count(*) >= 3
),
d AS (  -- median absolute deviations
    SELECT
        w.job_key, w.win,
        median(abs(w.power_w - g.m_power)) AS d_power, median(abs(w.tensor_active - g.m_tensor)) AS d_tensor,
        median(abs(w.sm_active - g.m_sm)) AS d_sm, median(abs(w.sm_clock_mhz - g.m_clock)) AS d_clock,
        median(abs(w.util_pct - g.m_util)) AS d_util, median(abs(w.temp_c - g.m_temp)) AS d_temp
    FROM w JOIN g USING (job_key, win) GROUP BY w.job_key, w.win
),
z AS (
    SELECT
        w.*, g.m_power, g.m_tensor, g.m_sm, g.m_clock, g.m_util, g.m_temp, g.mean_util, g.sd_util,
        (w.power_w - g.m_power) / greatest(1.4826 * d.d_power, 0.05 * abs(g.m_power), 5.0) AS z_power,
        (w.tensor_active - g.m_tensor) / greatest(1.4826 * d.d_tensor, 0.05 * abs(g.m_tensor), 0.02) AS z_tensor,
        (w.sm_active - g.m_sm) / greatest(1.4826 * d.d_sm, 0.05 * abs(g.m_sm), 0.02) AS z_sm,
        (w.sm_clock_mhz - g.m_clock) / greatest(1.4826 * d.d_clock, 0.02 * abs(g.m_clock), 15.0) AS z_clock,
        (w.util_pct - g.m_util) / greatest(1.4826 * d.d_util, 0.05 * abs(g.m_util), 3.0) AS z_util,
        (w.temp_c - g.m_temp) / greatest(1.4826 * d.d_temp, 2.0) AS z_temp,
        (w.util_pct - g.mean_util) / nullif(g.sd_util, 0) AS util_sd
    FROM w JOIN g USING (job_key, win) JOIN d USING (job_key, win)
),
s0 AS (  -- a GPU with no activity at all in a window is stalled (hung, dead or done), not slow
    SELECT *, coalesce(util_pct < 5, false) AND coalesce(coalesce(tensor_active, sm_active) < 0.02, true) AS stalled FROM z
),
f AS (
    SELECT
        *,
        NOT stalled AND (coalesce(z_power > 3.5, false) OR coalesce(z_tensor > 3.5, false) OR coalesce(z_sm > 3.5, false)) AS busy,
        NOT stalled AND ((coalesce(z_util < -3.5, false) AND NOT coalesce(z_power > 3.5, false))
            OR (coalesce(z_tensor < -3.5, false) AND coalesce(z_power < -3.5, false))) AS idle,
        NOT stalled AND coalesce(z_clock < -3.5, false) AS slow_clock,
        throttle_bits > 0 AS throttled
    FROM s0
),
job_windows AS (
    SELECT job_key, count(*) AS n_windows, max(n_ranks) AS n_ranks FROM g GROUP BY job_key
),
per_rank AS (
    SELECT
        f.job_key, f.rank, arg_max(f.pod_key, (f.win, f.pod_key, f.gpu_uuid)) AS pod_key,
        arg_max(f.node, (f.win, f.pod_key, f.gpu_uuid)) AS node, arg_max(f.gpu_uuid, (f.win, f.pod_key, f.gpu_uuid)) AS gpu_uuid,
        count(*) AS windows,
        count(*) FILTER (WHERE busy) AS busy_w, count(*) FILTER (WHERE idle AND NOT busy) AS idle_w,
        count(*) FILTER (WHERE slow_clock) AS slow_clock_w, count(*) FILTER (WHERE throttled) AS throttled_w,
        count(*) FILTER (WHERE busy OR idle OR slow_clock) AS outlier_w,
        count(*) FILTER (WHERE util_sd < -2) AS util_2sd_w,
        min(win) FILTER (WHERE busy OR idle OR slow_clock) AS first_w,
        max(win) FILTER (WHERE busy OR idle OR slow_clock) AS last_w,
        median(power_w) AS power_w, median(m_power) AS job_power_w,
        median(tensor_active) AS tensor_active, median(m_tensor) AS job_tensor_active,
        median(sm_active) AS sm_active, median(m_sm) AS job_sm_active,
        median(sm_clock_mhz) AS sm_clock_mhz, median(m_clock) AS job_sm_clock_mhz,
        median(util_pct) AS util_pct, median(m_util) AS job_util_pct,
        median(temp_c) AS temp_c, median(m_temp) AS job_temp_c,
        median(z_power) AS z_power, median(z_tensor) AS z_tensor, median(z_clock) AS z_clock, median(z_util) AS z_util,
        bit_or(throttle_bits) AS throttle_bits
    FROM f GROUP BY f.job_key, f.rank
),
job_throttle AS (  -- how common throttling is in the job (a fleet-wide power cap is no straggler cause)
    SELECT job_key, median(throttled_w::DOUBLE / windows) AS job_throttled_frac FROM per_rank GROUP BY job_key
),
net AS (
    SELECT pn.*, pj.pod_key AS pk FROM k10s_pod_net pn JOIN (SELECT DISTINCT job_key, pod_key FROM k10s_rank) pj USING (job_key, pod_key)
),
gpu_stragglers AS (
    SELECT
        p.*, jw.n_windows, jw.n_ranks, jt.job_throttled_frac,
        n.degraded_peers, n.peers, n.max_retrans_rate, n.max_rtt_ratio, coalesce(n.culprit, false) AS net_culprit
    FROM per_rank p
    JOIN job_windows jw USING (job_key)
    JOIN job_throttle jt USING (job_key)
    LEFT JOIN net n ON n.job_key = p.job_key AND n.pod_key = p.pod_key
    WHERE jw.n_windows >= 3 AND p.outlier_w >= 3 AND p.outlier_w * 2 >= jw.n_windows
),
net_only AS (  -- ranks of network-culprit pods that show no GPU outlier themselves
    SELECT
        p.*, jw.n_windows, jw.n_ranks, jt.job_throttled_frac,
        n.degraded_peers, n.peers, n.max_retrans_rate, n.max_rtt_ratio, true AS net_culprit
    FROM per_rank p
    JOIN job_windows jw USING (job_key)
    JOIN job_throttle jt USING (job_key)
    JOIN net n ON n.job_key = p.job_key AND n.pod_key = p.pod_key AND n.culprit
    WHERE NOT (p.outlier_w >= 3 AND p.outlier_w * 2 >= jw.n_windows)
),
classified AS (
    SELECT
        *,
        CASE
            WHEN net_culprit THEN 'network'
            WHEN idle_w > busy_w AND idle_w >= slow_clock_w THEN 'host-input'
            WHEN throttled_w >= 0.3 * windows AND throttled_w::DOUBLE / windows >= job_throttled_frac + 0.3 THEN 'gpu-throttle'
            WHEN slow_clock_w >= 0.3 * windows THEN 'gpu-throttle'
            WHEN temp_c - job_temp_c >= 10 THEN 'gpu-throttle'
            ELSE 'gpu-degraded'
        END AS cause,
        CASE
            WHEN net_culprit AND outlier_w = 0 THEN 'network'
            WHEN idle_w > busy_w AND idle_w >= slow_clock_w THEN 'idle'
            ELSE 'busy'
        END AS direction,
        -- slowdown: busy -> its activity over the gang's; idle -> the gang's util over its own
        least(greatest(CASE
            WHEN idle_w > busy_w AND idle_w >= slow_clock_w THEN job_util_pct / nullif(util_pct, 0)
            WHEN tensor_active IS NOT NULL AND job_tensor_active > 0.01 THEN tensor_active / job_tensor_active
            WHEN sm_active IS NOT NULL AND job_sm_active > 0.01 THEN sm_active / job_sm_active
            WHEN sm_clock_mhz > 0 AND sm_clock_mhz < job_sm_clock_mhz THEN job_sm_clock_mhz / sm_clock_mhz
            ELSE power_w / nullif(job_power_w, 0)
        END, 1.0), 10.0) AS slowdown
    FROM (SELECT * FROM gpu_stragglers UNION ALL BY NAME SELECT * FROM net_only)
)
SELECT
    c.job_key AS job,
    c.cause,
    arg_max(c.direction, (c.outlier_w, c.slowdown, -c.rank)) AS direction,  -- the strongest straggler's
    list(DISTINCT c.rank ORDER BY c.rank) AS ranks,
    list(DISTINCT c.pod_key ORDER BY c.pod_key) AS pods,
    list(DISTINCT c.node ORDER BY c.node) AS nodes,
    list(DISTINCT c.gpu_uuid ORDER BY c.gpu_uuid) FILTER (WHERE c.gpu_uuid IS NOT NULL) AS gpus,
    CASE WHEN max(c.slowdown) >= 1.5 THEN 'critical' ELSE 'warning' END AS severity,
    min(c.first_w) AS started_at,
    max(c.last_w) + INTERVAL 60 SECOND AS ended_at,
    max(c.n_ranks) AS job_ranks,
    max(c.n_windows) AS job_windows,
    max(c.outlier_w) AS outlier_windows,
    round(max(c.slowdown), 3) AS slowdown,
    CASE WHEN c.cause = 'network' AND max(c.outlier_w) = 0 THEN NULL
         ELSE round(max(js.gpus) * max(c.outlier_w) * 60 / 3600.0 * (1 - 1 / max(c.slowdown)), 3) END AS gpu_hours_lost,
    list({
        'rank': c.rank, 'pod': c.pod_key, 'node': c.node, 'gpu': c.gpu_uuid,
        'power_w': round(c.power_w, 1), 'job_power_w': round(c.job_power_w, 1),
        'tensor_active': round(c.tensor_active, 3), 'job_tensor_active': round(c.job_tensor_active, 3),
        'sm_active': round(c.sm_active, 3), 'job_sm_active': round(c.job_sm_active, 3),
        'sm_clock_mhz': round(c.sm_clock_mhz, 0), 'job_sm_clock_mhz': round(c.job_sm_clock_mhz, 0),
        'util_pct': round(c.util_pct, 1), 'job_util_pct': round(c.job_util_pct, 1),
        'temp_c': round(c.temp_c, 1), 'job_temp_c': round(c.job_temp_c, 1),
        'z_power': round(c.z_power, 2), 'z_tensor': round(c.z_tensor, 2), 'z_clock': round(c.z_clock, 2), 'z_util': round(c.z_util, 2),
        'busy_windows': c.busy_w, 'idle_windows': c.idle_w, 'slow_clock_windows': c.slow_clock_w,
        'throttled_windows': c.throttled_w, 'util_below_2sd_windows': c.util_2sd_w, 'throttle_reasons': c.throttle_bits,
        'net_degraded_peers': c.degraded_peers, 'net_peers': c.peers,
        'net_retrans_rate': round(c.max_retrans_rate, 4), 'net_rtt_ratio': round(c.max_rtt_ratio, 2)
    } ORDER BY c.rank, c.pod_key, c.gpu_uuid, c.node) AS evidence
FROM classified c
LEFT JOIN k10s_job_size js ON js.job_key = c.job_key
GROUP BY c.job_key, c.cause
ORDER BY job, cause
