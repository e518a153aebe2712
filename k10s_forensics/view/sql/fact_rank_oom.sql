-- name: fact_rank_oom
-- description: The last out-of-memory of one rank of a job (CUDA OOM log line, or a death
--   with the framebuffer full), with the memory headroom at that moment. Reads the shared
--   views k10s_log and k10s_fb_oom (queries/_views.sql) the oom-cascade rule reads.
-- inputs: log_events, containers, gpu_samples, ranks
-- params: job_key VARCHAR, rank BIGINT
-- columns:
--   ts TIMESTAMPTZ, source VARCHAR (log or framebuffer), step BIGINT,
--   total_mib DOUBLE, in_use_mib DOUBLE, requested_mib DOUBLE, headroom_mib DOUBLE, line VARCHAR
-- grain: at most one row
SELECT * FROM (
    SELECT ts, 'log' AS source, step::BIGINT AS step, oom_total_mib::DOUBLE AS total_mib, oom_in_use_mib::DOUBLE AS in_use_mib,
           oom_requested_mib::DOUBLE AS requested_mib, (oom_total_mib - oom_in_use_mib)::DOUBLE AS headroom_mib, line
    FROM k10s_log WHERE job_key = $job_key AND rank_resolved = $rank AND kind = 'cuda_oom'
    UNION ALL
    SELECT ts, 'framebuffer', NULL, total_mib, used_mib, NULL, total_mib - used_mib, NULL
    FROM k10s_fb_oom WHERE job_key = $job_key AND rank = $rank
)
ORDER BY ts DESC LIMIT 1
