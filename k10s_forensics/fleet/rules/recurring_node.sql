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
SELECT r.hw_key AS node_key, s.nodes AS node_names, r.incidents, r.incidents_in_period, s.gpus_involved,
       s.clusters, s.causes, s.first_incident_epoch_s, s.last_incident_epoch_s, s.bundle_ids
FROM fleet_recurrence r
JOIN fleet_hw_summary s ON s.hw_kind = r.hw_kind AND s.hw_key = r.hw_key
WHERE r.hw_kind = 'node' AND r.incidents_in_period >= $min_incidents
ORDER BY r.incidents DESC, r.hw_key
