-- facet: kueue
-- compares: per training job's Kueue Workload: LocalQueue, ClusterQueue, priority, flavors
--   assigned, GPUs asked; per ClusterQueue: cohort, and per flavor x resource the nominal
--   quota, borrowing and lending limits
-- output: facet, scope, subject, node, gpu, rank, attribute, side, run, value
WITH wl AS (
    SELECT 'base' AS side, * FROM base.kueue_workloads UNION ALL BY NAME SELECT 'cur' AS side, * FROM cur.kueue_workloads
),
wl_body AS (
    SELECT side, run, namespace, name, arg_max(body, captured_at) AS body
    FROM (SELECT 'base' AS side, run, namespace, name, body, captured_at FROM base.raw_objects WHERE kind = 'Workload'
          UNION ALL SELECT 'cur', run, namespace, name, body, captured_at FROM cur.raw_objects WHERE kind = 'Workload')
    GROUP BY ALL
),
cq AS (
    SELECT 'base' AS side, * FROM base.kueue_cluster_queues UNION ALL BY NAME SELECT 'cur' AS side, * FROM cur.kueue_cluster_queues
),
kv AS (
    SELECT w.side, w.run, k.job_key AS subject, 'job' AS scope, unnest([
        {'a': 'Kueue local queue', 'v': w.queue_name},
        {'a': 'Kueue cluster queue', 'v': w.cluster_queue},
        {'a': 'Kueue priority', 'v': w.priority::VARCHAR},
        {'a': 'Kueue GPUs asked', 'v': w.gpu_request::VARCHAR},
        {'a': 'Kueue flavors', 'v': CAST(json_extract(b.body, '$.status.admission.podSetAssignments[*].flavors') AS VARCHAR)}
    ]) AS kv
    FROM wl w
    JOIN d_job_key k ON k.side = w.side AND k.run = w.run AND k.namespace = w.namespace AND k.job = w.owner_name
    LEFT JOIN wl_body b ON b.side = w.side AND b.run = w.run AND b.namespace = w.namespace AND b.name = w.workload
    UNION ALL
    SELECT side, run, 'ClusterQueue ' || cluster_queue, 'queue', {'a': 'present', 'v': 'yes'} FROM cq
    UNION ALL
    SELECT side, run, 'ClusterQueue ' || cluster_queue, 'queue', {'a': 'cohort', 'v': coalesce(cohort, 'none')} FROM cq
    UNION ALL
    SELECT side, run, 'ClusterQueue ' || cluster_queue, 'queue', unnest([
        {'a': 'quota ' || resource || ' in ' || flavor, 'v': nominal_quota::VARCHAR},
        {'a': 'borrowing limit ' || resource || ' in ' || flavor, 'v': coalesce(borrowing_limit::VARCHAR, 'none')},
        {'a': 'lending limit ' || resource || ' in ' || flavor, 'v': coalesce(lending_limit::VARCHAR, 'none')}
    ]) FROM cq WHERE resource IS NOT NULL
)
SELECT 'kueue' AS facet, scope, subject, NULL AS node, NULL AS gpu, NULL::BIGINT AS rank,
       kv.a AS attribute, side, run, kv.v AS value
FROM kv
