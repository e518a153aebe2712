-- id: cost-by-cause
-- kind: summary
-- title: GPU-hours and cost lost by cause, team and month
-- severity: info
-- requires: fleet_incidents
-- description: Every incident that lost GPU-hours, summed per month of the incident, team (the
--   job's namespace) and the root cause's rule:cause. An incident is counted once: its
--   findings (an OOM, the hang it caused, the restarts) describe the same GPU-hours, so the
--   incident's GPU-hours are the largest of its findings', never their sum (docs/rules.md
--   "Incidents"); cost is those GPU-hours times the price of the culprit GPU model.
-- columns:
--   incident_month VARCHAR           -- YYYY-MM
--   namespace VARCHAR                -- team ('---' when no namespace is known)
--   rule VARCHAR                     -- the root finding's rule
--   cause VARCHAR                    -- the root finding's cause
--   incidents BIGINT                 -- incidents
--   bundles BIGINT                   -- bundles they were seen in
--   findings BIGINT                  -- findings in those incidents (roots and symptoms)
--   gpu_hours_lost DOUBLE            -- sum over incidents
--   cost_usd DOUBLE                  -- sum over incidents
SELECT incident_month, coalesce(namespace, '---') AS namespace, rule, coalesce(cause, '---') AS cause,
       count(*) AS incidents, count(DISTINCT bundle_id) AS bundles, sum(findings) AS findings,
       round(sum(gpu_hours_lost), 3) AS gpu_hours_lost, round(sum(cost_usd), 2) AS cost_usd
FROM fleet_incidents
WHERE gpu_hours_lost IS NOT NULL AND gpu_hours_lost > 0
GROUP BY incident_month, coalesce(namespace, '---'), rule, coalesce(cause, '---')
ORDER BY incident_month, cost_usd DESC, namespace, rule, cause
