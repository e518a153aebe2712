-- The fingerprint evidence (docs/rules.md "Hang evidence"): TORCH_DISTRIBUTED_DEBUG=DETAIL "Detected mismatch between
-- collectives" reports and the Neuron runtime's program check (collective_mismatch events), voted across every report, in
-- the shared evidence columns (job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail).
-- Created after _views.sql and _views_net_xid.sql and BEFORE _failure_line.sql: the failure lines read its choice of the
-- odd program's rank (k10s_failure_line's `program_odd`) rather than deciding it a second time (docs/rules.md, "Session 62:
-- one decision in one place"); _evidence_logs.sql unions it with the other log families. It reads k10s_log and k10s_rank only.

-- k10s_fingerprint_obs: what each fingerprint report says about each rank. A >= 1.12 report
-- "Rank A is running X, but Rank B is running Y" also implies that ranks 0..B-1 (other than
-- A) run X: the reporter names the first rank, in rank order, whose fingerprint differs.
-- The Neuron runtime's program check (`mismatching number of cc ops, expected 6 received 3. Check if ranks 1 and 0
-- are using the same neff`, subkind neff_cc_ops) says each side's count of collective ops: the reporter's and its
-- peer's, nothing of other ranks (program: true; docs/rules.md, "Session 61: the Neuron runtime's program mismatch").
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE kind = 'collective_mismatch' AND subkind IN ('fingerprint', 'fingerprint_self', 'fingerprint_cut', 'neff_cc_ops'))
-- empty-columns: job_key VARCHAR, reporter BIGINT, rank BIGINT, print VARCHAR, explicit BOOLEAN, ts TIMESTAMPTZ, program BOOLEAN
CREATE OR REPLACE TEMP TABLE k10s_fingerprint_obs AS
WITH fp AS (
    SELECT job_key, reporter_rank AS reporter, rank, seq_num, op_type, ts, subkind, raw_row, line_no, incarnation_uid,
           coalesce(seq_num::VARCHAR, '?') || ' ' || coalesce(fingerprint, 'OpType=' || op_type) AS print, subkind = 'neff_cc_ops' AS program
    FROM k10s_log
    WHERE kind = 'collective_mismatch' AND subkind IN ('fingerprint', 'fingerprint_self', 'fingerprint_cut', 'neff_cc_ops')
      AND job_key IS NOT NULL AND rank IS NOT NULL AND reporter_rank IS NOT NULL
),
reports AS (
    SELECT a.job_key, a.reporter, b.rank AS other, a.print AS own_print, min(a.ts) AS ts
    FROM fp a JOIN fp b ON b.job_key = a.job_key AND b.reporter = a.reporter AND b.rank <> a.reporter
     AND coalesce(b.incarnation_uid, '') = coalesce(a.incarnation_uid, '') AND coalesce(b.raw_row, -1) = coalesce(a.raw_row, -1)
     AND coalesce(b.line_no, -1) = coalesce(a.line_no, -1)
    WHERE a.rank = a.reporter AND NOT a.program  -- a program check names its peer only: it implies no other rank
    GROUP BY ALL
)
SELECT job_key, reporter, rank, print, true AS explicit, ts, program FROM fp
UNION ALL
SELECT r.job_key, r.reporter, i.rank, r.own_print, false, r.ts, false
FROM (SELECT *, count(DISTINCT reporter) OVER (PARTITION BY job_key) AS reporters FROM reports) r,
     (SELECT unnest(range(0, r.other)) AS rank) i
WHERE i.rank <> r.reporter
  AND r.reporters <= 2;  -- implied ranks only decide when one or two ranks reported (bounded work on 10k-rank jobs)

-- k10s_logs_fingerprint_ev: the fingerprint evidence.
-- empty-without: k10s_fingerprint_obs
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR, pg VARCHAR,
--     seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_logs_fingerprint_ev AS
WITH
fp_rank AS (  -- per rank its fingerprint: explicit observations win over implied ones; a program check's rank whose
             -- reports disagree on its count is not placed
    SELECT job_key, rank, arg_max(print, (explicit::INT, n, print)) AS print, bool_or(explicit) AS explicit
    FROM (SELECT job_key, rank, print, explicit, count(*) AS n, bool_or(program) AS program FROM k10s_fingerprint_obs GROUP BY ALL)
    GROUP BY job_key, rank
    HAVING NOT (bool_or(program) AND count(DISTINCT print) > 1)
),
fp_groups AS (
    SELECT job_key, print, list(rank ORDER BY rank) AS ranks, count(*) AS n,
           list(rank ORDER BY rank) FILTER (WHERE explicit) AS explicit_ranks
    FROM fp_rank GROUP BY job_key, print
),
fp_job AS (
    SELECT g.job_key, arg_max(g.print, (g.n, -g.ranks[1])) AS major_print, max(g.n) AS major_n, sum(g.n) AS known,  -- ties: the lowest rank's
           list_sort(flatten(list(g.explicit_ranks) FILTER (WHERE g.explicit_ranks IS NOT NULL))) AS explicit_ranks
    FROM fp_groups g GROUP BY g.job_key
),
fp_stats AS (
    SELECT job_key, count(DISTINCT reporter) FILTER (WHERE explicit) AS reporters, min(ts) AS ts,
           arg_min(reporter, (ts, reporter)) FILTER (WHERE ts IS NOT NULL) AS first_reporter
    FROM k10s_fingerprint_obs GROUP BY job_key
),
fp_node AS (  -- per job and node (pod): how many of its ranks run the majority's collective, how many are seen at all
    SELECT r.job_key, r.pod_key, list(r.rank ORDER BY r.rank) AS ranks, count(f.rank) AS seen, count(*) FILTER (WHERE f.print = j.major_print) AS major
    FROM k10s_rank r JOIN fp_job j USING (job_key) LEFT JOIN fp_rank f ON f.job_key = r.job_key AND f.rank = r.rank
    GROUP BY r.job_key, r.pod_key
),
fp_ev AS (
    SELECT j.job_key, 'fingerprint' AS evidence,
           CASE WHEN rank0_program THEN [0::BIGINT] WHEN tie OR node_split OR (sizes_differ AND s.reporters = 1) THEN []::BIGINT[] ELSE odd END AS culprit_ranks,
           CASE WHEN rank0_program THEN [1::BIGINT] WHEN tie OR node_split OR (sizes_differ AND s.reporters = 1) THEN j.explicit_ranks
                ELSE list_filter(j.explicit_ranks, lambda r: NOT list_contains(odd, r)) END AS suspect_ranks,
           CASE WHEN rank0_program THEN 'medium' WHEN tie OR node_split OR (sizes_differ AND s.reporters = 1) THEN 'low' WHEN s.reporters >= 2 AND j.major_n >= 2 * (j.known - j.major_n) THEN 'high'
                ELSE 'medium' END AS confidence,
           NULL::VARCHAR AS pg,
           TRY_CAST(split_part(j.major_print, ' ', 1) AS BIGINT) AS seq_num,
           regexp_extract(j.major_print, 'OpType=(\w+)', 1) AS op_type,
           s.ts,
           CASE WHEN rank0_program
                THEN 'program mismatch (the Neuron runtime''s check of the loaded graph across the replica group): rank 0''s graph holds '
                     || (SELECT regexp_extract(g.print, 'cc ops=(\d+)', 1) FROM fp_groups g WHERE g.job_key = j.job_key AND g.ranks = [0])
                     || ' collective op(s), rank 1''s ' || (SELECT regexp_extract(g.print, 'cc ops=(\d+)', 1) FROM fp_groups g
                                                              WHERE g.job_key = j.job_key AND g.ranks = [1])
                     || ': the two ranks compiled different programs, and with two sides no majority says which; the side '
                     || 'that runs code of its own is rank 0''s (a print, a log line, a save or an eval only the main process runs '
                     || 'cuts a graph the other ranks never build), so rank 0 is named (docs/rules.md, "Session 61: the Neuron '
                     || 'runtime''s program mismatch")'
                WHEN tie AND program
                THEN 'program mismatch (the Neuron runtime''s check of the loaded graph across the replica group): '
                     || s.reporters || ' report(s) and no majority (' || j.major_n || ' rank(s) per count of collective ops): which side is wrong cannot be told'
                WHEN tie
                THEN 'fingerprint mismatch: ' || s.reporters || ' report(s) and no majority (' || j.major_n || ' rank(s) per collective): which side is wrong cannot be told'
                WHEN node_split
                THEN 'fingerprint mismatch between nodes: the ' || j.major_n || ' rank(s) that run "' || j.major_print || '" fill their node(s), and rank(s) '
                     || array_to_string(odd, ', ') || ' differ on a node none of whose ranks runs it and whose other ranks are not seen: a reporter names the '
                     || 'first differing rank in rank order, so the first rank of a node that differs as a whole is named alone; which rank, '
                     || 'if any, is at fault cannot be told (docs/rules.md, "Session 34: batch 166")'
                WHEN sizes_differ AND s.reporters = 1
                THEN 'one fingerprint report (' || coalesce('rank ' || s.first_reporter, 'one rank') || ') of the same collective (SequenceNumber '
                     || split_part(j.major_print, ' ', 1) || ', ' || regexp_extract(j.major_print, 'OpType=(\w+)', 1)
                     || ') called with tensors of other sizes: the ranks called the same collectives in the same order, and only '
                     || 'their inputs differ (uneven or mixed batches, a data-dependent shape), which the code and the data every '
                     || 'rank runs decide; one report does not show a rank odd in what it called (docs/rules.md, "Session 58: '
                     || 'fingerprints that differ in size only")'
                WHEN s.reporters >= 2
                THEN s.reporters || ' fingerprint reports: ' || j.major_n || ' of ' || j.known || ' known ranks run "' || j.major_print || '"; the named ranks disagree with that majority'
                ELSE 'one fingerprint report (rank ' || s.first_reporter || '): a reporter names the first rank, in rank order, whose collective differs from its own, so '
                     || j.major_n || ' rank(s) run "' || j.major_print || '" and the named rank is likelier to be the odd one than the reporter'
           END AS detail
    FROM (SELECT j.*,
                 (SELECT count(*) FROM fp_groups g WHERE g.job_key = j.job_key AND g.n = j.major_n) > 1 AS tie,
                 (SELECT list_sort(flatten(list(g.ranks))) FROM fp_groups g WHERE g.job_key = j.job_key AND g.print <> j.major_print) AS odd,
                 -- the odd ranks are all on nodes where no rank runs the majority's collective and some rank is not seen, the
                 -- majority's ranks fill whole nodes of their own, and the job has several nodes: the split follows a node boundary
                 coalesce((SELECT count(DISTINCT n.pod_key) > 1
                                  AND bool_and(n.major = 0 AND n.seen < len(n.ranks)) FILTER (WHERE list_has_any(n.ranks, o.odd))
                                  AND bool_and(n.major = len(n.ranks)) FILTER (WHERE n.major > 0)
                           FROM fp_node n,
                                (SELECT list_sort(flatten(list(g.ranks))) AS odd FROM fp_groups g
                                 WHERE g.job_key = j.job_key AND g.print <> j.major_print) o
                           WHERE n.job_key = j.job_key), false) AS node_split,
                 -- every print that differs from the majority's differs in its tensors' sizes only (said so only where one rank reported): the same
                 -- SequenceNumber, OpType and dtypes, both shapes read (docs/rules.md, "Session 58: fingerprints that differ in size only")
                 coalesce((SELECT bool_and(split_part(g.print, ' ', 1) = split_part(j.major_print, ' ', 1)
                                           AND regexp_extract(g.print, 'OpType=(\w+)', 1) = regexp_extract(j.major_print, 'OpType=(\w+)', 1)
                                           AND regexp_extract(g.print, 'TensorDtypes=([^,)]*)', 1) = regexp_extract(j.major_print, 'TensorDtypes=([^,)]*)', 1)
                                           AND regexp_extract(g.print, 'TensorShape=\[([^\]]*)\]', 1) <> ''
                                           AND regexp_extract(j.major_print, 'TensorShape=\[([^\]]*)\]', 1) <> '')
                           FROM fp_groups g WHERE g.job_key = j.job_key AND g.print <> j.major_print), false) AS sizes_differ
          FROM fp_job j) j
    JOIN fp_stats s USING (job_key),
         LATERAL (SELECT coalesce(bool_and(o.program), false) AS program FROM k10s_fingerprint_obs o WHERE o.job_key = j.job_key) p,
         -- a program check of exactly two ranks, 0 and 1, whose counts differ: no majority, rank 0's side (below)
         LATERAL (SELECT p.program AND j.tie AND (SELECT list_sort(list(g.ranks[1])) FROM fp_groups g WHERE g.job_key = j.job_key
                                                    AND len(g.ranks) = 1) = [0, 1]
                         AND (SELECT count(*) FROM fp_groups g WHERE g.job_key = j.job_key) = 2 AS rank0_program) r0
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM fp_ev;
