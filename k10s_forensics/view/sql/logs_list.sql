-- name: logs_list
-- description: Recognised log lines (containers and dmesg) with the rank, job and node
--   resolved by the shared view k10s_log, newest first (the :logs view).
-- inputs: log_events
-- params: (none)
-- columns: ts TIMESTAMPTZ, job_key VARCHAR, rank BIGINT, pod VARCHAR (namespace/pod),
--   node VARCHAR, kind VARCHAR, line VARCHAR
-- grain: one row per log line
SELECT ts, job_key::VARCHAR AS job_key, rank_resolved::BIGINT AS rank, pod_key::VARCHAR AS pod,
       node_resolved::VARCHAR AS node, kind::VARCHAR AS kind, line::VARCHAR AS line
FROM k10s_log
ORDER BY ts DESC NULLS LAST, job_key, rank, pod, line, kind
LIMIT 5000
