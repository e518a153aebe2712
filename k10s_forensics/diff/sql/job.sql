-- facet: job
-- compares: per training job (namespace/name, else the one job of each side): kind, world
--   size, replicas, processes and GPUs per pod, restarts allowed; per container: image and
--   digest, command, arguments, resources, the NCCL_/TORCH_/PYTORCH_/CUDA_/OMP_/UCX_/FI_
--   environment (values of secret-looking names hashed, never shown), envFrom; per pod
--   template: node selector, affinity, tolerations, scheduler, priority class, host network
-- output: facet, scope, subject, node, gpu, rank, attribute, side, run, value
WITH jobs AS (
    SELECT 'base' AS side, * FROM base.jobs UNION ALL BY NAME SELECT 'cur' AS side, * FROM cur.jobs
),
pods AS (
    SELECT 'base' AS side, run, namespace, job, pod_uid FROM base.pods WHERE job IS NOT NULL
    UNION ALL SELECT 'cur', run, namespace, job, pod_uid FROM cur.pods WHERE job IS NOT NULL
),
bodies AS (
    SELECT side, run, uid, arg_max(body, captured_at) AS body
    FROM (SELECT 'base' AS side, run, uid, body, captured_at FROM base.raw_objects WHERE kind = 'Pod'
          UNION ALL SELECT 'cur', run, uid, body, captured_at FROM cur.raw_objects WHERE kind = 'Pod')
    GROUP BY ALL
),
jp AS (
    SELECT p.side, p.run, k.job_key, b.body
    FROM pods p JOIN d_job_key k USING (side, run, namespace, job)
    JOIN bodies b ON b.side = p.side AND b.run = p.run AND b.uid = p.pod_uid
),
ctr AS (
    SELECT side, run, job_key, body, unnest(from_json(json_extract(body, '$.spec.containers'),
        '[{"name": "VARCHAR", "image": "VARCHAR", "command": "JSON", "args": "JSON", "env": "JSON", "envFrom": "JSON", "resources": "JSON"}]')) AS c
    FROM jp
),
status AS (
    SELECT side, run, job_key, unnest(from_json(json_extract(body, '$.status.containerStatuses'),
        '[{"name": "VARCHAR", "imageID": "VARCHAR"}]')) AS s
    FROM jp
),
env AS (
    SELECT side, run, job_key, c.name AS container, unnest(from_json(c.env, '[{"name": "VARCHAR", "value": "VARCHAR", "valueFrom": "JSON"}]')) AS e
    FROM ctr
),
kv AS (
    SELECT j.side, j.run, k.job_key, unnest([
        {'a': 'present', 'v': 'yes'},
        {'a': 'kind', 'v': j.kind},
        {'a': 'world size', 'v': j.world_size::VARCHAR},
        {'a': 'replicas', 'v': j.replicas::VARCHAR},
        {'a': 'processes per pod', 'v': j.nproc_per_node::VARCHAR},
        {'a': 'GPUs per pod', 'v': j.gpus_per_pod::VARCHAR},
        {'a': 'restarts allowed', 'v': j.max_restarts::VARCHAR},
        {'a': 'replica specs', 'v': j.replica_specs_json}
    ]) AS kv
    FROM jobs j JOIN d_job_key k USING (side, run, namespace, job)
    UNION ALL
    SELECT side, run, job_key, unnest([
        {'a': 'image ' || c.name, 'v': c.image},
        {'a': 'command ' || c.name, 'v': k10s_scrub(CAST(c.command AS VARCHAR))},
        {'a': 'args ' || c.name, 'v': k10s_scrub(CAST(c.args AS VARCHAR))},
        {'a': 'resources ' || c.name, 'v': CAST(c.resources AS VARCHAR)},
        {'a': 'envFrom ' || c.name, 'v': coalesce(CAST(c.envFrom AS VARCHAR), 'none')}
    ]) FROM ctr
    UNION ALL
    SELECT side, run, job_key, {'a': 'image digest ' || s.name,
        'v': coalesce(nullif(regexp_extract(s.imageID, '(sha256:[0-9a-fA-F]+)', 1), ''), s.imageID)} FROM status
    UNION ALL
    SELECT side, run, job_key, {'a': 'env ' || container || ' ' || e.name,
        'v': CASE WHEN k10s_secret_name(e.name) THEN k10s_hidden(coalesce(e.value, CAST(e.valueFrom AS VARCHAR)))
                  WHEN e.valueFrom IS NOT NULL THEN 'from ' || CAST(e.valueFrom AS VARCHAR)
                  ELSE coalesce(e.value, '') END}
    FROM env WHERE regexp_matches(e.name, '^(NCCL_|TORCH_|PYTORCH_|CUDA_|OMP_|UCX_|FI_)')
    UNION ALL
    SELECT side, run, job_key, unnest([
        {'a': 'node selector', 'v': coalesce(CAST(json_extract(body, '$.spec.nodeSelector') AS VARCHAR), 'none')},
        {'a': 'affinity', 'v': coalesce(CAST(json_extract(body, '$.spec.affinity') AS VARCHAR), 'none')},
        {'a': 'tolerations', 'v': coalesce(CAST(json_extract(body, '$.spec.tolerations') AS VARCHAR), 'none')},
        {'a': 'scheduler', 'v': coalesce(json_extract_string(body, '$.spec.schedulerName'), 'default-scheduler')},
        {'a': 'priority class', 'v': coalesce(json_extract_string(body, '$.spec.priorityClassName'), 'none')},
        {'a': 'host network', 'v': coalesce(json_extract_string(body, '$.spec.hostNetwork'), 'false')}
    ]) FROM jp
)
SELECT 'job' AS facet, 'job' AS scope, job_key AS subject, NULL AS node, NULL AS gpu, NULL::BIGINT AS rank,
       kv.a AS attribute, side, run, kv.v AS value
FROM kv
