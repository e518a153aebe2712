-- id: driver-hangs
-- kind: finding
-- title: A driver version goes with more hangs than the rest of the fleet
-- severity: warning
-- requires: fleet_gpus, fleet_findings
-- settings: min_incidents, min_z
-- description: A driver version whose bundles hang (NCCL hang finding) at least twice as often
--   as bundles on every other driver, with at least min_incidents hung bundles and a
--   two-proportion z-score of at least min_z (so a handful of bundles cannot flag a driver).
--   A correlation, not a proof: check the model mix and the workloads on it.
-- recommendation: Roll the nodes on this driver back to (or forward from) the version the
--   rest of the fleet runs, a few first, and watch the hang rate.
-- columns:
--   driver_version VARCHAR           -- driver version
--   bundles BIGINT                   -- bundles on it
--   hung_bundles BIGINT              -- of those with an NCCL hang
--   hang_rate DOUBLE                 -- hung_bundles / bundles
--   other_bundles BIGINT             -- bundles on other drivers
--   other_hung_bundles BIGINT        -- of those with an NCCL hang
--   other_hang_rate DOUBLE           -- their rate
--   z_score DOUBLE                   -- two-proportion z-score
--   products VARCHAR                 -- GPU models on this driver
WITH per_bundle AS (
    SELECT DISTINCT g.bundle_id, g.driver_version, i.hung
    FROM fleet_gpus g JOIN fleet_incident_bundle i ON i.bundle_id = g.bundle_id
    WHERE g.driver_version IS NOT NULL
),
total AS (
    SELECT count(DISTINCT bundle_id) AS n, count(DISTINCT CASE WHEN hung = 1 THEN bundle_id END) AS h FROM per_bundle
),
per_driver AS (
    SELECT driver_version, count(DISTINCT bundle_id) AS n1, count(DISTINCT CASE WHEN hung = 1 THEN bundle_id END) AS h1
    FROM per_bundle GROUP BY driver_version
),
rates AS (
    SELECT d.driver_version, d.n1, d.h1, t.n - d.n1 AS n0, t.h - d.h1 AS h0,
           CAST(d.h1 AS DOUBLE) / d.n1 AS p1,
           CASE WHEN t.n - d.n1 > 0 THEN CAST(t.h - d.h1 AS DOUBLE) / (t.n - d.n1) END AS p0,
           CAST(t.h AS DOUBLE) / t.n AS p
    FROM per_driver d CROSS JOIN total t
),
scored AS (
    SELECT *, CASE WHEN n0 > 0 AND p > 0 AND p < 1
                   THEN (p1 - p0) / sqrt(p * (1 - p) * (1.0 / n1 + 1.0 / n0)) END AS z
    FROM rates
)
SELECT s.driver_version, s.n1 AS bundles, s.h1 AS hung_bundles, round(s.p1, 4) AS hang_rate,
       s.n0 AS other_bundles, s.h0 AS other_hung_bundles, round(s.p0, 4) AS other_hang_rate,
       round(s.z, 2) AS z_score,
       (SELECT array_to_string(list_sort(list_distinct(list(g.product))), ',') FROM fleet_gpus g
        WHERE g.driver_version = s.driver_version) AS products
FROM scored s
WHERE s.h1 >= $min_incidents AND s.z >= $min_z AND s.p1 >= 2 * s.p0
ORDER BY s.z DESC, s.driver_version
