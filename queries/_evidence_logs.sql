-- Hang evidence read from container logs, in the shared evidence columns (job_key, evidence,
-- culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail); see
-- docs/rules.md "Hang evidence". Three families:
--   desync-report    TORCH_NCCL_DESYNC_DEBUG report lines (nccl_desync events): the ranks it
--                    names as lagging; when every rank of the job "joined but didn't finish"
--                    the report names NO culprit (confidence none).
--   fingerprint      TORCH_DISTRIBUTED_DEBUG=DETAIL "Detected mismatch between collectives"
--                    (collective_mismatch events), voted across every report: created earlier, in
--                    _evidence_fingerprint.sql (the failure lines read its choice), and unioned here.
--   watchdog-compare the ProcessGroupNCCL watchdog lines of every rank compared: same SeqNum
--                    but another OpType / NumelIn / NumelOut, a lower last enqueued work, a
--                    different SeqNum, or silence while most ranks timed out. gloo's own wait
--                    timeouts (k10s_gloo_wait) count as watchdog lines without SeqNum: in a
--                    job where a rank's gloo send/recv timed out, every rank that raised a
--                    teardown exception was inside a collective; a rank that raised none is silent.
-- A rank named here is a global rank when the process group is the default one; reports
-- about a sub-group name group ranks (docs/rules.md, blind spots).

-- k10s_desync_lines: desync report lines with their job and the job's size.
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE kind = 'nccl_desync' OR (kind = 'rank_joining' AND subkind = 'store_barrier')
--     OR (kind = 'python_exception' AND error_message LIKE '%clients joined%'))
-- empty-columns: job_key VARCHAR, reporter BIGINT, rank BIGINT, subkind VARCHAR, seq_num BIGINT, ts TIMESTAMPTZ, pg VARCHAR, world BIGINT
CREATE OR REPLACE TEMP TABLE k10s_desync_lines AS
-- A Horovod stall warning is printed only about tensors some rank submitted, a coordination service's
-- barrier timeout (JAX, TensorFlow: barrier_missing) by a task that reached the barrier: the ranks it says
-- are missing are not the whole job (its size is at least one more than the ranks it names missing); nor are the ranks
-- HCCL's topology exchange says never connected (hccl_unconnected: the root rank's server, connected, says so).
SELECT l.job_key, coalesce(l.reporter_rank, -1) AS reporter, l.rank, l.subkind, l.seq_num, l.ts, l.pg,
       greatest(coalesce(js.gpus, 0), max(l.rank) OVER (PARTITION BY l.job_key) + 1,
                CASE WHEN l.subkind IN ('horovod_missing', 'barrier_missing', 'hccl_unconnected') THEN coalesce(hm.missing, 0) + 1 ELSE 0 END,
                -- a waiter inside main_process_first naming rank 0 late (log_main_first.py): the world holds the waiter too
                CASE WHEN l.subkind = 'main_first' THEN coalesce(l.reporter_rank, 0) + 1 ELSE 0 END) AS world
FROM k10s_log l LEFT JOIN k10s_job_size js ON js.job_key = l.job_key
LEFT JOIN (SELECT job_key, count(DISTINCT rank) AS missing FROM k10s_log
           WHERE kind = 'nccl_desync' AND subkind IN ('horovod_missing', 'barrier_missing', 'hccl_unconnected') AND job_key IS NOT NULL AND rank IS NOT NULL
           GROUP BY job_key) hm ON hm.job_key = l.job_key
WHERE l.kind = 'nccl_desync' AND l.job_key IS NOT NULL AND l.rank IS NOT NULL AND l.subkind <> 'horovod_ready'
  -- a Horovod stall warning whose rows list DISJOINT tensors for two ranks (ranks 0-7 never submitted the broadcast rank
  -- 8 did, rank 8 never submitted the allreduce they did): the ranks run different collectives, each side waiting for
  -- the other's: a mismatch, not laggards: its rows name no one. A row cut at the terminal's width keeps a tensor's
  -- name cut short: a name that starts another's is the same tensor (docs/rules.md, "Session 27: Horovod stall rows")
  AND NOT (l.subkind = 'horovod_missing' AND EXISTS (
           SELECT 1 FROM k10s_log a, k10s_log b
           WHERE a.job_key = l.job_key AND b.job_key = l.job_key AND a.kind = 'nccl_desync' AND b.kind = 'nccl_desync'
             AND a.subkind = 'horovod_missing' AND b.subkind = 'horovod_missing' AND a.rank < b.rank
             AND a.error_message IS NOT NULL AND b.error_message IS NOT NULL
             AND len(list_filter(string_split(a.error_message, ', '),
                                 lambda x: len(list_filter(string_split(b.error_message, ', '),
                                                      lambda y: starts_with(x, y) OR starts_with(y, x))) > 0)) = 0))
  -- "check rank 0 logs for faulty rank": rank 0 ran the barrier; its own report names the culprit
  -- gloo's rendezvous key of rank 0 (store_wait): outside an elastic agent's store, init_process_group's store is
  -- rank 0's, which waits for every client before it writes its own address ("2/4 clients joined"): a rank
  -- timing out on rank 0's key says rank 0 was still waiting, not that it never came. Only where the job's ranks
  -- run under an elastic agent (its reports in the job: torchrun's `failed (exitcode …)`, its SIGTERMs), whose
  -- store the ranks share and rank 0 does not host, does that key name rank 0 (docs/rules.md, "Session 20")
  AND NOT (l.subkind = 'store_wait' AND l.rank = 0
           AND NOT EXISTS (SELECT 1 FROM k10s_log a WHERE a.job_key = l.job_key AND a.kind IN ('torchrun_failure', 'torchrun_sigterm')))
  AND NOT (l.subkind = 'barrier_peer' AND EXISTS (SELECT 1 FROM k10s_log b WHERE b.job_key = l.job_key AND b.kind = 'nccl_desync'
                                                  AND b.subkind IN ('barrier', 'store_wait')))
  -- a rank a monitored barrier names as never arriving that says in its own line it reached one and waited there (`Rank 1
  -- successfully reached monitoredBarrier, but received errors …`, whichever group's: a sub-group's numbers are group
  -- ranks, its reporter the line's `[rankN]:` tag, log_classify._sub_group): it was inside another group's barrier, not
  -- missing; the barriers disagree on who is late and neither names the one that is (docs/rules.md, "Session 33: thirty-fourth launcher set")
  AND NOT (l.subkind = 'barrier' AND EXISTS (SELECT 1 FROM k10s_log b WHERE b.job_key = l.job_key AND b.kind = 'nccl_desync'
                                             AND b.subkind IN ('barrier_peer', 'barrier_peer_group') AND b.reporter_rank = l.rank))
  -- rank 0 runs gloo's monitored barrier and answers every rank with an error when ANY rank failed to arrive: a report
  -- naming it ("received errors while waiting for send/recv from rank 0") names it only when the reporter's own wait
  -- for it ran out (gloo's `Timed out waiting Nms for send operation` as the report's original exception: rank 0 never
  -- took its part; timeout_ms), or when every other rank of the job reached the barrier and says so (a two-rank job's
  -- rank 1): in a wider group with ranks unaccounted for, the one that never came may be any (docs/rules.md, "Session 26: batch 80")
  AND NOT (l.subkind = 'barrier_peer' AND l.timeout_ms IS NULL
           AND (SELECT count(DISTINCT p.reporter_rank) FROM k10s_log p
                WHERE p.job_key = l.job_key AND p.kind = 'nccl_desync' AND p.subkind = 'barrier_peer' AND p.rank = l.rank
                  AND p.reporter_rank IS NOT NULL AND p.reporter_rank <> l.rank)
               < greatest(coalesce(js.gpus, 0), coalesce(l.reporter_rank, 0) + 1, 2,
                          (SELECT coalesce(max(x.rank_resolved), 0) + 1 FROM k10s_log x WHERE x.job_key = l.job_key)) - 1)
  -- a report its pod logged after its agent had ended that round's workers (a failure report or a closing signal
  -- above it in the pod's log) is a later round's, a restart's: when no collective timed out in the pod after that
  -- report, that round never reached the collective the job hung on (a restart that failed in its group's creation).
  -- Not the error file of a process of that round the failure table quotes (torch's @record: the entry's `traceback :`
  -- field ends in the store wait, given the entry's pid by parsers/log_failure_table.py; session 71): that round's own
  AND (NOT EXISTS (SELECT 1 FROM k10s_log d
                  WHERE d.incarnation_uid = l.incarnation_uid AND d.kind IN ('torchrun_failure', 'torchrun_sigterm')
                    AND (d.raw_row, d.line_no) < (l.raw_row, l.line_no)
                    AND NOT EXISTS (SELECT 1 FROM k10s_log t WHERE t.incarnation_uid = l.incarnation_uid AND (t.raw_row, t.line_no) > (d.raw_row, d.line_no)
                                      AND (t.kind = 'nccl_watchdog_timeout' OR (t.kind = 'python_exception' AND regexp_matches(t.error_message,
                                           '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation|\b(?:read|write) timeout\b|application timeout caused pair closure|^operation timed out!')))))
       OR (l.subkind = 'store_wait' AND l.pid IS NOT NULL
           AND EXISTS (SELECT 1 FROM k10s_log e WHERE e.raw_row = l.raw_row AND e.kind = 'torchrun_failure' AND e.pid = l.pid
                         AND e.subkind IN ('failures', 'root_cause', 'table') AND e.line_no < l.line_no)))
UNION ALL BY NAME
-- the TCPStore server timed out at the rendezvous ("Timed out after 7 seconds waiting for clients. 1/2
-- clients joined.") in a job whose processes say they are joining (PyTorch Lightning's "Initializing
-- distributed: GLOBAL_RANK: r, MEMBER: m/N"): the ranks that never said so, when exactly as many as are
-- missing, never joined (subkind store_clients). The host is one of the clients that joined (the store of
-- init_process_group is rank 0's; the rank of the line that says so, where it names one): never named. Only the ranks'
-- own lines say who joined: the host is not counted joined unless it said so (a count without them names no one).
-- A lone client (``1/M clients joined``, M >= 3: the host alone, every other rank absent alike) names no one, as the
-- store-based barrier's lone arriver below: no peer reached the store host, a launch or network fault of the job, not
-- ranks of their own (docs/rules.md, "Session 36: leftovers")
SELECT s.job_key, -1 AS reporter, w.rank, 'store_clients' AS subkind, NULL::BIGINT AS seq_num, s.ts, NULL::VARCHAR AS pg, s.world
FROM (SELECT job_key, min(ts) AS ts, coalesce(min(rank_resolved), 0) AS host,
             TRY_CAST(regexp_extract(error_message, '(\d+)/(\d+) clients joined', 1) AS BIGINT) AS joined,
             TRY_CAST(regexp_extract(error_message, '(\d+)/(\d+) clients joined', 2) AS BIGINT) AS world
      FROM k10s_log
      WHERE kind = 'python_exception' AND job_key IS NOT NULL AND regexp_matches(error_message, 'waiting for clients\. \d+/\d+ clients joined')
      GROUP BY ALL) s,
     (SELECT unnest(range(0, 65536)) AS rank) w
WHERE s.world BETWEEN 2 AND 65536 AND s.joined < s.world AND w.rank < s.world AND w.rank <> s.host
  AND NOT (s.joined = 1 AND s.world >= 3)
  AND NOT EXISTS (SELECT 1 FROM k10s_log j WHERE j.job_key = s.job_key AND j.kind = 'rank_joining' AND j.rank_resolved = w.rank)
  AND (SELECT count(DISTINCT j.rank_resolved) FROM k10s_log j WHERE j.job_key = s.job_key AND j.kind = 'rank_joining' AND j.rank_resolved < s.world) = s.joined
UNION ALL BY NAME
-- c10d's store-based barrier of init_process_group (torch < 2.0): each rank that reached it says so
-- (rank_joining, subkind store_barrier), a waiting one with the world size and how many workers have
-- arrived ("... for rank: r, key: store_based_barrier_key:k (world_size=N, worker_count=c, ...)"). Per
-- barrier key, the ranks of the world never seen reaching it, when exactly as many as the highest count
-- says are missing, never joined (subkind store_barrier, as store_clients). A rank the count leaves out
-- that says in its own line it is initializing (PyTorch Lightning's "Initializing distributed:
-- GLOBAL_RANK: r, ...", any rank_joining but this barrier's) did reach init_process_group: the count is of
-- a split store (another host, two rank 0s), not of missing ranks, and the barrier names no one.
-- A lone arriver (one rank reached the barrier, two or more never did: rank 0 waiting at worker_count=1
-- while the rest are still preparing their data) is the odd one out by being early: the others are late
-- alike, and the count names no one (batch 96)
SELECT b.job_key, -1 AS reporter, w.rank, 'store_barrier' AS subkind, NULL::BIGINT AS seq_num, b.ts, NULL::VARCHAR AS pg, b.world
FROM (SELECT job_key, barrier, min(ts) AS ts, max(nranks) AS world, max(arrived) AS joined,
             list(DISTINCT rank ORDER BY rank) FILTER (WHERE rank IS NOT NULL) AS seen
      FROM (SELECT job_key, rank_resolved AS rank, nranks, ts,
                   regexp_extract(line, 'store_based_barrier_key:(\d+)', 1) AS barrier,
                   TRY_CAST(regexp_extract(line, 'worker_count=(\d+)', 1) AS BIGINT) AS arrived
            FROM k10s_log WHERE kind = 'rank_joining' AND subkind = 'store_barrier' AND job_key IS NOT NULL)
      GROUP BY job_key, barrier) b,
     (SELECT unnest(range(0, 65536)) AS rank) w
WHERE b.world BETWEEN 2 AND 65536 AND b.joined < b.world AND w.rank < b.world AND NOT list_contains(b.seen, w.rank)
  AND len(list_filter(b.seen, lambda r: r < b.world)) = b.joined AND NOT (b.joined = 1 AND b.world - b.joined >= 2)
  AND NOT EXISTS (SELECT 1 FROM k10s_log j WHERE j.job_key = b.job_key AND j.kind = 'rank_joining' AND j.subkind <> 'store_barrier'
                  AND j.rank_resolved < b.world AND NOT list_contains(b.seen, j.rank_resolved))
UNION ALL BY NAME
-- Horovod 0.20's stall warning lists, per stalled tensor, the ranks READY with it (horovod_ready): the
-- job's ranks ready for none of a line's tensors never submitted them (subkind horovod_missing, as the
-- older warning names them); the job's ranks are its known size, else up to the highest rank named
SELECT h.job_key, h.reporter, w.rank, 'horovod_missing' AS subkind, NULL::BIGINT AS seq_num, h.ts, NULL::VARCHAR AS pg, h.world
FROM (SELECT l.job_key, coalesce(l.reporter_rank, -1) AS reporter, l.incarnation_uid, l.raw_row, l.line_no, min(l.ts) AS ts,
             list(DISTINCT l.rank ORDER BY l.rank) AS ready, greatest(coalesce(max(js.gpus), 0), max(l.rank) + 1) AS world
      FROM k10s_log l LEFT JOIN k10s_job_size js ON js.job_key = l.job_key
      WHERE l.kind = 'nccl_desync' AND l.subkind = 'horovod_ready' AND l.job_key IS NOT NULL AND l.rank IS NOT NULL
      GROUP BY ALL) h,
     (SELECT unnest(range(0, 65536)) AS rank) w
WHERE h.world <= 65536 AND w.rank < h.world AND NOT list_contains(h.ready, w.rank);

-- k10s_gloo_wait: gloo's own timeouts of a collective's send/recv (the process group's timeout,
-- 30 min by default), raised as a Python exception by the rank that waited: a peer never sent or
-- received. Wordings (gloo/transport/tcp|uv, PyTorch >= 1.0): "Timed out waiting 1800000ms for
-- recv|send operation to complete", "Read timeout [ip]:port" / "Write timeout", "Application
-- timeout caused pair closure"; c10d's per-call wait on a collective's work
-- (``dist.all_reduce(t, async_op=True).wait(timeout=…)``, Work::wait): "Operation timed out!" (the
-- whole message: macOS's ETIMEDOUT "Operation timed out" has no "!"). A closed or reset connection ("Connection closed by peer") says a
-- peer process ended, not that it hung: not a wait; nor a rendezvous/store timeout.
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE kind = 'python_exception' AND regexp_matches(error_message,
--     '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation|\b(?:read|write) timeout\b|application timeout caused pair closure|^operation timed out!'))
-- empty-columns: job_key VARCHAR, rank BIGINT, ts TIMESTAMPTZ, pod_key VARCHAR, incarnation_uid VARCHAR, raw_row BIGINT, line_no BIGINT,
--     event_id BIGINT, timeout_ms BIGINT
CREATE OR REPLACE TEMP TABLE k10s_gloo_wait AS
SELECT job_key, rank_resolved AS rank, ts, pod_key, incarnation_uid, raw_row, line_no, event_id,
       TRY_CAST(regexp_extract(error_message, 'waiting (\d+) ?ms', 1) AS BIGINT) AS timeout_ms
FROM k10s_log
WHERE kind = 'python_exception' AND job_key IS NOT NULL AND rank_resolved IS NOT NULL
  AND regexp_matches(error_message, '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation|\b(?:read|write) timeout\b|application timeout caused pair closure|^operation timed out!');

-- k10s_wd_lines: every rank's watchdog lines (and, in a job with a gloo wait timeout, its teardown
-- exceptions: it was inside a collective; their op_type is the torch.distributed call their traceback was in,
-- ``all_reduce``, ``barrier``, ``new_group``: parsers/log_owners.py), in the order the rank wrote them.
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary')
--     OR (kind = 'python_exception' AND regexp_matches(error_message, '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation|\b(?:read|write) timeout\b|application timeout caused pair closure|^operation timed out!')))
-- empty-columns: job_key VARCHAR, rank BIGINT, kind VARCHAR, subkind VARCHAR, seq_num BIGINT, op_type VARCHAR, numel_in BIGINT,
--     numel_out BIGINT, last_enqueued_seq BIGINT, last_completed_seq BIGINT, timeout_ms BIGINT, ts TIMESTAMPTZ, pg VARCHAR,
--     incarnation_uid VARCHAR, ord BIGINT
CREATE OR REPLACE TEMP TABLE k10s_wd_lines AS
SELECT job_key, rank_resolved AS rank, kind, subkind, seq_num, op_type, numel_in, numel_out,
       last_enqueued_seq, last_completed_seq, timeout_ms, ts, pg, incarnation_uid,
       -- the order of a rank's lines: by clock, and by position where the lines carry none (a paste)
       row_number() OVER (PARTITION BY job_key, rank_resolved ORDER BY ts NULLS FIRST, raw_row, line_no, event_id) AS ord
FROM (
    SELECT job_key, rank_resolved, kind, subkind, seq_num, op_type, numel_in, numel_out, last_enqueued_seq, last_completed_seq,
           timeout_ms, ts, pg, incarnation_uid, raw_row, line_no, event_id
    FROM k10s_log
    WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') AND job_key IS NOT NULL AND rank_resolved IS NOT NULL
    UNION ALL  -- a job with a gloo wait timeout: every rank's teardown exception (it was inside a collective)
    SELECT l.job_key, l.rank_resolved, 'gloo_wait', l.subkind, NULL, l.op_type, NULL, NULL, NULL, NULL,
           (SELECT max(g.timeout_ms) FROM k10s_gloo_wait g WHERE g.job_key = l.job_key), l.ts, NULL, l.incarnation_uid,
           l.raw_row, l.line_no, l.event_id
    FROM k10s_log l
    WHERE l.kind = 'python_exception' AND l.subkind = 'teardown' AND l.rank_resolved IS NOT NULL
      AND l.job_key IN (SELECT job_key FROM k10s_gloo_wait)
);

-- k10s_peer_closed: the teardown exceptions that say a peer's connection closed or was reset (a peer
-- process ended).
-- empty-unless: EXISTS (SELECT 1 FROM log_events WHERE kind = 'python_exception' AND subkind = 'teardown'
--     AND regexp_matches(error_message, '(?i)connection (?:closed|reset) by peer'))
-- empty-columns: job_key VARCHAR, rank BIGINT, incarnation_uid VARCHAR, ts TIMESTAMPTZ
CREATE OR REPLACE TEMP TABLE k10s_peer_closed AS
SELECT job_key, rank_resolved AS rank, incarnation_uid, ts
FROM k10s_log
WHERE kind = 'python_exception' AND subkind = 'teardown' AND rank_resolved IS NOT NULL
  AND regexp_matches(error_message, '(?i)connection (?:closed|reset) by peer');

-- k10s_logs_desync_ev: the desync-report evidence.
-- empty-without: k10s_desync_lines
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR, pg VARCHAR,
--     seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_logs_desync_ev AS
WITH
desync_report AS (  -- one report per (job, reporter)
    SELECT job_key, reporter, max(world) AS world,
           list(DISTINCT rank ORDER BY rank) AS named,
           bool_and(subkind = 'not_finished') AS only_unfinished,
           min(ts) AS ts, min(seq_num) AS seq_num, arg_min(pg, (ts, pg)) AS pg,  -- the group of its first line
           string_agg(DISTINCT subkind, ',' ORDER BY subkind) AS kinds
    FROM k10s_desync_lines GROUP BY job_key, reporter
),
desync_job AS (
    SELECT job_key,
           list_sort(list_distinct(flatten(list(named) FILTER (WHERE len(named) < world)))) AS culprits,
           bool_and(len(named) >= world) AS everyone,
           count(*) AS reports, max(world) AS world, min(ts) AS ts, min(seq_num) AS seq_num, arg_min(pg, (ts, reporter)) AS pg,
           string_agg(DISTINCT kinds, ',' ORDER BY kinds) AS kinds, min(reporter) AS reporter,
           -- the report names the one other rank of a two-rank world as not joining the collective after the last both finished
           max(world) = 2 AND bool_and(kinds = 'not_joined') AND len(list_distinct(flatten(list(named)))) = 1 AS two_sided
    FROM desync_report GROUP BY job_key
),
desync_dead AS (  -- jobs where a process took a fatal signal (its own handler's words: faulthandler, absl, glog, Open MPI, UCX, tvm_ffi)
                  -- on a line of no rank or of the named rank's: the process that did not join died, the reporter (alive to
                  -- report) made no call more
    SELECT d.job_key, k10s_signal_cause(arg_min(s.exit_code, s.event_id)) AS how
    FROM desync_job d JOIN k10s_log s ON s.job_key = d.job_key
    WHERE s.kind IN ('native_signal', 'process_exit') AND k10s_signal_cause(s.exit_code) IS NOT NULL
      AND s.subkind IN ('faulthandler', 'absl', 'glog_signal', 'ompi', 'ucx', 'tvm_ffi_segfault') AND (s.rank IS NULL OR list_contains(d.culprits, s.rank))
    GROUP BY d.job_key
),
desync_ev AS (
    SELECT job_key, 'desync-report' AS evidence,
           CASE WHEN everyone THEN []::BIGINT[] ELSE list_sort(culprits) END AS culprit_ranks,
           []::BIGINT[] AS suspect_ranks,
           -- a world of two: `[1] finished collective #2, but didn't join collective #3` is as much the reporter calling one
           -- collective more (an extra call of its own) as the named rank one behind; no third rank makes a majority, so
           -- the report is said (low: info), not charged (docs/rules.md, "Session 19: controls")
           -- a waiter's wait for rank 0 under main_process_first says rank 0 was still working, not why (medium)
           CASE WHEN everyone THEN 'none' WHEN two_sided AND job_key NOT IN (SELECT job_key FROM desync_dead) THEN 'low'
                WHEN kinds = 'main_first' THEN 'medium' WHEN len(culprits) * 2 <= world THEN 'high' ELSE 'medium' END AS confidence,
           pg, seq_num, NULL::VARCHAR AS op_type, ts,
           CASE WHEN everyone
                THEN 'the desync report (rank ' || reporter || ') says every rank (' || world || ') joined collective #' || coalesce(seq_num::VARCHAR, '?')
                     || ' but none finished it: no rank lagged, so it names no culprit (look at the network, NCCL or a GPU fault)'
                ELSE 'the desync report (' || CASE WHEN reporter >= 0 THEN 'rank ' || reporter ELSE 'a rank' END || ', ' || reports || ' report(s)) names ' || array_to_string(list_sort(culprits), ', ')
                     || ' as the lagging/dead/mismatched rank(s) (' || kinds || ')'
                     || CASE WHEN two_sided AND job_key IN (SELECT job_key FROM desync_dead)
                             THEN '; with two ranks, and a process dead of a fatal signal on no other rank''s line: the rank that did not join died ('
                                  || (SELECT how FROM desync_dead dd WHERE dd.job_key = desync_job.job_key) || ')'
                             WHEN two_sided THEN '; with two ranks, the one that did not join the next collective and the one that called '
                                                 || 'one collective more are the same report: no majority says which diverged' ELSE '' END
           END AS detail
    FROM desync_job
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM desync_ev;

-- k10s_logs_watchdog_ev: the watchdog-compare evidence of the watchdog (and gloo wait) lines: odd ranks and silent ones.
-- empty-without: k10s_wd_lines
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR, pg VARCHAR,
--     seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_logs_watchdog_ev AS
WITH
wd_rank0 AS (  -- per job and rank: the work it timed out on and its PG status
    SELECT job_key, rank,
           coalesce(arg_max(pg, ord) FILTER (WHERE pg IS NOT NULL), '') AS pg,
           -- else torch >= 2.4's `Exception (either an error or timeout) detected by watchdog at work: W` (session 60)
           coalesce(arg_max(seq_num, ord) FILTER (WHERE kind = 'nccl_watchdog_timeout' AND seq_num IS NOT NULL),
                    arg_max(seq_num, ord) FILTER (WHERE subkind = 'exception_detected' AND seq_num IS NOT NULL)) AS seq,
           arg_max(op_type, ord) FILTER (WHERE op_type IS NOT NULL) AS op,
           arg_max(numel_in, ord) FILTER (WHERE numel_in IS NOT NULL) AS numel_in,
           arg_max(numel_out, ord) FILTER (WHERE numel_out IS NOT NULL) AS numel_out,
           max(last_enqueued_seq) AS enq, max(last_completed_seq) AS cmp,
           min(ts) AS ts, max(timeout_ms) AS timeout_ms
    FROM k10s_wd_lines GROUP BY job_key, rank
),
wd_rank AS (  -- a rank whose lines name no PG (older wordings) is in the job's only named PG, if it has one
    SELECT w.* REPLACE (CASE WHEN w.pg = '' AND j.pgs = 1 THEN j.pg1 ELSE w.pg END AS pg)
    FROM wd_rank0 w
    LEFT JOIN (SELECT job_key, count(DISTINCT pg) FILTER (WHERE pg <> '') AS pgs, max(pg) FILTER (WHERE pg <> '') AS pg1
               FROM wd_rank0 GROUP BY job_key) j USING (job_key)
),
wd_seq AS (  -- per job and PG: the collective most ranks timed out on
    SELECT job_key, pg, count(*) AS n,
           -- ties: the lowest SeqNum, the first OpType by name
           mode(seq ORDER BY seq) AS m_seq, mode(op ORDER BY op) AS m_op,
           count(*) FILTER (WHERE seq IS NOT NULL) AS n_seq
    FROM wd_rank GROUP BY job_key, pg
),
wd_at AS (  -- the ranks in that collective (at its SeqNum; by OpType when no line has one)
    SELECT w.* FROM wd_rank w JOIN wd_seq m USING (job_key, pg)
    WHERE (m.m_seq IS NOT NULL AND w.seq = m.m_seq) OR (m.m_seq IS NULL AND w.op = m.m_op)
),
wd_size0 AS (  -- its size: the one most of the ranks in it print (ties: the smallest)
    SELECT job_key, pg, mode(numel_in ORDER BY numel_in) AS m_in, mode(numel_out ORDER BY numel_out) AS m_out,
           count(numel_in) AS k_in, count(numel_out) AS k_out
    FROM wd_at GROUP BY job_key, pg
),
wd_size AS (  -- ... and whether they agree on it: a strict majority of those that print one (batch 139)
    SELECT s.job_key, s.pg, s.m_in, s.m_out,
           (s.k_in = 0 OR count(*) FILTER (WHERE a.numel_in = s.m_in) * 2 > s.k_in)
               AND (s.k_out = 0 OR count(*) FILTER (WHERE a.numel_out = s.m_out) * 2 > s.k_out) AS agree
    FROM wd_size0 s JOIN wd_at a USING (job_key, pg)
    GROUP BY s.job_key, s.pg, s.m_in, s.m_out, s.k_in, s.k_out
),
wd_mode0 AS (
    SELECT m.*, s.m_in, s.m_out, coalesce(s.agree, true) AS agree
    FROM wd_seq m LEFT JOIN wd_size s USING (job_key, pg)
),
wd_mode AS (  -- ... held by a strict majority of the PG's reporting ranks (by OpType when no line has a SeqNum: PyTorch <= 1.10),
    -- who agree on its size: ranks that called one SeqNum with different sizes already mismatch among themselves, so
    -- the rank off their SeqNum is not the one out of step, and neither side of the split can be told (batch 139)
    SELECT m.* FROM wd_mode0 m JOIN wd_rank w USING (job_key, pg)
    WHERE (m.n_seq >= 2 OR (m.n_seq = 0 AND m.m_op IS NOT NULL)) AND m.agree
    GROUP BY ALL
    HAVING (m.n_seq >= 2 AND count(*) FILTER (WHERE w.seq = m.m_seq) * 2 > m.n)
        OR (m.n_seq = 0 AND count(*) FILTER (WHERE w.op = m.m_op) * 2 > m.n AND count(*) FILTER (WHERE w.op IS NOT NULL) >= 2)
),
wd_odd AS (
    SELECT w.job_key, w.pg, w.rank, m.m_seq, m.m_op, w.ts, m.n,
           CASE
               WHEN w.seq = m.m_seq AND w.op IS NOT NULL AND m.m_op IS NOT NULL AND w.op <> m.m_op THEN 'op-mismatch'
               WHEN w.seq = m.m_seq AND ((w.numel_in <> m.m_in) OR (w.numel_out <> m.m_out)) THEN 'size-mismatch'
               WHEN w.enq IS NOT NULL AND m.m_seq IS NOT NULL AND w.enq < m.m_seq THEN 'behind'
               -- an earlier SeqNum than the others', in a collective of another OpType or size than theirs: the others
               -- completed that SeqNum, which they cannot do without it, so NCCL paired its call with another of theirs
               -- (the smaller finished, the larger waits): a collective mismatch, as op-/size-mismatch (session 30)
               WHEN w.seq < m.m_seq AND ((w.op IS NOT NULL AND m.m_op IS NOT NULL AND w.op <> m.m_op)
                                         OR w.numel_in <> m.m_in OR w.numel_out <> m.m_out) THEN 'seq-mismatch'
               WHEN w.seq IS NOT NULL AND w.seq <> m.m_seq THEN 'desync'
               -- tracebacks' calls (lower case, no SeqNum: a gloo job): the odd rank was not in the call its peers were
               -- in; where they were creating a group, it never joined that group
               -- in a barrier while its peers were in the training step's gradient all-reduce (DDP's, under
               -- `loss.backward()`: op `backward`): it had left the steps (its data ran out, its loop ended early) and
               -- waits where the job ends, so it never joins theirs (docs/rules.md, "Session 41: the forty-third launcher set")
               WHEN m.m_seq IS NULL AND w.op <> m.m_op AND regexp_matches(w.op || m.m_op, '^[a-z_0-9]+$')
                   THEN CASE WHEN m.m_op IN ('new_group', 'new_subgroups', 'new_subgroups_by_enumeration', 'init_process_group',
                                             'init_device_mesh', 'split_group') THEN 'never-joined'
                             WHEN m.m_op = 'backward' AND w.op IN ('barrier', 'monitored_barrier') THEN 'never-joined'
                             ELSE 'collective-mismatch' END
               WHEN m.m_seq IS NULL AND w.op IS NOT NULL AND w.op <> m.m_op THEN 'desync'
           END AS why,
           -- a SeqNum past the one most ranks wait in: the rank completed that collective, its part done
           coalesce(w.seq > m.m_seq, false) AS ahead,
           'rank ' || w.rank || ': SeqNum ' || coalesce(w.seq::VARCHAR, '?') || ' ' || coalesce(w.op, '?')
               || coalesce(' NumelIn=' || w.numel_in, '') || coalesce(' NumelOut=' || w.numel_out, '')
               || coalesce(', last enqueued ' || w.enq, '') AS own
    FROM wd_rank w JOIN wd_mode m USING (job_key, pg)
),
wd_cat AS (
    SELECT job_key, why, list(rank ORDER BY rank) AS ranks,  -- the group and mode of the lowest odd rank
           arg_min(pg, rank) AS pg, arg_min(m_seq, rank) AS seq_num, arg_min(m_op, rank) AS op_type,
           min(ts) AS ts, max(n) AS n, string_agg(own, '; ' ORDER BY rank, own) AS own, bool_and(ahead) AS ahead
    FROM wd_odd WHERE why IS NOT NULL
    GROUP BY job_key, why
),
wd_ev AS (
    SELECT job_key, 'watchdog-compare' AS evidence, ranks AS culprit_ranks, []::BIGINT[] AS suspect_ranks,
           CASE WHEN why IN ('op-mismatch', 'size-mismatch') AND n >= 3 AND len(ranks) * 3 <= n THEN 'high'
                WHEN why IN ('op-mismatch', 'size-mismatch') AND n < 3 THEN 'low'
                -- ranks ahead of the rest passed the collective the others hang in: being ahead is no fault the
                -- reports can prove (the one holding that collective up may be a rank they do not show)
                WHEN why = 'desync' AND ahead THEN 'low'
                -- no SeqNum (PyTorch <= 1.10): a rank in another OpType cannot be placed at the others' sequence
                -- point; at an epoch's end with uneven batch counts the rank still holding data sits in the gradient
                -- all-reduce while the rest have moved on: a suspect, not a culprit (docs/rules.md, session 30)
                WHEN why = 'desync' AND seq_num IS NULL THEN 'low'
                ELSE 'medium' END AS confidence,
           pg, seq_num, op_type, ts,
           CASE WHEN seq_num IS NULL AND regexp_matches(op_type, '^[a-z_0-9]+$')  -- tracebacks' calls
                THEN why || ': ' || n || ' ranks'' tracebacks name the torch.distributed call they were in; most were in ' || op_type
                     || CASE WHEN op_type = 'backward' THEN ' (DDP''s gradient all-reduce)' ELSE '' END || ', but '
                     || regexp_replace(own, 'SeqNum \? ', 'in ', 'g')
                ELSE why || ': ' || n || ' ranks timed out; most on SeqNum ' || coalesce(seq_num::VARCHAR, '?') || ' ' || coalesce(op_type, '?') || ', but ' || own END AS detail
    FROM wd_cat
    WHERE len(ranks) * 2 < n  -- the odd ranks are a strict minority
),
wd_alive AS (  -- ranks of the job alive when the collective hung, and whether their log is whole:
    -- a captured pod that logged anything; in a pod `import-logs` made up from a paste, when the paste
    -- shows one waiting rank only, a line of the rank's own or its launcher's failure report (one
    -- rank's report is no proof that the others' output is in the paste at all)
    SELECT r.job_key, r.rank,
           r.pod_uid IN (SELECT incarnation_uid FROM k10s_log WHERE incarnation_uid IS NOT NULL)
           AND (r.pod_uid NOT IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
                OR w.reporting > 1
                OR EXISTS (SELECT 1 FROM k10s_log x WHERE x.incarnation_uid = r.pod_uid
                           -- NCCL's `Connection closed by localRank N` is another process's line about N, and so is a
                           -- report's line naming N (a desync report's `[1] finished collective #2, but didn't join …`,
                           -- whoever printed it; a fingerprint's `Rank 1 is running …` of another reporter): docs/rules.md,
                           -- "Session 19: controls"
                           AND ((x.rank_resolved = r.rank AND coalesce(x.kind NOT IN ('nccl_peer_closed', 'nccl_desync'), true)
                                 AND coalesce(x.reporter_rank = x.rank_resolved, true))
                                -- its node launcher's failure report: torchrun's, or another launcher's (the
                                -- parent's `process N terminated …` of mp.spawn, mpirun's, Horovod's, Lightning's,
                                -- DeepSpeed's last command): the paste holds the node's console, not one rank's lines
                                OR x.kind = 'torchrun_failure'
                                OR (x.kind = 'process_exit' AND x.subkind IN ('spawn', 'mpirun_first', 'mpirun_noticed',
                                    'horovod', 'pals_mpiexec', 'lightning_child', 'launcher_last_cmd', 'composer',
                                    'paddle_container'))))) AS has_logs,
           -- a rank of a pasted pod with no line of its own: only the job's size (often guessed from the
           -- highest rank the paste shows) says it exists at all
           r.pod_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
           AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.incarnation_uid = r.pod_uid AND x.rank_resolved = r.rank
                           AND coalesce(x.kind NOT IN ('nccl_peer_closed', 'nccl_desync'), true)
                           AND coalesce(x.reporter_rank = x.rank_resolved, true)) AS unseen
    FROM k10s_rank r
    JOIN (SELECT job_key, min(ts) AS t0, max(ts) AS t1, max(timeout_ms) AS tmo, count(DISTINCT rank) AS reporting
          FROM wd_rank GROUP BY job_key) w
      ON w.job_key = r.job_key
     AND (w.t0 IS NULL  -- the watchdog lines carry no clock (a paste): every rank of the job
          OR (w.t0 - to_milliseconds(coalesce(w.tmo, 600000)) - INTERVAL 10 MINUTE <= r.valid_to AND r.valid_from <= w.t1))
    QUALIFY row_number() OVER (PARTITION BY r.job_key, r.rank ORDER BY r.valid_from DESC, r.pod_key, r.pod_uid) = 1
),
lost_pod AS (  -- every rank of a pod whose launcher never reported (no failure report, no SIGTERM of its workers) while
              -- another pod's launcher reported its workers' failures: the node was lost with its launcher (killed,
              -- frozen), and its ranks' silence is no proof that they hung (docs/rules.md, "seventeenth set")
    SELECT r.job_key, list(DISTINCT r.rank ORDER BY r.rank) AS ranks
    FROM k10s_rank r
    WHERE NOT EXISTS (SELECT 1 FROM k10s_log f WHERE f.incarnation_uid = r.pod_uid AND f.kind IN ('torchrun_failure', 'torchrun_sigterm'))
      AND EXISTS (SELECT 1 FROM k10s_rank o JOIN k10s_log f ON f.incarnation_uid = o.pod_uid
                  WHERE o.job_key = r.job_key AND o.pod_uid <> r.pod_uid AND f.kind = 'torchrun_failure')
    GROUP BY r.job_key, r.pod_uid
),
silent AS (  -- ranks that never logged a watchdog line while most ranks of the job timed out
    SELECT a.job_key, list(a.rank ORDER BY a.rank) AS ranks,
           (SELECT count(*) FROM wd_rank w WHERE w.job_key = a.job_key) AS reporting,
           (SELECT count(*) FROM wd_alive b WHERE b.job_key = a.job_key) AS alive,
           (SELECT mode(seq ORDER BY seq) FROM wd_rank w WHERE w.job_key = a.job_key) AS seq_num,
           (SELECT mode(op ORDER BY op) FROM wd_rank w WHERE w.job_key = a.job_key) AS op_type,
           (SELECT min(ts) FROM wd_rank w WHERE w.job_key = a.job_key) AS ts,
           bool_and(a.unseen) AS unseen,
           -- the waiters' reports are uneven: a line of the watchdog's report that follows its timeout (its
           -- `Exception … detected by watchdog`, `Some NCCL operations have failed`) is in the paste for one waiter
           -- and not for another: the paste does not hold every line the ranks printed (cut, or picked), so a
           -- rank it never shows may have been cut with them
           (SELECT count(DISTINCT (x.kind, x.subkind)) FROM k10s_log x
            WHERE x.job_key = a.job_key AND x.kind IN ('watchdog_exception_summary', 'nccl_error_other')
              AND x.subkind IN ('exception_detected', 'async_error_teardown')
              AND x.rank_resolved IN (SELECT w.rank FROM wd_rank w WHERE w.job_key = a.job_key)
              AND (SELECT count(DISTINCT y.rank_resolved) FROM k10s_log y WHERE y.job_key = x.job_key AND y.kind = x.kind
                   AND y.subkind = x.subkind AND y.rank_resolved IN (SELECT w.rank FROM wd_rank w WHERE w.job_key = a.job_key))
                  < (SELECT count(DISTINCT w.rank) FROM wd_rank w WHERE w.job_key = a.job_key)) > 0 AS uneven,
           -- the waiters of one process group timed out on different collectives (one SeqNum past another's: it passed
           -- the collective the others wait in): they were not all in one collective, so a rank absent from their
           -- reports may be with either (SeqNums of different groups count apart: they are not compared)
           EXISTS (SELECT 1 FROM wd_rank w WHERE w.job_key = a.job_key AND w.seq IS NOT NULL
                   GROUP BY w.pg HAVING count(DISTINCT w.seq) > 1)
           -- ... or, in lines without a SeqNum (PyTorch <= 1.10), on different OpTypes (docs/rules.md, session 30)
           OR EXISTS (SELECT 1 FROM wd_rank w WHERE w.job_key = a.job_key AND w.seq IS NULL
                      AND regexp_matches(w.op, '^[A-Z_0-9]+$')
                      GROUP BY w.pg HAVING count(DISTINCT w.op) > 1) AS apart
    FROM wd_alive a
    WHERE a.has_logs AND NOT EXISTS (SELECT 1 FROM wd_rank w WHERE w.job_key = a.job_key AND w.rank = a.rank)
      -- the reporters' tracebacks were in different torch.distributed calls (a gloo job): they did not wait in
      -- one collective, so a rank that said nothing is no more absent from it than they were
      AND (SELECT count(DISTINCT w.op) FROM wd_rank w WHERE w.job_key = a.job_key AND regexp_matches(w.op, '^[a-z_0-9]+$')) < 2
      -- a rank that raised in pipelining's shape inference (parsers/log_shape_inference.py) failed in the stages' first
      -- hand-over, the one the others wait on: not silent (which stage of the hand-over is wrong no line says)
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = a.job_key AND x.rank_resolved = a.rank AND x.kind = 'python_exception'
                      AND starts_with(coalesce(x.error_message, ''), 'raised in pipelining''s shape inference'))
      -- a rank that died of SIGABRT was taken down by its own watchdog: not silent, only unlogged
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = a.job_key AND x.rank_resolved = a.rank
                      AND x.kind IN ('torchrun_failure', 'process_exit') AND x.exit_code IN (-6, 134))
      -- (session 72) a rank known only by its exit status, every such exit one more wait's (k10s_wait_exit_alike: it came
      -- when a shown rank's gloo wait ran out, or no clock orders them): it may have waited as they did; not silent
      AND NOT (EXISTS (SELECT 1 FROM k10s_wait_exit_alike we WHERE we.job_key = a.job_key AND we.rank_eff = a.rank)
               AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = a.job_key AND x.rank_resolved = a.rank
                               AND x.kind = 'torchrun_failure' AND x.exit_code > 0
                               AND x.event_id NOT IN (SELECT event_id FROM k10s_wait_exit_alike)))
    GROUP BY a.job_key
),
silent_ev AS (
    SELECT job_key, 'watchdog-compare' AS evidence, ranks AS culprit_ranks, []::BIGINT[] AS suspect_ranks,
           -- a pair: the one rank that timed out waited for the only other one; ranks a paste never shows
           -- are silent only where the waiters outnumber them more than two to one (two waiters of a guessed
           -- three-rank job are no proof the third exists)
           CASE WHEN unseen AND (uneven OR apart) THEN 'low'
                WHEN len(ranks) * 2 < reporting OR (len(ranks) * 2 = reporting AND NOT unseen)
                     OR (len(ranks) = 1 AND reporting = 1 AND alive = 2) THEN 'medium' ELSE 'low' END AS confidence,
           NULL::VARCHAR AS pg, seq_num, op_type, ts,
           'never-joined: ' || reporting || CASE WHEN job_key IN (SELECT job_key FROM k10s_gloo_wait) THEN ' ranks timed out in gloo or saw its connection close'
                                                   ELSE ' ranks timed out in the watchdog' END
               -- no SeqNum and no op (PyTorch 1.9's watchdog, 2.14's nccl2): none shown
               || CASE WHEN seq_num IS NULL AND op_type IS NULL THEN '' ELSE ' (SeqNum ' || coalesce(seq_num::VARCHAR, '?') || ' ' || coalesce(op_type, '?') || ')' END
               || ' while rank(s) ' || array_to_string(ranks, ', ') || ' never reported it' AS detail
    FROM silent WHERE (len(ranks) < reporting OR (len(ranks) = 1 AND reporting = 1 AND alive = 2))
      AND NOT EXISTS (SELECT 1 FROM lost_pod l WHERE l.job_key = silent.job_key AND l.ranks = silent.ranks AND len(l.ranks) > 1)
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM (SELECT * FROM wd_ev UNION ALL BY NAME SELECT * FROM silent_ev);

-- k10s_logs_lost_peer_ev: a rank every other rank saw go, that ended without a word.
-- empty-without: k10s_peer_closed
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR, pg VARCHAR,
--     seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_logs_lost_peer_ev AS
WITH
restarted AS (  -- logs whose torchrun agent reported failed workers more than once (it restarted them): its first report
    SELECT raw_row, min(line_no) AS first_report FROM k10s_log
    WHERE kind = 'torchrun_failure' AND subkind = 'agent' GROUP BY raw_row HAVING count(*) > 1
),
lost_peer AS (  -- every rank of the job but one raised "the connection closed" (a peer process ended) and
                -- that one is nowhere: no line, no exit in its launcher's failure report although that
                -- launcher reported (it was alive), or, no launcher reporting in the job, a process of its own
                -- pod saw it go (the pod outlived it), or it ran alone in its pod without a launcher (one
                -- process per pod: the pod's log is the process's own, and it ends without an error), or its
                -- pod's agent reaped a worker for an expired timer:
                -- the process that ended without a word (an early exit 0, a SIGKILL no launcher reports)
    SELECT r.job_key, list(r.rank ORDER BY r.rank) AS ranks, min(c.ts) AS ts, min(c.reporters) AS reporters
    FROM (SELECT job_key, rank, pod_uid, count(*) OVER (PARTITION BY job_key) AS world,
                 count(*) OVER (PARTITION BY job_key, pod_uid) AS pod_ranks FROM k10s_rank
          QUALIFY row_number() OVER (PARTITION BY job_key, rank ORDER BY valid_from DESC, pod_key, pod_uid) = 1) r
    -- the ranks accounted for: those that raised it, and those their launcher stopped in its teardown (its report's one
    -- exit for them a SIGTERM, not a line of their own: a console filtered by --local-ranks-filter shows none); they went
    -- with the job, not before it
    JOIN (SELECT job_key, count(DISTINCT rank) FILTER (WHERE closed) AS reporters, count(DISTINCT rank) AS accounted,
                 min(ts) FILTER (WHERE closed) AS ts
          FROM (SELECT job_key, rank, ts, true AS closed FROM k10s_peer_closed
                UNION ALL
                SELECT f.job_key, f.rank_resolved, NULL, false FROM k10s_log f
                WHERE f.kind = 'torchrun_failure' AND f.exit_code = -15 AND f.rank_resolved IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = f.job_key AND x.rank_resolved = f.rank_resolved
                                  AND (x.kind IN ('python_exception', 'process_exit', 'cuda_error', 'cuda_oom', 'nccl_error_other',
                                                  'nccl_remote_error', 'nccl_watchdog_timeout', 'watchdog_exception_summary')
                                       OR (x.kind = 'torchrun_failure' AND coalesce(x.exit_code, 0) <> -15))))
          GROUP BY job_key) c
      ON c.job_key = r.job_key AND c.accounted + 1 = r.world AND c.reporters >= 2
    WHERE (EXISTS (SELECT 1 FROM k10s_log f WHERE f.incarnation_uid = r.pod_uid AND f.kind = 'torchrun_failure')
           OR (r.pod_ranks = 1 AND NOT EXISTS (SELECT 1 FROM k10s_log f WHERE f.job_key = r.job_key
                                                AND f.kind IN ('torchrun_failure', 'torchrun_sigterm', 'process_exit')))
           -- in a job where no launcher report names a process (mpiexec's banner: an exit code), another process of
           -- its own pod raised that a peer's connection closed: the pod (its node) outlived it, it was not lost with it
           OR (r.pod_ranks > 1 AND EXISTS (SELECT 1 FROM k10s_peer_closed f WHERE f.incarnation_uid = r.pod_uid AND f.rank <> r.rank)
               AND NOT EXISTS (SELECT 1 FROM k10s_log f WHERE f.job_key = r.job_key  -- a report that names a process
                               AND f.kind IN ('torchrun_failure', 'torchrun_sigterm', 'process_exit')
                               AND coalesce(f.rank_resolved, f.local_rank, f.pid) IS NOT NULL))
           -- its pod's agent reaped a worker whose torchelastic timer ran out (it hung in the timed scope), then
           -- killed itself (the file-timer watchdog: no failure report follows): the pod's one silent rank is that worker
           OR (r.pod_ranks > 1 AND EXISTS (SELECT 1 FROM k10s_log f WHERE f.incarnation_uid = r.pod_uid AND f.kind = 'timer_reaped')))
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = r.job_key AND x.rank_resolved = r.rank
                      AND x.kind IN ('python_exception', 'python_traceback', 'torchrun_failure', 'process_exit', 'cuda_error', 'cuda_oom',
                                     'nccl_error_other', 'nccl_remote_error', 'nccl_watchdog_timeout', 'watchdog_exception_summary')
                      -- a line of a restarted attempt (after its agent's first report, in a log where the agent reported
                      -- again) says nothing of how the rank ended in the attempt its peers saw it leave
                      AND NOT EXISTS (SELECT 1 FROM restarted rs WHERE rs.raw_row = x.raw_row AND x.line_no > rs.first_report))
      AND r.job_key NOT IN (SELECT job_key FROM k10s_gloo_wait)
    GROUP BY r.job_key
    HAVING count(*) = 1
),
lost_ev AS (
    SELECT job_key, 'watchdog-compare' AS evidence, ranks AS culprit_ranks, []::BIGINT[] AS suspect_ranks, 'medium' AS confidence,
           NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type, ts,
           'never-joined: ' || reporters || ' ranks saw the connection to a peer close while rank ' || ranks[1]
               || ' ended without a line of its own (no error, no failure in its launcher''s report)' AS detail
    FROM lost_peer
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM lost_ev;

-- k10s_logs_late_peer_ev: a rank that reached the collective after its peers had given up waiting in gloo.
-- empty-without: k10s_gloo_wait
-- empty-columns: job_key VARCHAR, evidence VARCHAR, culprit_ranks BIGINT[], suspect_ranks BIGINT[], confidence VARCHAR, pg VARCHAR,
--     seq_num BIGINT, op_type VARCHAR, ts TIMESTAMPTZ, detail VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_logs_late_peer_ev AS
WITH
late_peer AS (  -- every rank of the job but one timed out waiting in gloo, and that one raised only that its
                -- peer's connection closed or was reset, after the last of those timeouts (or in a log without a
                -- clock): it was not in the collective when they gave up (a stalled rank no launcher killed, one
                -- process per pod); it reached the collective after its peers had exited
    SELECT r.job_key, r.rank, w.waiters, t.first_ts
    FROM (SELECT job_key, rank, count(*) OVER (PARTITION BY job_key) AS world FROM k10s_rank
          QUALIFY row_number() OVER (PARTITION BY job_key, rank ORDER BY valid_from DESC, pod_key, pod_uid) = 1) r
    JOIN (SELECT job_key, count(DISTINCT rank) AS waiters, max(ts) AS last_ts, count(ts) AS clocked
          FROM k10s_gloo_wait GROUP BY job_key) w ON w.job_key = r.job_key AND w.waiters + 1 = r.world
    JOIN (SELECT job_key, rank_resolved AS rank, min(ts) AS first_ts, count(ts) AS clocked,
                 bool_and(subkind = 'teardown' AND regexp_matches(error_message, '(?i)connection (?:closed|reset) by peer')) AS only_closed
          FROM k10s_log
          WHERE rank_resolved IS NOT NULL AND job_key IS NOT NULL
            AND kind IN ('python_exception', 'torchrun_failure', 'process_exit', 'cuda_error', 'cuda_oom',  -- a traceback's start is no failure
                         'nccl_error_other', 'nccl_remote_error', 'nccl_watchdog_timeout', 'watchdog_exception_summary')
            -- nor its launcher's report that it ended by SIGTERM (torchrun's table, `exitcode : -15`): the agent tearing
            -- the late rank down once the waiters had failed, after the rank saw their connections close (a rank that
            -- woke before its agent's SIGTERM reached it: a fresh sample of the forty-fourth and forty-fifth sets)
            AND NOT (kind IN ('torchrun_failure', 'process_exit') AND exit_code = -15)
          GROUP BY ALL) t ON t.job_key = r.job_key AND t.rank = r.rank AND t.only_closed
    WHERE r.rank NOT IN (SELECT g.rank FROM k10s_gloo_wait g WHERE g.job_key = r.job_key)
      AND ((w.clocked = 0 AND t.clocked = 0
            -- without a clock, the lines' order in a log body: none of its closed-connection lines above a waiter's
            -- timeout in the same log (a rank that saw a peer leave before the waiters gave up was no late arrival:
            -- the thirty-second set's mismatched broadcast)
            AND NOT EXISTS (SELECT 1 FROM k10s_log c JOIN k10s_gloo_wait g2
                                ON g2.job_key = c.job_key AND g2.raw_row = c.raw_row AND g2.line_no > c.line_no
                            WHERE c.job_key = r.job_key AND c.rank_resolved = r.rank AND c.kind = 'python_exception'
                              AND c.subkind = 'teardown'))
           OR t.first_ts > w.last_ts + INTERVAL 1 SECOND)
),
late_ev AS (
    SELECT job_key, 'watchdog-compare' AS evidence, [rank] AS culprit_ranks, []::BIGINT[] AS suspect_ranks, 'medium' AS confidence,
           NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type, first_ts AS ts,
           'never-joined: ' || waiters || ' ranks timed out waiting in gloo while rank ' || rank
               || ' did not wait with them: it saw its peers'' connections closed only after they had given up' AS detail
    FROM late_peer
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM late_ev;

-- k10s_hang_evidence_logs: the three families side by side (each created empty, unbound, on a bundle
-- without its lines: analyze/viewplan.py).
CREATE OR REPLACE TEMP TABLE k10s_hang_evidence_logs AS
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail
FROM (
    SELECT * FROM k10s_logs_lost_peer_ev
    UNION ALL BY NAME SELECT * FROM k10s_logs_late_peer_ev
    UNION ALL BY NAME SELECT * FROM k10s_logs_desync_ev
    UNION ALL BY NAME SELECT * FROM k10s_logs_fingerprint_ev
    UNION ALL BY NAME SELECT * FROM k10s_logs_watchdog_ev
);
