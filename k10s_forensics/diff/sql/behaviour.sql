-- facet: behaviour
-- compares: per GPU (median over its samples): utilisation, power, SM clock, tensor
--   activity; per rank: step time (log progress lines); per node: TCP RTT, retransmits per
--   minute and delivery rate of its pods' connections (NCCL over sockets). Each value of
--   the bundle is compared with the baseline's own spread across its GPUs, ranks or nodes
--   (5th to 95th percentile, widened by half its width or the metric's floor); the
--   median of all of them with the baseline's median (moved by more than a quarter of the
--   spread or the floor). A GPU, rank or node the baseline also has must also have moved
--   from its own baseline value by more than that margin (an outlier in both is no change).
--   Size: relative change against the baseline median.
-- output: facet, scope, subject, node, gpu, rank, attribute, baseline, current, changed, comparable, size, spread_x
WITH metric(metric, unit, rel_floor, abs_floor) AS (VALUES
    ('GPU utilisation', '%', 0.0, 5.0), ('GPU power', 'W', 0.05, 10.0), ('SM clock', 'MHz', 0.03, 45.0),
    ('tensor activity', '', 0.0, 0.05), ('step time', 'ms', 0.05, 5.0), ('TCP RTT', 'ms', 0.25, 0.05),
    ('TCP retransmits per minute', '', 0.5, 2.0), ('TCP delivery rate', 'Gbit/s', 0.2, 0.1)
),
gs AS (
    SELECT 'base' AS side, run, gpu_uuid, util_pct, power_w, sm_clock_mhz, tensor_active FROM base.gpu_samples
    UNION ALL SELECT 'cur', run, gpu_uuid, util_pct, power_w, sm_clock_mhz, tensor_active FROM cur.gpu_samples
),
per_gpu AS (
    SELECT side, run, gpu_uuid, median(util_pct) AS util, median(power_w) AS power, median(sm_clock_mhz) AS clock,
           median(tensor_active) AS tensor
    FROM gs GROUP BY ALL
),
rank_of AS (
    SELECT side, run, gpu_uuid, min(rank) AS rank
    FROM (SELECT 'base' AS side, run, gpu_uuid, rank FROM base.ranks UNION ALL SELECT 'cur', run, gpu_uuid, rank FROM cur.ranks)
    WHERE gpu_uuid IS NOT NULL GROUP BY ALL
),
steps AS (
    SELECT side, run, pod_uid, coalesce(rank, -1) AS line_rank, regr_slope(epoch(ts), step) * 1000 AS step_ms, count(*) AS n
    FROM (SELECT 'base' AS side, run, pod_uid, rank, ts, step FROM base.log_events WHERE kind = 'training_step'
          UNION ALL SELECT 'cur', run, pod_uid, rank, ts, step FROM cur.log_events WHERE kind = 'training_step')
    WHERE step IS NOT NULL AND ts IS NOT NULL GROUP BY ALL HAVING count(*) >= 3
),
step_rank AS (
    SELECT s.side, s.run, CASE WHEN s.line_rank >= 0 THEN s.line_rank ELSE min(r.rank) END AS rank, min(r.node) AS node,
           median(s.step_ms) AS step_ms
    FROM steps s
    JOIN (SELECT 'base' AS side, run, pod_uid, rank, node FROM base.ranks UNION ALL SELECT 'cur', run, pod_uid, rank, node FROM cur.ranks) r
      ON r.side = s.side AND r.run = s.run AND r.pod_uid = s.pod_uid
    GROUP BY s.side, s.run, s.line_rank, s.pod_uid
),
conn AS (
    SELECT side, run, node, pod, local_addr, local_port, peer_addr, peer_port, median(rtt_ms) AS rtt,
           max(retrans_total) - min(retrans_total) AS retrans, median(delivery_rate_bps) / 1e9 AS rate,
           greatest(epoch(max(ts)) - epoch(min(ts)), 1) / 60 AS minutes
    FROM (SELECT 'base' AS side, run, ts, node, pod, local_addr, local_port, peer_addr, peer_port, rtt_ms, retrans_total, delivery_rate_bps, state
          FROM base.tcp_samples
          UNION ALL
          SELECT 'cur', run, ts, node, pod, local_addr, local_port, peer_addr, peer_port, rtt_ms, retrans_total, delivery_rate_bps, state
          FROM cur.tcp_samples)
    WHERE state IS NULL OR state = 'ESTAB' GROUP BY ALL
),
per_node_net AS (
    SELECT side, run, node, median(rtt) AS rtt, sum(retrans) / max(minutes) AS retrans_min, median(rate) AS rate FROM conn GROUP BY ALL
),
v AS (
    SELECT p.side, p.run, 'gpu' AS scope, k.gpu_key AS subject, k.node_key AS node, k.gpu_key AS gpu, r.rank,
           unnest([{'m': 'GPU utilisation', 'x': p.util}, {'m': 'GPU power', 'x': p.power}, {'m': 'SM clock', 'x': p.clock},
                   {'m': 'tensor activity', 'x': p.tensor}]) AS mx
    FROM per_gpu p JOIN d_gpu_key k USING (side, run, gpu_uuid) LEFT JOIN rank_of r USING (side, run, gpu_uuid)
    UNION ALL
    SELECT s.side, s.run, 'rank', 'rank ' || s.rank::VARCHAR, nk.node_key, NULL, s.rank, {'m': 'step time', 'x': s.step_ms}
    FROM step_rank s LEFT JOIN d_node_key nk ON nk.side = s.side AND nk.run = s.run AND nk.node = s.node
    UNION ALL
    SELECT n.side, n.run, 'node', nk.node_key, nk.node_key, NULL, NULL::BIGINT,
           unnest([{'m': 'TCP RTT', 'x': n.rtt}, {'m': 'TCP retransmits per minute', 'x': n.retrans_min}, {'m': 'TCP delivery rate', 'x': n.rate}])
    FROM per_node_net n JOIN d_node_key nk USING (side, run, node)
),
vals AS MATERIALIZED (SELECT side, scope, subject, min(node) AS node, min(gpu) AS gpu, min(rank) AS rank, mx.m AS metric, avg(mx.x) AS x
         FROM v WHERE mx.x IS NOT NULL AND NOT isnan(mx.x) GROUP BY ALL),
stats0 AS (
    SELECT b.metric, quantile_cont(b.x, 0.05) AS p05, median(b.x) AS med, quantile_cont(b.x, 0.95) AS p95, count(*) AS n,
           min(m.unit) AS unit, greatest(min(m.rel_floor) * abs(median(b.x)), min(m.abs_floor)) AS floor_v
    FROM vals b JOIN metric m USING (metric) WHERE b.side = 'base' GROUP BY b.metric
),
stats AS (SELECT *, greatest(0.5 * (p95 - p05), floor_v) AS margin FROM stats0),
cur_med AS (SELECT metric, median(x) AS med, count(*) AS n FROM vals WHERE side = 'cur' GROUP BY metric),
fmt AS (SELECT metric, unit FROM metric)
SELECT 'behaviour' AS facet, c.scope, c.subject, c.node, c.gpu, c.rank, c.metric AS attribute,
       printf('%s%s (p5-p95 %s-%s, n=%d)', k10s_num(s.med), CASE WHEN s.unit = '' THEN '' ELSE ' ' || s.unit END, k10s_num(s.p05), k10s_num(s.p95), s.n) AS baseline,
       printf('%s%s', k10s_num(c.x), CASE WHEN s.unit = '' THEN '' ELSE ' ' || s.unit END) AS current,
       (c.x < s.p05 - s.margin OR c.x > s.p95 + s.margin) AND (own.x IS NULL OR abs(c.x - own.x) > s.margin) AS changed, true AS comparable,
       CASE WHEN s.med <> 0 THEN (c.x - s.med) / abs(s.med) END AS size,
       (c.x - s.med) / nullif(greatest(s.p95 - s.p05, s.margin), 0) AS spread_x
FROM vals c JOIN stats s USING (metric)
LEFT JOIN (SELECT scope, subject, metric, avg(x) AS x FROM vals WHERE side = 'base' GROUP BY ALL) own USING (scope, subject, metric)
WHERE c.side = 'cur'
UNION ALL
SELECT 'behaviour', 'all', 'all ' || CASE WHEN s.metric IN ('step time') THEN 'ranks' WHEN s.metric LIKE 'TCP%' THEN 'nodes' ELSE 'GPUs' END,
       NULL, NULL, NULL, s.metric || ' (median)',
       printf('%s%s (p5-p95 %s-%s, n=%d)', k10s_num(s.med), CASE WHEN s.unit = '' THEN '' ELSE ' ' || s.unit END, k10s_num(s.p05), k10s_num(s.p95), s.n),
       printf('%s%s (n=%d)', k10s_num(c.med), CASE WHEN s.unit = '' THEN '' ELSE ' ' || s.unit END, c.n),
       abs(c.med - s.med) > greatest(0.25 * (s.p95 - s.p05), s.floor_v), true,
       CASE WHEN s.med <> 0 THEN (c.med - s.med) / abs(s.med) END,
       (c.med - s.med) / nullif(greatest(s.p95 - s.p05, s.margin), 0)
FROM cur_med c JOIN stats s USING (metric)
