-- id: network
-- title: Degraded network path on NCCL sockets
-- severity: warning
-- requires: tcp_samples, pods
-- gate: EXISTS (SELECT 1 FROM tcp_samples WHERE coalesce(bytes_retrans, 0) <> 0)
--   OR coalesce((SELECT max(rtt_ms) - min(minrtt_ms) FROM tcp_samples) > 0.99, false)
-- description: TCP connections between pods of the same job (NCCL sockets; TCPStore
--   ports excluded) are merged per pod pair. A pair is degraded when its retransmit rate
--   is >= 0.1% and >= 10x the job's baseline (lower-quartile) pair, or its rtt/minrtt is
--   >= 3, >= 2x the baseline and rtt exceeds minrtt by >= 1 ms. A pod with degraded paths to more than
--   half of its (>= 2) peers is the culprit (its NIC, host or switch port); a degraded pair
--   whose ends are both fine elsewhere is reported as a link. Reported even when no
--   straggler is proven.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- pod-path (one pod bad towards most peers) or link (one pair)
--   pods VARCHAR[]             -- culprit pod (pod-path) or both ends (link)
--   nodes VARCHAR[]            -- their nodes
--   ranks BIGINT[]             -- ranks in the culprit pod(s)
--   degraded_peers BIGINT      -- peers the culprit has degraded paths to
--   peers BIGINT               -- peers it has NCCL sockets to
--   retrans_rate DOUBLE        -- worst retransmitted/sent bytes ratio on its paths
--   rtt_ratio DOUBLE           -- worst rtt/minrtt on its paths
--   rtt_ms DOUBLE              -- median smoothed rtt of its paths (ms)
--   minrtt_ms DOUBLE           -- median minimum rtt of its paths (ms)
--   job_retrans_rate DOUBLE    -- the job's baseline (lower-quartile) pair retransmit rate
--   job_rtt_ratio DOUBLE       -- the job's baseline (lower-quartile) pair rtt/minrtt
--   evidence STRUCT[]          -- the degraded pairs
WITH culprit_pods AS (
    SELECT n.*, pj.node, pj.ranks
    FROM k10s_pod_net n
    LEFT JOIN (SELECT pod_key, arg_max(node, (valid_from, pod_uid)) AS node, arg_max(ranks, (valid_from, pod_uid)) AS ranks FROM k10s_pod_job GROUP BY pod_key) pj USING (pod_key)
    WHERE n.culprit
),
pairs AS (
    SELECT * FROM k10s_pod_pair WHERE retrans_degraded OR rtt_degraded
),
pod_findings AS (
    SELECT
        c.job_key AS job, 'pod-path' AS cause, [c.pod_key] AS pods, [c.node] AS nodes, coalesce(c.ranks, []::BIGINT[]) AS ranks,
        c.degraded_peers, c.peers, c.max_retrans_rate AS retrans_rate, c.max_rtt_ratio AS rtt_ratio,
        c.median_rtt_ms AS rtt_ms, c.median_minrtt_ms AS minrtt_ms, c.job_retrans_rate, c.job_rtt_ratio,
        (SELECT list({'pod_a': p.pod_a, 'pod_b': p.pod_b, 'connections': p.connections, 'rtt_ms': round(p.rtt_ms, 3),
                      'minrtt_ms': round(p.minrtt_ms, 3), 'rtt_ratio': round(p.rtt_ratio, 2), 'retrans_rate': round(p.retrans_rate, 5),
                      'retrans_segments': p.retrans_segments} ORDER BY p.retrans_rate DESC, p.pod_a, p.pod_b)
         FROM pairs p WHERE p.job_key = c.job_key AND (p.pod_a = c.pod_key OR p.pod_b = c.pod_key)) AS evidence
    FROM culprit_pods c
),
link_findings AS (
    SELECT
        p.job_key AS job, 'link' AS cause, [p.pod_a, p.pod_b] AS pods,
        list_sort(list_distinct([na.node, nb.node])) AS nodes, []::BIGINT[] AS ranks,
        1::BIGINT AS degraded_peers, NULL::BIGINT AS peers, p.retrans_rate, p.rtt_ratio, p.rtt_ms, p.minrtt_ms,
        p.job_retrans_rate, p.job_rtt_ratio,
        [{'pod_a': p.pod_a, 'pod_b': p.pod_b, 'connections': p.connections, 'rtt_ms': round(p.rtt_ms, 3),
          'minrtt_ms': round(p.minrtt_ms, 3), 'rtt_ratio': round(p.rtt_ratio, 2), 'retrans_rate': round(p.retrans_rate, 5),
          'retrans_segments': p.retrans_segments}] AS evidence
    FROM pairs p
    LEFT JOIN (SELECT pod_key, arg_max(node, (valid_from, pod_uid)) AS node FROM k10s_pod_job GROUP BY pod_key) na ON na.pod_key = p.pod_a
    LEFT JOIN (SELECT pod_key, arg_max(node, (valid_from, pod_uid)) AS node FROM k10s_pod_job GROUP BY pod_key) nb ON nb.pod_key = p.pod_b
    WHERE NOT EXISTS (SELECT 1 FROM culprit_pods c WHERE c.job_key = p.job_key AND c.pod_key IN (p.pod_a, p.pod_b))
)
SELECT * FROM pod_findings
UNION ALL
SELECT * FROM link_findings
ORDER BY job, cause, pods
