-- facet: placement
-- compares: per training job: nodes used and ranks per node; per global rank: its node
--   (name, else machine ID), its GPU (serial, else UUID) and the topology/fabric labels of
--   its node (a rank that moved to another rack, block or NVLink domain)
-- output: facet, scope, subject, node, gpu, rank, attribute, side, run, value
WITH r AS (
    SELECT side, run, namespace, job, rank, arg_max(node, coalesce(started_at, TIMESTAMPTZ '1970-01-01')) AS node,
           arg_max(gpu_uuid, coalesce(started_at, TIMESTAMPTZ '1970-01-01')) AS gpu_uuid
    FROM (SELECT 'base' AS side, * FROM base.ranks UNION ALL BY NAME SELECT 'cur' AS side, * FROM cur.ranks)
    WHERE job IS NOT NULL AND rank IS NOT NULL GROUP BY ALL
),
rk AS (
    SELECT r.side, r.run, j.job_key, r.rank, nk.node_key, gk.gpu_key
    FROM r JOIN d_job_key j USING (side, run, namespace, job)
    LEFT JOIN d_node_key nk ON nk.side = r.side AND nk.run = r.run AND nk.node = r.node
    LEFT JOIN d_gpu_key gk ON gk.side = r.side AND gk.run = r.run AND gk.gpu_uuid = r.gpu_uuid
),
topo AS (
    SELECT side, run, node_key, k, json_extract_string(l, '$."' || replace(k, '"', '\"') || '"') AS v
    FROM (SELECT n.side, n.run, k.node_key, json_extract(n.body, '$.metadata.labels') AS l,
                 unnest(json_keys(json_extract(n.body, '$.metadata.labels'))) AS k
          FROM d_node_raw n JOIN d_node_key k USING (side, run, node))
    WHERE k10s_topology_label(k)
),
per_node AS (SELECT side, run, job_key, node_key, count(*) AS ranks FROM rk GROUP BY ALL),
shape AS (
    SELECT side, run, job_key, string_agg(nodes::VARCHAR || ' node(s) x ' || ranks::VARCHAR || ' ranks', ', ' ORDER BY ranks DESC) AS v,
           sum(nodes) AS nodes
    FROM (SELECT side, run, job_key, ranks, count(*) AS nodes FROM per_node GROUP BY ALL) GROUP BY ALL
),
kv AS (
    SELECT side, run, 'job' AS scope, job_key AS subject, NULL AS node, NULL AS gpu, NULL::BIGINT AS rank,
           unnest([{'a': 'ranks per node', 'v': v}, {'a': 'nodes', 'v': nodes::VARCHAR}]) AS kv
    FROM shape
    UNION ALL
    SELECT side, run, 'rank', job_key || ' rank ' || rank::VARCHAR, node_key, gpu_key, rank,
           unnest([{'a': 'present', 'v': 'yes'}, {'a': 'node', 'v': node_key}, {'a': 'GPU', 'v': gpu_key}])
    FROM rk
    UNION ALL
    SELECT rk.side, rk.run, 'rank', rk.job_key || ' rank ' || rk.rank::VARCHAR, rk.node_key, rk.gpu_key, rk.rank,
           {'a': 'node label ' || t.k, 'v': t.v}
    FROM rk JOIN topo t ON t.side = rk.side AND t.run = rk.run AND t.node_key = rk.node_key
)
SELECT 'placement' AS facet, scope, subject, node, gpu, rank, kv.a AS attribute, side, run, kv.v AS value
FROM kv
