-- id: xid-recurrence
-- kind: finding
-- title: The same Xid keeps coming back on a GPU or a node
-- severity: warning
-- requires: fleet_health_events
-- settings: min_incidents, period_s
-- description: An Xid code seen in at least min_incidents different bundles within period_s
--   seconds, on the same GPU (by serial, else UUID: the board) or on the same node across
--   at least two of its GPUs (the node: slot, PCIe, power, firmware). Each row carries the
--   NVIDIA-recommended action for the code (Xid catalog). Application Xids (13, 31, 43, 45)
--   are left out: they follow the code that runs, not the hardware.
-- recommendation: Follow the Xid's recommended action; a board-level recurrence means RMA
--   the GPU, a node-level one means drain the node and check PCIe/NVLink/power.
-- columns:
--   scope VARCHAR                    -- gpu or node
--   hw_key VARCHAR                   -- serial:/uuid: for a GPU, system-uuid:/machine-id:/name: for a node
--   xid BIGINT                       -- Xid code
--   meaning VARCHAR                  -- what the code means
--   action VARCHAR                   -- NVIDIA-recommended action
--   fatal BOOLEAN                    -- the Xid stops the GPU's work
--   incidents BIGINT                 -- bundles with this Xid here (re-captures of one event once)
--   incidents_in_period BIGINT       -- most bundles within one period
--   gpus BIGINT                      -- distinct GPUs that showed it
--   nodes VARCHAR                    -- node names
--   first_event_epoch_s BIGINT       -- first event
--   last_event_epoch_s BIGINT        -- last event
--   bundle_ids VARCHAR               -- the bundles (comma-separated)
WITH ev AS (
    SELECT e.bundle_id, e.xid, e.node, e.node_key, e.gpu_uuid, e.meaning, e.action, e.fatal, e.event_epoch_s,
           coalesce(k.gpu_key, 'uuid:' || e.gpu_uuid) AS gpu_key
    FROM fleet_health_events e
    LEFT JOIN fleet_gpu_key k ON k.gpu_uuid = e.gpu_uuid
    WHERE e.kind = 'xid' AND e.xid IS NOT NULL AND e.xid NOT IN (13, 31, 43, 45)
),
keyed AS (
    SELECT 'gpu' AS scope, gpu_key AS hw_key, ev.* FROM ev WHERE gpu_uuid IS NOT NULL
    UNION ALL
    SELECT 'node' AS scope, node_key AS hw_key, ev.* FROM ev WHERE node_key IS NOT NULL
),
inc AS (  -- one per bundle, dated by its first event; re-captures of the same event count once
    SELECT DISTINCT scope, hw_key, xid, at_s FROM (
        SELECT scope, hw_key, xid, bundle_id, min(event_epoch_s) AS at_s FROM keyed GROUP BY scope, hw_key, xid, bundle_id
    ) f
),
per_period AS (
    SELECT a.scope, a.hw_key, a.xid, a.at_s, count(*) AS incidents_in_period
    FROM inc a
    JOIN inc b ON b.scope = a.scope AND b.hw_key = a.hw_key AND b.xid = a.xid
              AND b.at_s >= a.at_s AND b.at_s <= a.at_s + $period_s
    GROUP BY a.scope, a.hw_key, a.xid, a.at_s
),
hit AS (
    SELECT scope, hw_key, xid, count(*) AS incidents, max(incidents_in_period) AS incidents_in_period
    FROM per_period GROUP BY scope, hw_key, xid
    HAVING max(incidents_in_period) >= $min_incidents
),
summary AS (
    SELECT h.scope, h.hw_key, h.xid,
           max(k.meaning) AS meaning, max(k.action) AS action, max(CASE WHEN k.fatal THEN 1 ELSE 0 END) = 1 AS fatal,
           max(h.incidents) AS incidents, max(h.incidents_in_period) AS incidents_in_period,
           count(DISTINCT k.gpu_key) AS gpus,
           array_to_string(list_sort(list_distinct(list(k.node))), ',') AS nodes,
           min(k.event_epoch_s) AS first_event_epoch_s, max(k.event_epoch_s) AS last_event_epoch_s,
           array_to_string(list_sort(list_distinct(list(k.bundle_id))), ',') AS bundle_ids
    FROM hit h
    JOIN keyed k ON k.scope = h.scope AND k.hw_key = h.hw_key AND k.xid = h.xid
    GROUP BY h.scope, h.hw_key, h.xid
)
SELECT * FROM summary
WHERE scope = 'gpu' OR gpus >= 2
ORDER BY incidents DESC, scope, hw_key, xid
