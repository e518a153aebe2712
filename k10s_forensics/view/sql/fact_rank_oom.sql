-- name: fact_rank_oom
-- description: The last out-of-memory of each rank of each job (CUDA OOM log line, or a
--   death with the framebuffer full), with the memory headroom at that moment. Reads the
--   shared views k10s_log and k10s_fb_oom (queries/_views.sql) the oom-cascade rule reads.
--   Computed for every rank at once, so y on any rank is a lookup.
-- inputs: log_events, containers, gpu_samples, ranks
-- params: (none)
-- columns:
--   job_key VARCHAR, rank BIGINT, ts TIMESTAMPTZ, source VARCHAR (log or framebuffer), step BIGINT,
--   total_mib DOUBLE, in_use_mib DOUBLE, requested_mib DOUBLE, headroom_mib DOUBLE, line VARCHAR
-- grain: job_key, rank
SELECT * FROM (
    SELECT job_key, rank_resolved::BIGINT AS rank, ts, 'log' AS source, step::BIGINT AS step, oom_total_mib::DOUBLE AS total_mib,
           oom_in_use_mib::DOUBLE AS in_use_mib, oom_requested_mib::DOUBLE AS requested_mib,
           (oom_total_mib - oom_in_use_mib)::DOUBLE AS headroom_mib, line
    FROM k10s_log WHERE kind = 'cuda_oom' AND job_key IS NOT NULL AND rank_resolved IS NOT NULL
    UNION ALL
    SELECT job_key, rank::BIGINT, ts, 'framebuffer', NULL, total_mib, used_mib, NULL, total_mib - used_mib, NULL
    FROM k10s_fb_oom
)
QUALIFY row_number() OVER (PARTITION BY job_key, rank ORDER BY ts DESC, source, line, requested_mib, in_use_mib) = 1
