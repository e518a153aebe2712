-- id: moved-gpu
-- kind: finding
-- title: A GPU moved to another node and kept failing there
-- severity: critical
-- requires: fleet_culprits, fleet_gpus
-- description: A GPU (by serial, else UUID) seen in more than one node across the fleet that
--   was the culprit of hardware-suspect findings on at least two of those nodes: the fault
--   travelled with the board, so the board is bad, not the slot or the node.
-- recommendation: Pull this board (by serial) rather than the nodes it was in; RMA it.
-- columns:
--   gpu_key VARCHAR                  -- serial:<serial> or uuid:<uuid>
--   gpu_serial VARCHAR               -- board serial, when known
--   nodes_seen_in BIGINT             -- nodes the GPU was seen in
--   nodes_failed_on BIGINT           -- nodes where it was a culprit
--   incidents BIGINT                 -- bundles where it was a culprit
--   nodes VARCHAR                    -- node names it failed on (comma-separated)
--   first_incident_epoch_s BIGINT    -- first incident
--   last_incident_epoch_s BIGINT     -- last incident
--   bundle_ids VARCHAR               -- the bundles (comma-separated)
WITH seen AS (
    SELECT k.gpu_key, count(DISTINCT g.node_key) AS nodes_seen_in
    FROM fleet_gpus g JOIN fleet_gpu_key k ON k.gpu_uuid = g.gpu_uuid
    GROUP BY k.gpu_key
    HAVING count(DISTINCT g.node_key) >= 2
),
per_node AS (
    SELECT i.gpu_key, i.node_key
    FROM fleet_incident_gpu i JOIN seen s ON s.gpu_key = i.gpu_key
    GROUP BY i.gpu_key, i.node_key
),
moved AS (
    SELECT gpu_key, count(*) AS nodes_failed_on
    FROM per_node GROUP BY gpu_key HAVING count(*) >= 2
)
SELECT m.gpu_key,
       max(i.gpu_serial) AS gpu_serial,
       max(s.nodes_seen_in) AS nodes_seen_in,
       max(m.nodes_failed_on) AS nodes_failed_on,
       count(DISTINCT i.bundle_id) AS incidents,
       array_to_string(list_sort(list_distinct(list(i.node))), ',') AS nodes,
       min(i.incident_epoch_s) AS first_incident_epoch_s,
       max(i.incident_epoch_s) AS last_incident_epoch_s,
       array_to_string(list_sort(list_distinct(list(i.bundle_id))), ',') AS bundle_ids
FROM moved m
JOIN seen s ON s.gpu_key = m.gpu_key
JOIN fleet_incident_gpu i ON i.gpu_key = m.gpu_key
GROUP BY m.gpu_key
ORDER BY incidents DESC, m.gpu_key
