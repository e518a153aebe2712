-- id: cost-by-cause
-- kind: summary
-- title: GPU-hours and cost lost by cause, team and month
-- severity: info
-- requires: fleet_findings
-- description: Every finding that counts lost GPU-hours, summed per month of the incident,
--   team (the job's namespace) and rule:cause; cost is GPU-hours times the packaged price
--   of the culprit GPU model (k10s_forensics/data/gpu_prices.json).
-- columns:
--   incident_month VARCHAR           -- YYYY-MM
--   namespace VARCHAR                -- team ('---' when no namespace is known)
--   rule VARCHAR                     -- bundle rule
--   cause VARCHAR                    -- rule cause
--   incidents BIGINT                 -- bundles
--   findings BIGINT                  -- findings
--   gpu_hours_lost DOUBLE            -- sum
--   cost_usd DOUBLE                  -- sum
SELECT incident_month, coalesce(namespace, '---') AS namespace, rule, coalesce(cause, '---') AS cause,
       count(DISTINCT bundle_id) AS incidents, count(*) AS findings,
       round(sum(gpu_hours_lost), 3) AS gpu_hours_lost, round(sum(cost_usd), 2) AS cost_usd
FROM fleet_findings
WHERE gpu_hours_lost IS NOT NULL AND gpu_hours_lost > 0
GROUP BY incident_month, coalesce(namespace, '---'), rule, coalesce(cause, '---')
ORDER BY incident_month, cost_usd DESC, namespace, rule, cause
