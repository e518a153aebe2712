-- facet: node
-- compares: per node (name, else machine ID): machine ID, kernel, OS image, container
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
kv AS (
    SELECT side, run, node_key, unnest([
        {'a': 'present', 'v': 'yes'},
        {'a': 'machine ID', 'v': json_extract_string(body, '$.status.nodeInfo.machineID')},
        {'a': 'system UUID', 'v': json_extract_string(body, '$.status.nodeInfo.systemUUID')},
        {'a': 'kernel', 'v': json_extract_string(body, '$.status.nodeInfo.kernelVersion')},
        {'a': 'OS image', 'v': json_extract_string(body, '$.status.nodeInfo.osImage')},
        {'a': 'container runtime', 'v': json_extract_string(body, '$.status.nodeInfo.containerRuntimeVersion')},
        {'a': 'kubelet', 'v': json_extract_string(body, '$.status.nodeInfo.kubeletVersion')},
        {'a': 'GPU capacity', 'v': json_extract_string(body, '$.status.capacity."nvidia.com/gpu"')},
        {'a': 'GPU allocatable', 'v': json_extract_string(body, '$.status.allocatable."nvidia.com/gpu"')},
        {'a': 'taints', 'v': coalesce(CAST(json_extract(body, '$.spec.taints') AS VARCHAR), 'none')}
    ]) AS kv FROM n
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
