-- id: gpu-startup
-- title: GPU pods that cannot start, or start slowly
-- severity: warning
-- requires: pods | log_events
-- optional: containers, events, nodes, pod_runtime, runtime_classes
-- params: window_end
-- gate: (SELECT coalesce(bool_or(coalesce(gpu_request, 0) > 0 AND node IS NOT NULL AND coalesce(scheduled, true) AND phase IN ('Pending', 'Running', 'Failed')), false)
--           AND (coalesce(bool_or(reason = 'UnexpectedAdmissionError'), false)
--             OR EXISTS (SELECT 1 FROM containers WHERE state = 'waiting' OR reason IN ('CrashLoopBackOff', 'StartError', 'ContainerCannotRun')
--                          OR (init AND state = 'terminated' AND coalesce(exit_code, 0) <> 0))
--             OR EXISTS (SELECT 1 FROM events WHERE reason = 'Pulled')
--             OR coalesce((SELECT bool_or(spec_known) AND bool_or(NOT (coalesce(shm_medium, '') = 'Memory'
--                          AND coalesce(shm_size_limit_bytes, 1099511627776::BIGINT) > 67108864)) FROM pod_runtime), false))
--         FROM pods)
--   OR EXISTS (SELECT 1 FROM log_events WHERE kind = 'container_start')
-- description: GPU pods bound to a node that could not start (ContainerCreating for >= 3 min,
--   RunContainerError, CreateContainerError, CreateContainerConfigError, ErrImagePull /
--   ImagePullBackOff, init containers in Error/CrashLoopBackOff, StartError, rejected with
--   UnexpectedAdmissionError) or started slowly (image pulled for >= 2 min, from the kubelet's
--   `Successfully pulled image "..." in 5m3.2s` event). The cause comes from container state
--   messages and the pod's events (nvidia-container-cli errors, missing runtime, CUDA
--   requirement), the node's advertised GPU resources and GFD labels (MIG strategy,
--   time-slicing replicas), RuntimeClasses, and the GPU operator's operand pods on that node.
--   The gang's running pods hold their GPUs idle meanwhile. Merely Pending (unscheduled) pods
--   are the pending rule's. A preventive info per training job whose GPU pods have no
--   memory-backed /dev/shm above the 64 MiB default. A GPU container runtime's refusal pasted in a job's log
--   (log_container_start's container_start: nvidia-container-cli's errors, no nvidia runtime, the kubelet's
--   `Allocate failed due to …`) is the job's start failure alike when the API gives none for it: no pod, no rank.
-- columns:
--   job VARCHAR                -- namespace/name of the job (or the pod for a lone pod)
--   cause VARCHAR              -- toolkit-driver-mismatch, toolkit-load-library, toolkit-device-error, no-nvidia-runtime, cuda-driver-too-old, device-plugin-unhealthy, mig-strategy-mismatch, time-slicing, image-pull-backoff, image-pull-slow, shm-too-small, container-creating, shm-default
--   severity VARCHAR           -- critical when it blocks a gang, warning for a lone pod or a slow start, info for shm-default
--   pods VARCHAR[]             -- the pods that could not start (or started slowly)
--   nodes VARCHAR[]            -- their nodes
--   ranks BIGINT[]             -- ranks those pods would run, when known
--   gpus VARCHAR[]             -- always empty
--   started_at TIMESTAMP WITH TIME ZONE -- when the first of them was created
--   ended_at TIMESTAMP WITH TIME ZONE   -- when the last one started, else the end of the window
--   state VARCHAR              -- the blocking state (ContainerCreating, RunContainerError, ImagePullBackOff, Init:Error, UnexpectedAdmissionError, slow-pull, ...; pasted: read from a log)
--   message VARCHAR            -- the message the cause was read from
--   blocked_s DOUBLE           -- longest time one of them was not running (s)
--   pull_s DOUBLE              -- longest image pull (s), when the kubelet reported one
--   image VARCHAR              -- image pulled
--   running_pods BIGINT        -- pods of the gang that run
--   held_gpus BIGINT           -- GPUs those pods hold
--   runtime_class VARCHAR      -- spec.runtimeClassName of the pod
--   runtime_class_found BOOLEAN -- the RuntimeClass exists in the bundle (null: none listed)
--   node_gpu_resources VARCHAR -- the node's GPU resources (capacity/allocatable JSON)
--   mig_strategy VARCHAR       -- nvidia.com/mig.strategy label of the node
--   gpu_replicas BIGINT        -- nvidia.com/gpu.replicas label (time-slicing when > 1)
--   cuda_driver VARCHAR        -- nvidia.com/cuda.driver.major.minor labels of the node
--   operands_unhealthy VARCHAR[] -- GPU operator pods on the node that are not running (name: reason)
--   gpu_hours_lost DOUBLE      -- GPUs the rest of the gang held x blocked time
WITH gpod AS (  -- GPU pods bound to a node (merely Pending pods are the pending rule's)
    SELECT ps.*, pj.job_key, pj.ranks, coalesce(pj.job_key, ps.namespace || '/' || coalesce(ps.job, ps.pod)) AS group_key,
           pr.runtime_class, pr.shm_volume, pr.shm_medium, pr.shm_size_limit_bytes, pr.gpu_resources
    FROM k10s_pod_span ps
    LEFT JOIN k10s_pod_job pj USING (pod_uid)
    LEFT JOIN pod_runtime pr USING (pod_uid)
    WHERE coalesce(ps.gpu_request, 0) > 0 AND ps.node IS NOT NULL AND coalesce(ps.scheduled, true)
      AND ps.phase IN ('Pending', 'Running', 'Failed')
),
ev AS (
    SELECT namespace, object_name AS pod, reason, message, ts, first_ts FROM events
    WHERE coalesce(object_kind, 'Pod') = 'Pod'
      AND reason IN ('Failed', 'FailedCreatePodSandBox', 'BackOff', 'Pulling', 'Pulled', 'UnexpectedAdmissionError', 'FailedMount', 'InspectFailed', 'ErrImageNeverPull')
),
pulls AS (  -- kubelet: Successfully pulled image "X" in 5m3.2s (5m3.2s including waiting)
    SELECT namespace, pod, arg_max(image, d_s) AS image, max(d_s) AS pull_s FROM (
        SELECT namespace, pod, regexp_extract(message, 'pulled image "([^"]+)"', 1) AS image,
               CASE WHEN regexp_matches(d, '^[0-9.]+ms$') THEN TRY_CAST(regexp_extract(d, '^([0-9.]+)', 1) AS DOUBLE) / 1000
                    ELSE coalesce(TRY_CAST(nullif(regexp_extract(d, '([0-9]+)h', 1), '') AS DOUBLE), 0) * 3600
                       + coalesce(TRY_CAST(nullif(regexp_extract(d, '([0-9]+)m', 1), '') AS DOUBLE), 0) * 60
                       + coalesce(TRY_CAST(nullif(regexp_extract(d, '([0-9.]+)s$', 1), '') AS DOUBLE), 0) END AS d_s
        FROM (SELECT *, regexp_extract(message, 'pulled image "[^"]+" in ([0-9hmsµu.]+)', 1) AS d FROM ev WHERE reason = 'Pulled')
        WHERE d <> '')
    GROUP BY ALL
),
cstate AS (  -- per pod: the first blocking container state and every message
    SELECT pod_uid,
           arg_min(CASE WHEN init AND reason IN ('CrashLoopBackOff', 'Error') THEN 'Init:' || reason ELSE reason END,
                   CASE WHEN init THEN 0 ELSE 1 END) FILTER (WHERE blocking) AS state,
           string_agg(DISTINCT concat_ws(' ', message, last_message), ' | ' ORDER BY concat_ws(' ', message, last_message)) FILTER (WHERE coalesce(message, last_message) IS NOT NULL) AS texts,
           bool_or(coalesce(exit_code, 0) = 135 OR coalesce(last_exit_code, 0) = 135) AS sigbus,
           max(started_at) FILTER (WHERE NOT init) AS container_started_at
    FROM (SELECT *, (state = 'waiting' AND reason IN ('ContainerCreating', 'RunContainerError', 'CreateContainerError', 'CreateContainerConfigError', 'ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName', 'PodInitializing'))
                     OR (reason = 'CrashLoopBackOff' AND (init OR last_reason IN ('StartError', 'ContainerCannotRun') OR coalesce(last_exit_code, 0) = 128 OR coalesce(last_exit_code, 0) = 135))
                     OR (init AND state = 'terminated' AND coalesce(exit_code, 0) <> 0)
                     OR (state = 'terminated' AND reason IN ('StartError', 'ContainerCannotRun')) AS blocking
          FROM containers)
    GROUP BY pod_uid
),
node_info AS (
    SELECT node, gpu_resources_json, mig_strategy, gpu_allocatable,
           TRY_CAST(json_extract_string(labels_json, '$."nvidia.com/gpu.replicas"') AS BIGINT) AS gpu_replicas,
           TRY_CAST(json_extract_string(labels_json, '$."nvidia.com/gpu.count"') AS BIGINT) AS gpu_count,
           json_extract_string(labels_json, '$."nvidia.com/cuda.driver.major"') || coalesce('.' || json_extract_string(labels_json, '$."nvidia.com/cuda.driver.minor"'), '') AS cuda_driver,
           coalesce(regexp_matches(gpu_resources_json, '"nvidia\.com/mig-'), false) AS has_mig,
           coalesce(TRY_CAST(json_extract(gpu_resources_json, '$."nvidia.com/gpu".allocatable') AS BIGINT), 0) AS whole_gpus
    FROM nodes
),
operands AS (  -- GPU operator pods on each node that are not running
    SELECT ps.node, list(ps.pod || ': ' || coalesce(c.reason, ps.phase) ORDER BY ps.pod || ': ' || coalesce(c.reason, ps.phase)) AS unhealthy
    FROM k10s_pod_span ps JOIN containers c USING (pod_uid)
    WHERE regexp_matches(coalesce(json_extract_string(ps.labels_json, '$.app'), ''),
                         '^(nvidia-device-plugin-daemonset|nvidia-container-toolkit-daemonset|nvidia-driver-daemonset|nvidia-operator-validator|gpu-feature-discovery)$')
      AND ps.finished_at IS NULL
      AND (c.reason IN ('CrashLoopBackOff', 'Error', 'RunContainerError', 'CreateContainerError', 'ImagePullBackOff', 'ErrImagePull')
           OR (c.state = 'terminated' AND coalesce(c.exit_code, 0) <> 0) OR (c.init AND c.state = 'waiting' AND c.reason = 'CrashLoopBackOff'))
    GROUP BY ps.node
),
pod_rows AS (
    SELECT g.*, c.state AS cstate, nullif(concat_ws(' | ', c.texts, g.message), '') AS own_text, c.sigbus, c.container_started_at, pl.pull_s, pl.image, n.*EXCLUDE (node), o.unhealthy,
           concat_ws(' | ', c.texts, g.message, (SELECT string_agg(e.message, ' | ' ORDER BY e.ts) FROM ev e WHERE e.namespace = g.namespace AND e.pod = g.pod AND e.reason NOT IN ('Pulling', 'Pulled'))) AS texts,
           rc.runtime_class IS NOT NULL AS rc_found, (SELECT count(*) FROM runtime_classes) AS rc_listed
    FROM gpod g
    LEFT JOIN cstate c USING (pod_uid)
    LEFT JOIN pulls pl ON pl.namespace = g.namespace AND pl.pod = g.pod
    LEFT JOIN node_info n ON n.node = g.node
    LEFT JOIN operands o ON o.node = g.node
    LEFT JOIN runtime_classes rc ON rc.runtime_class = g.runtime_class
),
judged AS (
    SELECT *,
        CASE WHEN reason = 'UnexpectedAdmissionError' THEN 'UnexpectedAdmissionError'
             WHEN cstate = 'ContainerCreating' AND epoch(coalesce(last_seen_at, $window_end) - coalesce(created_at, first_seen_at)) < 180 THEN NULL
             WHEN cstate IS NOT NULL THEN cstate
             WHEN coalesce(pull_s, 0) >= 120 THEN 'slow-pull' END AS state,
        CASE WHEN regexp_matches(texts, 'driver/library version mismatch', 'i') THEN 'toolkit-driver-mismatch'
             WHEN regexp_matches(texts, 'load library failed|libnvidia-ml\.so|libcuda\.so\.1: cannot open', 'i') THEN 'toolkit-load-library'
             WHEN regexp_matches(texts, 'device error: .*unknown device|nvidia-container-cli: device error', 'i') THEN 'toolkit-device-error'
             WHEN regexp_matches(texts, 'CUDA driver version is insufficient|forward compatibility was attempted on non supported HW|unsatisfied condition: cuda ?>=', 'i') THEN 'cuda-driver-too-old'
             WHEN regexp_matches(texts, 'no runtime for "?nvidia"? is configured|unknown runtime handler|RuntimeClass "[^"]*" not found|runtimeclass[^ ]* "[^"]*" not found|failed to get sandbox runtime', 'i') THEN 'no-nvidia-runtime'
             WHEN cstate IN ('ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName') THEN 'image-pull-backoff'
             WHEN (sigbus OR regexp_matches(texts, 'bus error|SIGBUS|insufficient shared memory', 'i'))
                  AND NOT (coalesce(shm_medium, '') = 'Memory' AND coalesce(shm_size_limit_bytes, 1099511627776::BIGINT) > 67108864) THEN 'shm-too-small'
             WHEN regexp_matches(texts, 'maximum request size for shared resources', 'i') THEN 'time-slicing'
             WHEN has_mig AND whole_gpus = 0 AND list_contains(coalesce(gpu_resources, ['nvidia.com/gpu']), 'nvidia.com/gpu') THEN 'mig-strategy-mismatch'
             WHEN coalesce(gpu_replicas, 1) > 1 AND gpu_request > coalesce(gpu_count, gpu_request) THEN 'time-slicing'
             WHEN len(coalesce(unhealthy, [])) > 0 OR regexp_matches(texts, 'no healthy devices|Allocate failed|device plugin', 'i')
                  OR (coalesce(gpu_allocatable, 0) = 0 AND NOT has_mig) THEN 'device-plugin-unhealthy'
             WHEN runtime_class IS NOT NULL AND rc_listed > 0 AND NOT rc_found THEN 'no-nvidia-runtime'
             WHEN coalesce(pull_s, 0) >= 120 THEN 'image-pull-slow'
             ELSE 'container-creating' END AS cause0
    FROM (SELECT *, coalesce(texts, '') AS texts FROM pod_rows) r
),
blocked AS (
    SELECT *, CASE WHEN state = 'slow-pull' THEN 'image-pull-slow' ELSE cause0 END AS cause,
           CASE WHEN state = 'slow-pull' THEN pull_s
                ELSE greatest(epoch(coalesce(container_started_at, last_seen_at, $window_end) - coalesce(created_at, first_seen_at)), 0) END AS blocked_s
    FROM judged WHERE state IS NOT NULL
),
gang AS (  -- the running part of each job (pods not blocked)
    SELECT pj.job_key, count(DISTINCT pj.pod_uid) AS running_pods, sum(coalesce(ps.gpu_request, 0)) AS held_gpus
    FROM k10s_pod_job pj JOIN k10s_pod_span ps USING (pod_uid)
    WHERE pj.job_key IS NOT NULL AND ps.phase = 'Running' AND pj.pod_uid NOT IN (SELECT pod_uid FROM blocked WHERE state <> 'slow-pull')
    GROUP BY pj.job_key
),
startup AS (
    SELECT b.group_key AS job, b.cause,
        CASE WHEN min(b.state) = 'slow-pull' THEN 'warning'
             WHEN coalesce(max(g.held_gpus), 0) > 0 OR count(*) > 1 THEN 'critical' ELSE 'warning' END AS severity,
        list(DISTINCT b.pod_key ORDER BY b.pod_key) AS pods, list(DISTINCT b.node ORDER BY b.node) AS nodes,
        list_sort(list_distinct(flatten(list(coalesce(b.ranks, []::BIGINT[]))))) AS ranks, []::VARCHAR[] AS gpus,
        min(coalesce(b.created_at, b.first_seen_at)) AS started_at,
        CASE WHEN bool_and(b.container_started_at IS NOT NULL) THEN max(b.container_started_at) ELSE $window_end END AS ended_at,
        mode(b.state ORDER BY b.state) AS state,
        coalesce(min(b.own_text), nullif(arg_max(b.texts, (length(b.texts), b.texts)), '')) AS message,
        round(max(b.blocked_s), 1) AS blocked_s, max(b.pull_s) AS pull_s, arg_max(b.image, (b.pull_s, b.image)) AS image,
        coalesce(max(g.running_pods), 0) AS running_pods, coalesce(max(g.held_gpus), 0)::BIGINT AS held_gpus,
        min(b.runtime_class) AS runtime_class,
        CASE WHEN min(b.runtime_class) IS NULL OR max(b.rc_listed) = 0 THEN NULL ELSE bool_and(b.rc_found) END AS runtime_class_found,
        min(b.gpu_resources_json) AS node_gpu_resources, min(b.mig_strategy) AS mig_strategy,
        max(b.gpu_replicas) AS gpu_replicas, min(b.cuda_driver) AS cuda_driver,
        list_sort(list_distinct(flatten(list(coalesce(b.unhealthy, []::VARCHAR[]))))) AS operands_unhealthy,
        round(coalesce(max(g.held_gpus), 0) * max(b.blocked_s) / 3600.0, 3) AS gpu_hours_lost
    FROM blocked b LEFT JOIN gang g ON g.job_key = b.job_key
    GROUP BY b.group_key, b.cause
),
pasted AS (  -- a GPU container runtime's refusal in a job's log (log_container_start): the first line, per job
    SELECT coalesce(pj.job_key, e.namespace || '/' || e.pod) AS job,
           arg_min(subkind, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line)) AS cause,
           arg_min(error_type || ': ' || error_message, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line)) AS message,
           min(ts) AS started_at
    FROM log_events e LEFT JOIN k10s_pod_job pj ON pj.pod_uid = e.pod_uid WHERE e.kind = 'container_start'
    GROUP BY coalesce(pj.job_key, e.namespace || '/' || e.pod)
),
pasted_startup AS (
    SELECT job, cause, 'warning' AS severity, []::VARCHAR[] AS pods, []::VARCHAR[] AS nodes, []::BIGINT[] AS ranks,
           []::VARCHAR[] AS gpus, started_at, $window_end AS ended_at, 'pasted' AS state, message
    FROM pasted WHERE job NOT IN (SELECT job FROM startup)
),
shm AS (  -- preventive: training pods whose /dev/shm is the 64 MiB default (or disk-backed / small)
    SELECT group_key AS job, 'shm-default' AS cause, 'info' AS severity,
        list(DISTINCT pod_key ORDER BY pod_key) AS pods, list(DISTINCT node ORDER BY node) AS nodes,
        []::BIGINT[] AS ranks, []::VARCHAR[] AS gpus, min(valid_from) AS started_at, $window_end AS ended_at,
        coalesce(min(shm_volume_kind), 'none') AS state, NULL::VARCHAR AS message
    FROM gpod JOIN (SELECT pod_uid, shm_volume_kind FROM pod_runtime WHERE spec_known) USING (pod_uid)
    WHERE job_key IS NOT NULL
      AND NOT (coalesce(shm_medium, '') = 'Memory' AND coalesce(shm_size_limit_bytes, 1099511627776::BIGINT) > 67108864)
      AND group_key NOT IN (SELECT job FROM startup WHERE cause = 'shm-too-small')
    GROUP BY group_key
)
SELECT * FROM startup
UNION ALL BY NAME SELECT * FROM pasted_startup
UNION ALL BY NAME SELECT * FROM shm
ORDER BY job, cause
