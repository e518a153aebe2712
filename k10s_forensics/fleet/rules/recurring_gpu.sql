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
WITH hit AS (
    SELECT hw_key AS gpu_key, incidents, incidents_in_period FROM fleet_recurrence
    WHERE hw_kind = 'gpu' AND incidents_in_period >= $min_incidents
)
SELECT h.gpu_key,
       max(i.gpu_serial) AS gpu_serial,
       array_to_string(list_sort(list_distinct(list(i.gpu_uuid))), ',') AS gpu_uuids,
       max(h.incidents) AS incidents,
       max(h.incidents_in_period) AS incidents_in_period,
       array_to_string(list_sort(list_distinct(list(i.node))), ',') AS nodes,
       array_to_string(list_sort(list_distinct(list(i.cluster_name))), ',') AS clusters,
       array_to_string(list_sort(list_distinct(list(i.rule || ':' || i.cause))), ',') AS causes,
       min(i.incident_epoch_s) AS first_incident_epoch_s,
       max(i.incident_epoch_s) AS last_incident_epoch_s,
       array_to_string(list_sort(list_distinct(list(i.bundle_id))), ',') AS bundle_ids
FROM hit h
JOIN fleet_incident_gpu i ON i.gpu_key = h.gpu_key
GROUP BY h.gpu_key
ORDER BY max(h.incidents) DESC, h.gpu_key
