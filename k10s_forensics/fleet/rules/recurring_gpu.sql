-- id: recurring-gpu
-- kind: finding
-- title: The same GPU was the culprit of several incidents
-- severity: critical
-- requires: fleet_culprits, fleet_gpus
-- settings: min_incidents, period_s
-- description: A GPU (its board serial where any bundle saw it, else its UUID) that was the
--   culprit of a hardware-suspect finding (gpu-health, nccl-hang, a throttled or degraded
--   straggler) in at least min_incidents different bundles within period_s seconds. Counts
--   distinct bundles, so two findings of one incident count once.
-- recommendation: Pull the GPU (by serial) for diagnostics (dcgmi diag -r 3) and RMA it if
--   it fails; it keeps failing wherever it is installed.
-- columns:
--   gpu_key VARCHAR                  -- serial:<serial> or uuid:<uuid>
--   gpu_serial VARCHAR               -- board serial, when known
--   gpu_uuids VARCHAR                -- UUIDs it had (comma-separated)
--   incidents BIGINT                 -- incidents (bundles, re-captures of one event once) where it was a culprit
--   incidents_in_period BIGINT       -- most bundles within one period
--   nodes VARCHAR                    -- nodes it failed on
--   clusters VARCHAR                 -- clusters
--   causes VARCHAR                   -- rule:cause of its findings
--   first_incident_epoch_s BIGINT    -- first incident
--   last_incident_epoch_s BIGINT     -- last incident
--   bundle_ids VARCHAR               -- the bundles (comma-separated)
SELECT r.hw_key AS gpu_key, s.gpu_serial, s.gpu_uuids, r.incidents, r.incidents_in_period, s.nodes,
       s.clusters, s.causes, s.first_incident_epoch_s, s.last_incident_epoch_s, s.bundle_ids
FROM fleet_recurrence r
JOIN fleet_hw_summary s ON s.hw_kind = r.hw_kind AND s.hw_key = r.hw_key
WHERE r.hw_kind = 'gpu' AND r.incidents_in_period >= $min_incidents
ORDER BY r.incidents DESC, r.hw_key
