-- name: fact_pod_net
-- description: Socket health of one pod against its job's peers (ss inside the pod), from
--   the shared view k10s_pod_net the network rule reads.
-- inputs: tcp_samples, ranks
-- params: pod_key VARCHAR
-- columns: peers BIGINT, degraded_peers BIGINT, median_rtt_ms DOUBLE, median_minrtt_ms DOUBLE,
--   max_retrans_rate DOUBLE, job_retrans_rate DOUBLE, culprit BOOLEAN
-- grain: at most one row
SELECT peers::BIGINT AS peers, degraded_peers::BIGINT AS degraded_peers, median_rtt_ms::DOUBLE AS median_rtt_ms,
       median_minrtt_ms::DOUBLE AS median_minrtt_ms, max_retrans_rate::DOUBLE AS max_retrans_rate,
       job_retrans_rate::DOUBLE AS job_retrans_rate, culprit
FROM k10s_pod_net WHERE pod_key = $pod_key
LIMIT 1
