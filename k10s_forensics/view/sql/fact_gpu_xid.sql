-- name: fact_gpu_xid
-- description: Xid events of one GPU (kernel log or DCGM gauge) with their meaning and
--   action, from the shared view k10s_xid_event the gpu-health rule reads; plus its ECC and
--   row-remap counters from the GPU inventory.
-- inputs: gpus, gpu_samples, log_events
-- params: gpu_uuid VARCHAR
-- columns: ts TIMESTAMPTZ, what VARCHAR, detail VARCHAR, fatal BOOLEAN
-- grain: one row per event or counter
SELECT ts, ('Xid ' || xid)::VARCHAR AS what, (coalesce(meaning, 'unknown Xid') || ' — action: ' || coalesce(action, '?'))::VARCHAR AS detail,
       fatal
FROM k10s_xid_event WHERE gpu_uuid = $gpu_uuid
UNION ALL
SELECT last_seen_at, 'ECC / row remap',
       ('DBE volatile ' || coalesce(ecc_dbe_volatile::VARCHAR, '---') || ', DBE aggregate ' || coalesce(ecc_dbe_aggregate::VARCHAR, '---')
        || ', remap failure ' || coalesce(remapped_rows_failure::VARCHAR, '---') || ', remap pending ' || coalesce(remapped_rows_pending::VARCHAR, '---'))::VARCHAR,
       coalesce(ecc_dbe_volatile, 0) > 0 OR coalesce(remapped_rows_failure, false)::BOOLEAN
FROM gpus WHERE gpu_uuid = $gpu_uuid
ORDER BY ts NULLS LAST
