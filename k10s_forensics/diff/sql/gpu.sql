-- facet: gpu
-- compares: per GPU (serial, else UUID): node, product, memory, driver, CUDA, VBIOS, InfoROM,
--   GSP firmware, MIG/ECC/persistence/compute mode, power limit, max and application SM
--   clocks, PCIe generation and width, retired pages, remapped rows, MIG devices, Xids seen
-- output: facet, scope, subject, node, gpu, rank, attribute, side, run, value
WITH g AS (
    SELECT 'base' AS side, * FROM base.gpus UNION ALL BY NAME SELECT 'cur' AS side, * FROM cur.gpus
),
mig AS (
    SELECT side, run, parent_gpu_uuid AS gpu_uuid, string_agg(mig_profile, ', ' ORDER BY mig_profile) AS devices
    FROM g WHERE is_mig AND parent_gpu_uuid IS NOT NULL GROUP BY ALL
),
xid AS (
    SELECT side, run, gpu_uuid, string_agg(DISTINCT 'Xid ' || xid::VARCHAR, ', ' ORDER BY 'Xid ' || xid::VARCHAR) AS xids
    FROM (SELECT 'base' AS side, run, gpu_uuid, xid FROM base.gpu_samples WHERE xid > 0
          UNION ALL SELECT 'cur', run, gpu_uuid, xid FROM cur.gpu_samples WHERE xid > 0)
    GROUP BY ALL
),
one AS (
    SELECT g.side, g.run, k.gpu_key, k.node_key, g.gpu_uuid, [
        {'a': 'present', 'v': 'yes'},
        {'a': 'node', 'v': k.node_key},
        {'a': 'product', 'v': g.product},
        {'a': 'memory', 'v': g.memory_total_mib::VARCHAR || ' MiB'},
        {'a': 'driver', 'v': g.driver_version},
        {'a': 'CUDA', 'v': g.cuda_version},
        {'a': 'VBIOS', 'v': s.vbios},
        {'a': 'InfoROM image', 'v': s.inforom},
        {'a': 'GSP firmware', 'v': s.gsp_firmware},
        {'a': 'MIG mode', 'v': g.mig_mode},
        {'a': 'MIG devices', 'v': coalesce(m.devices, CASE WHEN g.mig_mode = 'Enabled' THEN 'none' END)},
        {'a': 'ECC mode', 'v': s.ecc_mode},
        {'a': 'persistence mode', 'v': s.persistence_mode},
        {'a': 'compute mode', 'v': s.compute_mode},
        {'a': 'power limit', 'v': printf('%.0f W', g.power_limit_w)},
        {'a': 'max SM clock', 'v': printf('%.0f MHz', g.max_sm_clock_mhz)},
        {'a': 'application SM clock', 'v': s.app_sm_clock},
        {'a': 'PCIe max generation', 'v': s.pcie_max_gen},
        {'a': 'PCIe link width', 'v': CASE WHEN s.pcie_width IS NOT NULL THEN s.pcie_width || ' of ' || coalesce(s.pcie_max_width, '?') END},
        {'a': 'retired pages', 'v': g.retired_pages::VARCHAR},
        {'a': 'remapped rows (uncorrectable)', 'v': g.remapped_rows_uncorrectable::VARCHAR},
        {'a': 'row remap pending', 'v': g.remapped_rows_pending::VARCHAR},
        {'a': 'row remap failure', 'v': g.remapped_rows_failure::VARCHAR},
        {'a': 'uncorrectable ECC (aggregate)', 'v': g.ecc_dbe_aggregate::VARCHAR},
        {'a': 'Xids seen', 'v': coalesce(x.xids, 'none')}
    ] AS kv
    FROM g
    JOIN d_gpu_key k ON k.side = g.side AND k.run = g.run AND k.gpu_uuid = g.gpu_uuid
    LEFT JOIN d_smi s ON s.side = g.side AND s.run = g.run AND s.gpu_uuid = g.gpu_uuid
    LEFT JOIN mig m ON m.side = g.side AND m.run = g.run AND m.gpu_uuid = g.gpu_uuid
    LEFT JOIN xid x ON x.side = g.side AND x.run = g.run AND x.gpu_uuid = g.gpu_uuid
    WHERE NOT coalesce(g.is_mig, false)
)
SELECT 'gpu' AS facet, 'gpu' AS scope, gpu_key AS subject, node_key AS node, gpu_key AS gpu, NULL::BIGINT AS rank,
       u.kv.a AS attribute, side, run, u.kv.v AS value
FROM (SELECT side, run, gpu_key, node_key, unnest(kv) AS kv FROM one) u
