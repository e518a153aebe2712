-- name: events_list
-- description: Kubernetes events of the bundle, newest first (the :events view).
-- inputs: events
-- params: (none)
-- columns: ts TIMESTAMPTZ, type VARCHAR, reason VARCHAR, object VARCHAR (kind/ns/name),
--   namespace VARCHAR, name VARCHAR, message VARCHAR, count BIGINT
-- grain: one row per event
SELECT ts, type::VARCHAR AS type, reason::VARCHAR AS reason,
       (coalesce(object_kind, '?') || '/' || coalesce(object_namespace || '/', '') || coalesce(object_name, '?'))::VARCHAR AS object,
       coalesce(object_namespace, namespace)::VARCHAR AS namespace, object_name::VARCHAR AS name,
       message::VARCHAR AS message, count::BIGINT AS count
FROM events
ORDER BY ts DESC NULLS LAST, namespace, object, reason, message, count
LIMIT 5000
