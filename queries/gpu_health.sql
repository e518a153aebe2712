-- id: gpu-health
-- title: GPU or GPU node hardware problem
-- severity: warning
-- requires: gpus | gpu_samples | nodes | log_events
-- params: window_end
-- gate: EXISTS (SELECT 1 FROM log_events WHERE (kind = 'xid' AND coalesce(xid, 0) > 0) OR kind = 'gpu_init_failed')
--   OR EXISTS (SELECT 1 FROM gpu_samples WHERE coalesce(xid, 0) > 0
--                OR coalesce(throttle_reasons, 0) & 232 > 0 OR coalesce(ecc_dbe_total, 0) <> 0)
--   OR EXISTS (SELECT 1 FROM gpus WHERE coalesce(ecc_dbe_volatile, 0) > 0 OR coalesce(remapped_rows_failure, false)
--                OR coalesce(remapped_rows_pending, false))
--   OR EXISTS (SELECT 1 FROM nodes WHERE coalesce(gpu_capacity, gpu_allocatable, 0) > 0
--                AND (ready IS FALSE OR (ready IS NULL AND ready_reason = 'NodeStatusUnknown') OR coalesce(gpu_allocatable, 0) < gpu_capacity))
-- description: Xid errors (kernel log or the DCGM last-Xid gauge) with their meaning and
--   recommended action, uncorrectable ECC errors and failed/pending row remaps, hardware
--   thermal or power-brake slowdown in >= 30% of a GPU's samples, GPUs missing from a
--   node's allocatable (unhealthy in the device plugin) and GPU nodes that are NotReady.
--   Culprit is the GPU (and the rank, pod and job that used it at the time). A node NotReady (Ready False, or Unknown:
--   its kubelet stopped posting status) names the ranks of each job whose pods ran there when it turned and print
--   nothing after it: a node that died whole (power, kernel panic, a spot VM reclaimed, a partition) takes its ranks
--   with it, and their containers still read running as last reported (one finding per job; none without a job).
--   The driver's failure to initialise a GPU (the kernel's `NVRM: GPU <pci>: RmInitAdapter failed!`, `rm_init_adapter
--   failed, device minor number N`) names the node and the GPU's address: the GPU is gone from nvidia-smi and the
--   node's allocatable, no rank ran on it.
-- columns:
--   cause VARCHAR              -- xid-<code>, ecc-uncorrectable, row-remap-failure, row-remap-pending, thermal-throttle, power-brake, gpu-unallocatable, node-not-ready, gpu-init-failed
--   severity VARCHAR           -- critical for fatal Xids, ECC DBE, remap failure, NotReady, a GPU the driver could not initialise; else warning
--   title VARCHAR              -- one line
--   job VARCHAR                -- job using the GPU then, if any
--   ranks BIGINT[]             -- rank using the GPU then
--   pods VARCHAR[]             -- its pod
--   nodes VARCHAR[]            -- node
--   gpus VARCHAR[]             -- GPU UUID
--   started_at TIMESTAMP WITH TIME ZONE -- first seen
--   ended_at TIMESTAMP WITH TIME ZONE   -- last seen
--   detail VARCHAR             -- meaning / numbers
--   recommendation VARCHAR     -- what to do
--   evidence STRUCT[]          -- the events or counters
--   confidence VARCHAR         -- node-not-ready naming ranks: high (the API server's word that the node stopped); else null
--   gpu_hours_lost DOUBLE      -- node-not-ready naming ranks: from NotReady, its ranks' GPUs to the capture (their pods still hold them), the job's other ranks' to their end; else null
WITH xid AS (
    SELECT
        'xid-' || x.xid AS cause,
        CASE WHEN x.fatal THEN 'critical' WHEN x.xid IN (43, 45) THEN 'info' ELSE 'warning' END AS severity,
        'Xid ' || x.xid || ' on ' || coalesce(x.gpu_uuid, x.pci_bus_id, 'a GPU') || ' (' || coalesce(x.node, '?') || ')' AS title,
        arg_min(x.job_key, (x.ts, x.job_key)) AS job,  -- the job on the GPU at its first Xid
        list(DISTINCT x.rank ORDER BY x.rank) FILTER (WHERE x.rank IS NOT NULL) AS ranks,
        list(DISTINCT x.pod_key ORDER BY x.pod_key) FILTER (WHERE x.pod_key IS NOT NULL) AS pods,
        [x.node] AS nodes,
        CASE WHEN x.gpu_uuid IS NULL THEN []::VARCHAR[] ELSE [x.gpu_uuid] END AS gpus,
        min(x.ts) AS started_at, max(x.ts) AS ended_at,
        coalesce(min(x.meaning), 'Xid ' || x.xid || ' (not in the k10s table; see the NVIDIA Xid catalog)') AS detail,
        CASE min(x.action)
            WHEN 'reboot-node' THEN 'Drain and reboot the node; if the GPU falls off the bus again, RMA it. Restart the job from its last checkpoint elsewhere.'
            WHEN 'reset-gpu' THEN 'Drain the node and reset the GPU (nvidia-smi -r) before reuse; repeated errors after reset mean RMA.'
            WHEN 'restart-app' THEN 'Restart the application; if it repeats on the same GPU, run dcgmi diag on it.'
            ELSE 'Correlate with other Xids on this GPU; no action on its own.'
        END AS recommendation,
        list({'what': 'xid', 'at': x.ts, 'value': x.xid::DOUBLE, 'source': x.source, 'line': left(x.line, 300)} ORDER BY x.ts, x.source, x.line, x.rank) AS evidence,
        NULL::VARCHAR AS confidence, NULL::DOUBLE AS gpu_hours_lost
    FROM k10s_xid_event x
    GROUP BY x.xid, x.node, x.gpu_uuid, x.pci_bus_id, x.fatal
),
init_failed AS (  -- the driver could not bring a GPU up: one finding per node and GPU address (none in older drivers' lines)
    SELECT
        'gpu-init-failed' AS cause, 'critical' AS severity,
        coalesce('GPU ' || l.bus_id, 'A GPU') || ' failed to initialise (' || coalesce(l.node_resolved, '?') || ')' AS title,
        NULL::VARCHAR AS job, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods,
        CASE WHEN l.node_resolved IS NULL THEN []::VARCHAR[] ELSE [l.node_resolved] END AS nodes,
        coalesce(list(DISTINCT g.gpu_uuid ORDER BY g.gpu_uuid) FILTER (WHERE g.gpu_uuid IS NOT NULL), []::VARCHAR[]) AS gpus,
        min(l.ts) AS started_at, max(l.ts) AS ended_at,
        'The NVIDIA driver could not initialise ' || coalesce('the GPU at ' || l.bus_id, 'a GPU') || ' ('
            || string_agg(DISTINCT l.error_message, '; ' ORDER BY l.error_message) || ', ' || count(*) || ' line(s)): it is absent from'
            || ' nvidia-smi and the node''s allocatable GPUs' AS detail,
        'Cordon the node and power-cycle it (a cold boot: power removed, not a reboot); if the GPU fails to initialise again, check its PCIe link (lspci, the pciehp lines of dmesg) and RMA it.' AS recommendation,
        list({'what': 'gpu_init_failed', 'at': l.ts, 'value': NULL::DOUBLE, 'source': 'log', 'line': left(l.line, 300)}
             ORDER BY l.ts, l.line) AS evidence,
        NULL::VARCHAR AS confidence, NULL::DOUBLE AS gpu_hours_lost
    FROM k10s_log l
    LEFT JOIN gpus g ON g.node = l.node_resolved AND left(g.pci_bus_id, 10) = left(l.bus_id, 10) AND NOT coalesce(g.is_mig, false)
    WHERE l.kind = 'gpu_init_failed'
    GROUP BY l.node_resolved, l.bus_id
),
gpu_rank AS (  -- latest rank on each GPU
    SELECT gpu_uuid, arg_max(job_key, (valid_from, pod_key, rank)) AS job_key, arg_max(rank, (valid_from, pod_key, rank)) AS rank,
           arg_max(pod_key, (valid_from, pod_key, rank)) AS pod_key
    FROM k10s_rank WHERE gpu_uuid IS NOT NULL GROUP BY gpu_uuid
),
ecc AS (
    SELECT
        CASE WHEN coalesce(g.remapped_rows_failure, false) THEN 'row-remap-failure'
             WHEN coalesce(g.ecc_dbe_volatile, 0) > 0 OR coalesce(s.dbe_delta, 0) > 0 THEN 'ecc-uncorrectable'
             ELSE 'row-remap-pending' END AS cause,
        CASE WHEN coalesce(g.remapped_rows_failure, false) OR coalesce(g.ecc_dbe_volatile, 0) > 0 OR coalesce(s.dbe_delta, 0) > 0 THEN 'critical' ELSE 'warning' END AS severity,
        'Memory errors on ' || g.gpu_uuid || ' (' || g.node || ')' AS title,
        gr.job_key AS job,
        CASE WHEN gr.rank IS NULL THEN []::BIGINT[] ELSE [gr.rank] END AS ranks,
        CASE WHEN gr.pod_key IS NULL THEN []::VARCHAR[] ELSE [gr.pod_key] END AS pods,
        [g.node] AS nodes, [g.gpu_uuid] AS gpus,
        g.first_seen_at AS started_at, g.last_seen_at AS ended_at,
        'volatile DBE ' || coalesce(g.ecc_dbe_volatile, 0) || ', aggregate DBE ' || coalesce(g.ecc_dbe_aggregate, 0)
            || ', DBE counter +' || coalesce(s.dbe_delta, 0) || ' in window, remap pending ' || coalesce(g.remapped_rows_pending, false)
            || ', remap failure ' || coalesce(g.remapped_rows_failure, false) AS detail,
        'Drain the node and reset the GPU to apply row remapping; a remap failure or repeated DBEs mean RMA.' AS recommendation,
        [{'what': 'ecc', 'at': g.last_seen_at, 'value': coalesce(g.ecc_dbe_volatile, s.dbe_delta)::DOUBLE, 'source': g.source, 'line': NULL::VARCHAR}] AS evidence,
        NULL::VARCHAR AS confidence, NULL::DOUBLE AS gpu_hours_lost
    FROM gpus g
    LEFT JOIN (SELECT gpu_uuid, max(ecc_dbe_total) - min(ecc_dbe_total) AS dbe_delta FROM gpu_samples GROUP BY gpu_uuid) s USING (gpu_uuid)
    LEFT JOIN gpu_rank gr USING (gpu_uuid)
    WHERE coalesce(g.ecc_dbe_volatile, 0) > 0 OR coalesce(g.remapped_rows_failure, false)
       OR coalesce(g.remapped_rows_pending, false) OR coalesce(s.dbe_delta, 0) > 0
),
throttle AS (
    SELECT
        s.gpu_uuid, arg_max(s.node, (s.ts, s.node)) AS node, count(*) AS n,
        count(*) FILTER (WHERE coalesce(s.throttle_reasons, 0) & 104 > 0) AS thermal_n,  -- HwSlowdown|SwThermal|HwThermal
        count(*) FILTER (WHERE coalesce(s.throttle_reasons, 0) & 128 > 0) AS brake_n,    -- HwPowerBrake
        min(s.ts) FILTER (WHERE coalesce(s.throttle_reasons, 0) & 232 > 0) AS first_ts,
        max(s.ts) FILTER (WHERE coalesce(s.throttle_reasons, 0) & 232 > 0) AS last_ts,
        max(s.temp_c) AS max_temp_c, median(s.sm_clock_mhz) AS sm_clock_mhz, bit_or(coalesce(s.throttle_reasons, 0)) AS reasons
    FROM gpu_samples s GROUP BY s.gpu_uuid
),
throttled AS (
    SELECT
        CASE WHEN t.brake_n > t.thermal_n THEN 'power-brake' ELSE 'thermal-throttle' END AS cause,
        'warning' AS severity,
        'Hardware slowdown on ' || t.gpu_uuid || ' (' || t.node || ')' AS title,
        gr.job_key AS job,
        CASE WHEN gr.rank IS NULL THEN []::BIGINT[] ELSE [gr.rank] END AS ranks,
        CASE WHEN gr.pod_key IS NULL THEN []::VARCHAR[] ELSE [gr.pod_key] END AS pods,
        [t.node] AS nodes, [t.gpu_uuid] AS gpus, t.first_ts AS started_at, t.last_ts AS ended_at,
        'clock-event reasons 0x' || lower(printf('%x', t.reasons)) || ' in ' || greatest(t.thermal_n, t.brake_n) || ' of ' || t.n
            || ' samples; max ' || round(t.max_temp_c) || ' C; median SM clock ' || round(t.sm_clock_mhz) || ' MHz' AS detail,
        'Check cooling (fans, inlet air, heatsink seating) or the power supply/brake signal of this node; cordon it if slowdown persists.' AS recommendation,
        [{'what': 'throttle', 'at': t.last_ts, 'value': greatest(t.thermal_n, t.brake_n)::DOUBLE / t.n, 'source': 'gpu_samples', 'line': NULL::VARCHAR}] AS evidence,
        NULL::VARCHAR AS confidence, NULL::DOUBLE AS gpu_hours_lost
    FROM throttle t LEFT JOIN gpu_rank gr USING (gpu_uuid)
    WHERE t.n >= 3 AND greatest(t.thermal_n, t.brake_n) >= 0.3 * t.n
),
node_state AS (  -- NotReady: Ready False, or Unknown (the node controller's NodeStatusUnknown: no status posted); a node
                 -- known only from kube-state-metrics' history (deleted before capture) has its allocatable, its status
                 -- as of its last sample and no listing time (the window's end stands for it)
    SELECT * REPLACE (coalesce(captured_at, $window_end) AS captured_at),
           ready IS FALSE OR (ready IS NULL AND ready_reason = 'NodeStatusUnknown') AS not_ready
    FROM nodes WHERE coalesce(gpu_capacity, gpu_allocatable, 0) > 0
),
lost AS (  -- per NotReady node and job: the ranks whose pod ran there when it turned (the node controller marks it a grace
           -- period after the last status, 40 s by default: hence the minutes' slack) and printed nothing after it
    SELECT n.node, r.job_key, list(DISTINCT r.rank ORDER BY r.rank) AS ranks, list(DISTINCT r.pod_key ORDER BY r.pod_key) AS pods,
           list(DISTINCT r.gpu_uuid ORDER BY r.gpu_uuid) FILTER (WHERE r.gpu_uuid IS NOT NULL) AS gpus
    FROM node_state n JOIN k10s_rank r ON r.node = n.node
    WHERE n.not_ready AND n.ready_changed_at IS NOT NULL
      AND r.valid_from <= n.ready_changed_at AND r.valid_to >= n.ready_changed_at - INTERVAL 2 MINUTE
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.incarnation_uid = r.pod_uid AND x.ts > n.ready_changed_at)
    GROUP BY n.node, r.job_key
),
node_health AS (
    SELECT
        CASE WHEN n.not_ready THEN 'node-not-ready' ELSE 'gpu-unallocatable' END AS cause,
        CASE WHEN n.not_ready THEN 'critical' ELSE 'warning' END AS severity,
        CASE WHEN l.job_key IS NOT NULL THEN 'GPU node ' || n.node || ' went NotReady under ' || len(l.ranks) || ' rank(s) of ' || l.job_key
             WHEN n.not_ready THEN 'GPU node ' || n.node || ' is NotReady'
             ELSE n.node || ' has ' || (n.gpu_capacity - n.gpu_allocatable) || ' GPU(s) missing from allocatable' END AS title,
        l.job_key AS job, coalesce(l.ranks, []::BIGINT[]) AS ranks, coalesce(l.pods, []::VARCHAR[]) AS pods, [n.node] AS nodes,
        coalesce(l.gpus, []::VARCHAR[]) AS gpus,
        n.ready_changed_at AS started_at, n.captured_at AS ended_at,
        CASE WHEN l.job_key IS NOT NULL
             THEN 'Node ' || n.node || ' has been NotReady since ' || strftime(n.ready_changed_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')
                  || coalesce(' (' || n.ready_reason || CASE n.ready_reason WHEN 'NodeStatusUnknown' THEN ': its kubelet stopped posting status' ELSE '' END || ')', '')
                  || ': the node died or was cut off, and the ranks it ran print nothing after it'
             ELSE 'capacity ' || coalesce(n.gpu_capacity::VARCHAR, '?') || ', allocatable ' || coalesce(n.gpu_allocatable, 0) || ', Ready ' || coalesce(n.ready::VARCHAR, '?')
                  || coalesce(' (' || n.ready_reason || ')', '') END AS detail,
        CASE WHEN l.job_key IS NOT NULL
             THEN 'The node died or lost its network (power, a kernel panic, a spot VM reclaimed, a partition): check the cloud console or BMC and kubectl describe node; cordon it and restart the job from its last checkpoint on healthy nodes. The ranks there did not fail on their own, and the others only waited for them.'
             WHEN n.not_ready THEN 'Check the kubelet and node conditions (kubectl describe node); drain and repair the node.'
             ELSE 'The device plugin marked GPUs unhealthy: check dmesg for Xids and nvidia-smi on the node; reset or replace the GPU.' END AS recommendation,
        [{'what': 'node', 'at': coalesce(CASE WHEN n.not_ready THEN n.ready_changed_at END, n.captured_at),
          'value': (n.gpu_capacity - coalesce(n.gpu_allocatable, 0))::DOUBLE, 'source': 'nodes', 'line': n.ready_reason}] AS evidence,
        CASE WHEN l.job_key IS NOT NULL THEN 'high' END AS confidence,
        CASE WHEN l.job_key IS NOT NULL
             THEN round((len(l.ranks) * greatest(epoch(n.captured_at - n.ready_changed_at), 0)
                         + greatest(js.gpus - len(l.ranks), 0) * greatest(epoch(least(coalesce(o.end_at, n.captured_at), n.captured_at) - n.ready_changed_at), 0))
                        / 3600.0, 3) END AS gpu_hours_lost
    FROM node_state n LEFT JOIN lost l ON l.node = n.node LEFT JOIN k10s_job_size js ON js.job_key = l.job_key
    LEFT JOIN LATERAL (SELECT max(r.valid_to) AS end_at FROM k10s_rank r
                       WHERE r.job_key = l.job_key AND NOT list_contains(l.ranks, r.rank)) o ON true
    WHERE n.not_ready OR coalesce(n.gpu_allocatable, 0) < coalesce(n.gpu_capacity, 0)
)
SELECT * FROM xid
UNION ALL SELECT * FROM init_failed
UNION ALL SELECT * FROM ecc
UNION ALL SELECT * FROM throttled
UNION ALL SELECT * FROM node_health
ORDER BY severity, cause, nodes, gpus, title, started_at, job
