-- id: disruption
-- title: A rank's pod was stopped from outside the job
-- severity: critical
-- requires: pods
-- optional: events, log_events, jobs
-- params: window_end
-- gate: EXISTS (SELECT 1 FROM pods WHERE disruption_reason IS NOT NULL OR reason IN ('Evicted', 'Preempted', 'Shutdown')
--                OR (reason = 'Terminated' AND coalesce(message, '') ILIKE '%node shutdown%'))
--   OR EXISTS (SELECT 1 FROM events WHERE object_kind = 'Pod'
--                AND (reason IN ('Preempted', 'Evicted') OR (reason = 'TaintManagerEviction' AND message LIKE 'Marking for deletion%')
--                     OR (reason = 'Evict' AND message LIKE 'Pod is evicted, because of %')))
--   OR EXISTS (SELECT 1 FROM log_events WHERE kind = 'scheduler_stop')
--   OR EXISTS (SELECT 1 FROM jobs WHERE message ILIKE '%active longer than specified deadline%')
--   OR EXISTS (SELECT 1 FROM events WHERE reason = 'DeadlineExceeded' AND object_kind <> 'Pod')
-- description: A training pod that Kubernetes itself stopped while the job ran: preempted by the scheduler for a
--   higher-priority pod, evicted by its kubelet for node pressure (memory, ephemeral storage), terminated by a
--   graceful node shutdown (a spot VM reclaimed, maintenance), evicted through the Eviction API (kubectl drain, an
--   autoscaler, the descheduler), deleted by the taint manager or the pod garbage collector. Read from the pod's
--   DisruptionTarget condition (Kubernetes 1.26+), its status reason (Evicted; Terminated "Pod was terminated in
--   response to imminent node shutdown."; Shutdown) and the Preempted / Evicted / TaintManagerEviction events (Volcano's
--   `Evict` "Pod is evicted, because of preempt|reclaim" too; KAI sets the condition), which outlive the pod by an hour:
--   a preempted pod is deleted and its replacement (the same name) waits Pending. The
--   pods stopped within two minutes of the first are one disruption of the job; they name its ranks (any
--   incarnation of the pod's name gives them) while the job's other pods ran on: those only waited in the
--   collective and failed as victims. Every pod of the job stopped together is the job's stop, with no rank singled out.
--   Slurm's word in the job's output that it ended the job (log_slurm's scheduler_stop: `*** JOB … CANCELLED AT … DUE
--   TO TIME LIMIT / PREEMPTION / NODE FAILURE / JOB REQUEUE ***`, `srun: error: Node failure on <node>`) is the
--   job's stop too, naming no pod: a failure before it (a rank that died, a hang until the time limit) stays the
--   incident's root. Only a failed node that held some of the job's ranks, the others running on, names them.
--   Other schedulers' and platforms' words alike (log_slurm.OTHER_STOPS: submitit's preemption, SkyPilot's spot reclaim,
--   the kubelet's eviction or shutdown message pasted from `kubectl describe`): the job's stop, naming no rank.
--   Kubernetes' own time limit is the job's stop alike: a Job (a JobSet's child, a TrainJob's) or a training operator's
--   job past its activeDeadlineSeconds (condition message "Job was active longer than specified deadline", the
--   DeadlineExceeded event): `deadline-exceeded`, naming no rank.
-- columns:
--   cause VARCHAR              -- preempted, evicted, node-shutdown, drained, taint-eviction, pod-gc, reclaimed (Volcano), disrupted; Slurm: time-limit, preempted, node-failure, requeued; pasted: spot-reclaimed, evicted, node-shutdown; deadline-exceeded (activeDeadlineSeconds)
--   severity VARCHAR           -- critical when some of the job's pods ran on without the stopped ones; warning when all stopped
--   title VARCHAR              -- one line
--   job VARCHAR                -- namespace/name of the job
--   ranks BIGINT[]             -- ranks of the stopped pods (empty when every pod of the job stopped)
--   pods VARCHAR[]             -- the stopped pods (namespace/name)
--   nodes VARCHAR[]            -- their nodes
--   gpus VARCHAR[]             -- their GPUs, when known
--   started_at TIMESTAMP WITH TIME ZONE -- first stop
--   ended_at TIMESTAMP WITH TIME ZONE   -- last stop of the disruption
--   api_reason VARCHAR         -- the API's reason (PreemptionByScheduler, TerminationByKubelet, Evicted, Preempted, ...); who said it in a log (Slurm, submitit, SkyPilot, Kubernetes); DeadlineExceeded
--   detail VARCHAR             -- the API's message
--   pods_stopped BIGINT        -- pods stopped in the disruption
--   job_pods BIGINT            -- the job's pods alive when it began
--   recommendation VARCHAR     -- what to do
--   evidence STRUCT[]          -- the conditions, statuses and events
--   confidence VARCHAR         -- high (the API server's word) when ranks are named
--   gpu_hours_lost DOUBLE      -- the job's other ranks' GPUs from the first stop to their end (they held them waiting)
WITH pod_stop AS (  -- a pod incarnation's own record: its DisruptionTarget condition, else its status reason
    SELECT namespace, pod, pod_uid, node,
           coalesce(disrupted_at, finished_at, deleted_at, last_seen_at) AS stop_at,
           CASE WHEN disruption_reason IN ('PreemptionByScheduler', 'PreemptionByKubeScheduler') OR reason = 'Preempted' THEN 'preempted'
                WHEN reason = 'Shutdown' OR coalesce(disruption_message, message, '') ILIKE '%node shutdown%'
                     OR coalesce(disruption_message, message, '') ILIKE 'Node is shutting%' THEN 'node-shutdown'
                WHEN reason = 'Evicted' OR disruption_reason = 'TerminationByKubelet' THEN 'evicted'
                WHEN disruption_reason = 'EvictionByEvictionAPI' THEN 'drained'
                WHEN disruption_reason = 'DeletionByTaintManager' THEN 'taint-eviction'
                WHEN disruption_reason = 'DeletionByPodGC' THEN 'pod-gc'
                ELSE 'disrupted' END AS cause,
           coalesce(disruption_reason, reason) AS api_reason, coalesce(disruption_message, message) AS message,
           'pods' AS source, 0 AS source_order
    FROM k10s_pod_span WHERE stopped_outside
),
event_stop AS (  -- the scheduler's (Volcano's too), kubelet's and taint manager's events on a pod (kept an hour after the pod is gone)
    SELECT coalesce(object_namespace, namespace) AS namespace, object_name AS pod, object_uid AS pod_uid,
           CASE WHEN reason = 'Preempted' THEN regexp_extract(message, 'on node (\S+)', 1) END AS node,
           coalesce(first_ts, ts) AS stop_at,
           CASE WHEN reason = 'Preempted' OR message = 'Pod is evicted, because of preempt' THEN 'preempted'
                WHEN reason = 'Evicted' THEN 'evicted' WHEN message = 'Pod is evicted, because of reclaim' THEN 'reclaimed'
                WHEN reason = 'Evict' THEN 'disrupted' ELSE 'taint-eviction' END AS cause,
           reason AS api_reason, message, 'events' AS source, 1 AS source_order
    FROM events
    WHERE object_kind = 'Pod' AND object_name IS NOT NULL
      AND (reason IN ('Preempted', 'Evicted') OR (reason = 'TaintManagerEviction' AND message LIKE 'Marking for deletion%')
           OR (reason = 'Evict' AND message LIKE 'Pod is evicted, because of %'))  -- Volcano's evictor (preempt, reclaim)
),
stop AS (  -- per pod incarnation (or pod name, for an event without a uid): its first stop, the pod's own record first
    SELECT namespace, pod, pod_uid,
           arg_min(cause, (source_order, stop_at, api_reason, message)) AS cause,
           arg_min(api_reason, (source_order, stop_at, api_reason, message)) AS api_reason,
           arg_min(message, (source_order, stop_at, api_reason, message)) AS message,
           min(node) AS node, min(stop_at) AS stop_at,
           list({'what': lower(api_reason), 'at': stop_at, 'value': NULL::DOUBLE, 'source': source, 'line': left(message, 300)}
                ORDER BY source_order, stop_at, api_reason, message) AS evidence
    FROM (SELECT * FROM pod_stop UNION ALL SELECT * FROM event_stop)
    WHERE stop_at IS NOT NULL
    GROUP BY namespace, pod, pod_uid
),
named AS (  -- the job and ranks of each stopped pod: its own incarnation's, else those of its name's other incarnations
    SELECT s.*, s.namespace || '/' || s.pod AS pod_key,
           coalesce(own.job_key, same.job_key) AS job_key,
           coalesce(own.ranks, same.ranks, []::BIGINT[]) AS ranks,
           coalesce(own.gpus, same.gpus, []::VARCHAR[]) AS gpus,
           coalesce(s.node, own.node) AS stop_node
    FROM stop s
    LEFT JOIN (SELECT pod_uid, min(job_key) AS job_key, min(node) AS node, list(DISTINCT rank ORDER BY rank) AS ranks,
                      list(DISTINCT gpu_uuid ORDER BY gpu_uuid) FILTER (WHERE gpu_uuid IS NOT NULL) AS gpus
               FROM k10s_rank GROUP BY pod_uid) own ON own.pod_uid = s.pod_uid
    LEFT JOIN (SELECT pod_key, min(job_key) AS job_key, list(DISTINCT rank ORDER BY rank) AS ranks,
                      list(DISTINCT gpu_uuid ORDER BY gpu_uuid) FILTER (WHERE gpu_uuid IS NOT NULL) AS gpus
               FROM k10s_rank GROUP BY pod_key) same ON same.pod_key = s.namespace || '/' || s.pod
    WHERE coalesce(own.job_key, same.job_key) IS NOT NULL
),
waved AS (  -- a new disruption of a job begins after two quiet minutes
    SELECT *, sum(CASE WHEN gap_s IS NULL OR gap_s > 120 THEN 1 ELSE 0 END)
                  OVER (PARTITION BY job_key ORDER BY stop_at, pod_key, pod_uid ROWS UNBOUNDED PRECEDING) AS wave
    FROM (SELECT *, epoch(stop_at - lag(stop_at) OVER (PARTITION BY job_key ORDER BY stop_at, pod_key, pod_uid)) AS gap_s FROM named)
),
wave AS (
    SELECT job_key, wave, min(stop_at) AS started_at, max(stop_at) AS ended_at,
           arg_min(cause, (stop_at, pod_key, pod_uid, api_reason, message)) AS cause, arg_min(api_reason, (stop_at, pod_key, pod_uid, api_reason, message)) AS api_reason,
           arg_min(message, (stop_at, pod_key, pod_uid, api_reason, message)) AS message,
           list(DISTINCT pod_key ORDER BY pod_key) AS pods,
           list(DISTINCT stop_node ORDER BY stop_node) FILTER (WHERE stop_node IS NOT NULL) AS nodes,
           list_sort(list_distinct(flatten(list(ranks)))) AS ranks,
           list_sort(list_distinct(flatten(list(gpus)))) AS gpus,
           flatten(list(evidence ORDER BY stop_at, pod_key, pod_uid)) AS evidence
    FROM waved GROUP BY job_key, wave
),
sized AS (  -- the job's pods alive when the disruption began; its other ranks' end
    SELECT w.*,
           (SELECT count(DISTINCT pj.pod_key) FROM k10s_pod_job pj
            WHERE pj.job_key = w.job_key AND pj.valid_from <= w.started_at AND pj.valid_to >= w.started_at - INTERVAL 2 MINUTE) AS alive,
           (SELECT count(DISTINCT pj.pod_key) FROM k10s_pod_job pj
            WHERE pj.job_key = w.job_key AND pj.valid_from <= w.started_at AND pj.valid_to >= w.started_at - INTERVAL 2 MINUTE
              AND NOT list_contains(w.pods, pj.pod_key)) AS others,
           (SELECT least(max(r.valid_to), $window_end) FROM k10s_rank r
            WHERE r.job_key = w.job_key AND NOT list_contains(w.pods, r.pod_key) AND r.valid_from <= w.started_at) AS others_end,
           js.gpus AS job_gpus
    FROM wave w LEFT JOIN k10s_job_size js ON js.job_key = w.job_key
),
advice(cause, recommendation) AS (  -- what to do, per cause Kubernetes gives (a pasted kubelet message's alike)
    VALUES
    ('preempted', 'A higher-priority pod took its GPUs (scheduler preemption). Give training jobs a PriorityClass that other workloads do not outrank (or preemptionPolicy: Never on those), fence the GPU nodes (taints, a Kueue ClusterQueue that preempts whole workloads only), and checkpoint often enough that a lost rank costs minutes.'),
    ('evicted', 'Its kubelet evicted it for node pressure (see the message: memory or ephemeral-storage). Set requests equal to limits (Guaranteed QoS) so training pods are evicted last, move scratch and checkpoint staging off the container''s writable layer onto a volume with room, and check the node''s eviction thresholds.'),
    ('node-shutdown', 'Its node shut down (graceful node shutdown: a spot or preemptible VM reclaimed, maintenance, a scale-down). Run long jobs on on-demand capacity or checkpoint often with an elastic restart policy; check the node''s history in the cloud console.'),
    ('drained', 'It was evicted through the Eviction API (kubectl drain, the cluster autoscaler, the descheduler, a node upgrade). Cover training pods with a PodDisruptionBudget (minAvailable: all) and schedule node maintenance between jobs.'),
    ('taint-eviction', 'The taint manager deleted it after its node got a NoExecute taint (NotReady or unreachable beyond tolerationSeconds, 300 s by default): check that node''s health.'),
    ('pod-gc', 'The pod garbage collector deleted it: its node no longer exists or is out of service.'),
    ('reclaimed', 'Volcano reclaimed the GPUs its queue had borrowed beyond its deserved share for another queue. Keep the job within its queue''s deserved capacity (or on a queue with reclaimable: false), and checkpoint often enough that a lost rank costs minutes.')
),
kube AS (  -- the Kubernetes side's stops
SELECT
    cause,
    CASE WHEN others > 0 THEN 'critical' ELSE 'warning' END AS severity,
    CASE WHEN others > 0 THEN len(pods) || ' pod(s) of ' || job_key || ' ' || cause || ' (' || coalesce(api_reason, '?') || ') while '
                              || others || ' ran on'
         ELSE 'Every pod of ' || job_key || ' stopped from outside: ' || cause || ' (' || coalesce(api_reason, '?') || ')' END AS title,
    job_key AS job,
    CASE WHEN others > 0 THEN ranks ELSE []::BIGINT[] END AS ranks,
    pods, coalesce(nodes, []::VARCHAR[]) AS nodes, CASE WHEN others > 0 THEN gpus ELSE []::VARCHAR[] END AS gpus,
    started_at, ended_at, api_reason,
    coalesce(api_reason || ': ', '') || coalesce(left(message, 300), '---') AS detail,
    len(pods)::BIGINT AS pods_stopped, greatest(alive, len(pods))::BIGINT AS job_pods,
    coalesce(a.recommendation, 'Kubernetes marked it a disruption target (kubectl describe pod: the DisruptionTarget condition).') AS recommendation,
    evidence,
    CASE WHEN others > 0 THEN 'high' END AS confidence,
    CASE WHEN others > 0 AND others_end IS NOT NULL
         THEN round(greatest(coalesce(job_gpus, 0) - len(ranks), 0) * greatest(epoch(others_end - started_at), 0) / 3600.0, 3) END AS gpu_hours_lost
FROM sized LEFT JOIN advice a USING (cause)
),
slurm_line AS (  -- Slurm's word that it ended a job (log_slurm: the step daemon's cancellation with its reason, srun's node failure)
    SELECT job_key, subkind AS cause, ts, raw_row, line_no, line, error_message, coalesce(error_type, 'Slurm') AS who,
           CASE WHEN subkind = 'node-failure' THEN peer_ip END AS failed_node
    FROM k10s_log WHERE kind = 'scheduler_stop' AND job_key IS NOT NULL
),
slurm_job AS (  -- per job: the first such line's reason; the nodes srun declared failed
    SELECT job_key,
           arg_min(cause, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line)) AS cause,
           arg_min(error_message, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line)) AS message,
           arg_min(who, (ts IS NULL, coalesce(ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), raw_row, line_no, line)) AS who,
           min(ts) AS started_at, max(ts) AS ended_at,
           coalesce(list(DISTINCT failed_node ORDER BY failed_node) FILTER (WHERE failed_node IS NOT NULL), []::VARCHAR[]) AS failed_nodes,
           coalesce(list(DISTINCT split_part(lower(failed_node), '.', 1) ORDER BY split_part(lower(failed_node), '.', 1)) FILTER (WHERE failed_node IS NOT NULL), []::VARCHAR[]) AS failed_hosts,
           list({'what': 'slurm-' || cause, 'at': ts, 'value': NULL::DOUBLE, 'source': 'log', 'line': left(line, 300)}
                ORDER BY ts IS NULL, ts, raw_row, line_no, line) AS evidence
    FROM slurm_line GROUP BY job_key
),
slurm_host AS (  -- where a job's ranks ran: their pod's node or name (Slurm on Kubernetes), the hosts its log lines give
                 -- (NCCL's `host:pid:tid` prefix, srun's `srun: error: <host>: task N: …`)
    SELECT r.job_key, r.rank, r.pod_key, r.gpu_uuid, split_part(lower(r.node), '.', 1) AS host FROM k10s_rank r
    UNION ALL SELECT r.job_key, r.rank, r.pod_key, r.gpu_uuid, lower(r.pod) FROM k10s_rank r
    UNION ALL SELECT l.job_key, l.rank, NULL, NULL,
                     split_part(lower(coalesce(l.nccl_host, regexp_extract(l.line, 'srun: error: ([^\s:]+): tasks? \d', 1))), '.', 1)
    FROM k10s_log l LEFT JOIN k10s_job_size js ON js.job_key = l.job_key
    WHERE l.rank IS NOT NULL AND ((l.kind = 'process_exit' AND l.subkind LIKE 'srun%')
          -- a communicator's rank is the global one only in a communicator of the whole world (not a TP/PP group's)
          OR (l.nccl_host IS NOT NULL AND (l.kind <> 'nccl_comm_init' OR l.nranks = js.gpus)))
),
slurm_ranks AS (  -- the job's ranks on a node Slurm declared failed
    SELECT s.job_key, list(DISTINCT h.rank ORDER BY h.rank) AS ranks,
           list(DISTINCT h.pod_key ORDER BY h.pod_key) FILTER (WHERE h.pod_key IS NOT NULL) AS pods,
           list(DISTINCT h.gpu_uuid ORDER BY h.gpu_uuid) FILTER (WHERE h.gpu_uuid IS NOT NULL) AS gpus
    FROM slurm_job s JOIN slurm_host h ON h.job_key = s.job_key AND list_contains(s.failed_hosts, h.host)
    GROUP BY s.job_key
),
slurm AS (  -- a failed node's ranks while the others ran: critical; else the job's stop, naming no pod
    SELECT s.*, coalesce(len(sr.ranks) > 0 AND EXISTS (SELECT 1 FROM k10s_rank r WHERE r.job_key = s.job_key
                                                       AND NOT list_contains(sr.ranks, r.rank)), false) AS singled,
           sr.ranks, sr.pods, sr.gpus,
           (SELECT count(DISTINCT pj.pod_key) FROM k10s_pod_job pj WHERE pj.job_key = s.job_key) AS job_pods
    FROM slurm_job s LEFT JOIN slurm_ranks sr ON sr.job_key = s.job_key
),
deadline AS (  -- the job's active deadline passed: its (or its JobSet child's) condition, else the job controller's event
    SELECT coalesce(CASE WHEN j.kind = 'Job' AND j.parent_kind = 'JobSet' THEN j.namespace || '/' || j.parent END,
                    j.namespace || '/' || j.job) AS job_key,
           coalesce(j.finished_at, j.started_at) AS at, j.kind || ' ' || j.job || ': ' || j.message AS message, 0 AS source_order
    FROM jobs j WHERE j.message ILIKE '%active longer than specified deadline%'
    UNION ALL
    SELECT coalesce(CASE WHEN j.kind = 'Job' AND j.parent_kind = 'JobSet' THEN j.namespace || '/' || j.parent END,
                    coalesce(e.object_namespace, e.namespace) || '/' || e.object_name),
           coalesce(e.first_ts, e.ts), e.object_kind || ' ' || e.object_name || ': ' || coalesce(e.message, 'DeadlineExceeded'), 1
    FROM events e
    LEFT JOIN jobs j ON j.namespace = coalesce(e.object_namespace, e.namespace) AND j.job = e.object_name AND j.kind = e.object_kind
    WHERE e.reason = 'DeadlineExceeded' AND e.object_kind <> 'Pod'
),
deadline_job AS (
    SELECT d.job_key, min(d.at) AS started_at, max(d.at) AS ended_at,
           arg_min(d.message, (d.source_order, d.at IS NULL, d.at, d.message)) AS message,
           list({'what': 'deadline-exceeded', 'at': d.at, 'value': NULL::DOUBLE, 'source': CASE d.source_order WHEN 0 THEN 'jobs' ELSE 'events' END,
                 'line': left(d.message, 300)} ORDER BY d.source_order, d.at, d.message) AS evidence,
           (SELECT count(DISTINCT pj.pod_key) FROM k10s_pod_job pj WHERE pj.job_key = d.job_key) AS job_pods
    FROM deadline d
    WHERE d.job_key IN (SELECT job_key FROM k10s_rank)  -- a training job's (a job of no rank is no training job here)
    GROUP BY d.job_key
)
SELECT * FROM kube
UNION ALL
SELECT 'deadline-exceeded' AS cause, 'warning' AS severity, 'Kubernetes ended ' || job_key || ': its active deadline' AS title,
       job_key AS job, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods, []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus,
       started_at, ended_at, 'DeadlineExceeded' AS api_reason, coalesce(message, '---') AS detail,
       0::BIGINT AS pods_stopped, job_pods::BIGINT AS job_pods,
       'The job ran past its activeDeadlineSeconds (the Job''s spec, a JobSet''s replicated job template, a training operator''s runPolicy) and Kubernetes stopped every pod: no failure of its own. Raise the deadline or checkpoint before it; a job that hung until its deadline: look for its first failure before the stop.' AS recommendation,
       evidence, NULL::VARCHAR AS confidence, NULL::DOUBLE AS gpu_hours_lost
FROM deadline_job
UNION ALL
SELECT
    cause, CASE WHEN singled THEN 'critical' ELSE 'warning' END AS severity,
    who || ' ended ' || job_key || ': ' || cause AS title, job_key AS job,
    CASE WHEN singled THEN ranks ELSE []::BIGINT[] END AS ranks,
    CASE WHEN singled THEN pods ELSE []::VARCHAR[] END AS pods,
    failed_nodes AS nodes, CASE WHEN singled THEN gpus ELSE []::VARCHAR[] END AS gpus,
    started_at, ended_at, who AS api_reason, coalesce(message, '---') AS detail,
    CASE WHEN singled THEN len(pods) ELSE 0 END::BIGINT AS pods_stopped, job_pods::BIGINT AS job_pods,
    coalesce(CASE cause
        WHEN 'time-limit' THEN 'Slurm''s time limit ended the job: no failure of its own. Request a longer --time or checkpoint before the limit (sbatch --signal=B:USR1@300 warns the job five minutes ahead) and resume; a job that hung until its limit: look for its first failure before the cancellation.'
        WHEN 'preempted' THEN 'A higher-priority job preempted it (the partition''s or QOS''s PreemptMode). Checkpoint often and submit with --requeue, or run on a partition that is not preemptible.'
        WHEN 'spot-reclaimed' THEN 'The cloud reclaimed the spot (preemptible) capacity the job ran on. Checkpoint often enough that a reclaim costs minutes and let the managed job resume from it (SkyPilot managed jobs, an elastic restart), or run long jobs on on-demand or reserved capacity.'
        WHEN 'node-failure' THEN 'Slurm declared a node of the allocation failed: `scontrol show node <node>` and `sinfo -R` give the reason the controller recorded. Resubmit without it (--exclude), ask the admins to drain and check it, and resume from the last checkpoint.'
        WHEN 'requeued' THEN 'Slurm requeued the job (scontrol requeue, a node failure or preemption with requeueing): it starts again from the beginning unless it resumes from a checkpoint.'
    END, a.recommendation) AS recommendation,
    evidence, CASE WHEN singled THEN 'high' END AS confidence, NULL::DOUBLE AS gpu_hours_lost
FROM slurm LEFT JOIN advice a USING (cause)
ORDER BY severity, job, started_at, pods, cause, detail
