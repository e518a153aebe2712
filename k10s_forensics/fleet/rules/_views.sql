-- Shared fleet views, created before any fleet rule runs (DuckDB dialect; the Spark engine
-- runs them transpiled by SQLGlot). The engine provides fleet_<table> for every table of
-- the FLEET folder (fleet_bundles, fleet_findings, fleet_incidents, fleet_culprits, fleet_gpus, fleet_nodes,
-- fleet_health_events). Period arithmetic uses the *_epoch_s BIGINT columns only.

-- fleet_gpu_key: a GPU's identity across bundles: its serial when any bundle saw one
-- with this UUID, else the UUID.
CREATE OR REPLACE TEMP VIEW fleet_gpu_key AS
SELECT u.gpu_uuid,
       coalesce('serial:' || s.gpu_serial, 'uuid:' || u.gpu_uuid) AS gpu_key,
       s.gpu_serial
FROM (
    SELECT gpu_uuid FROM fleet_gpus WHERE gpu_uuid IS NOT NULL
    UNION
    SELECT gpu_uuid FROM fleet_culprits WHERE gpu_uuid IS NOT NULL
    UNION
    SELECT gpu_uuid FROM fleet_health_events WHERE gpu_uuid IS NOT NULL
) u
LEFT JOIN (
    SELECT gpu_uuid, max(gpu_serial) AS gpu_serial FROM fleet_gpus
    WHERE gpu_serial IS NOT NULL GROUP BY gpu_uuid
) s ON s.gpu_uuid = u.gpu_uuid;

-- fleet_hw_finding: findings that point at hardware (a GPU or node problem, a rank that
-- failed or hung, a throttled/degraded straggler, a bad network path); OOMs, crash loops,
-- idle GPUs, pending pods and input-bound stragglers are the workload's, not the hardware's.
CREATE OR REPLACE TEMP VIEW fleet_hw_culprit AS
SELECT c.*
FROM fleet_culprits c
WHERE c.severity IN ('critical', 'warning')
  AND (c.rule IN ('gpu-health', 'nccl-hang')
       OR (c.rule = 'straggler' AND c.cause IN ('gpu-throttle', 'gpu-degraded', 'network'))
       OR (c.rule = 'network' AND c.culprit_kind = 'node'));

-- fleet_incident_gpu: hardware-suspect GPU culprits with their fleet identity.
CREATE OR REPLACE TEMP VIEW fleet_incident_gpu AS
SELECT c.bundle_id, c.cluster_name, c.finding_id, c.rule, c.cause, c.incident_epoch_s, c.node, c.node_key,
       c.gpu_uuid, k.gpu_key, coalesce(c.gpu_serial, k.gpu_serial) AS gpu_serial
FROM fleet_hw_culprit c
JOIN fleet_gpu_key k ON k.gpu_uuid = c.gpu_uuid
WHERE c.culprit_kind = 'gpu';

-- fleet_incident_node: hardware-suspect node culprits.
CREATE OR REPLACE TEMP VIEW fleet_incident_node AS
SELECT bundle_id, cluster_name, finding_id, rule, cause, incident_epoch_s, node, node_key
FROM fleet_hw_culprit
WHERE culprit_kind = 'node' AND node_key IS NOT NULL;

-- fleet_recurrence: per culprit GPU (gpu_key) and node (node_key), its incidents and the most
-- that fall within one period of $period_s seconds. An incident is a bundle, dated by its
-- first finding on that hardware; two bundles that captured the same event (a kernel log
-- keeps old Xid lines) carry the same date and count once.
CREATE OR REPLACE TEMP VIEW fleet_recurrence AS
WITH per_bundle AS (
    SELECT 'gpu' AS hw_kind, gpu_key AS hw_key, bundle_id, min(incident_epoch_s) AS at_s
    FROM fleet_incident_gpu GROUP BY gpu_key, bundle_id
    UNION ALL
    SELECT 'node' AS hw_kind, node_key AS hw_key, bundle_id, min(incident_epoch_s) AS at_s
    FROM fleet_incident_node GROUP BY node_key, bundle_id
),
inc AS (
    SELECT DISTINCT hw_kind, hw_key, at_s FROM per_bundle
),
per_period AS (
    SELECT a.hw_kind, a.hw_key, a.at_s, count(*) AS incidents_in_period
    FROM inc a
    JOIN inc b ON b.hw_kind = a.hw_kind AND b.hw_key = a.hw_key
              AND b.at_s >= a.at_s AND b.at_s <= a.at_s + $period_s
    GROUP BY a.hw_kind, a.hw_key, a.at_s
)
SELECT hw_kind, hw_key, count(*) AS incidents, max(incidents_in_period) AS incidents_in_period
FROM per_period GROUP BY hw_kind, hw_key;

-- fleet_hw_summary: per culprit GPU and node, what its incidents say (names, clusters,
-- rule:cause, first and last date, the bundles); lists are sorted, comma-separated.
CREATE OR REPLACE TEMP VIEW fleet_hw_summary AS
WITH rows_ AS (
    SELECT 'gpu' AS hw_kind, gpu_key AS hw_key, gpu_serial, gpu_uuid, node, cluster_name, rule, cause,
           incident_epoch_s, bundle_id, gpu_key AS involved_gpu
    FROM fleet_incident_gpu
    UNION ALL
    SELECT 'node' AS hw_kind, n.node_key AS hw_key, CAST(NULL AS VARCHAR) AS gpu_serial, CAST(NULL AS VARCHAR) AS gpu_uuid,
           n.node, n.cluster_name, n.rule, n.cause, n.incident_epoch_s, n.bundle_id, g.gpu_key AS involved_gpu
    FROM fleet_incident_node n
    LEFT JOIN fleet_incident_gpu g ON g.finding_id = n.finding_id
)
SELECT hw_kind, hw_key,
       max(gpu_serial) AS gpu_serial,
       array_to_string(list_sort(list_distinct(list(gpu_uuid))), ',') AS gpu_uuids,
       array_to_string(list_sort(list_distinct(list(node))), ',') AS nodes,
       count(DISTINCT involved_gpu) AS gpus_involved,
       array_to_string(list_sort(list_distinct(list(cluster_name))), ',') AS clusters,
       array_to_string(list_sort(list_distinct(list(rule || ':' || cause))), ',') AS causes,
       min(incident_epoch_s) AS first_incident_epoch_s,
       max(incident_epoch_s) AS last_incident_epoch_s,
       array_to_string(list_sort(list_distinct(list(bundle_id))), ',') AS bundle_ids
FROM rows_
GROUP BY hw_kind, hw_key;

-- fleet_incident_bundle: per bundle, whether it had a failure / a hang (one incident each).
CREATE OR REPLACE TEMP VIEW fleet_incident_bundle AS
SELECT b.bundle_id,
       max(CASE WHEN f.severity IN ('critical', 'warning') AND f.rule NOT IN ('pending', 'idle-gpu') THEN 1 ELSE 0 END) AS failed,
       max(CASE WHEN f.rule = 'nccl-hang' THEN 1 ELSE 0 END) AS hung
FROM fleet_bundles b
LEFT JOIN fleet_findings f ON f.bundle_id = b.bundle_id
GROUP BY b.bundle_id;

-- fleet_model_driver: per GPU model x driver version, how many bundles ran on it and how
-- many of those had a failure / a hang.
CREATE OR REPLACE TEMP VIEW fleet_model_driver AS
SELECT g.product, g.driver_version,
       count(DISTINCT g.bundle_id) AS bundles,
       count(DISTINCT g.gpu_uuid) AS gpus,
       count(DISTINCT CASE WHEN i.failed = 1 THEN g.bundle_id END) AS failed_bundles,
       count(DISTINCT CASE WHEN i.hung = 1 THEN g.bundle_id END) AS hung_bundles
FROM fleet_gpus g
JOIN fleet_incident_bundle i ON i.bundle_id = g.bundle_id
WHERE g.product IS NOT NULL AND g.driver_version IS NOT NULL
GROUP BY g.product, g.driver_version;
