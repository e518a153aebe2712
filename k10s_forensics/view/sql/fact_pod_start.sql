-- name: fact_pod_start
-- description: Why a pod's containers are not running: the pod phase and status reason, and
--   every container (init first) that is waiting or terminated with its reason and message
--   (ContainerCreating, RunContainerError, ImagePullBackOff, CrashLoopBackOff, ...), plus the
--   latest Pulled event (image pull duration). The gpu-startup finding says which cause.
-- inputs: pods, containers, events
-- params: (none)
-- columns: pod_key VARCHAR, phase VARCHAR, pod_reason VARCHAR, container VARCHAR, init BOOLEAN,
--   state VARCHAR, reason VARCHAR, message VARCHAR, pulled VARCHAR
-- grain: one row per container of a pod incarnation that is not running (one row with null container when all run)
SELECT p.namespace || '/' || p.pod AS pod_key, p.phase::VARCHAR AS phase, p.reason::VARCHAR AS pod_reason,
       c.container::VARCHAR AS container, c.init, c.state::VARCHAR AS state, c.reason::VARCHAR AS reason,
       left(coalesce(c.message, c.last_message, p.message), 300)::VARCHAR AS message,
       (SELECT arg_max(e.message, e.ts) FROM events e WHERE e.namespace = p.namespace AND e.object_name = p.pod AND e.reason = 'Pulled')::VARCHAR AS pulled
FROM pods p
LEFT JOIN containers c ON c.pod_uid = p.pod_uid AND coalesce(c.state, '') <> 'running'
ORDER BY pod_key, c.init DESC NULLS LAST, c.container
