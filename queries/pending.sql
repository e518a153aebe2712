-- id: pending
-- title: Pods or a gang stuck in Pending
-- severity: warning
-- requires: pods | kueue_workloads | log_events
-- params: window_end
-- gate: EXISTS (SELECT 1 FROM pods WHERE phase = 'Pending' AND (node IS NULL OR NOT coalesce(scheduled, false)))
--   OR EXISTS (SELECT 1 FROM kueue_workloads WHERE NOT coalesce(finished, false)
--                AND (NOT coalesce(admitted, false) OR coalesce(evicted, false) OR coalesce(preempted, false)))
--   OR EXISTS (SELECT 1 FROM log_events WHERE kind = 'scheduler_pending')
-- description: Each pending pod (grouped per job/gang) or Kueue workload with concrete
--   reasons: the latest FailedScheduling message parsed into per-reason node counts;
--   untolerated NoSchedule/NoExecute taints and nodeSelector mismatches computed from the
--   nodes and the pod spec; fit per eligible node (request vs allocatable - requested by
--   pods bound there), with fragmentation when the free GPUs suffice in total but on no
--   single eligible node; Kueue QuotaReserved=False / eviction / preemption messages with
--   the ClusterQueue's GPU usage vs nominal quota; and partial gangs (some workers running
--   and holding GPUs while others wait), whose held GPU-hours are counted as lost. A scheduler's words pasted in a
--   job's log (log_sched_pending's scheduler_pending: kube-scheduler's or Volcano's `0/18 nodes are available: …`, the
--   autoscaler's `pod didn't trigger scale-up: …`, Volcano's and KAI's gang messages, Kueue's `couldn't assign flavors
--   … insufficient unused quota …`) are the job's pending alike, when the API gives none: the cause from the words.
-- columns:
--   job VARCHAR                -- namespace/name of the job (or the pod for a lone pod)
--   cause VARCHAR              -- quota, evicted, untolerated-taint, node-selector, fragmentation, insufficient-gpu, unschedulable, not-scheduled-yet
--   severity VARCHAR           -- critical when a partial gang holds GPUs, else warning
--   pods VARCHAR[]             -- pending pods
--   nodes VARCHAR[]            -- nodes that block them (tainted / too small), when known
--   ranks BIGINT[]             -- always empty (no rank runs yet)
--   gpus VARCHAR[]             -- always empty
--   started_at TIMESTAMP WITH TIME ZONE -- pending since
--   ended_at TIMESTAMP WITH TIME ZONE   -- end of the capture window
--   pending_pods BIGINT        -- pods pending
--   running_pods BIGINT        -- pods of the same job running (partial gang)
--   held_gpus BIGINT           -- GPUs held by the running part of the gang
--   gpu_request BIGINT         -- GPUs one pending pod requests
--   eligible_nodes BIGINT      -- nodes whose taints/selector admit the pod
--   fitting_nodes BIGINT       -- eligible nodes with enough free GPUs
--   free_gpus_eligible BIGINT  -- free GPUs summed over eligible nodes
--   max_free_gpus_node BIGINT  -- most free GPUs on one eligible node
--   scheduler_message VARCHAR  -- latest FailedScheduling message
--   scheduler_reasons STRUCT[] -- that message split per reason: {nodes, reason}
--   untolerated_taints VARCHAR[] -- taints (key=value:effect) the pod does not tolerate
--   kueue_message VARCHAR      -- Kueue condition message
--   cluster_queue VARCHAR      -- Kueue ClusterQueue
--   quota_nominal_gpus DOUBLE  -- its nominal GPU quota
--   quota_used_gpus DOUBLE     -- GPUs it has in use
--   gpu_hours_lost DOUBLE      -- GPUs held by the running part x time pending
WITH pend AS (
    SELECT p.*, coalesce(pj.job_key, p.namespace || '/' || coalesce(p.job, p.pod)) AS group_key, pj.job_key
    FROM k10s_pod_span p LEFT JOIN k10s_pod_job pj ON pj.pod_uid = p.pod_uid
    WHERE p.phase = 'Pending' AND (p.node IS NULL OR NOT coalesce(p.scheduled, false))
),
sched AS (
    SELECT namespace, object_name AS pod, arg_max(message, (ts, message)) FILTER (WHERE ts IS NOT NULL) AS message
    FROM events WHERE reason = 'FailedScheduling' AND coalesce(object_kind, 'Pod') = 'Pod' GROUP BY ALL
),
bound AS (  -- GPUs requested by pods already bound to each node
    SELECT node, sum(coalesce(gpu_request, 0)) AS used FROM k10s_pod_span
    WHERE node IS NOT NULL AND phase IN ('Running', 'Pending') GROUP BY node
),
gpu_nodes AS (
    SELECT n.*, coalesce(n.gpu_allocatable, 0) - coalesce(b.used, 0) AS free
    FROM nodes n LEFT JOIN bound b USING (node)
    WHERE coalesce(n.gpu_capacity, 0) > 0
),
node_fit AS (  -- per pending pod x GPU node: taints it does not tolerate, selector, fit
    SELECT
        p.pod_uid, n.node, n.free, coalesce(n.ready, false) AND NOT coalesce(n.unschedulable, false) AS schedulable,
        list_transform(
            list_filter(coalesce(n.taints, []), lambda t: t.effect IN ('NoSchedule', 'NoExecute') AND len(list_filter(coalesce(p.tolerations, []), lambda tol:
                (coalesce(tol.key, '') = '' AND tol.operator = 'Exists' OR tol.key = t.key)
                AND (tol.operator = 'Exists' OR coalesce(tol.value, '') = coalesce(t.value, ''))
                AND (coalesce(tol.effect, '') = '' OR tol.effect = t.effect))) = 0),
            lambda t: t.key || CASE WHEN coalesce(t.value, '') = '' THEN '' ELSE '=' || t.value END || ':' || t.effect) AS untolerated,
        CASE WHEN p.node_selector_json IS NULL OR p.node_selector_json IN ('{}', 'null') THEN true
             ELSE coalesce(list_bool_and(list_transform(json_keys(p.node_selector_json), lambda k:
                     coalesce(json_extract_string(n.labels_json, '$."' || k || '"') = json_extract_string(p.node_selector_json, '$."' || k || '"'), false))), true)
        END AS selector_ok
    FROM pend p CROSS JOIN gpu_nodes n
    WHERE coalesce(p.gpu_request, 0) > 0
),
pod_fit AS (
    SELECT
        f.pod_uid,
        count(*) FILTER (WHERE len(f.untolerated) = 0 AND f.selector_ok AND f.schedulable) AS eligible_nodes,
        count(*) FILTER (WHERE len(f.untolerated) = 0 AND f.selector_ok AND f.schedulable AND f.free >= p.gpu_request) AS fitting_nodes,
        coalesce(sum(greatest(f.free, 0)) FILTER (WHERE len(f.untolerated) = 0 AND f.selector_ok AND f.schedulable), 0) AS free_eligible,
        coalesce(max(f.free) FILTER (WHERE len(f.untolerated) = 0 AND f.selector_ok AND f.schedulable), 0) AS max_free,
        count(*) FILTER (WHERE len(f.untolerated) > 0) AS tainted_nodes,
        count(*) FILTER (WHERE NOT f.selector_ok) AS selector_mismatch_nodes,
        count(*) FILTER (WHERE len(f.untolerated) > 0 AND f.selector_ok AND f.schedulable AND f.free >= p.gpu_request) AS taint_blocked_fit,
        coalesce(list(DISTINCT f.node ORDER BY f.node) FILTER (WHERE len(f.untolerated) > 0 AND f.selector_ok AND f.schedulable AND f.free >= p.gpu_request),
                 list(DISTINCT f.node ORDER BY f.node) FILTER (WHERE len(f.untolerated) > 0)) AS tainted_node_names,
        list(DISTINCT f.node ORDER BY f.node) FILTER (WHERE len(f.untolerated) = 0 AND f.selector_ok AND f.schedulable) AS eligible_node_names,
        list_sort(list_distinct(flatten(coalesce(list(f.untolerated) FILTER (WHERE f.selector_ok AND f.schedulable AND f.free >= p.gpu_request AND len(f.untolerated) > 0),
                                       list(f.untolerated))))) AS untolerated
    FROM node_fit f JOIN pend p USING (pod_uid)
    GROUP BY f.pod_uid
),
wl AS (  -- Kueue workloads not admitted (or evicted), keyed by their owner job
    SELECT
        w.*, w.namespace || '/' || w.owner_name AS job_key,
        q.nominal_quota, q.used
    FROM kueue_workloads w
    LEFT JOIN (
        SELECT cluster_queue, sum(nominal_quota) AS nominal_quota, sum(used) AS used
        FROM kueue_cluster_queues WHERE resource LIKE 'nvidia.com/%' GROUP BY cluster_queue
    ) q ON q.cluster_queue = coalesce(w.cluster_queue, (SELECT min(lq.cluster_queue) FROM kueue_local_queues lq WHERE lq.namespace = w.namespace AND lq.local_queue = w.queue_name))
    WHERE NOT coalesce(w.finished, false)
      AND (NOT coalesce(w.admitted, false) OR coalesce(w.evicted, false) OR coalesce(w.preempted, false))
),
pod_rows AS (
    SELECT
        p.*, s.message AS sched_message, f.* EXCLUDE (pod_uid),
        CASE
            WHEN f.pod_uid IS NULL AND s.message IS NULL THEN 'not-scheduled-yet'
            WHEN f.eligible_nodes = 0 AND f.tainted_nodes > 0 THEN 'untolerated-taint'
            WHEN f.fitting_nodes = 0 AND f.taint_blocked_fit > 0 THEN 'untolerated-taint'
            WHEN f.eligible_nodes = 0 AND f.selector_mismatch_nodes > 0 THEN 'node-selector'
            WHEN f.fitting_nodes = 0 AND f.free_eligible >= p.gpu_request THEN 'fragmentation'
            WHEN f.fitting_nodes = 0 THEN 'insufficient-gpu'
            WHEN s.message IS NOT NULL THEN 'unschedulable'
            ELSE 'not-scheduled-yet'
        END AS cause
    FROM pend p
    LEFT JOIN sched s ON s.namespace = p.namespace AND s.pod = p.pod
    LEFT JOIN pod_fit f ON f.pod_uid = p.pod_uid
),
gang AS (  -- the running part of each job
    SELECT job_key, count(DISTINCT pod_uid) AS running_pods, sum(coalesce(ps.gpu_request, 0)) AS held_gpus
    FROM k10s_pod_job pj JOIN k10s_pod_span ps USING (pod_uid)
    WHERE pj.job_key IS NOT NULL AND ps.phase = 'Running' GROUP BY job_key
),
pod_findings AS (
    SELECT
        r.group_key AS job,
        CASE WHEN max(w.job_key) IS NOT NULL THEN CASE WHEN bool_or(w.evicted OR w.preempted) THEN 'evicted' ELSE 'quota' END
             ELSE mode(r.cause ORDER BY r.cause) END AS cause,
        CASE WHEN coalesce(max(g.held_gpus), 0) > 0 THEN 'critical' ELSE 'warning' END AS severity,
        list(DISTINCT r.pod_key ORDER BY r.pod_key) AS pods,
        CASE WHEN mode(r.cause ORDER BY r.cause) = 'untolerated-taint' THEN list_sort(list_distinct(flatten(list(DISTINCT r.tainted_node_names))))
             WHEN mode(r.cause ORDER BY r.cause) IN ('fragmentation', 'insufficient-gpu') THEN list_sort(list_distinct(flatten(list(DISTINCT r.eligible_node_names))))
             ELSE []::VARCHAR[] END AS nodes,
        []::BIGINT[] AS ranks, []::VARCHAR[] AS gpus,
        min(r.valid_from) AS started_at, $window_end AS ended_at,
        count(*) AS pending_pods,
        coalesce(max(g.running_pods), 0) AS running_pods,
        coalesce(max(g.held_gpus), 0)::BIGINT AS held_gpus,
        max(r.gpu_request) AS gpu_request,
        min(r.eligible_nodes) AS eligible_nodes, min(r.fitting_nodes) AS fitting_nodes,
        min(r.free_eligible)::BIGINT AS free_gpus_eligible, min(r.max_free)::BIGINT AS max_free_gpus_node,
        arg_max(r.sched_message, (r.valid_from, r.pod_key, r.pod_uid)) AS scheduler_message,  -- the newest pod's (a gang: by name)
        list_sort(list_distinct(flatten(list(r.untolerated)))) AS untolerated_taints,
        -- a job with several workloads: the newest one's
        arg_max(w.message, (w.created_at, w.workload, w.uid)) AS kueue_message, arg_max(w.cluster_queue, (w.created_at, w.workload, w.uid)) AS cluster_queue,
        arg_max(w.nominal_quota, (w.created_at, w.workload, w.uid)) AS quota_nominal_gpus, arg_max(w.used, (w.created_at, w.workload, w.uid)) AS quota_used_gpus,
        round(coalesce(max(g.held_gpus), 0) * greatest(epoch($window_end - min(r.valid_from)), 0) / 3600.0, 3) AS gpu_hours_lost
    FROM pod_rows r
    LEFT JOIN gang g ON g.job_key = r.job_key
    LEFT JOIN wl w ON w.job_key = r.group_key
    GROUP BY r.group_key
),
pasted AS (  -- a scheduler's words in a job's log (log_sched_pending): its first such line, per job
    -- (the first line naming a cause, a gang's message first and its nodes' reasons beneath it: the first that says which)
    SELECT coalesce(pj.job_key, e.namespace || '/' || e.pod) AS job,
           coalesce(arg_min(subkind, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line))
                    FILTER (WHERE subkind <> 'unschedulable'), 'unschedulable') AS cause,
           arg_min(error_type, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line)) AS who,
           list(error_message ORDER BY ts IS NULL, ts, raw_row, line_no, line) AS messages,
           min(ts) AS started_at
    FROM log_events e LEFT JOIN k10s_pod_job pj ON pj.pod_uid = e.pod_uid WHERE e.kind = 'scheduler_pending'
    GROUP BY coalesce(pj.job_key, e.namespace || '/' || e.pod)
),
pasted_findings AS (
    SELECT
        p.job, p.cause, 'warning' AS severity, []::VARCHAR[] AS pods, []::VARCHAR[] AS nodes, []::BIGINT[] AS ranks, []::VARCHAR[] AS gpus,
        p.started_at, $window_end AS ended_at,
        NULL::BIGINT AS pending_pods, NULL::BIGINT AS running_pods, NULL::BIGINT AS held_gpus, NULL::BIGINT AS gpu_request,
        NULL::BIGINT AS eligible_nodes, NULL::BIGINT AS fitting_nodes, NULL::BIGINT AS free_gpus_eligible, NULL::BIGINT AS max_free_gpus_node,
        CASE WHEN p.who = 'Kueue' THEN NULL ELSE p.who || ': ' || p.message END AS scheduler_message, []::VARCHAR[] AS untolerated_taints,
        CASE WHEN p.who = 'Kueue' THEN p.message END AS kueue_message, NULL::VARCHAR AS cluster_queue,
        NULL::DOUBLE AS quota_nominal_gpus, NULL::DOUBLE AS quota_used_gpus, NULL::DOUBLE AS gpu_hours_lost
    FROM (SELECT * EXCLUDE (messages),  -- its first three distinct lines, in the log's order
                 array_to_string(list_filter(messages, lambda m, i: list_position(messages, m) = i)[1:3], ' / ') AS message
          FROM pasted) p
    WHERE p.job NOT IN (SELECT job FROM pod_findings)
),
workload_findings AS (  -- workloads with no pods yet (Kueue holds the job suspended)
    SELECT
        w.job_key AS job,
        CASE WHEN coalesce(w.evicted, false) OR coalesce(w.preempted, false) THEN 'evicted' ELSE 'quota' END AS cause,
        'warning' AS severity, []::VARCHAR[] AS pods, []::VARCHAR[] AS nodes, []::BIGINT[] AS ranks, []::VARCHAR[] AS gpus,
        w.created_at AS started_at, $window_end AS ended_at,
        0::BIGINT AS pending_pods, 0::BIGINT AS running_pods, 0::BIGINT AS held_gpus, w.gpu_request,
        NULL::BIGINT AS eligible_nodes, NULL::BIGINT AS fitting_nodes, NULL::BIGINT AS free_gpus_eligible, NULL::BIGINT AS max_free_gpus_node,
        NULL::VARCHAR AS scheduler_message, []::VARCHAR[] AS untolerated_taints,
        w.message AS kueue_message, w.cluster_queue, w.nominal_quota AS quota_nominal_gpus, w.used AS quota_used_gpus,
        NULL::DOUBLE AS gpu_hours_lost
    FROM wl w
    WHERE w.job_key NOT IN (SELECT job FROM pod_findings)
)
SELECT
    job, cause, severity, pods, nodes, ranks, gpus, started_at, ended_at, pending_pods, running_pods, held_gpus, gpu_request,
    eligible_nodes, fitting_nodes, free_gpus_eligible, max_free_gpus_node, scheduler_message,
    CASE WHEN scheduler_message IS NULL THEN NULL ELSE
        list_transform(
            string_split(regexp_extract(scheduler_message, 'nodes are (?:un)?available: (.*?)(\. preemption:.*|\.?$)', 1), ', '),
            lambda x: {'nodes': TRY_CAST(regexp_extract(x, '^(\d+) ', 1) AS BIGINT), 'reason': regexp_replace(x, '^\d+ ', '')})
    END AS scheduler_reasons,
    untolerated_taints, kueue_message, cluster_queue, quota_nominal_gpus, quota_used_gpus, gpu_hours_lost
FROM (SELECT * FROM pod_findings UNION ALL BY NAME SELECT * FROM workload_findings
      UNION ALL BY NAME SELECT * FROM pasted_findings WHERE job NOT IN (SELECT job FROM workload_findings))
ORDER BY job
