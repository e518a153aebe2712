-- facet: node
-- compares: per node (name, else machine ID): its GPUs' drivers and products, machine ID, kernel, OS image, container
--   runtime, kubelet, GPU capacity and allocatable, taints, NVIDIA and topology/fabric
--   labels, Xid history (dmesg)
-- output: facet, scope, subject, node, gpu, rank, attribute, side, run, value
WITH n AS (
    SELECT r.side, r.run, k.node_key, r.body FROM d_node_raw r JOIN d_node_key k USING (side, run, node)
),
labels AS (
    SELECT side, run, node_key, k, json_extract_string(l, '$."' || replace(k, '"', '\"') || '"') AS v
    FROM (SELECT side, run, node_key, json_extract(body, '$.metadata.labels') AS l,
                 unnest(json_keys(json_extract(body, '$.metadata.labels'))) AS k FROM n)
),
xid AS (
    SELECT side, run, node, string_agg('Xid ' || xid::VARCHAR || ' x' || c::VARCHAR, ', ' ORDER BY xid) AS xids
    FROM (SELECT 'base' AS side, run, node, xid, count(*) AS c FROM base.log_events WHERE kind = 'xid' AND xid IS NOT NULL GROUP BY ALL
          UNION ALL SELECT 'cur', run, node, xid, count(*) FROM cur.log_events WHERE kind = 'xid' AND xid IS NOT NULL GROUP BY ALL)
    GROUP BY ALL
),
gsum AS (
    SELECT g.side, g.run, k.node_key, string_agg(DISTINCT g.driver_version, ', ' ORDER BY g.driver_version) AS drivers,
           string_agg(DISTINCT g.product, ', ' ORDER BY g.product) AS products, count(*) AS gpus
    FROM (SELECT 'base' AS side, * FROM base.gpus UNION ALL BY NAME SELECT 'cur' AS side, * FROM cur.gpus) g
    JOIN d_gpu_key k ON k.side = g.side AND k.run = g.run AND k.gpu_uuid = g.gpu_uuid
    WHERE NOT coalesce(g.is_mig, false) GROUP BY ALL
),
kv AS (
    SELECT DISTINCT side, run, node_key, {'a': 'present', 'v': 'yes'} AS kv FROM d_node_key
    UNION ALL
    SELECT side, run, node_key, unnest([
        {'a': 'GPU drivers', 'v': drivers}, {'a': 'GPU products', 'v': products}, {'a': 'GPUs', 'v': gpus::VARCHAR}
    ]) FROM gsum
    UNION ALL
    SELECT side, run, node_key, unnest([
        {'a': 'machine ID', 'v': json_extract_string(body, '$.status.nodeInfo.machineID')},
        {'a': 'system UUID', 'v': json_extract_string(body, '$.status.nodeInfo.systemUUID')},
        {'a': 'kernel', 'v': json_extract_string(body, '$.status.nodeInfo.kernelVersion')},
        {'a': 'OS image', 'v': json_extract_string(body, '$.status.nodeInfo.osImage')},
        {'a': 'container runtime', 'v': json_extract_string(body, '$.status.nodeInfo.containerRuntimeVersion')},
        {'a': 'kubelet', 'v': json_extract_string(body, '$.status.nodeInfo.kubeletVersion')},
        {'a': 'GPU capacity', 'v': json_extract_string(body, '$.status.capacity."nvidia.com/gpu"')},
        {'a': 'GPU allocatable', 'v': json_extract_string(body, '$.status.allocatable."nvidia.com/gpu"')},
        {'a': 'taints', 'v': coalesce(CAST(json_extract(body, '$.spec.taints') AS VARCHAR), 'none')}
    ]) FROM n
    UNION ALL
    SELECT side, run, node_key, {'a': 'label ' || k, 'v': v} FROM labels WHERE k10s_node_label(k)
    UNION ALL
    SELECT k.side, k.run, k.node_key, {'a': 'Xid history (dmesg)', 'v': coalesce(x.xids, 'none')}
    FROM (SELECT DISTINCT side, run, node_key, node FROM d_node_key) k
    LEFT JOIN xid x USING (side, run, node)
)
SELECT 'node' AS facet, 'node' AS scope, node_key AS subject, node_key AS node, NULL AS gpu, NULL::BIGINT AS rank,
       kv.a AS attribute, side, run, kv.v AS value
FROM kv
