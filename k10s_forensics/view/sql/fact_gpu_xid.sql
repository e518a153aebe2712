-- name: fact_gpu_xid
-- description: Xid events of every GPU (kernel log or DCGM gauge) with their meaning and
--   action, from the shared view k10s_xid_event the gpu-health rule reads; plus each GPU's
--   ECC and row-remap counters from the GPU inventory.
-- inputs: gpus, gpu_samples, log_events
-- params: (none)
-- columns: gpu_uuid VARCHAR, ts TIMESTAMPTZ, what VARCHAR, detail VARCHAR, fatal BOOLEAN
-- grain: one row per event or counter
SELECT gpu_uuid::VARCHAR AS gpu_uuid, ts, ('Xid ' || xid)::VARCHAR AS what,
       (coalesce(meaning, 'unknown Xid') || ' — action: ' || coalesce(action, '?'))::VARCHAR AS detail, fatal
FROM k10s_xid_event WHERE gpu_uuid IS NOT NULL
UNION ALL
SELECT gpu_uuid, last_seen_at, 'ECC / row remap',
       ('DBE volatile ' || coalesce(ecc_dbe_volatile::VARCHAR, '---') || ', DBE aggregate ' || coalesce(ecc_dbe_aggregate::VARCHAR, '---')
        || ', remap failure ' || coalesce(remapped_rows_failure::VARCHAR, '---') || ', remap pending ' || coalesce(remapped_rows_pending::VARCHAR, '---'))::VARCHAR,
       (coalesce(ecc_dbe_volatile, 0) > 0 OR coalesce(remapped_rows_failure, false))::BOOLEAN
FROM gpus WHERE gpu_uuid IS NOT NULL
ORDER BY gpu_uuid, ts NULLS LAST, what, detail
