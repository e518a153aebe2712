-- name: fact_pod_net
-- description: Socket health of every pod against its job's peers (ss inside the pod),
--   from the shared view k10s_pod_net the network rule reads.
-- inputs: tcp_samples, ranks
-- params: (none)
-- columns: pod_key VARCHAR, peers BIGINT, degraded_peers BIGINT, median_rtt_ms DOUBLE,
--   median_minrtt_ms DOUBLE, max_retrans_rate DOUBLE, job_retrans_rate DOUBLE, culprit BOOLEAN
-- grain: pod_key
SELECT pod_key::VARCHAR AS pod_key, peers::BIGINT AS peers, degraded_peers::BIGINT AS degraded_peers,
       median_rtt_ms::DOUBLE AS median_rtt_ms, median_minrtt_ms::DOUBLE AS median_minrtt_ms,
       max_retrans_rate::DOUBLE AS max_retrans_rate, job_retrans_rate::DOUBLE AS job_retrans_rate, culprit
FROM k10s_pod_net
QUALIFY row_number() OVER (PARTITION BY pod_key ORDER BY peers DESC, degraded_peers DESC, job_key) = 1
