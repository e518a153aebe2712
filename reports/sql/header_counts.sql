-- name: header_counts
-- description: What the bundle holds, source by source (one row of counts), for the
--   report header's "what was captured" table.
-- inputs: nodes, pods, jobs, ranks, events, gpus, gpu_samples, tcp_samples, log_events,
--   raw_logs, raw_exec, raw_objects, kueue_workloads, kueue_cluster_queues, kueue_local_queues
-- params: (none)
-- columns: one BIGINT/VARCHAR per source detail, named <table>_<what>
SELECT
    (SELECT count(*) FROM nodes)                                                  AS nodes_n,
    (SELECT count(*) FROM nodes WHERE coalesce(gpu_capacity, 0) > 0)              AS nodes_gpu_n,
    (SELECT coalesce(sum(gpu_capacity), 0) FROM nodes)::BIGINT                    AS nodes_gpu_capacity,
    (SELECT count(*) FROM pods)                                                   AS pods_n,
    (SELECT count(*) FROM pods WHERE coalesce(gpu_request, 0) > 0)                AS pods_gpu_n,
    (SELECT count(*) FROM jobs)                                                   AS jobs_n,
    (SELECT string_agg(DISTINCT kind, ', ' ORDER BY kind) FROM jobs)              AS jobs_kinds,
    (SELECT count(DISTINCT namespace || '/' || job || '#' || rank) FROM ranks WHERE rank IS NOT NULL) AS ranks_n,
    (SELECT count(DISTINCT namespace || '/' || job || '#' || rank) FROM ranks WHERE gpu_uuid IS NOT NULL) AS ranks_gpu_n,
    (SELECT count(*) FROM events)                                                 AS events_n,
    (SELECT count(*) FROM events WHERE type = 'Warning')                          AS events_warning_n,
    (SELECT count(*) FROM gpus)                                                   AS gpus_n,
    (SELECT count(*) FROM gpu_samples)                                            AS gpu_samples_n,
    (SELECT count(DISTINCT gpu_uuid) FROM gpu_samples)                            AS gpu_samples_gpus,
    (SELECT count(DISTINCT node) FROM gpu_samples)                                AS gpu_samples_nodes,
    (SELECT string_agg(DISTINCT source, ', ' ORDER BY source) FROM gpu_samples)   AS gpu_samples_sources,
    (SELECT min(ts) FROM gpu_samples)                                             AS gpu_samples_first,
    (SELECT max(ts) FROM gpu_samples)                                             AS gpu_samples_last,
    (SELECT count(*) FROM tcp_samples)                                            AS tcp_samples_n,
    (SELECT count(DISTINCT namespace || '/' || pod) FROM tcp_samples)             AS tcp_samples_pods,
    (SELECT count(*) FROM raw_logs)                                               AS logs_n,
    (SELECT count(*) FROM raw_logs WHERE error IS NOT NULL)                       AS logs_error_n,
    (SELECT count(*) FROM log_events)                                             AS log_events_n,
    (SELECT count(*) FROM raw_exec WHERE source = 'dmesg')                        AS dmesg_n,
    (SELECT count(*) FROM raw_exec WHERE source = 'dmesg' AND error IS NOT NULL)  AS dmesg_error_n,
    (SELECT count(*) FROM kueue_workloads)                                        AS kueue_workloads_n,
    (SELECT count(DISTINCT cluster_queue) FROM kueue_cluster_queues)              AS kueue_cq_n,
    (SELECT count(*) FROM kueue_local_queues)                                     AS kueue_lq_n,
    (SELECT count(*) FROM raw_objects)                                            AS objects_n
