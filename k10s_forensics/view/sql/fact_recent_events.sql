-- name: fact_recent_events
-- description: Kubernetes Warning events about one object (pod or node) in the last 10
--   minutes of the capture window (scheduling failures, back-off, evictions, ...).
-- inputs: events
-- params: namespace VARCHAR (null for a node), object_name VARCHAR, window_end TIMESTAMPTZ
-- columns: ts TIMESTAMPTZ, reason VARCHAR, message VARCHAR, count BIGINT
-- grain: one row per event
SELECT ts, reason::VARCHAR AS reason, message::VARCHAR AS message, count::BIGINT AS count
FROM events
WHERE object_name = $object_name AND coalesce(object_namespace, namespace, '') = coalesce($namespace, object_namespace, namespace, '')
  AND type = 'Warning' AND ts >= $window_end - INTERVAL 10 MINUTE
ORDER BY ts DESC
LIMIT 20
