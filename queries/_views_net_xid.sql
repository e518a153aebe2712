-- Shared building blocks, part 2 (created after _views.sql, which they build on): NCCL
-- socket paths between the pods of a job, Xid meanings and events, GPU prices.

-- k10s_tcp_path: one row per TCP connection between two pods of the same job (NCCL
-- sockets; the TCPStore ports 23456/29500 excluded), with rtt/minrtt and retransmit rates.
CREATE OR REPLACE TEMP TABLE k10s_tcp_path AS
WITH t AS (
    SELECT * FROM tcp_samples
    WHERE coalesce(state, 'ESTAB') = 'ESTAB'
      AND coalesce(local_port, 0) NOT IN (23456, 29500)
      AND coalesce(peer_port, 0) NOT IN (23456, 29500)
),
c AS (
    SELECT
        namespace, pod, arg_max(node, (ts IS NOT NULL, ts, node)) AS node, local_addr, local_port, peer_addr, peer_port,
        count(*) AS samples, min(ts) AS t0, max(ts) AS t1,
        median(rtt_ms) AS rtt_ms, min(minrtt_ms) AS minrtt_ms,
        max(retrans_total) - min(retrans_total) AS d_retrans,
        max(bytes_retrans) - min(bytes_retrans) AS d_bytes_retrans,
        max(bytes_sent) - min(bytes_sent) AS d_bytes_sent,
        max(bytes_retrans) AS bytes_retrans, max(bytes_sent) AS bytes_sent, max(retrans_total) AS retrans_total
    FROM t GROUP BY namespace, pod, local_addr, local_port, peer_addr, peer_port
),
resolved AS (
    SELECT
        c.*,
        lp.job_key, lp.pod_key AS local_pod, lp.node AS local_node,
        ip.pod_key AS peer_pod, ip.node AS peer_node, ip.job_key AS peer_job,
        row_number() OVER (
            PARTITION BY c.namespace, c.pod, c.local_addr, c.local_port, c.peer_addr, c.peer_port
            ORDER BY coalesce(c.t1 BETWEEN ip.valid_from AND ip.valid_to, false) DESC, ip.valid_from DESC, lp.valid_from DESC,
                     ip.pod_uid, lp.pod_uid
        ) AS pick
    FROM c
    JOIN k10s_pod_job lp ON lp.namespace = c.namespace AND lp.pod = c.pod AND c.t1 BETWEEN lp.valid_from - INTERVAL 5 MINUTE AND lp.valid_to + INTERVAL 5 MINUTE
    JOIN k10s_ip ip ON ip.ip = c.peer_addr AND ip.ip_kind = 'pod'
     AND c.t1 BETWEEN ip.valid_from - INTERVAL 5 MINUTE AND ip.valid_to + INTERVAL 5 MINUTE
)
SELECT
    * EXCLUDE (pick),
    rtt_ms / nullif(minrtt_ms, 0) AS rtt_ratio,
    CASE WHEN d_bytes_sent > 0 THEN d_bytes_retrans / d_bytes_sent
         ELSE bytes_retrans / nullif(bytes_sent, 0) END AS retrans_rate
FROM resolved
WHERE pick = 1 AND job_key IS NOT NULL AND job_key = peer_job AND local_pod <> peer_pod;

-- k10s_pod_pair: both directions of a pod pair merged. A pair is degraded when its
-- retransmit rate is >= 0.1% (healthy datacenter TCP stays far below 0.01%) and >= 10x the
-- job's baseline pair, or its rtt/minrtt is >= 3 and >= 2x the baseline with rtt exceeding
-- minrtt by >= 1 ms. The baseline is the job's lower-quartile pair (quantile_disc 0.25):
-- robust even when one bad pod spoils most pairs of a small job.
CREATE OR REPLACE TEMP TABLE k10s_pod_pair AS
WITH p AS (
    SELECT
        job_key, least(local_pod, peer_pod) AS pod_a, greatest(local_pod, peer_pod) AS pod_b,
        count(*) AS connections,
        median(rtt_ms) AS rtt_ms, median(minrtt_ms) AS minrtt_ms, median(rtt_ratio) AS rtt_ratio,
        coalesce(sum(CASE WHEN d_bytes_sent > 0 THEN d_bytes_retrans ELSE bytes_retrans END)
                 / nullif(sum(CASE WHEN d_bytes_sent > 0 THEN d_bytes_sent ELSE bytes_sent END), 0), 0) AS retrans_rate,
        sum(coalesce(d_retrans, 0)) AS retrans_segments
    FROM k10s_tcp_path GROUP BY ALL
),
j AS (
    SELECT job_key, quantile_disc(rtt_ratio, 0.25) AS job_rtt_ratio, quantile_disc(retrans_rate, 0.25) AS job_retrans_rate,
           count(*) AS job_pairs
    FROM p GROUP BY job_key
)
SELECT
    p.*, j.job_rtt_ratio, j.job_retrans_rate, j.job_pairs,
    coalesce(p.retrans_rate >= 0.001 AND p.retrans_rate >= 10 * coalesce(j.job_retrans_rate, 0), false) AS retrans_degraded,
    coalesce(p.rtt_ratio >= 3 AND p.rtt_ratio >= 2 * coalesce(j.job_rtt_ratio, 1) AND p.rtt_ms - p.minrtt_ms >= 1.0, false) AS rtt_degraded
FROM p JOIN j USING (job_key);

-- k10s_pod_net: per pod of a job, how many of its peer paths are degraded. A pod whose
-- paths to most peers are degraded has the sick NIC/host; a lone bad pair is a link.
CREATE OR REPLACE TEMP TABLE k10s_pod_net AS
WITH ends AS (
    SELECT job_key, pod_a AS pod_key, pod_b AS peer, * EXCLUDE (job_key, pod_a, pod_b) FROM k10s_pod_pair
    UNION ALL
    SELECT job_key, pod_b AS pod_key, pod_a AS peer, * EXCLUDE (job_key, pod_a, pod_b) FROM k10s_pod_pair
)
SELECT
    job_key, pod_key,
    count(*) AS peers,
    count(*) FILTER (WHERE retrans_degraded OR rtt_degraded) AS degraded_peers,
    max(retrans_rate) AS max_retrans_rate, median(retrans_rate) AS median_retrans_rate,
    max(rtt_ratio) AS max_rtt_ratio, median(rtt_ratio) AS median_rtt_ratio,
    median(rtt_ms) AS median_rtt_ms, median(minrtt_ms) AS median_minrtt_ms,
    min(job_retrans_rate) AS job_retrans_rate, min(job_rtt_ratio) AS job_rtt_ratio,  -- the same on every row of the job
    list(peer ORDER BY peer) FILTER (WHERE retrans_degraded OR rtt_degraded) AS degraded_peer_pods,
    count(*) FILTER (WHERE retrans_degraded OR rtt_degraded) > 0
        AND count(*) FILTER (WHERE retrans_degraded OR rtt_degraded) * 2 > count(*)
        AND count(*) >= 2 AS culprit
FROM ends GROUP BY job_key, pod_key;

-- k10s_xid_code: meaning and recommended action per Xid (NVIDIA Xid catalog / NVSentinel).
CREATE OR REPLACE TEMP TABLE k10s_xid_code AS
SELECT * FROM (VALUES
    (13, 'Graphics engine exception (usually an application fault, e.g. out-of-bounds access)', 'restart-app', false),
    (31, 'GPU memory page fault (MMU fault), usually an illegal access by the application', 'restart-app', false),
    (43, 'GPU stopped processing: channel reset after an application fault or kill', 'none', false),
    (45, 'Preemptive cleanup after a previous error or a killed process', 'none', false),
    (46, 'GPU timeout error', 'reset-gpu', true),
    (48, 'Uncorrectable double-bit ECC error', 'reset-gpu', true),
    (62, 'PMU halt error', 'reset-gpu', true),
    (63, 'ECC page retirement / row remap recorded; reset the GPU to activate', 'reset-gpu', false),
    (64, 'Page retirement or row remapping failed', 'reset-gpu', true),
    (74, 'NVLink error', 'reset-gpu', true),
    (79, 'GPU has fallen off the bus (PCIe link lost)', 'reboot-node', true),
    (92, 'High single-bit ECC error rate', 'watch', false),
    (94, 'Contained ECC error: only the affected application must restart', 'restart-app', false),
    (95, 'Uncontained ECC error: GPU reset required', 'reset-gpu', true),
    (119, 'GSP firmware RPC timeout', 'reset-gpu', true),
    (120, 'GSP firmware error', 'reset-gpu', true),
    (140, 'Unrecoverable ECC error escape', 'reset-gpu', true),
    -- NVLink5 (Blackwell) errors, often named only by a later Xid 45's "caused by previous Xid N" (parsers: caused_later_xid)
    (144, 'NVLink error (SAW)', 'reset-gpu', false),
    (145, 'NVLink error (RLW)', 'reset-gpu', false),
    (146, 'NVLink error (TLW)', 'reset-gpu', false),
    (147, 'NVLink error (TREX)', 'reset-gpu', false),
    (148, 'NVLink error (NVLPW_CTRL)', 'reset-gpu', false),
    (149, 'NVLink error (NETIR: the NVLink network)', 'reset-gpu', false),
    (150, 'NVLink error (MSE)', 'reset-gpu', false),
    (154, 'GPU recovery action changed', 'see-recovery-action', false)
) AS t(xid, meaning, action, fatal);

-- k10s_xid_event: Xid events from kernel logs (dmesg, resolved by node + PCI bus id) and
-- from the DCGM last-Xid gauge (first sample showing each code), with the rank that was
-- using the GPU then (a fatal Xid kills its pod, so up to 10 minutes after the pod ended);
-- one row per rank when the GPU is split into MIG devices. Empty without Xid lines in the logs and
-- without DCGM samples (created empty, unbound: analyze/viewplan.py).
-- k10s_xid_line: the kernel's Xid lines (the columns k10s_xid_event reads).
CREATE OR REPLACE TEMP TABLE k10s_xid_line AS
SELECT ts, node_resolved, gpu_uuid, bus_id, xid, line FROM k10s_log WHERE kind = 'xid' AND coalesce(xid, 0) > 0;

-- empty-without: k10s_xid_line, gpu_samples
-- empty-columns: ts TIMESTAMPTZ, node VARCHAR, gpu_uuid VARCHAR, pci_bus_id VARCHAR, xid BIGINT, source VARCHAR, line VARCHAR,
--     job_key VARCHAR, rank BIGINT, pod_key VARCHAR, pod_uid VARCHAR, meaning VARCHAR, action VARCHAR, fatal BOOLEAN
CREATE OR REPLACE TEMP TABLE k10s_xid_event AS
WITH from_logs AS (
    SELECT l.ts, l.node_resolved AS node, coalesce(g.gpu_uuid, l.gpu_uuid) AS gpu_uuid, l.bus_id AS pci_bus_id,
           l.xid, 'log' AS source, l.line
    FROM k10s_xid_line l
    LEFT JOIN gpus g ON g.node = l.node_resolved AND left(g.pci_bus_id, 10) = left(l.bus_id, 10) AND NOT coalesce(g.is_mig, false)
),
from_samples AS (
    SELECT min(ts) AS ts, arg_min(node, (ts, node)) AS node, gpu_uuid, arg_min(pci_bus_id, (ts, pci_bus_id)) AS pci_bus_id, xid,
           'gpu_samples' AS source, NULL::VARCHAR AS line
    FROM gpu_samples WHERE coalesce(xid, 0) > 0 GROUP BY gpu_uuid, xid
),
ev AS (
    SELECT * FROM from_logs
    UNION ALL BY NAME
    SELECT s.* FROM from_samples s
    WHERE NOT EXISTS (SELECT 1 FROM from_logs f WHERE f.gpu_uuid = s.gpu_uuid AND f.xid = s.xid)
)
SELECT
    ev.*, r.job_key, r.rank, r.pod_key, r.pod_uid,
    x.meaning, x.action, coalesce(x.fatal, false) AS fatal
FROM ev
LEFT JOIN k10s_xid_code x ON x.xid = ev.xid
LEFT JOIN LATERAL (  -- on a GPU in MIG mode the Xid hits every MIG device of it
    SELECT job_key, rank, pod_key, pod_uid FROM k10s_rank r
    WHERE (r.gpu_uuid = ev.gpu_uuid OR r.gpu_uuid IN (SELECT m.gpu_uuid FROM gpus m WHERE m.parent_gpu_uuid = ev.gpu_uuid))
      AND ev.ts BETWEEN r.valid_from AND r.valid_to + INTERVAL 10 MINUTE
    QUALIFY row_number() OVER (PARTITION BY r.gpu_uuid ORDER BY r.valid_from DESC, r.rank, r.pod_uid) = 1
) r ON true;

-- k10s_price(model): USD per GPU-hour, longest matching pattern of k10s_gpu_prices.
CREATE OR REPLACE TEMP MACRO k10s_price(model) AS (
    SELECT usd_per_gpu_hour FROM k10s_gpu_prices
    WHERE pattern = '' OR contains(upper(coalesce(model, '')), upper(pattern))
    ORDER BY length(pattern) DESC, pattern, usd_per_gpu_hour LIMIT 1
);
