-- Hang evidence from PyTorch's Flight Recorder and from NCCL RAS, in the shared evidence
-- columns (docs/rules.md, "Hang evidence"): job_key, evidence, culprit_ranks, suspect_ranks,
-- confidence (high|medium|low|none), pg, seq_num, op_type, ts, detail. An empty
-- culprit_ranks with confidence 'none' says "this evidence names no single culprit".
-- Both views are creatable on bundles without the tables (they are empty views then).
-- `empty-without: T` marks a statement that returns no row when table T has none: on such a
-- bundle it is created empty from its `empty-columns` instead of being bound and run
-- (analyze/viewplan.py; tests/test_viewplan.py checks the declared columns and the outputs).

-- k10s_pod_job_name: (namespace, pod name) -> job, for rows that carry only a pod name.
CREATE OR REPLACE TEMP TABLE k10s_pod_job_name AS
SELECT namespace, pod, arg_max(job_key, (valid_from, job_key)) AS job_key
FROM k10s_pod_job WHERE job_key IS NOT NULL GROUP BY namespace, pod;

-- k10s_fr_rank: per job, process group and rank with a dump, the last collective entered
-- (p2p entries and seq 0 left out), its op, sizes and state; gloo: the group's entries are
-- gloo's (`gloo:` ops), whose state says nothing (docs/evidence-fr-ras.md, "gloo's entries").
-- empty-without: flight_recorder
-- empty-columns: job_key VARCHAR, pg_key VARCHAR, pg_desc VARCHAR, rank BIGINT, last_seq BIGINT, last_state VARCHAR, last_op VARCHAR,
--     first_seq BIGINT, last_ts TIMESTAMPTZ, pg_ranks BIGINT[], gloo BOOLEAN
CREATE OR REPLACE TEMP TABLE k10s_fr_rank AS
WITH e AS (
    SELECT f.*, pj.job_key, coalesce(f.pg_name, CAST(f.pg_id AS VARCHAR)) AS pg_key
    FROM flight_recorder f JOIN k10s_pod_job_name pj ON pj.namespace = f.namespace AND pj.pod = f.pod
    WHERE f.rank IS NOT NULL AND f.collective_seq_id > 0 AND NOT coalesce(f.is_p2p, false)
)
SELECT job_key, pg_key, min(pg_desc) AS pg_desc, rank,
       max(collective_seq_id) AS last_seq,
       -- the newest record of the last collective (a rank dumped twice), then by value
       arg_max(state, (collective_seq_id, coalesce(time_created, captured_at) IS NOT NULL, coalesce(time_created, captured_at), state)) AS last_state,
       arg_max(op, (collective_seq_id, coalesce(time_created, captured_at) IS NOT NULL, coalesce(time_created, captured_at), op)) AS last_op,
       min(collective_seq_id) AS first_seq,
       max(coalesce(time_created, captured_at)) AS last_ts,
       min(pg_ranks) AS pg_ranks,
       bool_or(starts_with(lower(coalesce(op, '')), 'gloo:')) AS gloo
FROM e GROUP BY job_key, pg_key, rank;

-- k10s_fr_entry: every collective entry with its job and group (for op/size comparison).
-- empty-without: flight_recorder
-- empty-columns: job_key VARCHAR, pg_key VARCHAR, rank BIGINT, seq BIGINT, op VARCHAR, input_sizes VARCHAR, state VARCHAR,
--     ts TIMESTAMPTZ
CREATE OR REPLACE TEMP TABLE k10s_fr_entry AS
SELECT pj.job_key, coalesce(f.pg_name, CAST(f.pg_id AS VARCHAR)) AS pg_key, f.rank, f.collective_seq_id AS seq,
       f.op, coalesce(f.input_sizes, '') AS input_sizes, f.state, coalesce(f.time_created, f.captured_at) AS ts
FROM flight_recorder f JOIN k10s_pod_job_name pj ON pj.namespace = f.namespace AND pj.pod = f.pod
WHERE f.rank IS NOT NULL AND f.collective_seq_id > 0 AND NOT coalesce(f.is_p2p, false);

-- k10s_hang_evidence_fr: like PyTorch's fr_trace, per job and process group:
-- 1. lag: some ranks never entered a collective others entered -> those ranks (the first
--    collective not entered by every rank is their last + 1);
-- 2. mismatch: the first collective (seen by every rank) whose op or input sizes differ ->
--    the ranks outside the majority (both sides as suspects when there is no majority);
-- 3. all ranks in the same last collective, not completed: ranks of the group with no dump
--    at all are the culprits (a dead process writes none); with every dump present, no
--    single culprit (the hang is inside the collective);
-- (4., printed fr_trace output in logs, is k10s_hang_evidence_fr below.)
-- Confidence: high when the culprits are fewer than half of the ranks compared, else medium.
-- empty-without: flight_recorder
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR,
--     pg VARCHAR, seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_fr_dumps AS
WITH g AS (
    SELECT job_key, pg_key, min(pg_desc) AS pg_desc, min(last_seq) AS min_seq, max(last_seq) AS max_seq,
           max(first_seq) AS window_seq, count(*) AS nranks, list(rank ORDER BY rank) AS ranks, max(last_ts) AS ts,
           min(pg_ranks) AS pg_ranks,
           bool_and(last_state = 'completed') AS all_completed,
           bool_or(gloo) AS gloo
    FROM k10s_fr_rank GROUP BY job_key, pg_key
),
lag AS (
    SELECT g.job_key, g.pg_key, g.pg_desc, g.min_seq + 1 AS seq, g.ts, g.nranks, g.gloo,
           list(r.rank ORDER BY r.rank) FILTER (WHERE r.last_seq = g.min_seq) AS behind,
           list(r.rank ORDER BY r.rank) FILTER (WHERE r.last_seq > g.min_seq) AS ahead
    FROM g JOIN k10s_fr_rank r USING (job_key, pg_key)
    WHERE g.min_seq < g.max_seq AND NOT g.all_completed GROUP BY ALL  -- all completed: dumps of a running job, not a hang
),
lag_op AS (
    SELECT l.job_key, l.pg_key, mode(e.op ORDER BY e.op) AS op
    FROM lag l JOIN k10s_fr_entry e ON e.job_key = l.job_key AND e.pg_key = l.pg_key AND e.seq = l.seq GROUP BY ALL
),
sig AS (  -- per collective seen by every compared rank: ranks per (op, sizes) signature; sizes count only
          -- for ops whose tensors must match on every rank (all-to-all, gather, scatter may differ)
    SELECT e.job_key, e.pg_key, e.seq, e.op,
           CASE WHEN regexp_matches(coalesce(e.op, ''), 'all_?reduce|broadcast|reduce_scatter|all_?gather|:reduce$') THEN e.input_sizes ELSE '' END AS input_sizes,
           list(e.rank ORDER BY e.rank) AS ranks, count(*) AS n, max(e.ts) AS ts
    FROM k10s_fr_entry e JOIN g ON g.job_key = e.job_key AND g.pg_key = e.pg_key
    WHERE e.seq BETWEEN g.window_seq AND g.min_seq AND NOT g.all_completed GROUP BY ALL
),
sig_seq AS (
    SELECT job_key, pg_key, seq, count(*) AS variants, max(n) AS top_n, sum(n) AS total, max(ts) AS ts
    FROM sig GROUP BY ALL HAVING count(*) > 1
),
first_mismatch AS (
    SELECT job_key, pg_key, min(seq) AS seq FROM sig_seq GROUP BY ALL
),
mismatch AS (
    SELECT s.job_key, s.pg_key, s.seq, q.ts, q.total,
           -- a strict majority signature: everyone else is the culprit; else every side is a suspect
           list_sort(flatten(list(s.ranks) FILTER (WHERE s.n < q.top_n OR (SELECT count(*) FROM sig x WHERE x.job_key = s.job_key AND x.pg_key = s.pg_key AND x.seq = s.seq AND x.n = q.top_n) > 1))) AS odd,
           (SELECT count(*) FROM sig x WHERE x.job_key = s.job_key AND x.pg_key = s.pg_key AND x.seq = s.seq AND x.n = q.top_n) = 1 AS has_majority,
           string_agg(s.op || ' ' || s.input_sizes || ' on ranks ' || CAST(s.ranks AS VARCHAR), '; ' ORDER BY s.n DESC, s.ranks) AS variants,
           arg_max(s.op, (s.n, -s.ranks[1])) AS op  -- the signature of most ranks, then of the lowest rank
    FROM sig s JOIN first_mismatch f USING (job_key, pg_key, seq) JOIN sig_seq q USING (job_key, pg_key, seq)
    GROUP BY ALL
),
dumped AS (  -- a rank whose dump exists but was refused (hostile, oversized) did dump: not a culprit for that
    SELECT DISTINCT pj.job_key, d.rank
    FROM flight_recorder_dumps d JOIN k10s_pod_job_name pj ON pj.namespace = d.namespace AND pj.pod = d.pod
    WHERE d.rank IS NOT NULL
),
expected AS (  -- the group's ranks (pg_config), else the job's ranks
    SELECT g.job_key, g.pg_key, unnest(coalesce(g.pg_ranks, (SELECT list(DISTINCT r.rank) FROM k10s_rank r WHERE r.job_key = g.job_key))) AS rank
    FROM g WHERE g.min_seq = g.max_seq AND NOT g.all_completed
),
read_pods AS (  -- pods whose dump reader ran (a status 'none' row when it found no file)
    SELECT DISTINCT namespace, pod FROM flight_recorder_dumps
),
no_dump AS (  -- only ranks whose pod was read: a pod that could not be read says nothing
    SELECT x.job_key, x.pg_key, list(DISTINCT x.rank ORDER BY x.rank) AS ranks
    FROM expected x
    LEFT JOIN dumped d ON d.job_key = x.job_key AND d.rank = x.rank
    JOIN k10s_rank k ON k.job_key = x.job_key AND k.rank = x.rank
    JOIN read_pods rp ON rp.namespace = k.namespace AND rp.pod = k.pod
    WHERE d.rank IS NULL GROUP BY ALL
),
unseen AS (  -- ranks of the group with no dump whose pod was not read (or is unknown)
    SELECT x.job_key, x.pg_key, list(DISTINCT x.rank ORDER BY x.rank) AS ranks
    FROM expected x
    LEFT JOIN dumped d ON d.job_key = x.job_key AND d.rank = x.rank
    LEFT JOIN k10s_rank k ON k.job_key = x.job_key AND k.rank = x.rank
    LEFT JOIN read_pods rp ON rp.namespace = k.namespace AND rp.pod = k.pod
    WHERE d.rank IS NULL AND rp.pod IS NULL GROUP BY ALL
),
stuck_op AS (
    SELECT g.job_key, g.pg_key, mode(e.op ORDER BY e.op) AS op
    FROM g JOIN k10s_fr_entry e ON e.job_key = g.job_key AND e.pg_key = g.pg_key AND e.seq = g.max_seq GROUP BY ALL
),
from_dumps AS (
    -- a gloo group (g.gloo): its entries never leave `scheduled` and a collective that failed can count as ended, so
    -- whether the ranks ahead waited (lag) or the ranks that dumped were stuck (no dump, none completed) is undecided:
    -- the ranks those readings would name are only suspects, at low confidence (a mismatch of op or sizes still counts)
    SELECT l.job_key, 'flight-recorder' AS evidence,
           CASE WHEN l.gloo THEN []::BIGINT[] ELSE l.behind END AS culprit_ranks,
           CASE WHEN l.gloo THEN l.behind ELSE []::BIGINT[] END AS suspect_ranks,
           CASE WHEN l.gloo THEN 'low' WHEN 2 * len(l.behind) < l.nranks THEN 'high' ELSE 'medium' END AS confidence,
           l.pg_key AS pg, l.seq AS seq_num, o.op AS op_type, l.ts,
           'Flight Recorder: rank(s) ' || array_to_string(l.behind, ', ') || ' never entered collective #' || l.seq
           || coalesce(' (' || o.op || ')', '') || ' of process group ' || l.pg_key || coalesce(' (' || l.pg_desc || ')', '')
           || ' that rank(s) ' || array_to_string(l.ahead, ', ') || ' entered'
           || CASE WHEN l.gloo THEN '; ' || 'gloo records no completion (its entries stay scheduled; a collective that failed can count as ended), so who waited is undecided: no rank named' ELSE '' END AS detail,
           l.seq AS anomaly_seq
    FROM lag l LEFT JOIN lag_op o USING (job_key, pg_key)
    UNION ALL
    SELECT m.job_key, 'flight-recorder',
           CASE WHEN m.has_majority THEN m.odd ELSE []::BIGINT[] END,
           CASE WHEN m.has_majority THEN []::BIGINT[] ELSE m.odd END,
           CASE WHEN NOT m.has_majority THEN 'low' WHEN 2 * len(m.odd) < m.total THEN 'high' ELSE 'medium' END,
           m.pg_key, m.seq, m.op, m.ts,
           'Flight Recorder: collective #' || m.seq || ' of process group ' || m.pg_key || ' differs across ranks: ' || m.variants
           || CASE WHEN m.has_majority THEN '' ELSE ' (no majority: every side is a suspect)' END,
           m.seq
    FROM mismatch m
    UNION ALL
    SELECT g.job_key, 'flight-recorder',
           CASE WHEN g.gloo THEN []::BIGINT[] ELSE coalesce(n.ranks, []::BIGINT[]) END,
           CASE WHEN g.gloo THEN coalesce(n.ranks, u.ranks, []::BIGINT[])
                WHEN n.ranks IS NULL THEN coalesce(u.ranks, []::BIGINT[]) ELSE []::BIGINT[] END,
           CASE WHEN g.gloo THEN 'low' WHEN n.ranks IS NOT NULL THEN 'medium' WHEN u.ranks IS NOT NULL THEN 'low' ELSE 'none' END,
           g.pg_key, g.max_seq, s.op, g.ts,
           CASE WHEN g.gloo
                THEN 'Flight Recorder: the ' || g.nranks || ' ranks that dumped all recorded collective #' || g.max_seq
                     || coalesce(' (' || s.op || ')', '') || ' of process group ' || g.pg_key || ' last'
                     || coalesce('; no dump from rank(s) ' || array_to_string(coalesce(n.ranks, u.ranks), ', '), '')
                     || '; ' || 'gloo records no completion (its entries stay scheduled; a collective that failed can count as ended), so who waited is undecided: no rank named'
                WHEN n.ranks IS NULL AND u.ranks IS NOT NULL
                THEN 'Flight Recorder: the ' || g.nranks || ' ranks that dumped all wait in collective #' || g.max_seq || coalesce(' (' || s.op || ')', '')
                     || '; rank(s) ' || array_to_string(u.ranks, ', ') || ' could not be read (pod not read by the capture)'
                WHEN n.ranks IS NULL
                THEN 'Flight Recorder: every rank (' || g.nranks || ') entered collective #' || g.max_seq || coalesce(' (' || s.op || ')', '')
                     || ' of process group ' || g.pg_key || ' and none completed it: no single culprit (the hang is inside the collective)'
                ELSE 'Flight Recorder: no dump from rank(s) ' || array_to_string(n.ranks, ', ') || ' while the ' || g.nranks
                     || ' ranks that dumped all wait in collective #' || g.max_seq || coalesce(' (' || s.op || ')', '')
                     || ' of process group ' || g.pg_key END,
           g.max_seq + 1
    FROM g LEFT JOIN no_dump n USING (job_key, pg_key) LEFT JOIN unseen u USING (job_key, pg_key) LEFT JOIN stuck_op s USING (job_key, pg_key)
    WHERE g.min_seq = g.max_seq AND NOT g.all_completed AND (g.nranks >= 2 OR n.ranks IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM mismatch m WHERE m.job_key = g.job_key AND m.pg_key = g.pg_key)
),
earliest AS (  -- per job and group, the earliest anomaly (a mismatch before a lag explains it)
    SELECT * EXCLUDE (anomaly_seq, pick) FROM (
        SELECT *, row_number() OVER (PARTITION BY job_key, pg ORDER BY anomaly_seq, confidence, culprit_ranks, suspect_ranks, detail) AS pick FROM from_dumps
    ) WHERE pick = 1
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM earliest;

-- k10s_hang_evidence_fr: the dumps' evidence (above) and 4. printed fr_trace output in logs
-- ("Not all ranks joining collective ... missing ranks").
-- empty-unless: EXISTS (SELECT 1 FROM flight_recorder) OR EXISTS (SELECT 1 FROM log_events WHERE kind = 'flight_recorder_missing_ranks')
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR, pg VARCHAR,
--     seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_fr AS
WITH printed AS (
    SELECT l.job_key, l.pg, l.seq_num, mode(l.op_type ORDER BY l.op_type) AS op_type, min(l.ts) AS ts,
           list(DISTINCT l.rank ORDER BY l.rank) AS missing, max(s.gpus) AS world
    FROM k10s_log l LEFT JOIN k10s_job_size s ON s.job_key = l.job_key
    WHERE l.kind = 'flight_recorder_missing_ranks' AND l.rank IS NOT NULL AND l.job_key IS NOT NULL
    GROUP BY l.job_key, l.pg, l.seq_num
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM k10s_hang_evidence_fr_dumps
UNION ALL
SELECT job_key, 'flight-recorder', missing, []::BIGINT[],
       CASE WHEN world IS NOT NULL AND 2 * len(missing) < world THEN 'high' ELSE 'medium' END,
       pg, seq_num, op_type, ts,
       'fr_trace output in the log: rank(s) ' || array_to_string(missing, ', ') || ' did not join collective'
       || coalesce(' #' || seq_num, '') || coalesce(' (' || op_type || ')', '') || coalesce(' of process group ' || pg, '')
FROM printed;

-- k10s_ras_report: the latest RAS report per job (rows of one exec output or log body).
-- empty-without: nccl_ras
-- empty-columns: ts TIMESTAMPTZ, namespace VARCHAR, pod VARCHAR, pod_uid VARCHAR, node VARCHAR, container VARCHAR,
--     origin VARCHAR, report BIGINT, kind VARCHAR, section VARCHAR, status VARCHAR, errors VARCHAR, comm VARCHAR,
--     comm_hash VARCHAR, comm_group BIGINT, comms BIGINT, comm_ranks BIGINT, nodes BIGINT, processes BIGINT,
--     gpus BIGINT, rank BIGINT, host VARCHAR, pid BIGINT, gpu BIGINT, op_count BIGINT, group_ranks BIGINT,
--     group_value VARCHAR, nccl_version VARCHAR, detail VARCHAR, captured_at TIMESTAMPTZ, raw_row BIGINT, job_key VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_ras_report AS
WITH r AS (
    SELECT n.*, pj.job_key FROM nccl_ras n JOIN k10s_pod_job_name pj ON pj.namespace = n.namespace AND pj.pod = n.pod
    WHERE n.kind <> 'unavailable'
),
latest AS (
    SELECT job_key, arg_max(struct_pack(origin := origin, raw_row := raw_row, report := report), (ts, origin, raw_row, report))
                        FILTER (WHERE ts IS NOT NULL) AS pick
    FROM r GROUP BY job_key
)
SELECT r.* FROM r JOIN latest l ON l.job_key = r.job_key
WHERE r.origin = l.pick.origin AND r.raw_row = l.pick.raw_row AND r.report = l.pick.report;

-- k10s_ras_process: a process RAS names (host IP/name, GPU) resolved to the job's rank(s):
-- the pod with that IP (its rank on that GPU, or its only rank), else the ranks of the job
-- on that node whose local rank is the GPU.
-- empty-without: nccl_ras
-- empty-columns: job_key VARCHAR, kind VARCHAR, status VARCHAR, host VARCHAR, pid BIGINT, gpu BIGINT, comm_rank BIGINT,
--     op_count BIGINT, ts TIMESTAMPTZ, ranks BIGINT[]
CREATE OR REPLACE TEMP TABLE k10s_ras_process AS
SELECT r.job_key, r.kind, r.status, r.host, r.pid, r.gpu, r.rank AS comm_rank, r.op_count, r.ts,
       list(DISTINCT k.rank ORDER BY k.rank) FILTER (WHERE k.rank IS NOT NULL) AS ranks
FROM k10s_ras_report r
LEFT JOIN k10s_ip i ON i.ip = r.host AND (i.job_key = r.job_key OR i.ip_kind IN ('node', 'node-name'))
LEFT JOIN k10s_rank k ON k.job_key = r.job_key AND (
       (i.pod_uid IS NOT NULL AND k.pod_uid = i.pod_uid AND (k.local_rank = r.gpu OR (SELECT count(*) FROM k10s_rank x WHERE x.pod_uid = i.pod_uid) = 1))
    OR (i.pod_uid IS NULL AND k.node = i.node AND k.local_rank = r.gpu))
WHERE r.kind IN ('process_missing', 'rank_missing', 'mismatch_rank', 'rank_counts')
GROUP BY ALL;

-- k10s_hang_evidence_ras: per job, the strongest statement of its latest RAS report:
-- 1. DEAD / INCOMPLETE processes or missing ranks -> those ranks (high when RAS declared the
--    process dead, else medium); a communicator rank is taken as the global rank only when
--    the communicator spans the whole job;
-- 2. MISMATCH of collective counts -> the group that launched fewer operations is behind
--    (NCCL lists the minority group, which may be the healthy one): medium when the behind
--    group is the smaller one, low otherwise;
-- 3. every communicator OK -> no culprit (confidence none).
-- empty-without: nccl_ras
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR,
--     pg VARCHAR, seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_ras AS
WITH size AS (SELECT job_key, gpus FROM k10s_job_size),
comm AS (
    SELECT job_key, max(comm_ranks) AS comm_ranks, bool_and(coalesce(errors, 'OK') = 'OK') AS all_ok, count(*) AS groups,
           max(ts) AS ts, min(nccl_version) AS nccl_version
    FROM k10s_ras_report WHERE kind = 'comm_group' GROUP BY job_key
),
missing AS (  -- resolved processes first; communicator ranks only when none resolved
    SELECT job_key, dead, what, ts,
           CASE WHEN len(resolved) > 0 THEN resolved ELSE comm_list END AS ranks
    FROM (
        SELECT p.job_key, bool_or(p.status = 'DEAD') AS dead,
               list_sort(list_distinct(flatten(list(coalesce(p.ranks, []::BIGINT[]))))) AS resolved,
               list_sort(list_distinct(list(p.comm_rank) FILTER (
                   WHERE p.kind = 'rank_missing' AND p.comm_rank IS NOT NULL AND p.ranks IS NULL
                     AND c.comm_ranks IS NOT NULL AND p.comm_rank < c.comm_ranks AND c.comm_ranks = coalesce(s.gpus, c.comm_ranks)))) AS comm_list,
               string_agg(DISTINCT coalesce('process ' || p.pid || ' on ' || p.host || ' GPU ' || p.gpu, 'communicator rank ' || p.comm_rank), '; '
                          ORDER BY coalesce('process ' || p.pid || ' on ' || p.host || ' GPU ' || p.gpu, 'communicator rank ' || p.comm_rank)) AS what,
               max(p.ts) AS ts
        FROM k10s_ras_process p LEFT JOIN comm c USING (job_key) LEFT JOIN size s USING (job_key)
        WHERE p.kind IN ('process_missing', 'rank_missing') GROUP BY p.job_key
    )
),
counts AS (  -- op count per known rank (text: listed members of mismatch groups; JSON: every rank)
    SELECT job_key, op_count, coalesce(ranks, CASE WHEN comm_rank IS NOT NULL THEN [comm_rank] END) AS ranks
    FROM k10s_ras_process WHERE kind IN ('mismatch_rank', 'rank_counts') AND op_count IS NOT NULL
),
groups AS (
    SELECT job_key, op_count, sum(group_ranks) AS group_ranks FROM (
        SELECT DISTINCT job_key, comm, op_count, group_ranks FROM k10s_ras_report WHERE kind = 'mismatch_group' AND op_count IS NOT NULL
    ) GROUP BY ALL
    UNION ALL
    SELECT job_key, op_count, count(*) FROM counts
    WHERE job_key IN (SELECT job_key FROM k10s_ras_report WHERE kind = 'rank_counts') GROUP BY ALL
),
behind AS (
    SELECT g.job_key, min(g.op_count) AS low, max(g.op_count) AS high,
           arg_min(g.group_ranks, (g.op_count, g.group_ranks)) AS behind_n, sum(g.group_ranks) AS total
    FROM groups g GROUP BY g.job_key HAVING min(g.op_count) < max(g.op_count)
),
mismatch AS (
    SELECT b.*, list_sort(list_distinct(flatten(list(c.ranks) FILTER (WHERE c.op_count = b.low)))) AS ranks
    FROM behind b LEFT JOIN counts c USING (job_key) GROUP BY ALL
),
candidates AS (
    SELECT m.job_key, 1 AS strength, coalesce(m.ranks, []::BIGINT[]) AS culprit_ranks,
           CASE WHEN len(coalesce(m.ranks, [])) = 0 THEN 'low' WHEN m.dead THEN 'high' ELSE 'medium' END AS confidence,
           m.ts, 'NCCL RAS: ' || CASE WHEN m.dead THEN 'dead ' ELSE 'unresponsive ' END || m.what
           || CASE WHEN len(coalesce(m.ranks, [])) = 0 THEN ' (not resolved to a rank of the job)'
                   ELSE ' = rank(s) ' || array_to_string(m.ranks, ', ') END AS detail
    FROM missing m
    UNION ALL
    SELECT m.job_key, 2, coalesce(m.ranks, []::BIGINT[]),
           CASE WHEN len(coalesce(m.ranks, [])) > 0 AND 2 * m.behind_n < m.total THEN 'medium' ELSE 'low' END,
           NULL, 'NCCL RAS MISMATCH: ' || m.behind_n || ' rank(s) launched up to collective ' || m.low || ', ' || (m.total - m.behind_n)
           || ' up to ' || m.high || ': the ' || CASE WHEN 2 * m.behind_n < m.total THEN 'smaller' ELSE 'larger' END
           || ' group is behind' || CASE WHEN len(coalesce(m.ranks, [])) > 0 THEN ' (rank(s) ' || array_to_string(m.ranks, ', ') || ')'
                                         ELSE ' (its ranks are not listed by RAS)' END
    FROM mismatch m
    UNION ALL
    SELECT c.job_key, 3, []::BIGINT[], 'none', c.ts,
           'NCCL RAS' || coalesce(' ' || c.nccl_version, '') || ': ' || c.groups || ' communicator group(s), errors OK: no rank is missing, dead or behind (no single culprit from RAS)'
    FROM comm c WHERE c.all_ok
      AND c.job_key NOT IN (SELECT job_key FROM missing) AND c.job_key NOT IN (SELECT job_key FROM mismatch)
),
best AS (
    SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY job_key ORDER BY strength, culprit_ranks, detail) AS pick FROM candidates) WHERE pick = 1
)
SELECT b.job_key, 'ras' AS evidence, b.culprit_ranks, []::BIGINT[] AS suspect_ranks, b.confidence,
       NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type,
       coalesce(b.ts, (SELECT max(ts) FROM k10s_ras_report x WHERE x.job_key = b.job_key)) AS ts, b.detail
FROM best b;
