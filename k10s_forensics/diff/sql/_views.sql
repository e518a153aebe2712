-- k10s diff: shared identities of both sides (schemas base and cur, each with a run column).
-- d_node_key: nodes by name, else by machine ID (a renamed node keeps its key).
-- d_gpu_key: GPUs by board serial, else UUID. d_job_key: jobs by namespace/name, else the
-- one training job of each side. d_smi: the last nvidia-smi -q -x per node, one row per GPU.

CREATE OR REPLACE MACRO k10s_secret_name(n) AS
    regexp_matches(upper(n), '(TOKEN|SECRET|PASSW|PASSWD|PWD|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE|AUTH|SIGNATURE|COOKIE|SESSION)');

CREATE OR REPLACE MACRO k10s_hidden(v) AS
    CASE WHEN v IS NULL THEN NULL ELSE 'sha256:' || left(sha256(v), 12) || ' (hidden)' END;

CREATE OR REPLACE MACRO k10s_topology_label(k) AS
    regexp_matches(lower(k), '(topology|fabric|network|rack|zone|region|nvlink|clique|efa|infiniband|/ib|block|switch|placement|spine|superpod|pod-group|cluster-id|nodepool|node-pool|instance-type)')
    AND NOT regexp_matches(lower(k), 'timestamp');

CREATE OR REPLACE MACRO k10s_node_label(k) AS
    (k10s_topology_label(k) OR (starts_with(k, 'nvidia.com/') AND NOT regexp_matches(k, '(timestamp|gpu\.deploy\.)')));

CREATE OR REPLACE TEMP TABLE d_node_raw AS
WITH o AS (
    SELECT 'base' AS side, run, name AS node, body, captured_at FROM base.raw_objects WHERE kind = 'Node'
    UNION ALL SELECT 'cur', run, name, body, captured_at FROM cur.raw_objects WHERE kind = 'Node'
)
SELECT side, run, node, arg_max(body, captured_at) AS body FROM o WHERE node IS NOT NULL GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE d_node_key AS
WITH n AS (
    SELECT side, run, node,
           nullif(coalesce(json_extract_string(body, '$.status.nodeInfo.machineID'), ''), '') AS machine_id
    FROM d_node_raw
    UNION ALL SELECT 'base', run, node, NULL FROM base.nodes WHERE node NOT IN (SELECT node FROM d_node_raw WHERE side = 'base')
    UNION ALL SELECT 'cur', run, node, NULL FROM cur.nodes WHERE node NOT IN (SELECT node FROM d_node_raw WHERE side = 'cur')
    UNION ALL SELECT 'base', run, node, NULL FROM base.gpus WHERE node IS NOT NULL
    UNION ALL SELECT 'cur', run, node, NULL FROM cur.gpus WHERE node IS NOT NULL
),
named AS (SELECT side, run, node, max(machine_id) AS machine_id FROM n GROUP BY ALL)
SELECT c.side, c.run, c.node, c.machine_id,
       CASE WHEN c.side = 'base' OR c.node IN (SELECT node FROM named WHERE side = 'base') THEN c.node
            ELSE coalesce((SELECT min(b.node) FROM named b WHERE b.side = 'base' AND b.machine_id = c.machine_id), c.node) END AS node_key
FROM named c;

CREATE OR REPLACE TEMP TABLE d_gpu_key AS
WITH g AS (
    SELECT 'base' AS side, run, gpu_uuid, node, serial FROM base.gpus WHERE NOT coalesce(is_mig, false)
    UNION ALL SELECT 'cur', run, gpu_uuid, node, serial FROM cur.gpus WHERE NOT coalesce(is_mig, false)
)
SELECT g.side, g.run, g.gpu_uuid, g.node, k.node_key,
       CASE WHEN nullif(trim(g.serial), '') IS NULL OR upper(g.serial) IN ('N/A', '[N/A]', '0') THEN g.gpu_uuid ELSE g.serial END AS gpu_key
FROM g LEFT JOIN d_node_key k USING (side, run, node);

CREATE OR REPLACE TEMP TABLE d_job_key AS
WITH j AS (
    SELECT DISTINCT 'base' AS side, run, namespace, job FROM base.ranks WHERE job IS NOT NULL
    UNION SELECT DISTINCT 'base', run, namespace, job FROM base.jobs WHERE parent IS NULL
    UNION SELECT DISTINCT 'cur', run, namespace, job FROM cur.ranks WHERE job IS NOT NULL
    UNION SELECT DISTINCT 'cur', run, namespace, job FROM cur.jobs WHERE parent IS NULL
),
n AS (SELECT side, run, count(*) AS jobs FROM j GROUP BY ALL),
only_cur AS (SELECT min(namespace || '/' || job) AS name, count(*) AS jobs FROM j WHERE side = 'cur')
SELECT j.side, j.run, j.namespace, j.job,
       CASE WHEN EXISTS (SELECT 1 FROM j o WHERE o.side <> j.side AND o.namespace = j.namespace AND o.job = j.job)
                 THEN j.namespace || '/' || j.job
            WHEN n.jobs = 1 AND (SELECT jobs FROM only_cur) = 1 THEN (SELECT name FROM only_cur)
            ELSE j.namespace || '/' || j.job END AS job_key
FROM j JOIN n USING (side, run);

CREATE OR REPLACE TEMP TABLE d_smi_last AS
SELECT 'base' AS side, run, node, max(captured_at) AS t FROM base.raw_exec
WHERE source = 'nvidia-smi-xml' AND coalesce(exit_code, 0) = 0 GROUP BY ALL
UNION ALL
SELECT 'cur', run, node, max(captured_at) FROM cur.raw_exec
WHERE source = 'nvidia-smi-xml' AND coalesce(exit_code, 0) = 0 GROUP BY ALL;

-- Only the last document per node is read (its stdout): the time filter prunes the rest.
CREATE OR REPLACE TEMP TABLE d_smi AS
WITH x AS (
    SELECT 'base' AS side, e.run, e.node, e.stdout FROM base.raw_exec e
    WHERE e.source = 'nvidia-smi-xml' AND coalesce(e.exit_code, 0) = 0 AND e.stdout IS NOT NULL
      AND e.captured_at >= (SELECT min(t) FROM d_smi_last WHERE side = 'base')
      AND (e.run, e.node, e.captured_at) IN (SELECT (run, node, t) FROM d_smi_last WHERE side = 'base')
    UNION ALL
    SELECT 'cur', e.run, e.node, e.stdout FROM cur.raw_exec e
    WHERE e.source = 'nvidia-smi-xml' AND coalesce(e.exit_code, 0) = 0 AND e.stdout IS NOT NULL
      AND e.captured_at >= (SELECT min(t) FROM d_smi_last WHERE side = 'cur')
      AND (e.run, e.node, e.captured_at) IN (SELECT (run, node, t) FROM d_smi_last WHERE side = 'cur')
),
last AS (SELECT side, run, node, min(stdout) AS xml FROM x GROUP BY ALL),
blocks AS (SELECT side, run, node, unnest((string_split(xml, '<gpu id="'))[2:]) AS b FROM last)
SELECT side, run, node,
       nullif(regexp_extract(b, '<uuid>\s*([^<]*?)\s*</uuid>', 1), '') AS gpu_uuid,
       nullif(regexp_extract(b, '<vbios_version>\s*([^<]*?)\s*</vbios_version>', 1), '') AS vbios,
       nullif(regexp_extract(b, '<img_version>\s*([^<]*?)\s*</img_version>', 1), '') AS inforom,
       nullif(regexp_extract(b, '<gsp_firmware_version>\s*([^<]*?)\s*</gsp_firmware_version>', 1), '') AS gsp_firmware,
       nullif(regexp_extract(b, '<persistence_mode>\s*([^<]*?)\s*</persistence_mode>', 1), '') AS persistence_mode,
       nullif(regexp_extract(b, '<current_ecc>\s*([^<]*?)\s*</current_ecc>', 1), '') AS ecc_mode,
       nullif(regexp_extract(b, '<compute_mode>\s*([^<]*?)\s*</compute_mode>', 1), '') AS compute_mode,
       nullif(regexp_extract(b, '<max_link_gen>\s*([^<]*?)\s*</max_link_gen>', 1), '') AS pcie_max_gen,
       nullif(regexp_extract(b, '<current_link_width>\s*([^<]*?)\s*</current_link_width>', 1), '') AS pcie_width,
       nullif(regexp_extract(b, '<max_link_width>\s*([^<]*?)\s*</max_link_width>', 1), '') AS pcie_max_width,
       nullif(regexp_extract(b, '<applications_clocks>\s*<graphics_clock>\s*([^<]*?)\s*</graphics_clock>', 1), '') AS app_sm_clock
FROM blocks;

-- Command lines and arguments: the value after a secret-looking flag or key is hidden, in
-- one argument (--api-key=V, token: V) or as the next item of the JSON list ("--token", "V").
CREATE OR REPLACE MACRO k10s_scrub(v) AS
    regexp_replace(
        regexp_replace(v, '((token|secret|passw|pwd|credential|api[_-]?key|access[_-]?key|private|auth)[A-Za-z0-9_.-]*["]?\s*[=:]\s*["]?)[^\s",\]]+', '\1<hidden>', 'gi'),
        '("-{1,2}[A-Za-z0-9_.-]*(token|secret|passw|pwd|credential|api[_-]?key|access[_-]?key|private|auth)[A-Za-z0-9_.-]*"\s*,\s*")[^"]*"', '\1<hidden>"', 'gi');

-- Numbers for people: whole above 100, one decimal above 1, three significant digits below.
CREATE OR REPLACE MACRO k10s_num(x) AS
    CASE WHEN x IS NULL THEN NULL WHEN abs(x) >= 100 THEN printf('%.0f', x) WHEN abs(x) >= 1 THEN printf('%.1f', x)
         ELSE printf('%.3g', x) END;
