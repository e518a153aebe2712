-- name: fact_recent_events
-- description: Kubernetes Warning events about any object (pod, node, ...) in the last 10
--   minutes of the capture window (scheduling failures, back-off, evictions, ...).
-- inputs: events
-- params: window_end TIMESTAMPTZ
-- columns: namespace VARCHAR (null for cluster-scoped objects), object_name VARCHAR,
--   ts TIMESTAMPTZ, reason VARCHAR, message VARCHAR, count BIGINT
-- grain: one row per event
SELECT coalesce(object_namespace, namespace)::VARCHAR AS namespace, object_name::VARCHAR AS object_name,
       ts, reason::VARCHAR AS reason, message::VARCHAR AS message, count::BIGINT AS count
FROM events
WHERE type = 'Warning' AND object_name IS NOT NULL AND ts >= $window_end - INTERVAL 10 MINUTE
ORDER BY ts DESC, namespace, object_name, reason, message, count
