-- Shared building blocks for the rules, created before any rule runs. Small results are
-- materialised as TEMP tables (computed once, read by several rules); k10s_rank_sample,
-- which spans every GPU sample, stays a view.
-- Every rule may use these; none of them filters anything out, they only resolve
-- identities: pod incarnation spans, IP -> pod/rank/node at a time, log line -> rank/GPU,
-- GPU sample -> rank, Xid meanings, GPU prices.

-- k10s_signal_cause(exit_code): the cause a process's death by a fatal signal it raised itself is named by (a
-- launcher's negative exit status: -11 segfault, -7 sigbus, -6 abort, -8 sigfpe, -4 sigill); NULL for any other status
-- (the launcher's teardown signals, SIGTERM and SIGKILL, are not these).
CREATE OR REPLACE TEMP MACRO k10s_signal_cause(exit_code) AS (
    CASE exit_code WHEN -11 THEN 'segfault' WHEN -7 THEN 'sigbus' WHEN -6 THEN 'abort' WHEN -8 THEN 'sigfpe' WHEN -4 THEN 'sigill' END
);

-- k10s_loader_signal_cause(signal_name): the rank's cause when torch's DataLoader says its worker `is killed by signal:
-- <name>` (the exception form and a handler's record of it, queries/_failure_line.sql): `Killed` is the kernel's OOM
-- killer's (host-oom-kill), `Bus error` /dev/shm's (sigbus), a segfault or a floating-point trap the worker's own; any
-- other (`Aborted`, `Terminated`) the rank's RuntimeError, since the rank lives on and raises (session 69)
CREATE OR REPLACE TEMP MACRO k10s_loader_signal_cause(signal_name) AS (
    CASE signal_name WHEN 'Killed' THEN 'host-oom-kill' WHEN 'Bus error' THEN 'sigbus' WHEN 'Segmentation fault' THEN 'segfault'
        WHEN 'Floating point exception' THEN 'sigfpe' ELSE 'python-exception' END
);

-- k10s_pod_span: pod incarnation with the interval in which it existed.
CREATE OR REPLACE TEMP TABLE k10s_pod_span AS
SELECT
    p.*,
    p.namespace || '/' || p.pod AS pod_key,
    coalesce(p.started_at, p.created_at, p.first_seen_at, TIMESTAMPTZ '1970-01-01 00:00:00+00') AS valid_from,
    coalesce(p.finished_at, p.deleted_at, TIMESTAMPTZ '2999-01-01 00:00:00+00') AS valid_to,
    -- Kubernetes stopped it itself (queries/disruption.sql): a True DisruptionTarget condition (preempted, evicted, its
    -- node shutting down, drained, the taint manager, pod GC), else the status reason of an eviction, a preemption or a
    -- graceful node shutdown (Terminated "Pod was terminated in response to imminent node shutdown."; Shutdown before 1.22)
    (p.disruption_reason IS NOT NULL OR coalesce(p.reason, '') IN ('Evicted', 'Preempted', 'Shutdown')
     OR (coalesce(p.reason, '') = 'Terminated' AND coalesce(p.message, '') ILIKE '%node shutdown%')) AS stopped_outside
FROM pods p;

-- k10s_rank: ranks with a job key and the interval of their pod incarnation.
CREATE OR REPLACE TEMP TABLE k10s_rank AS
SELECT
    r.*,
    r.namespace || '/' || r.job AS job_key,
    r.namespace || '/' || r.pod AS pod_key,
    coalesce(r.started_at, ps.valid_from, TIMESTAMPTZ '1970-01-01 00:00:00+00') AS valid_from,
    coalesce(r.finished_at, ps.valid_to, TIMESTAMPTZ '2999-01-01 00:00:00+00') AS valid_to
FROM ranks r
LEFT JOIN k10s_pod_span ps ON ps.pod_uid = r.pod_uid
WHERE r.rank IS NOT NULL;

-- k10s_pod_job: pod incarnation -> job and how many ranks it runs.
CREATE OR REPLACE TEMP TABLE k10s_pod_job AS
SELECT
    ps.namespace, ps.pod, ps.pod_uid, ps.pod_key, ps.node, ps.valid_from, ps.valid_to, ps.phase,
    ps.stopped_outside,
    coalesce(r.job_key, CASE WHEN ps.job IS NOT NULL THEN ps.namespace || '/' || ps.job END) AS job_key,
    coalesce(r.nranks, 0) AS nranks,
    r.ranks
FROM k10s_pod_span ps
LEFT JOIN (
    SELECT pod_uid, min(job_key) AS job_key, count(*) AS nranks, list(rank ORDER BY rank) AS ranks
    FROM k10s_rank GROUP BY pod_uid
) r ON r.pod_uid = ps.pod_uid;

-- k10s_job_size: GPUs (ranks) per job, for GPU-hour estimates.
CREATE OR REPLACE TEMP TABLE k10s_job_size AS
SELECT job_key, greatest(count(DISTINCT rank), max(coalesce(world_size, 0)))::BIGINT AS gpus
FROM k10s_rank GROUP BY job_key;

-- k10s_ip: every address -> pod incarnation (with its job and ranks) or node, and when
-- it was valid. Pod hostnames (= pod names) are included: NCCL names peers by host too.
CREATE OR REPLACE TEMP TABLE k10s_ip AS
WITH pod_addr AS (
    SELECT
        unnest(list_distinct(list_concat(coalesce(pod_ips, []::VARCHAR[]), CASE WHEN pod_ip IS NULL THEN []::VARCHAR[] ELSE [pod_ip] END))) AS ip,
        pod_uid
    FROM k10s_pod_span
    WHERE NOT coalesce(host_network, false)
),
node_addr AS (
    SELECT DISTINCT node, unnest(list_distinct(list_concat(coalesce(addresses, []::VARCHAR[]), CASE WHEN internal_ip IS NULL THEN []::VARCHAR[] ELSE [internal_ip] END))) AS ip
    FROM nodes
)
SELECT a.ip, 'pod' AS ip_kind, pj.namespace, pj.pod, pj.pod_key, pj.pod_uid, pj.node, pj.job_key, pj.ranks, pj.valid_from, pj.valid_to
FROM pod_addr a JOIN k10s_pod_job pj ON pj.pod_uid = a.pod_uid
UNION ALL
SELECT pj.pod, 'pod-hostname', pj.namespace, pj.pod, pj.pod_key, pj.pod_uid, pj.node, pj.job_key, pj.ranks, pj.valid_from, pj.valid_to
FROM k10s_pod_job pj
UNION ALL
SELECT ip, 'node', NULL, NULL, NULL, NULL, node, NULL, NULL, TIMESTAMPTZ '1970-01-01 00:00:00+00', TIMESTAMPTZ '2999-01-01 00:00:00+00'
FROM node_addr WHERE ip IS NOT NULL
UNION ALL
SELECT node, 'node-name', NULL, NULL, NULL, NULL, node, NULL, NULL, TIMESTAMPTZ '1970-01-01 00:00:00+00', TIMESTAMPTZ '2999-01-01 00:00:00+00'
FROM nodes;

-- k10s_node_clock: how far each node's clock runs ahead of its job's consensus (seconds).
-- Container log and dmesg timestamps come from the node's clock; GPU samples and
-- captured_at from the capture machine's. Synchronous training is a clock of its own: every
-- rank finishes step N at the same all-reduce, so a pod whose step lines sit minutes away
-- from the other pods' (the median of >= 3 pods, last time each step was logged) is on a
-- skewed node. A node gets an offset only when >= 5 of its step lines agree (MAD <= 1 s or
-- 10% of the offset) and the offset is >= 2 s; otherwise 0 (nothing is corrected).
-- empty-unless: (SELECT count(DISTINCT pod_uid) FROM log_events WHERE kind = 'training_step' AND step IS NOT NULL AND ts IS NOT NULL) >= 3
-- empty-columns: node VARCHAR, step_lines BIGINT, median_dev_s DOUBLE, mad_s DOUBLE, offset_s DOUBLE
CREATE OR REPLACE TEMP TABLE k10s_node_clock AS
WITH steps AS (
    SELECT pj.job_key, le.pod_uid, coalesce(le.node, pj.node) AS node, le.step, max(le.ts) AS ts
    FROM log_events le JOIN k10s_pod_job pj ON pj.pod_uid = le.pod_uid
    WHERE le.kind = 'training_step' AND le.step IS NOT NULL AND le.ts IS NOT NULL AND pj.job_key IS NOT NULL
    GROUP BY ALL
),
consensus AS (
    SELECT job_key, step, median(epoch(ts)) AS t_median FROM steps
    GROUP BY job_key, step HAVING count(DISTINCT pod_uid) >= 3
),
dev AS (
    SELECT s.node, epoch(s.ts) - c.t_median AS dev_s FROM steps s JOIN consensus c USING (job_key, step)
    WHERE s.node IS NOT NULL
),
per_node AS (
    SELECT node, count(*) AS step_lines, median(dev_s) AS median_dev_s FROM dev GROUP BY node
)
SELECT p.node, p.step_lines, round(p.median_dev_s, 3) AS median_dev_s, m.mad_s,
       CASE WHEN p.step_lines >= 5 AND abs(p.median_dev_s) >= 2 AND m.mad_s <= greatest(1.0, 0.1 * abs(p.median_dev_s))
            THEN round(p.median_dev_s, 3) ELSE 0 END AS offset_s
FROM per_node p
JOIN (SELECT d.node, median(abs(d.dev_s - p.median_dev_s)) AS mad_s FROM dev d JOIN per_node p USING (node) GROUP BY d.node) m USING (node);

-- k10s_log: log_events with a stable id (numbered in the order of the log bodies and lines,
-- never of the scan) and the rank, job, node and GPU resolved from the
-- pod incarnation (pod_uid when the log carries it, else the one alive at that time).
-- ts is on the job's consensus clock (minus the node's k10s_node_clock offset); ts_node
-- keeps the timestamp as logged.
CREATE OR REPLACE TEMP TABLE k10s_log AS
WITH le AS (
    SELECT row_number() OVER (ORDER BY l.raw_row, l.container NULLS FIRST, l.line_no, l.ts, l.namespace, l.pod, l.pod_uid, l.kind,
                                       l.subkind, l.rank, l.local_rank, l.line) AS event_id,
           l.* REPLACE (l.ts - to_microseconds(CAST(round(coalesce(c.offset_s, 0) * 1e6) AS BIGINT)) AS ts),
           l.ts AS ts_node, coalesce(c.offset_s, 0) AS clock_offset_s
    FROM log_events l LEFT JOIN k10s_node_clock c ON c.node = l.node
    -- a traceback known by its innermost frame only (mpirun's `[1]   File …`, cut before its exception: subkind
    -- cut_frame) is read only where a process raised its exception in that same frame (k10s_incident_same_frame)
    WHERE l.subkind IS DISTINCT FROM 'cut_frame'
       OR l.error_frame IN (SELECT e.error_frame FROM log_events e WHERE e.kind = 'python_exception' AND e.error_frame IS NOT NULL)
),
pod_match AS (
    SELECT
        le.event_id, pj.pod_uid AS m_pod_uid, pj.job_key, pj.node AS m_node, pj.nranks,
        row_number() OVER (
            PARTITION BY le.event_id
            ORDER BY coalesce(le.pod_uid = pj.pod_uid, false) DESC,
                     coalesce(le.ts BETWEEN pj.valid_from AND pj.valid_to, false) DESC,
                     pj.valid_from DESC, pj.pod_uid
        ) AS pick
    FROM le JOIN k10s_pod_job pj ON pj.namespace = le.namespace AND pj.pod = le.pod
),
own_tag AS (  -- ranks that printed a rank-tagged exception (torch's own [rankN]: tag) in a pod: that exception is theirs
    SELECT DISTINCT namespace, pod, rank FROM le WHERE kind = 'python_exception' AND rank IS NOT NULL
),
owned_report AS (  -- a launcher's failure line about a process that printed a rank-tagged exception of its own
    SELECT DISTINCT f.event_id FROM le f
    JOIN le g ON g.namespace = f.namespace AND g.pod = f.pod AND g.kind = 'torchrun_failure'
             AND (g.event_id = f.event_id OR (f.pid IS NOT NULL AND g.pid = f.pid))
    JOIN own_tag t ON t.namespace = g.namespace AND t.pod = g.pod AND t.rank = g.rank
    WHERE f.kind = 'torchrun_failure'
),
bare_lone AS (  -- a raised exception printed bare by the program's own handler (`traceback.print_exc()`, no `--tee`: no
               -- clock, no tag, no pid record, no rank-naming prefix) that may take the rank of its agent's stamped
               -- report below it (oom_hint0): the ONLY own error of its log (no other raised exception, CUDA error or
               -- OOM there), each other process that log's launcher reports failed showing a peer's error of its own
               -- (a teardown), and no other exception of the same type and words (numbers aside: `cuda:0`, `cuda:3`)
               -- anywhere in the namespace: every rank's same error, garbled or not, is no one's
               -- (docs/rules.md, "Session 65: … caught")
    SELECT o.event_id FROM le o
    WHERE o.kind = 'python_exception' AND o.subkind = 'raised' AND o.ts IS NULL
      AND o.rank IS NULL AND o.local_rank IS NULL AND o.pid IS NULL
      AND (SELECT count(*) FROM le u WHERE u.raw_row = o.raw_row AND u.container IS NOT DISTINCT FROM o.container
           AND ((u.kind = 'python_exception' AND u.subkind = 'raised') OR u.kind IN ('cuda_oom', 'cuda_error'))) = 1
      AND (SELECT count(DISTINCT t.local_rank) FROM le t WHERE t.raw_row = o.raw_row AND t.container IS NOT DISTINCT FROM o.container
           AND t.kind = 'torchrun_failure' AND t.exit_code > 0 AND t.local_rank IS NOT NULL)
          <= 1 + (SELECT count(*) FROM le v WHERE v.raw_row = o.raw_row AND v.container IS NOT DISTINCT FROM o.container
                  AND v.kind = 'python_exception' AND v.subkind = 'teardown' AND v.rank IS NULL AND v.local_rank IS NULL)
      AND NOT EXISTS (SELECT 1 FROM le s WHERE s.namespace = o.namespace AND s.event_id <> o.event_id
                      AND s.kind = 'python_exception' AND s.error_type IS NOT DISTINCT FROM o.error_type
                      AND regexp_replace(coalesce(s.error_message, ''), '[0-9]+', 'N', 'g')
                          = regexp_replace(coalesce(o.error_message, ''), '[0-9]+', 'N', 'g'))
),
oom_hint0 AS (  -- a CUDA OOM / CUDA error / raised exception without a rank: torchrun's "failed (exitcode: 1)
              -- local_rank: N" just after it (in time, or in the same log when neither line has a time) names the process,
              -- unless that process printed a rank-tagged exception of its own (its exit status is that one's);
              -- Lightning's launcher on its child ("[rank: N] Child process with PID … terminated with code 1") alike
    SELECT o.event_id, o.namespace, o.pod, o.kind, o.error_type, o.error_message,
           -- how many failed processes the lines name (a failure table's rows: rank and local rank)
           greatest(count(DISTINCT f.rank) FILTER (WHERE orp.event_id IS NULL),
                    count(DISTINCT f.local_rank) FILTER (WHERE orp.event_id IS NULL)) AS failed_procs,
           min(f.rank) FILTER (WHERE f.rank IS NOT NULL AND orp.event_id IS NULL) AS h_rank,
           -- (neither line with a time: the first report below it in the same log body, by line)
           arg_min(f.local_rank, (coalesce(f.ts, o.ts, TIMESTAMPTZ '1970-01-01 00:00:00+00') + to_microseconds(f.line_no),
                                  f.raw_row, f.line_no, f.local_rank))
               FILTER (WHERE f.local_rank IS NOT NULL AND orp.event_id IS NULL) AS h_local
    FROM le o JOIN le f
      ON f.namespace = o.namespace AND f.pod = o.pod AND coalesce(f.pod_uid = o.pod_uid, true)
     AND (f.kind = 'torchrun_failure' OR (f.kind = 'process_exit' AND f.subkind = 'lightning_child')) AND f.exit_code > 0
     AND (f.ts BETWEEN o.ts - INTERVAL 5 SECOND AND o.ts + INTERVAL 90 SECOND
          -- (or the exception alone without one: a program's own traceback printed bare, no `--tee` stamp, above its
          -- agent's stamped report in an imported file, where nothing else places it: bare_lone, "Session 65: … caught")
          OR (f.ts IS NULL AND o.ts IS NULL AND f.raw_row = o.raw_row AND f.line_no > o.line_no AND f.line_no <= o.line_no + 300)
          OR (o.ts IS NULL AND f.ts IS NOT NULL AND o.event_id IN (SELECT event_id FROM bare_lone)
              AND f.raw_row = o.raw_row AND f.line_no > o.line_no AND f.line_no <= o.line_no + 300))
    LEFT JOIN owned_report orp ON orp.event_id = f.event_id
    WHERE (o.kind IN ('cuda_oom', 'cuda_error') OR (o.kind = 'python_exception' AND o.subkind = 'raised'))
      AND o.rank IS NULL AND o.local_rank IS NULL
    GROUP BY o.event_id, o.namespace, o.pod, o.kind, o.error_type, o.error_message
),
oom_hint AS (  -- ... except where two untagged failures alike (the same error, the same words) would both be given to
               -- one process while the launcher names several that failed: two processes raised it, and nothing pairs
               -- each with its process (session 17: a node's ranks alike, their tracebacks untagged)
    SELECT h.event_id, CASE WHEN NOT ambiguous THEN h.h_rank END AS h_rank, CASE WHEN NOT ambiguous THEN h.h_local END AS h_local
    FROM (SELECT h.*, h.failed_procs >= 2 AND EXISTS (
              SELECT 1 FROM oom_hint0 g WHERE g.event_id <> h.event_id AND g.namespace = h.namespace AND g.pod = h.pod
                 AND g.kind = h.kind AND g.error_type IS NOT DISTINCT FROM h.error_type
                 AND g.error_message IS NOT DISTINCT FROM h.error_message
                 AND g.h_rank IS NOT DISTINCT FROM h.h_rank AND g.h_local IS NOT DISTINCT FROM h.h_local
                 AND (g.h_rank IS NOT NULL OR g.h_local IS NOT NULL)) AS ambiguous
          FROM oom_hint0 h) h
),
untagged_owned AS (  -- an untagged raised exception whose launcher's failure lines below it (same log body, within 300
                    -- lines) all name processes that printed a rank-tagged exception of their own
    SELECT o.event_id FROM le o
    JOIN le f ON f.raw_row = o.raw_row AND f.container IS NOT DISTINCT FROM o.container AND f.kind = 'torchrun_failure'
             AND f.exit_code > 0 AND f.line_no > o.line_no AND f.line_no <= o.line_no + 300
    LEFT JOIN owned_report orp ON orp.event_id = f.event_id
    WHERE o.kind = 'python_exception' AND o.subkind = 'raised' AND o.rank IS NULL AND o.local_rank IS NULL
    GROUP BY o.event_id HAVING bool_and(orp.event_id IS NOT NULL)
),
dev_aligned AS (  -- a host whose NCCL comm lines (`host:pid:tid [dev] NCCL INFO comm … rank R nranks N cudaDev D`) pair two or
                  -- more ranks each with its CUDA device by one offset (R = D + k: the node's processes numbered by their
                  -- device, torchrun's local rank set as the device): another process of that host known only by NCCL's
                  -- `host:pid:tid [dev]` prefix is rank dev + k (a process whose pid a comm line names keeps that line's rank;
                  -- a host and pid masked in a paste, `xxxxxxxx:xxxxxx:xxxxxx [2]`, leave the device: the pod's lines one host)
    SELECT namespace, pod, nccl_host, min(rank - cuda_dev) AS k, list(DISTINCT pid ORDER BY pid) AS pids
    FROM le WHERE kind = 'nccl_comm_init' AND rank IS NOT NULL AND cuda_dev IS NOT NULL
    GROUP BY ALL HAVING count(DISTINCT rank) >= 2 AND count(DISTINCT rank - cuda_dev) = 1 AND count(DISTINCT nranks) = 1
),
nccl_said AS (  -- an NCCL error naming no process (`what():  NCCL error: unhandled system error`, ProcessGroupNCCL's exception)
                -- under one process's trace of the same error's returns (`host:pid:tid [dev] NCCL INFO proxy.cc:684 -> 2`) in the
                -- same log, 20 lines above it at most: the call that failed was that process's; its rank, where that
                -- process's is known (its own lines, or the device of a host whose comm lines pair ranks and devices)
    SELECT o.event_id, min(coalesce(n.rank, n.cuda_dev + da.k)) AS rank
    FROM le o
    JOIN le n ON n.raw_row = o.raw_row AND n.container IS NOT DISTINCT FROM o.container AND n.kind = 'nccl_return'
             AND n.subkind = o.subkind AND n.line_no < o.line_no AND n.line_no >= o.line_no - 20
    LEFT JOIN dev_aligned da ON da.namespace = n.namespace AND da.pod = n.pod AND da.nccl_host IS NOT DISTINCT FROM n.nccl_host
                            AND NOT coalesce(list_contains(da.pids, n.pid), false) AND n.local_rank IS NULL
    WHERE o.kind = 'nccl_error_other' AND o.rank IS NULL AND o.local_rank IS NULL AND o.pid IS NULL
    GROUP BY o.event_id
    HAVING count(DISTINCT (n.nccl_host, n.pid, n.cuda_dev)) = 1 AND count(DISTINCT coalesce(n.rank, n.cuda_dev + da.k)) = 1
),
silent_mate AS (  -- per pod whose other ranks all printed a rank-tagged exception: the one rank that printed none
    SELECT r.pod_uid, min(r.rank) AS rank FROM k10s_rank r JOIN k10s_pod_job pj ON pj.pod_uid = r.pod_uid
    WHERE EXISTS (SELECT 1 FROM own_tag t WHERE t.namespace = pj.namespace AND t.pod = pj.pod)
      AND NOT EXISTS (SELECT 1 FROM own_tag t WHERE t.namespace = pj.namespace AND t.pod = pj.pod AND t.rank = r.rank)
    GROUP BY r.pod_uid HAVING count(DISTINCT r.rank) = 1
),
eff AS (
    SELECT le.event_id, pm.m_pod_uid, pm.job_key, pm.m_node, pm.nranks,
           -- an untagged raised exception (a thread's, printed by threading's excepthook without torch's tag) whose
           -- launcher report names only processes with a tagged exception of their own: the pod's one rank without one
           coalesce(le.rank, h.h_rank, CASE WHEN uo.event_id IS NOT NULL AND h.h_rank IS NULL
                                             AND h.h_local IS NULL THEN sm.rank END,
                    CASE WHEN le.kind IN ('nccl_remote_error', 'nccl_return') AND le.local_rank IS NULL AND le.cuda_dev IS NOT NULL
                              AND NOT coalesce(list_contains(da.pids, le.pid), false) THEN le.cuda_dev + da.k END, ns.rank) AS eff_rank,
           -- else the CUDA ordinal of NCCL's own line prefix (`host:pid:tid [dev] NCCL WARN ...`: the device of the
           -- printing process's communicator), which is the local rank when a pod's processes see all its GPUs; the
           -- `GPU N` of PyTorch's allocator message is the device of the failed allocation, not the process (a process
           -- that spreads its model over several GPUs, device_map="auto", names any of them): it names no rank
           -- (NCCL's host and pid may be masked in a paste: the wording tells the two apart)
           coalesce(le.local_rank, h.h_local, CASE WHEN pm.nranks > 1 AND le.kind IN ('cuda_oom', 'cuda_error')
                                                    AND coalesce(le.subkind NOT IN ('pytorch', 'pytorch_legacy'), true)
                                               THEN le.cuda_dev END) AS eff_local
    FROM le
    LEFT JOIN pod_match pm ON pm.event_id = le.event_id AND pm.pick = 1
    LEFT JOIN oom_hint h ON h.event_id = le.event_id
    LEFT JOIN untagged_owned uo ON uo.event_id = le.event_id
    LEFT JOIN silent_mate sm ON sm.pod_uid = pm.m_pod_uid
    LEFT JOIN dev_aligned da ON da.namespace = le.namespace AND da.pod = le.pod AND da.nccl_host IS NOT DISTINCT FROM le.nccl_host
    LEFT JOIN nccl_said ns ON ns.event_id = le.event_id
)
SELECT
    le.*,
    le.namespace || '/' || le.pod AS pod_key,
    e.job_key,
    coalesce(e.m_pod_uid, le.pod_uid) AS incarnation_uid,
    coalesce(le.node, r.node, e.m_node) AS node_resolved,
    coalesce(e.eff_rank, r.rank) AS rank_resolved,
    r.gpu_uuid AS gpu_uuid
FROM le
JOIN eff e ON e.event_id = le.event_id
LEFT JOIN k10s_rank r ON r.pod_uid = e.m_pod_uid AND (
       (e.eff_rank IS NOT NULL AND r.rank = e.eff_rank)
    OR (e.eff_rank IS NULL AND e.eff_local IS NOT NULL AND r.local_rank = e.eff_local)
    -- a pod of one rank holds the line's process, except a launcher's report printed with its last
    -- spawned command (no process named: the pod's one rank may be a guess of import-logs) and Ray's
    -- account of a worker's death that names no worker pid (`The actor is dead because its worker process
    -- has died`: the caller that awaited the actor prints it, never the dead process)
    OR (e.eff_rank IS NULL AND e.eff_local IS NULL AND e.nranks = 1 AND le.subkind IS DISTINCT FROM 'launcher_last_cmd'
        AND NOT (le.subkind = 'ray_worker_died' AND le.pid IS NULL)
        -- nor Ray's memory monitor naming no rank (its raised `ray.exceptions.OutOfMemoryError: … killed due to the node
        -- running low on memory`, the raylet's summary, the notice's worker pid): a worker on the node its IP names was
        -- killed, the caller that awaited it prints it (the driver), never the killed worker (session 66); nor Ray < 2's
        -- `RayOutOfMemoryError` (its task's error, printed by the caller that awaited it: session 67)
        AND NOT (le.subkind = 'ray_memory_monitor' OR le.kind = 'python_exception' AND regexp_matches(le.error_type, '(?:^|\.)OutOfMemoryError$')
                 AND coalesce(le.error_message, '') LIKE '%killed due to the node%'
                 OR le.kind = 'python_exception' AND regexp_matches(le.error_type, '(?:^|\.)RayOutOfMemoryError$')
                 -- nor Ray's task error header read alone (`RayTaskError(RuntimeError): ray::f() (pid=N, ip=A)`: the task's
                 -- process raised it, its caller prints it; session 68, parsers/log_ray_task_error.py)
                 -- (whatever kind its class reads as: session 69)
                 OR le.kind IN ('python_exception', 'cuda_oom', 'cuda_error', 'nccl_error_other', 'nccl_remote_error') AND regexp_matches(coalesce(le.line, ''), 'RayTaskError\(\w'))
        -- (nor a pod whose one process import-logs assumed: nothing said how many processes its node ran; nor one it
        -- made for a rank the log named on no node: its untagged lines are where the paste put them, not that rank's)
        AND coalesce(r.rank_source NOT IN ('assumed', 'named-ranks'), true))
);

-- k10s_job_log: container log lines of training-job pods (no dmesg): what the log rules
-- need; a rule requiring it is skipped, not silently passed, when container logs are absent.
CREATE OR REPLACE TEMP VIEW k10s_job_log AS
SELECT * FROM k10s_log WHERE job_key IS NOT NULL AND container IS NOT NULL;

-- k10s_paste_job: jobs whose every log line is from a pod `import-logs` made up from a paste (pod_runtime's
-- spec_known false), with the ranks its lines name: any line tagged with a rank (tagged_ranks), and the ranks with
-- a line of their own (own_ranks: not another process's line about it, NCCL's `Connection closed by localRank N`,
-- a desync report's `[N] finished …`, a report another rank printed). What a paste cannot prove is read from it
-- (docs/rules.md, "What a paste cannot prove"): one rank's failure in a paste of its lines only, a rank named only by
-- its absence from a paste. A job with no line at all is not one (its evidence is the cluster's, not a paste's).
CREATE OR REPLACE TEMP VIEW k10s_paste_job AS
SELECT job_key,
       coalesce(list(DISTINCT rank_resolved ORDER BY rank_resolved) FILTER (WHERE rank_resolved IS NOT NULL), []) AS tagged_ranks,
       coalesce(list(DISTINCT rank_resolved ORDER BY rank_resolved) FILTER (
           WHERE rank_resolved IS NOT NULL AND coalesce(kind NOT IN ('nccl_peer_closed', 'nccl_desync'), true)
             AND coalesce(reporter_rank = rank_resolved, true)), []) AS own_ranks
FROM k10s_log
WHERE job_key IS NOT NULL
GROUP BY job_key
HAVING bool_and(coalesce(incarnation_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known), false));

-- k10s_death: container terminations with a failure exit (current or last state) of pod
-- incarnations, with their job, on the consensus clock (finishedAt comes from the node).
CREATE OR REPLACE TEMP TABLE k10s_death AS
WITH d AS (
    SELECT pod_uid, container, finished_at AS ts, reason, exit_code, 'current' AS which
    FROM containers WHERE state = 'terminated' AND coalesce(exit_code, 0) <> 0 AND finished_at IS NOT NULL
    UNION ALL
    SELECT pod_uid, container, last_finished_at, last_reason, last_exit_code, 'last'
    FROM containers WHERE coalesce(last_exit_code, 0) <> 0 AND last_finished_at IS NOT NULL
)
SELECT
    pj.namespace, pj.pod, pj.pod_key, d.pod_uid, pj.node, pj.job_key, pj.nranks, pj.ranks, d.container, d.which,
    d.ts - to_microseconds(CAST(round(coalesce(nc.offset_s, 0) * 1e6) AS BIGINT)) AS ts, d.ts AS ts_node, d.reason, d.exit_code
FROM d
JOIN k10s_pod_job pj ON pj.pod_uid = d.pod_uid
LEFT JOIN k10s_node_clock nc ON nc.node = pj.node
-- not the end Kubernetes gave a pod it stopped itself (preempted, evicted, its node shutting down: queries/disruption.sql):
-- that container's SIGTERM or SIGKILL is no failure of its own, nor the OOM killer's
WHERE NOT (d.which = 'current' AND coalesce(d.reason, '') <> 'OOMKilled' AND pj.stopped_outside);

-- k10s_fb_oom: a rank whose GPU framebuffer reached >= 97% of its total in the 2 minutes
-- before its container died with a failure exit that is neither a signal nor OOMKilled:
-- a CUDA OOM even when the logs are absent or silent.
CREATE OR REPLACE TEMP TABLE k10s_fb_oom AS
SELECT r.job_key, r.rank, r.pod_key, d.pod_uid, r.node, r.gpu_uuid, d.ts, d.exit_code,
       max(s.fb_total_mib) AS total_mib, max(s.fb_used_mib) AS used_mib
FROM k10s_death d
JOIN k10s_rank r ON r.pod_uid = d.pod_uid
JOIN gpu_samples s ON s.gpu_uuid = r.gpu_uuid AND s.ts BETWEEN d.ts - INTERVAL 2 MINUTE AND d.ts
WHERE d.exit_code NOT IN (137, 143, -15, 130) AND coalesce(d.reason, '') <> 'OOMKilled'
GROUP BY r.job_key, r.rank, r.pod_key, d.pod_uid, r.node, r.gpu_uuid, d.ts, d.exit_code
HAVING max(s.fb_used_mib / nullif(s.fb_total_mib, 0)) >= 0.97;

-- k10s_rank_sample: GPU samples of a rank's GPU while that rank's pod incarnation ran.
CREATE OR REPLACE TEMP VIEW k10s_rank_sample AS
SELECT
    r.job_key, r.rank, r.pod_key, r.pod_uid, r.node AS rank_node, r.gpu_uuid,
    s.ts, s.source, s.util_pct, s.sm_active, s.tensor_active, s.gr_engine_active, s.power_w, s.power_limit_w,
    s.fb_used_mib, s.fb_total_mib, s.temp_c, s.sm_clock_mhz, s.throttle_reasons, s.xid, s.model_name
FROM gpu_samples s
JOIN k10s_rank r
  ON s.gpu_uuid = r.gpu_uuid
 AND s.ts BETWEEN r.valid_from AND r.valid_to
 AND (s.pod IS NULL OR s.pod = r.pod);
