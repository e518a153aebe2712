-- id: model-driver-rate
-- kind: summary
-- title: Failure and hang rate by GPU model and driver version
-- severity: info
-- requires: fleet_gpus
-- description: For every GPU model x driver version: how many bundles ran on it, how many
--   GPUs, and how many of those bundles had a failure (a critical or warning finding other
--   than pending/idle) or an NCCL hang, with the rates. Counts come with every rate, so a
--   100% rate over 1 bundle reads as what it is.
-- columns:
--   product VARCHAR                  -- GPU model
--   driver_version VARCHAR           -- driver version
--   bundles BIGINT                   -- bundles with GPUs of this model and driver
--   gpus BIGINT                      -- distinct GPU UUIDs
--   failed_bundles BIGINT            -- of those, bundles with a failure
--   hung_bundles BIGINT              -- of those, bundles with an NCCL hang
--   failure_rate DOUBLE              -- failed_bundles / bundles (0..1)
--   hang_rate DOUBLE                 -- hung_bundles / bundles (0..1)
SELECT product, driver_version, bundles, gpus, failed_bundles, hung_bundles,
       round(CAST(failed_bundles AS DOUBLE) / bundles, 4) AS failure_rate,
       round(CAST(hung_bundles AS DOUBLE) / bundles, 4) AS hang_rate
FROM fleet_model_driver
ORDER BY product, driver_version
