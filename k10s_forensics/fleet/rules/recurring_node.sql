-- id: recurring-node
-- kind: finding
-- title: The same node was the culprit of several incidents
-- severity: critical
-- requires: fleet_culprits
-- settings: min_incidents, period_s
-- description: A node (its system UUID, else machine ID, else name, so renames keep it) that
--   was the culprit of a hardware-suspect finding in at least min_incidents different
--   bundles within period_s seconds, whichever of its GPUs was involved (gpus_involved says
--   how many: one GPU means the board may be the problem, see recurring-gpu).
-- recommendation: Cordon and drain the node, run the vendor's node diagnostics (dcgmi diag
--   -r 3, PCIe/NVLink checks) and keep it out of the pool until they pass.
-- columns:
--   node_key VARCHAR                 -- system-uuid:, machine-id: or name:
--   node_names VARCHAR               -- names it had (comma-separated)
--   incidents BIGINT                 -- incidents (bundles, re-captures of one event once) where it was a culprit
--   incidents_in_period BIGINT       -- most bundles within one period
--   gpus_involved BIGINT             -- distinct culprit GPUs in those incidents (1 = look at recurring-gpu first)
--   clusters VARCHAR                 -- clusters
--   causes VARCHAR                   -- rule:cause of its findings
--   first_incident_epoch_s BIGINT    -- first incident
--   last_incident_epoch_s BIGINT     -- last incident
--   bundle_ids VARCHAR               -- the bundles (comma-separated)
WITH hit AS (
    SELECT hw_key AS node_key, incidents, incidents_in_period FROM fleet_recurrence
    WHERE hw_kind = 'node' AND incidents_in_period >= $min_incidents
)
SELECT h.node_key,
       array_to_string(list_sort(list_distinct(list(i.node))), ',') AS node_names,
       max(h.incidents) AS incidents,
       max(h.incidents_in_period) AS incidents_in_period,
       count(DISTINCT g.gpu_key) AS gpus_involved,
       array_to_string(list_sort(list_distinct(list(i.cluster_name))), ',') AS clusters,
       array_to_string(list_sort(list_distinct(list(i.rule || ':' || i.cause))), ',') AS causes,
       min(i.incident_epoch_s) AS first_incident_epoch_s,
       max(i.incident_epoch_s) AS last_incident_epoch_s,
       array_to_string(list_sort(list_distinct(list(i.bundle_id))), ',') AS bundle_ids
FROM hit h
JOIN fleet_incident_node i ON i.node_key = h.node_key
LEFT JOIN fleet_incident_gpu g ON g.finding_id = i.finding_id
GROUP BY h.node_key
ORDER BY max(h.incidents) DESC, h.node_key
