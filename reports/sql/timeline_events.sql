-- name: timeline_events
-- description: Every incident event of the bundle on one time axis, with the lane it
--   belongs to: a rank when it can be resolved (log line naming the rank, the pod's only
--   rank, a GPU's rank), else its pod, node or object. Sources: recognised log lines
--   (OOM, NCCL watchdog/errors, torchrun exits and restarts, Xid and host OOM from dmesg),
--   Kubernetes Warning events (scheduling failures, evictions, back-off, ...), container
--   terminations, evicted pods and Xid codes reported by DCGM.
-- inputs: log_events, events, containers, pods, ranks, gpu_samples
-- params: (none)
-- columns:
--   ts TIMESTAMP WITH TIME ZONE
--   lane_kind VARCHAR   -- rank, pod, node or object
--   job_key VARCHAR     -- namespace/job for rank lanes
--   rank BIGINT         -- for rank lanes
--   lane_name VARCHAR   -- pod key, node or kind/name for the other lanes
--   category VARCHAR    -- OOM, NCCL / watchdog, Exit / restart, Eviction / preemption, Scheduling, Xid / GPU, Other warning
--   kind VARCHAR        -- log kind or event reason
--   text VARCHAR        -- the line or message
-- grain: one row per event
WITH r AS (
    SELECT namespace, pod, pod_uid, namespace || '/' || job AS job_key, rank, local_rank, gpu_uuid, pci_bus_id,
           coalesce(nproc_per_node, 1) AS nproc, started_at, finished_at
    FROM ranks WHERE rank IS NOT NULL AND job IS NOT NULL
),
single AS (  -- pods that run exactly one rank
    SELECT pod_uid, min(namespace) AS namespace, min(pod) AS pod, min(job_key) AS job_key, min(rank) AS rank
    FROM r GROUP BY pod_uid HAVING count(DISTINCT rank) = 1
),
le AS (
    SELECT row_number() OVER (ORDER BY raw_row, line_no, ts, namespace, pod, pod_uid, kind, subkind, rank, line) AS eid, *
    FROM log_events
    WHERE kind NOT IN ('nccl_bootstrap', 'nccl_comm_init', 'training_step', 'net_socket', 'net_ib_oob') AND ts IS NOT NULL
),
logs AS (
    SELECT
        e.ts, e.kind, e.line AS text, e.namespace, e.pod, e.node,
        coalesce(rr.job_key, s.job_key, pj.job_key) AS job_key,
        coalesce(e.rank, rr.rank, s.rank) AS rank
    FROM le e
    LEFT JOIN (SELECT namespace, pod, pod_uid, min(job_key) AS job_key FROM r GROUP BY ALL) pj  -- the pod's job, for a rank it does not run
        ON pj.namespace = e.namespace AND pj.pod = e.pod AND (e.pod_uid IS NULL OR pj.pod_uid = e.pod_uid)
    LEFT JOIN r rr ON rr.namespace = e.namespace AND rr.pod = e.pod
        AND (e.pod_uid IS NULL OR rr.pod_uid = e.pod_uid)
        AND ((e.rank IS NOT NULL AND rr.rank = e.rank) OR (e.rank IS NULL AND e.local_rank IS NOT NULL AND rr.local_rank = e.local_rank)
            OR (e.rank IS NULL AND e.local_rank IS NULL AND e.cuda_dev IS NOT NULL AND rr.nproc > 1 AND e.cuda_dev < rr.nproc AND rr.local_rank = e.cuda_dev)
            OR (e.rank IS NULL AND e.local_rank IS NULL AND e.bus_id IS NOT NULL AND rr.pci_bus_id = e.bus_id))
    LEFT JOIN single s ON s.namespace = e.namespace AND s.pod = e.pod AND (e.pod_uid IS NULL OR s.pod_uid = e.pod_uid)
    QUALIFY row_number() OVER (PARTITION BY e.eid ORDER BY rr.rank NULLS LAST, rr.pod_uid, pj.pod_uid, s.pod_uid) = 1
),
ev AS (
    SELECT row_number() OVER (ORDER BY ts, namespace, object_kind, object_name, object_uid, reason, message, event_uid) AS eid, * FROM events
    WHERE ts IS NOT NULL AND (type = 'Warning' OR reason IN ('Evicted', 'Preempted', 'Killing', 'OOMKilling', 'NodeNotReady', 'Unschedulable'))
),
k8s AS (
    SELECT
        ev.ts, ev.reason AS kind, coalesce(ev.message, '') AS text, ev.object_kind,
        coalesce(ev.object_namespace, ev.namespace) AS namespace, ev.object_name, ev.object_uid,
        s.job_key, s.rank
    FROM ev
    LEFT JOIN single s ON ev.object_kind = 'Pod' AND (s.pod_uid = ev.object_uid OR (ev.object_uid IS NULL AND s.namespace = coalesce(ev.object_namespace, ev.namespace) AND s.pod = ev.object_name))
    QUALIFY row_number() OVER (PARTITION BY ev.eid ORDER BY s.rank NULLS LAST, s.pod_uid) = 1
),
terminations AS (
    SELECT c.last_finished_at AS ts, c.last_reason AS kind, c.namespace, c.pod, c.pod_uid,
           'container ' || c.container || ' terminated: ' || coalesce(c.last_reason, '?') || ' (exit ' || coalesce(CAST(c.last_exit_code AS VARCHAR), '?') || ')' AS text
    FROM containers c WHERE c.last_finished_at IS NOT NULL AND coalesce(c.last_reason, '') <> 'Completed'
    UNION ALL
    SELECT c.finished_at, c.reason, c.namespace, c.pod, c.pod_uid,
           'container ' || c.container || ' terminated: ' || coalesce(c.reason, '?') || ' (exit ' || coalesce(CAST(c.exit_code AS VARCHAR), '?') || ')'
    FROM containers c WHERE c.state = 'terminated' AND c.finished_at IS NOT NULL AND coalesce(c.reason, '') <> 'Completed'
    UNION ALL
    SELECT coalesce(p.finished_at, p.deleted_at, p.last_seen_at), p.reason, p.namespace, p.pod, p.pod_uid,
           'pod ' || p.reason || ': ' || coalesce(p.message, '')
    FROM pods p WHERE p.reason IN ('Evicted', 'Preempted', 'Preempting', 'Terminated', 'DeadlineExceeded', 'UnexpectedAdmissionError')
),
xids AS (
    SELECT min(g.ts) AS ts, g.gpu_uuid, arg_min(g.node, (g.ts, g.node)) AS node, g.xid
    FROM gpu_samples g WHERE coalesce(g.xid, 0) > 0 GROUP BY g.gpu_uuid, g.xid
),
unioned AS (
    SELECT ts, kind, text,
           CASE WHEN rank IS NOT NULL AND job_key IS NOT NULL THEN 'rank' WHEN pod IS NOT NULL THEN 'pod' ELSE 'node' END AS lane_kind,
           job_key, CASE WHEN job_key IS NOT NULL THEN rank END AS rank,
           CASE WHEN pod IS NOT NULL THEN namespace || '/' || pod ELSE node END AS lane_name, 'log' AS origin
    FROM logs
    UNION ALL
    SELECT ts, kind, text,
           CASE WHEN rank IS NOT NULL THEN 'rank' WHEN object_kind = 'Pod' THEN 'pod' WHEN object_kind = 'Node' THEN 'node' ELSE 'object' END,
           job_key, rank,
           CASE WHEN object_kind = 'Pod' THEN namespace || '/' || object_name WHEN object_kind = 'Node' THEN object_name
                ELSE coalesce(object_kind, '?') || ' ' || coalesce(namespace || '/', '') || coalesce(object_name, '?') END,
           'event'
    FROM k8s
    UNION ALL
    SELECT t.ts, t.kind, t.text, CASE WHEN s.rank IS NOT NULL THEN 'rank' ELSE 'pod' END, s.job_key, s.rank, t.namespace || '/' || t.pod, 'container'
    FROM terminations t LEFT JOIN single s ON s.pod_uid = t.pod_uid
    UNION ALL
    SELECT x.ts, 'xid', 'Xid ' || x.xid || ' on GPU ' || x.gpu_uuid || ' (DCGM)', CASE WHEN rk.rank IS NOT NULL THEN 'rank' ELSE 'node' END,
           rk.job_key, rk.rank, x.node, 'dcgm'
    FROM xids x
    LEFT JOIN (SELECT gpu_uuid, arg_min(job_key, (rank, job_key)) AS job_key, min(rank) AS rank FROM r WHERE gpu_uuid IS NOT NULL GROUP BY gpu_uuid) rk ON rk.gpu_uuid = x.gpu_uuid
)
SELECT
    ts, lane_kind::VARCHAR AS lane_kind, job_key::VARCHAR AS job_key, rank::BIGINT AS rank, lane_name::VARCHAR AS lane_name,
    (CASE
        WHEN lower(kind) LIKE '%oom%' THEN 'OOM'
        WHEN kind = 'xid' OR kind LIKE 'Xid%' THEN 'Xid / GPU'
        WHEN kind LIKE 'nccl%' OR kind LIKE '%watchdog%' OR kind LIKE '%desync%' OR kind LIKE 'collective%' OR kind LIKE 'flight%' THEN 'NCCL / watchdog'
        WHEN kind IN ('Evicted', 'Preempted', 'Preempting', 'Evicting', 'TaintManagerEviction') OR kind LIKE 'Evict%' THEN 'Eviction / preemption'
        WHEN kind LIKE '%Schedul%' OR kind IN ('NotTriggerScaleUp', 'Pending', 'QuotaReserved', 'Inadmissible') THEN 'Scheduling'
        WHEN kind LIKE 'torchrun%' OR kind IN ('process_exit', 'worker_group_restart', 'BackOff', 'Killing', 'Error', 'Failed', 'ContainerCannotRun', 'DeadlineExceeded') OR origin = 'container' THEN 'Exit / restart'
        ELSE 'Other warning'
    END)::VARCHAR AS category,
    kind::VARCHAR AS kind,
    text::VARCHAR AS text
FROM unioned
WHERE ts IS NOT NULL
ORDER BY ts, lane_kind, job_key, rank, lane_name, category, kind, text
