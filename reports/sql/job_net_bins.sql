-- name: job_net_bins
-- description: TCP health of every pod of a job over time (ss inside the pod): mean
--   smoothed RTT, minimum RTT and retransmitted segments per time bin. A pod's row stands
--   for its ranks (they share the pod's network namespace). Bins follow $t0/$bin_s when
--   given (to line up with the GPU heatmap), else at most $max_bins over the samples.
-- inputs: ranks, tcp_samples
-- params: job_key VARCHAR, t0 TIMESTAMPTZ (nullable), bin_s DOUBLE (nullable), max_bins BIGINT
-- columns:
--   first_rank BIGINT           -- lowest rank of the pod
--   ranks BIGINT[]              -- ranks of the pod
--   pod VARCHAR
--   bin BIGINT
--   t0 TIMESTAMP WITH TIME ZONE
--   bin_s DOUBLE
--   rtt_ms DOUBLE               -- mean smoothed RTT over connections
--   minrtt_ms DOUBLE            -- minimum RTT
--   retrans BIGINT              -- segments retransmitted in the bin (sum of counter increases)
--   connections BIGINT          -- connections sampled
-- grain: pod, bin
WITH jp AS (
    SELECT namespace, pod, min(rank) AS first_rank, list(DISTINCT rank ORDER BY rank) AS ranks
    FROM ranks
    WHERE namespace || '/' || job = $job_key AND rank IS NOT NULL
    GROUP BY namespace, pod
),
t AS (
    SELECT
        jp.first_rank, jp.ranks, t.pod, t.ts, t.rtt_ms, t.minrtt_ms,
        t.local_addr || ':' || coalesce(t.local_port, 0) || '>' || t.peer_addr || ':' || coalesce(t.peer_port, 0) AS conn,
        t.retrans_total - lag(t.retrans_total) OVER (
            PARTITION BY t.namespace, t.pod, t.local_addr, t.local_port, t.peer_addr, t.peer_port ORDER BY t.ts, t.retrans_total
        ) AS d_retrans
    FROM tcp_samples t JOIN jp ON jp.namespace = t.namespace AND jp.pod = t.pod
),
bounds AS (
    SELECT
        coalesce($t0, (SELECT min(ts) FROM t)) AS t0,
        coalesce($bin_s, greatest(coalesce((SELECT epoch(max(ts)) - epoch(min(ts)) FROM t), 0.0) / $max_bins, 1.0)) AS bin_s
)
SELECT
    first_rank::BIGINT AS first_rank,
    min(ranks) AS ranks,
    pod::VARCHAR AS pod,
    floor((epoch(t.ts) - epoch(b.t0)) / b.bin_s)::BIGINT AS bin,
    min(b.t0) AS t0,
    min(b.bin_s)::DOUBLE AS bin_s,
    avg(rtt_ms)::DOUBLE AS rtt_ms,
    min(minrtt_ms)::DOUBLE AS minrtt_ms,
    coalesce(sum(greatest(d_retrans, 0)), 0)::BIGINT AS retrans,
    count(DISTINCT conn)::BIGINT AS connections
FROM t CROSS JOIN bounds b
WHERE t.ts >= b.t0
GROUP BY first_rank, pod, 4
ORDER BY first_rank, bin, pod
