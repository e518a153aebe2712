-- Each incident's own failures and its first failing rank (docs/rules.md "Incidents"), read by
-- _incident_common_mode.sql and _incident.sql: the steps of k10s_incident that several later steps read,
-- each a table of its own (k10s_incident reads them back under their step names).

-- k10s_incident_hang: when the collective the watchdogs timed out on started
-- empty-without: k10s_incident_line
-- empty-columns: job_key VARCHAR, incident BIGINT, hang_started_at TIMESTAMPTZ, wait_ms BIGINT, watchdog_victims BIGINT
CREATE OR REPLACE TEMP TABLE k10s_incident_hang AS
SELECT job_key, incident, min(span_start) AS hang_started_at, max(ran_for_ms) AS wait_ms,
       -- torch >= 2.4's `Exception (either an error or timeout) detected by watchdog at work: W` is a wait on W too
       count(DISTINCT rank_eff) FILTER (WHERE kind = 'nccl_watchdog_timeout' OR subkind = 'exception_detected') AS watchdog_victims
FROM k10s_incident_line WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') GROUP BY ALL;

-- k10s_incident_restarted: per log: the last agent line after which a later attempt failed on its own
-- empty-without: k10s_incident_line
-- empty-columns: raw_row BIGINT, line_no BIGINT
CREATE OR REPLACE TEMP TABLE k10s_incident_restarted AS
WITH agent_lines AS (  -- torchrun agents' "failed (exitcode: …)" lines, and whether the same log has a later one
    SELECT job_key, incident, raw_row, line_no, ts_filled, line_no < max(line_no) OVER (PARTITION BY raw_row) AS later_agent
    FROM k10s_incident_line WHERE kind = 'torchrun_failure' AND subkind = 'agent'
)
SELECT a.raw_row, max(a.line_no) AS line_no
FROM agent_lines a JOIN k10s_incident_line y ON y.job_key = a.job_key AND y.incident = a.incident
WHERE y.role = 'own' AND y.tier = 1
  AND (y.kind IN ('python_exception', 'cuda_error', 'cuda_oom', 'nccl_error_other')
       -- or an agent's own report of a later attempt's worker ending by a signal (`failed (exitcode: -9)`): one
       -- agent line per attempt, so one after the earlier report is another attempt's (twenty-third launcher set)
       OR (y.kind = 'torchrun_failure' AND y.subkind = 'agent' AND y.line_no <> a.line_no))
  -- in another log: only where this log shows the restart (its agent reported a later attempt's failure
  -- too); an agent's one report is the end of a job without restarts, after which a peer may still raise
  AND CASE WHEN y.raw_row = a.raw_row THEN y.line_no > a.line_no ELSE y.ts_filled > a.ts_filled AND a.later_agent END
  -- not past the agent's failure table (`Root Cause (first observed failure)`): the agent prints it when it gives up,
  -- restarting nothing; an exception below it is another program's (an outer launcher's `JobException` once its
  -- trainer ended), unless a later agent line shows another attempt (docs/rules.md, "Session 22: batch 59")
  AND (a.later_agent OR NOT EXISTS (SELECT 1 FROM k10s_log s WHERE s.raw_row = a.raw_row AND s.kind = 'torchrun_failure'
                                    AND s.subkind = 'root_cause' AND s.line_no > a.line_no
                                    AND (y.raw_row <> a.raw_row OR s.line_no < y.line_no)))
GROUP BY a.raw_row;

-- k10s_wait_exit_alike: a rank known only by its exit status (a launcher's report, a failure table's bare entry) whose
--   exit a shown rank's gloo wait timing out explains: one more wait's exit, no failure of its own (read by
--   k10s_incident_own, which drops it, and by the hang evidence: such a rank is no silent one, nccl-hang's no
--   'rank-failed'; docs/rules.md "Session 72: a waiter's quoted timeout in a failure table is a wait")
-- empty-without: k10s_incident_line
-- empty-columns: event_id BIGINT, job_key VARCHAR, rank_eff BIGINT
CREATE OR REPLACE TEMP TABLE k10s_wait_exit_alike AS
WITH wait_at AS (  -- a shown rank's gloo wait timing out (`Timed out waiting 3000ms for recv operation to complete`) and when:
              -- its line's own clock, else (session 71) the time of its rank's entry in a launcher's failure table whose
              -- `traceback :` field (torch's @record error file, written as the exception was raised) ends in the same
              -- exception: the table's own clock for that error, in logs imported without the log shipper's stamps
    SELECT w.job_key, w.rank_resolved, w.raw_row,
           coalesce(w.ts, (SELECT min(t.ts) FROM k10s_log t WHERE t.job_key = w.job_key AND t.kind = 'torchrun_failure'
                                  AND t.rank_resolved = w.rank_resolved AND t.ts IS NOT NULL
                                  AND contains(t.line, '
  ' || w.error_type || ': ' || w.error_message))) AS at
    FROM k10s_log w WHERE w.rank_resolved IS NOT NULL AND w.kind = 'python_exception'
      AND regexp_matches(w.error_message, '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation')
),
wait_exit_alike AS (  -- a rank known only by its exit status (its agent's report, its failure table: none of its own
                      -- lines shown, `--local-ranks-filter` hid its stream) that the same log reports within a second of a
                      -- rank whose shown error is gloo's collective wait timing out (`Timed out waiting 5000ms for recv
                      -- operation to complete`), in a job where no shown error says a peer's connection closed or reset:
                      -- the ranks shown waited the whole timeout for a peer that never came (none had ended), so this
                      -- exit is one more such wait's, no failure of its own (twenty-third launcher set)
    -- (session 59) or that another node's agent reports after a shown rank of the job timed out so waiting, within a
    -- minute of it (or either without a clock of its own): the hidden rank's exit came when the waits ran out, not before them (the fifty-first set: node 0's
    -- hidden rank 1 exit 1, node 1's rank 2 `Timed out waiting 3000ms for recv` 3 s earlier, rank 0 stuck in a lock)
    SELECT DISTINCT il.event_id FROM k10s_incident_line il
    WHERE il.role = 'own' AND il.tier = 2 AND il.kind = 'torchrun_failure' AND il.rank_eff IS NOT NULL
      AND (EXISTS (SELECT 1 FROM k10s_incident_line v JOIN k10s_log w ON w.job_key = v.job_key AND w.rank_resolved = v.rank_eff
                   WHERE v.job_key = il.job_key AND v.incident = il.incident AND v.raw_row = il.raw_row
                     AND v.kind = 'torchrun_failure' AND v.rank_eff <> il.rank_eff
                     AND abs(epoch(v.ts_filled) - epoch(il.ts_filled)) <= 1
                     AND w.kind = 'python_exception'
                     AND regexp_matches(w.error_message, '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation'))
           OR EXISTS (SELECT 1 FROM wait_at w WHERE w.job_key = il.job_key
                      AND w.rank_resolved <> il.rank_eff AND w.raw_row <> il.raw_row
                      -- (no clock to compare, a paste's: the waits' reading stands, no peer having closed)
                      AND (w.at IS NULL OR il.ts IS NULL OR (w.at <= il.ts AND il.ts <= w.at + INTERVAL 60 SECOND))))
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = il.job_key AND x.rank_resolved = il.rank_eff
                      AND x.kind IN ('python_exception', 'python_traceback', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
      AND NOT EXISTS (SELECT 1 FROM k10s_log c WHERE c.job_key = il.job_key AND c.kind = 'python_exception'
                      AND c.subkind = 'teardown' AND regexp_matches(c.error_message, '(?i)connection (?:closed|reset) by peer'))
      -- nor where the same log shows, before the report, an error no rank tag claims (other than such a wait): it may
      -- be this rank's own, printed before torch tagged its lines (tests/test_log_torch9.py)
      AND NOT EXISTS (SELECT 1 FROM k10s_log u WHERE u.job_key = il.job_key AND u.raw_row = il.raw_row AND u.rank_resolved IS NULL
                      AND u.line_no < il.line_no AND u.kind IN ('python_exception', 'cuda_error', 'cuda_oom', 'nccl_error_other')
                      AND NOT regexp_matches(coalesce(u.error_message, ''), '(?i)timed out waiting \d+ ?ms for (?:send|recv) operation'))
)
SELECT DISTINCT il.event_id, il.job_key, il.rank_eff FROM k10s_incident_line il JOIN wait_exit_alike w USING (event_id);

-- k10s_incident_own: own failures; one that comes a minute after the hung collective began is its consequence;
--   an exception after which the rank kept training is not one unless the job was torn down (the log's
--   progress lines), nor ever where that same rank's own progress lines follow it (rank_went_on);
--   a SIGKILL seconds after another rank had failed is the teardown escalating (torchrun
--   SIGKILLs what its SIGTERM did not stop within the grace period), not a host OOM kill;
--   a bare exit status reported within 10 s after another rank's own death in its attempt is that death's victim,
--   restarted attempt or not (attempt_victim_exit, session 63);
--   only the columns read below (docs/architecture.md, "Narrow CTEs")
-- empty-without: k10s_incident_line
-- empty-columns: job_key VARCHAR, incident BIGINT, rank_eff BIGINT, cause VARCHAR, tier INTEGER,
--     ts_filled TIMESTAMPTZ, ts_own TIMESTAMPTZ, raw_row BIGINT, line_no BIGINT, event_id BIGINT, kind VARCHAR,
--     subkind VARCHAR, local_rank BIGINT, pod_key VARCHAR, node_resolved VARCHAR, gpu_uuid VARCHAR,
--     error_type VARCHAR, error_message VARCHAR, line VARCHAR, relayed VARCHAR, rank_named BIGINT, pid BIGINT,
--     status BIGINT, repeated BIGINT, loader_signal VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_incident_own AS
WITH hang AS (SELECT * FROM k10s_incident_hang),
-- per incident and per log, the facts the own-failure filters below read, each computed once
-- (joins, not correlated subqueries: docs/architecture.md, "Joins over correlated subqueries")
torn_flag AS (  -- incidents in which processes were seen dying or being torn down
    SELECT DISTINCT job_key, incident FROM k10s_incident_line
    WHERE role = 'victim' OR kind IN ('torchrun_failure', 'process_exit', 'cuda_error', 'cuda_oom')
),
first_watchdog AS (  -- the first watchdog line of each log
    SELECT raw_row, min(line_no) AS line_no FROM k10s_incident_line
    WHERE kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary') GROUP BY raw_row
),
exit_shared AS (  -- ranks whose launcher-reported end (status only) another rank shares in the incident
    SELECT DISTINCT x.job_key, x.incident, x.rank_eff
    FROM k10s_incident_line x JOIN (
        SELECT job_key, incident, status FROM k10s_incident_line
        WHERE role = 'own' AND tier = 2 AND kind IN ('process_exit', 'torchrun_failure') AND coalesce(rank, local_rank) IS NOT NULL
        GROUP BY ALL HAVING count(DISTINCT rank_eff) >= 2
    ) s ON s.job_key = x.job_key AND s.incident = x.incident AND s.status IS NOT DISTINCT FROM x.status
    WHERE x.role = 'own' AND x.tier = 2 AND x.kind IN ('process_exit', 'torchrun_failure') AND coalesce(x.rank, x.local_rank) IS NOT NULL
),
victim_errors AS (  -- incidents where other ranks were visibly torn down by an error
    SELECT DISTINCT job_key, incident FROM k10s_incident_line
    WHERE role = 'victim' AND kind IN ('nccl_remote_error', 'python_exception', 'nccl_error_other')
),
attempt_victim_exit AS (  -- a bare exit status (a launcher's report only, tier 2: no error line of the rank's own in the
                          -- incident) reported after another rank's own death in the same attempt, within 10 seconds (a
                          -- failure's span, crashloop.sql's): that death's victim (its gloo or NCCL error unseen, under
                          -- --redirects), whether or not torchrun restarted from that attempt (restarted_after drops the
                          -- death, not its victims in logs that show no restart); the death a launcher's report of a
                          -- signal (an exception beside other ranks' bare exits may be every rank's alike: controls); the
                          -- same attempt: no other report of the exit's agent between, and none of the death's agent but
                          -- the death's own (docs/rules.md, "Session 63: a restart attempt's victim is not a second culprit")
    SELECT DISTINCT il.event_id FROM k10s_incident_line il JOIN k10s_incident_line d USING (job_key, incident)
    WHERE il.role = 'own' AND il.tier = 2 AND il.kind IN ('torchrun_failure', 'process_exit') AND il.rank_eff IS NOT NULL
      AND il.ts IS NOT NULL AND d.ts IS NOT NULL
      AND d.role = 'own' AND d.tier = 1 AND d.rank_eff IS NOT NULL AND d.rank_eff <> il.rank_eff
      AND il.ts_filled > d.ts_filled AND il.ts_filled <= d.ts_filled + INTERVAL 10 SECOND
      AND d.kind IN ('torchrun_failure', 'process_exit')
      AND (il.relayed IS NULL) = (d.relayed IS NULL)
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_line x WHERE x.job_key = il.job_key AND x.incident = il.incident
                      AND x.rank_eff = il.rank_eff AND x.role = 'own' AND x.tier = 1)
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_line g WHERE g.raw_row = il.raw_row AND g.kind = 'torchrun_failure'
                      AND g.subkind = 'agent' AND g.line_no < il.line_no AND g.ts_filled > d.ts_filled
                      -- the exit's own agent line above its failure table's row (one process, one pid) is no other report
                      AND NOT coalesce(g.pid = il.pid AND g.rank_eff = il.rank_eff, false))
      AND (SELECT count(*) FROM k10s_incident_line g WHERE g.raw_row = d.raw_row AND g.kind = 'torchrun_failure'
           AND g.subkind = 'agent' AND g.line_no >= d.line_no AND g.ts_filled < il.ts_filled) <= 1
),
hidden_exit_alike AS (  -- a bare exit status (tier 2: none of the rank's own lines anywhere in the job, `--local-ranks-filter`
                        -- hid its stream) the same as a shown rank's whose own error is a teardown (gloo's `Connection
                        -- closed by peer`) that a report within a second of it gives: one more such victim's exit by all the
                        -- logs show (docs/rules.md, "Session 71: a victim's exit 1 beside a crash-looping abort")
    SELECT DISTINCT il.event_id FROM k10s_incident_line il
    WHERE il.role = 'own' AND il.tier = 2 AND il.kind = 'torchrun_failure' AND il.rank_eff IS NOT NULL AND il.status > 0
      AND il.ts_filled IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = il.job_key AND x.rank_resolved = il.rank_eff
                      AND x.kind IN ('python_exception', 'python_traceback', 'cuda_error', 'cuda_oom', 'nccl_error_other'))
      AND EXISTS (SELECT 1 FROM k10s_log v JOIN k10s_log w ON w.job_key = v.job_key AND w.rank_resolved = v.rank_resolved
                  WHERE v.job_key = il.job_key AND v.kind = 'torchrun_failure' AND v.exit_code = il.status
                    AND v.rank_resolved <> il.rank_eff AND v.ts IS NOT NULL AND abs(epoch(v.ts) - epoch(il.ts_filled)) <= 1
                    AND w.kind = 'python_exception' AND w.subkind = 'teardown'
                    AND (w.ts IS NULL OR abs(epoch(w.ts) - epoch(v.ts)) <= 60))
),
abort_after_other AS (  -- SIGABRTs no later than a second after another rank's own failure of another kind (not a
                        -- bare exit reported after another rank's death: attempt_victim_exit; nor a hidden rank's bare
                        -- exit alike the shown victims' reported at the abort's clock or later: hidden_exit_alike)
    SELECT DISTINCT a.event_id FROM k10s_incident_line a JOIN k10s_incident_line o USING (job_key, incident)
    WHERE a.role = 'own' AND a.cause = 'abort' AND a.ts_filled IS NOT NULL
      AND o.role = 'own' AND o.cause <> 'abort' AND o.rank_eff IS NOT NULL AND o.rank_eff IS DISTINCT FROM a.rank_eff
      AND o.ts_filled <= a.ts_filled + INTERVAL 1 SECOND
      AND o.event_id NOT IN (SELECT event_id FROM attempt_victim_exit)
      AND NOT (o.ts_filled >= a.ts_filled AND o.event_id IN (SELECT event_id FROM hidden_exit_alike))
      -- not an earlier attempt's failure torchrun restarted from (the own filter's restarted_after, below): another attempt's
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_restarted ra WHERE ra.raw_row = o.raw_row
                      AND (o.line_no < ra.line_no OR (o.line_no = ra.line_no AND o.kind = 'torchrun_failure' AND o.subkind = 'agent')))
      -- a line Ray relays from another process and one of the driver's own: the relay's arrival orders nothing (relayed_apart)
      AND (a.relayed IS NULL) = (o.relayed IS NULL)
),
kill_after_other AS (  -- SIGKILLs more than 5 seconds after another rank's own failure
    SELECT DISTINCT a.event_id FROM k10s_incident_line a JOIN k10s_incident_line o USING (job_key, incident)
    WHERE a.role = 'own' AND a.cause = 'host-oom-kill' AND a.ts_filled IS NOT NULL
      AND o.role = 'own' AND o.rank_eff IS DISTINCT FROM a.rank_eff AND o.ts_filled < a.ts_filled - INTERVAL 5 SECOND
      -- not a bare exit that is itself another death's victim (attempt_victim_exit): its death is the one to compare,
      -- and a SIGKILL after its own rank's earlier death is that rank failing again (session 68)
      AND o.event_id NOT IN (SELECT event_id FROM attempt_victim_exit)
      -- not a failure of an attempt torchrun restarted from: its log's agent reported it and then another attempt (two
      -- agent lines from the failure on, the failure's own report counted), after which the SIGKILL is a new attempt's
      -- (twenty-third launcher set)
      AND (SELECT count(*) FROM k10s_incident_line g WHERE g.raw_row = o.raw_row AND g.kind = 'torchrun_failure'
           AND g.subkind = 'agent' AND g.line_no >= o.line_no) < 2
),
restarted_after AS (SELECT * FROM k10s_incident_restarted),
agent_claimed AS (  -- an exception no tag or pid record claims, printed bare by the program's own handler (`traceback.print_exc()`, no
                    -- `--tee`), the only such raised one in its log, above its agent's report naming that rank's exit
                    -- (`failed (exitcode: 1) local_rank: 0`): the launcher's word gives it its rank, not the importer's
                    -- guess; the victims' peer errors beside it are teardowns (docs/rules.md, "Session 65: … caught")
    SELECT il.event_id FROM k10s_incident_line il
    WHERE il.kind = 'python_exception' AND il.subkind = 'raised' AND il.rank IS NULL AND il.local_rank IS NULL
      AND il.pid IS NULL AND il.rank_eff IS NOT NULL
      -- nothing else places it (no pid record, no tag), and no other exception of its type and words (numbers aside)
      -- in the job: every rank's same error is no one's (queries/_views.sql bare_lone; "Session 65: … caught")
      AND NOT EXISTS (SELECT 1 FROM k10s_log s WHERE s.job_key = il.job_key AND s.event_id <> il.event_id
                      AND s.kind = 'python_exception' AND s.error_type IS NOT DISTINCT FROM il.error_type
                      AND regexp_replace(coalesce(s.error_message, ''), '[0-9]+', 'N', 'g')
                          = regexp_replace(coalesce(il.error_message, ''), '[0-9]+', 'N', 'g'))
      AND EXISTS (SELECT 1 FROM k10s_log a WHERE a.raw_row = il.raw_row AND a.incarnation_uid = il.incarnation_uid
                  AND a.kind = 'torchrun_failure' AND a.subkind = 'agent' AND a.rank_resolved = il.rank_eff
                  AND a.line_no > il.line_no AND a.line_no <= il.line_no + 300)
      AND (SELECT count(*) FROM k10s_log u WHERE u.raw_row = il.raw_row AND u.incarnation_uid = il.incarnation_uid
           AND u.kind = 'python_exception' AND u.subkind = 'raised' AND u.rank IS NULL AND u.local_rank IS NULL) = 1
      -- each other process the log's launcher reports failed shows a peer's error of its own there (gloo's `Connection
      -- reset by peer`: a teardown); else the others' errors may be the same one, garbled (every rank's alike: a control)
      AND (SELECT count(DISTINCT t.rank_resolved) FROM k10s_log t WHERE t.raw_row = il.raw_row
           AND t.incarnation_uid = il.incarnation_uid AND t.kind = 'torchrun_failure' AND t.exit_code > 0
           AND t.rank_resolved IS NOT NULL AND t.rank_resolved <> il.rank_eff)
          <= (SELECT count(*) FROM k10s_log v WHERE v.raw_row = il.raw_row AND v.incarnation_uid = il.incarnation_uid
              AND v.kind = 'python_exception' AND v.subkind = 'teardown' AND v.rank IS NULL AND v.local_rank IS NULL)
),
restarted_container AS (  -- a failure in a container's previous log (`kubectl logs --previous`: the kubelet restarted
                          -- the container, restartPolicy OnFailure) after which a restarted container of the same job
                          -- failed on its own: as torchrun's own restarts (restarted_after), the job ended with the
                          -- later attempt's failure, not this one (thirty-first launcher set)
    SELECT DISTINCT il.event_id FROM k10s_incident_line il
    JOIN k10s_incident_line y ON y.job_key = il.job_key AND y.incident = il.incident
    WHERE il.role = 'own' AND il.previous AND y.role = 'own' AND y.tier = 1 AND NOT coalesce(y.previous, false)
      AND y.ts_filled > il.ts_filled
      -- the later failure's container is itself a restarted one (its pod has a previous log): another attempt's
      AND EXISTS (SELECT 1 FROM k10s_log p WHERE p.job_key = y.job_key AND p.incarnation_uid = y.incarnation_uid AND p.previous)
)
SELECT il.job_key, il.incident, il.rank_eff, il.cause, il.tier, il.ts_filled, il.ts AS ts_own, il.raw_row, il.line_no, il.event_id, il.kind, il.subkind,
       il.local_rank, il.pod_key, il.node_resolved, il.gpu_uuid, il.error_type, il.error_message, il.line,
       il.relayed, il.rank AS rank_named, il.pid, il.status, il.repeated, il.loader_signal
FROM k10s_incident_line il
LEFT JOIN hang h USING (job_key, incident)
LEFT JOIN torn_flag t USING (job_key, incident)
LEFT JOIN first_watchdog fw ON fw.raw_row = il.raw_row
LEFT JOIN exit_shared es ON es.job_key = il.job_key AND es.incident = il.incident AND es.rank_eff = il.rank_eff
LEFT JOIN victim_errors ve USING (job_key, incident)
LEFT JOIN abort_after_other ab ON ab.event_id = il.event_id
LEFT JOIN kill_after_other ka ON ka.event_id = il.event_id
LEFT JOIN restarted_after ra ON ra.raw_row = il.raw_row
-- a failure printed after the hang began is not its cause; a line of no clock above its log's first stamped line is
-- not known to be so (a traceback pasted above a glog-stamped watchdog line of another rank: session 44)
WHERE il.role = 'own' AND (il.ts_floor IS NULL OR h.hang_started_at IS NULL OR il.ts_floor <= h.hang_started_at + INTERVAL 60 SECOND)
  AND (NOT il.training_went_on OR t.job_key IS NOT NULL)
  -- the same rank's own progress lines follow in the same attempt: handled, teardown or not (session 61)
  AND NOT il.rank_went_on
  -- no clock: an exit status reported after a watchdog timeout in the same log is the hang's consequence
  AND NOT (il.ts_filled IS NULL AND il.kind IN ('torchrun_failure', 'process_exit') AND coalesce(fw.line_no < il.line_no, false))
  -- a line naming no process, in a pod import-logs made up from a paste, is that pod's rank's only by the
  -- importer's guess: where the launcher itself reports that rank and others ending with the same status
  -- (srun's `task 1: Exited with exit code 1`, `task 0: …`), it cannot say which of them printed it
  -- (what the line says, an exception or an NCCL error, not the launcher's own status report)
  AND NOT (il.kind NOT IN ('torchrun_failure', 'process_exit') AND il.rank IS NULL AND il.local_rank IS NULL
           AND il.incarnation_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
           AND es.rank_eff IS NOT NULL AND il.event_id NOT IN (SELECT event_id FROM agent_claimed))
  -- a cut traceback says little where other ranks were visibly torn down: it is likely the same teardown
  AND NOT (il.kind = 'python_traceback' AND ve.job_key IS NOT NULL)
  -- a SIGABRT (no watchdog line of its own) when another rank had already failed in another way, or
  -- in the same second (a failure table's clock), is the NCCL teardown aborting it, not its own failure
  AND ab.event_id IS NULL
  -- torchrun restarted its workers after this failure (its agent's "failed (exitcode: …)" line follows in the
  -- same log) and a later attempt failed on its own (a rank's exception or CUDA error after that line): the
  -- job ended with the last attempt's failure, not this one (--max-restarts: the culprit can move)
  AND NOT coalesce(il.line_no < ra.line_no, false)
  -- the agent line that reported that earlier attempt's failure is the earlier attempt's too (its worker's signal)
  AND NOT coalesce(il.line_no = ra.line_no AND il.kind = 'torchrun_failure' AND il.subkind = 'agent', false)
  AND ka.event_id IS NULL
  AND il.event_id NOT IN (SELECT event_id FROM k10s_wait_exit_alike)
  AND il.event_id NOT IN (SELECT event_id FROM restarted_container)
  AND il.event_id NOT IN (SELECT event_id FROM attempt_victim_exit);

-- k10s_node_state_line: a failure line of the node's or platform's state, which every process meets alike: NCCL's NVLS
--   transport set-up refused (`transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'`, any code: the
--   NVSwitch fabric's) or torch's report of NCCL's CUDA call so refused, NVLS multicast memory the fabric would not
--   bind, CUDA 802/803 (the node not ready for CUDA)
--   (queries/_incident_common_mode.sql reads the same lines as every process's alike)
-- k10s_nvls_warn: NCCL's WARN of a CUDA call its NVLS transport made, any code ('invalid argument', 401, 999): the node's
--   NVSwitch fabric (read by k10s_node_state_line and by _incident_common_mode.sql's every-process reading)
CREATE OR REPLACE TEMP MACRO k10s_nvls_warn(line) AS (
    regexp_matches(coalesce(line, ''), 'transport/nvls\.cc:\d+ NCCL WARN Cuda failure')
);

CREATE OR REPLACE TEMP MACRO k10s_node_state_line(kind, subkind, error_message, line) AS (
    kind = 'cuda_error'
    AND (k10s_nvls_warn(line)
         -- torch's report of NCCL's own CUDA call so refused (`Cuda failure 1 'invalid argument'` under ncclUnhandledCudaError)
         OR (coalesce(line, '') NOT LIKE '%NCCL WARN%' AND regexp_matches(coalesce(line, ''), 'Cuda failure (?:\d+ )?[''‘’]invalid argument[''‘’]'))
         OR starts_with(coalesce(error_message, ''), 'NVLS multicast memory bind failed')
         OR coalesce(subkind, '') = 'system-not-ready')
);

-- k10s_incident_device_fault: per incident, the ranks with a GPU hardware fault of their own among their own failures: a
--   CUDA error that is an uncorrectable ECC error or `GPU has fallen off the bus`, or one on a GPU (or rank) that logged
--   Xid 48, 79, 94 or 95 within 5 minutes: that GPU's, not the launch's nor the node's; a node-wide state's line beside it
--   (NCCL's NVLS set-up refused as an invalid argument, CUDA 802/803, NVLS memory the fabric would not bind) does not
--   outrank it nor make the incident every process's alike (docs/rules.md, "Session 62: a rank's own device fault beside
--   a node-wide failure")
-- empty-without: k10s_incident_own
-- empty-columns: job_key VARCHAR, incident BIGINT, rank_eff BIGINT
CREATE OR REPLACE TEMP TABLE k10s_incident_device_fault AS
SELECT DISTINCT o.job_key, o.incident, o.rank_eff FROM k10s_incident_own o
WHERE o.rank_eff IS NOT NULL AND o.kind = 'cuda_error'
  AND (regexp_matches(coalesce(o.error_message, ''), '(?i)uncorrectable ECC|fell off the bus|fallen off the bus')
       OR EXISTS (SELECT 1 FROM k10s_xid_event xe WHERE xe.job_key = o.job_key AND xe.xid IN (48, 79, 94, 95)
                  AND (xe.rank = o.rank_eff OR xe.gpu_uuid = o.gpu_uuid)
                  AND (o.ts_filled IS NULL OR xe.ts IS NULL
                       OR xe.ts BETWEEN o.ts_filled - INTERVAL 5 MINUTE AND o.ts_filled + INTERVAL 5 MINUTE)));

-- k10s_incident_best: per rank: its strongest, then earliest, own failure; in an incident with a rank's own device fault
--   (k10s_incident_device_fault), a node-wide state's line (k10s_node_state_line) after the rank's other lines of its tier
-- empty-without: k10s_incident_own
-- empty-columns: k10s_incident_own.*
CREATE OR REPLACE TEMP TABLE k10s_incident_best AS
WITH own AS (SELECT * FROM k10s_incident_own)
SELECT o.* FROM own o LEFT JOIN (SELECT DISTINCT job_key, incident FROM k10s_incident_device_fault) d USING (job_key, incident)
WHERE o.rank_eff IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY o.job_key, o.incident, o.rank_eff
                           ORDER BY o.tier, d.job_key IS NOT NULL AND k10s_node_state_line(o.kind, o.subkind, o.error_message, o.line),
                                    o.ts_filled NULLS LAST, o.raw_row, o.line_no, o.event_id) = 1;

-- k10s_incident_host_refused: per incident, the ranks whose strongest own failure is a host's resource refused (a port
--   in use, a permission, a lock held: EADDRINUSE, EACCES, EAGAIN) where they are one rank on every pod (node) of the job:
--   the one process per host that binds, writes or locks the host's share (its local rank 0) met every host's leftover
--   alike, the hosts' state, not those ranks' own (queries/_incident.sql subset_alike; the fifty-second launcher set: a
--   stale process holding the loader port on both nodes); one node's only is still its ranks' (session 59)
-- empty-without: k10s_incident_best
-- empty-columns: job_key VARCHAR, incident BIGINT, ranks BIGINT[]
CREATE OR REPLACE TEMP TABLE k10s_incident_host_refused AS
SELECT b.job_key, b.incident, list(DISTINCT b.rank_eff ORDER BY b.rank_eff) AS ranks
FROM k10s_incident_best b JOIN k10s_rank r ON r.job_key = b.job_key AND r.rank = b.rank_eff
WHERE regexp_matches(coalesce(b.error_message, ''),
                     '(?i)address already in use|\[Errno (?:98|13|11)\]|permission denied|resource temporarily unavailable')
GROUP BY b.job_key, b.incident
HAVING count(DISTINCT r.pod_key) = count(DISTINCT b.rank_eff) AND count(DISTINCT b.rank_eff) >= 2
   AND count(DISTINCT r.pod_key) = (SELECT count(DISTINCT p.pod_key) FROM k10s_rank p WHERE p.job_key = b.job_key);

-- k10s_incident_after_teardown: own failures without a clock of their own printed below another rank's teardown error (gloo's
--   `Connection closed by peer`: a peer had already gone) in the same log body and attempt (no launcher
--   report between): the lines' order proves the job was already broken when this rank failed, whatever
--   clock they borrow (docs/rules.md, "Real launcher runs, eighteenth set")
-- empty-without: k10s_incident_best
-- empty-columns: job_key VARCHAR, incident BIGINT, rank_eff BIGINT
CREATE OR REPLACE TEMP TABLE k10s_incident_after_teardown AS
WITH unordered AS (SELECT * FROM k10s_unordered_paste),
best AS (SELECT * FROM k10s_incident_best)
SELECT DISTINCT b.job_key, b.incident, b.rank_eff FROM best b
JOIN k10s_log t ON t.job_key = b.job_key AND t.raw_row = b.raw_row AND t.line_no < b.line_no
        AND t.kind = 'python_exception' AND t.subkind = 'teardown' AND t.rank_resolved <> b.rank_eff
WHERE b.ts_own IS NULL  -- not a paste whose line order nothing proves (import-logs' pod label)
  AND b.job_key NOT IN (SELECT job_key FROM unordered)
  AND NOT EXISTS (SELECT 1 FROM k10s_log a WHERE a.job_key = b.job_key AND a.raw_row = b.raw_row
                  AND a.kind IN ('torchrun_failure', 'torchrun_sigterm') AND a.line_no BETWEEN t.line_no AND b.line_no);

-- k10s_incident_first: the strongest, then earliest failure; by line order not one printed below a peer's teardown (after_teardown)
-- empty-without: k10s_incident_best
-- empty-columns: k10s_incident_best.*
CREATE OR REPLACE TEMP TABLE k10s_incident_first AS
WITH best AS (SELECT * FROM k10s_incident_best),
after_teardown AS (SELECT * FROM k10s_incident_after_teardown)
SELECT b.* FROM best b
LEFT JOIN after_teardown a ON a.job_key = b.job_key AND a.incident = b.incident AND a.rank_eff = b.rank_eff
-- in an incident with a rank's own device fault, a node-wide state's line is not first among its tier (session 62)
LEFT JOIN (SELECT DISTINCT job_key, incident FROM k10s_incident_device_fault) d ON d.job_key = b.job_key AND d.incident = b.incident
QUALIFY row_number() OVER (PARTITION BY b.job_key, b.incident
                           ORDER BY b.tier, a.rank_eff IS NOT NULL, d.job_key IS NOT NULL AND k10s_node_state_line(b.kind, b.subkind, b.error_message, b.line),
                                    b.ts_filled NULLS LAST, b.raw_row, b.line_no, b.rank_eff, b.event_id) = 1;

-- k10s_incident_same_frame: per incident, the ranks whose traceback goes down to the same innermost frame (file, line,
--   function: log_events.error_frame) as the first failure's raised exception, their own exception line cut (an
--   excerpt, a teardown), with no other failure of their own (their strongest line that traceback, or their launcher's
--   report of their exit the same way: a status only), within ten seconds of it or without a clock, in the same attempt
--   (no restart of the worker group between the two in one log): the same error, as the same exception to the letter
--   (queries/_incident.sql together; docs/rules.md, "Session 64: a second rank's traceback down to the same frame")
-- empty-without: k10s_incident_best
-- empty-columns: job_key VARCHAR, incident BIGINT, rank_eff BIGINT
CREATE OR REPLACE TEMP TABLE k10s_incident_same_frame AS
WITH best AS (SELECT * FROM k10s_incident_best),
first AS (SELECT * FROM k10s_incident_first)
SELECT DISTINCT b.job_key, b.incident, b.rank_eff
FROM best b JOIN first f ON f.job_key = b.job_key AND f.incident = b.incident AND f.rank_eff <> b.rank_eff
JOIN k10s_log y ON y.event_id = f.event_id AND y.error_frame IS NOT NULL
WHERE f.kind = 'python_exception' AND f.subkind = 'raised' AND b.tier = 2 AND b.cause = f.cause
  AND b.kind IN ('python_traceback', 'torchrun_failure', 'process_exit')
  AND EXISTS (SELECT 1 FROM k10s_log x
              WHERE x.job_key = b.job_key AND x.rank_resolved = b.rank_eff AND x.kind = 'python_traceback'
                AND x.error_frame = y.error_frame
                AND (x.ts IS NULL OR f.ts_filled IS NULL OR abs(epoch(x.ts) - epoch(f.ts_filled)) <= 10.0)
                AND NOT EXISTS (SELECT 1 FROM k10s_log r WHERE r.raw_row = x.raw_row AND x.raw_row = f.raw_row
                                AND r.kind = 'worker_group_restart'
                                AND r.line_no BETWEEN least(x.line_no, f.line_no) AND greatest(x.line_no, f.line_no)));

-- k10s_incident_unclocked: per incident, the ranks whose strongest own failure is as strong as the first's (the same
--   tier), in a log of another file than the first's (import-logs' pod label k10s.io/imported-file: several files given,
--   one a node), where no clock orders the two: what puts the first above it is only the order the files were given in
--   or a clock one of them lacks; the two failed together, no rank is first by them (queries/_incident.sql together).
--   Neither with a clock (no timestamp of its own nor one its log lends: docs/rules.md, "Session 69: failures with no
--   clock between files; unplaced --log-dir folders kept"); or one with a timestamp of its own or lent and the other
--   without one of its own, unless their bounds order them: a line without a clock was printed at or after its
--   file's last stamped line above it and at or before its first below it (none: unbounded), and the first is first
--   only where its latest time is before the other's earliest (docs/rules.md, "Session 70: a clock in one file, none
--   in the other"). Two failures whose clocks are both borrowed keep their borrowed order here (the together rules'
--   own cases: the same error)
--   pasted: the two are pods of one paste, pod after pod (the label's value `pod-<i>`: `kubectl logs -l … --prefix`
--   without -f reads the pods one after another, in no set order; docs/rules.md, session 70: several pods in one paste)
-- empty-without: k10s_incident_best
-- empty-columns: job_key VARCHAR, incident BIGINT, rank_eff BIGINT, pasted BOOLEAN
CREATE OR REPLACE TEMP TABLE k10s_incident_unclocked AS
WITH best AS (SELECT * FROM k10s_incident_best),
first AS (SELECT * FROM k10s_incident_first),
file_of AS (  -- each log's file, where import-logs was given several
    SELECT DISTINCT x.raw_row, json_extract_string(p.labels_json, '$."k10s.io/imported-file"') AS file
    FROM k10s_log x JOIN pods p ON p.pod_uid = x.incarnation_uid
    WHERE json_extract_string(p.labels_json, '$."k10s.io/imported-file"') IS NOT NULL
),
pair AS (
    SELECT b.job_key, b.incident, b.rank_eff, b.ts_filled IS NULL AND f.ts_filled IS NULL AS neither, ff.file LIKE 'pod-%' AS pasted,
           -- the first's latest time (its own, else its file's first stamp below it) and the other's earliest
           coalesce(f.ts_own, (SELECT min(x.ts) FROM k10s_log x WHERE x.raw_row = f.raw_row AND x.line_no > f.line_no)) AS first_by,
           coalesce(b.ts_own, (SELECT max(x.ts) FROM k10s_log x WHERE x.raw_row = b.raw_row AND x.line_no < b.line_no)) AS other_from
    FROM best b JOIN first f ON f.job_key = b.job_key AND f.incident = b.incident AND f.rank_eff <> b.rank_eff
    JOIN file_of bf ON bf.raw_row = b.raw_row JOIN file_of ff ON ff.raw_row = f.raw_row
    WHERE b.tier = f.tier AND bf.file <> ff.file
      AND (b.ts_filled IS NULL OR f.ts_filled IS NULL OR (b.ts_own IS NULL) <> (f.ts_own IS NULL))
)
SELECT job_key, incident, rank_eff, bool_or(pasted) AS pasted FROM pair
WHERE neither OR NOT coalesce(first_by < other_from, false) GROUP BY ALL;

-- k10s_incident_all_said: (session 69) per incident, every rank of the job (k10s_rank) logged the same error in its own
--   output (its last ERROR-level record or message-only line, log_events error_record: not a peer's or teardown's
--   wording) once its `rank N:` lead is off: to the letter, their own clocks (the line's logging timestamp) within ten
--   seconds where every one has one; or but for their numbers (each rank's pid, its own values), every one's own clock
--   within one second of the others'; and every own failure of the incident is one of them (its exit read by that record:
--   said_exit): the code or settings every process runs failed them all, whichever exit the launchers' tables reported
--   first (a --log-dir tree holds the records of ranks torchrun SIGTERMed right after, their exits the teardown's).
--   Read by queries/_incident.sql as all_raised (docs/rules.md, "Session 69: a --log-dir tree's loader kills and alike
--   failures")
-- empty-without: k10s_incident_best
-- empty-columns: job_key VARCHAR, incident BIGINT, ranks BIGINT[], causes VARCHAR[], error_type VARCHAR, error_message VARCHAR, but_rank0 BOOLEAN
CREATE OR REPLACE TEMP TABLE k10s_incident_all_said AS
WITH best AS (SELECT * FROM k10s_incident_best),
said AS (
    SELECT job_key, rank_resolved AS rank, regexp_replace(error_message, '^\[?[Rr]ank:? ?\d+\]?:? ?', '') AS msg,
           try_cast(replace(regexp_extract(line, '(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,6})?)', 1), ',', '.') AS TIMESTAMP) AS at
    FROM k10s_log WHERE kind = 'error_record' AND subkind IN ('message', 'bare') AND rank_resolved IS NOT NULL
      AND job_key IS NOT NULL AND length(error_message) >= 12
),
alike AS (
    SELECT s.job_key, s.shape, list(DISTINCT s.rank ORDER BY s.rank) AS ranks, min(s.msg) AS msg
    FROM (SELECT *, regexp_replace(msg, '\d+', '#', 'g') AS shape FROM said) s
    JOIN (SELECT job_key, count(DISTINCT rank) AS n FROM k10s_rank GROUP BY job_key) jr ON jr.job_key = s.job_key
    GROUP BY s.job_key, s.shape, jr.n
    HAVING count(DISTINCT s.rank) = jr.n AND jr.n >= 2
       AND (count(DISTINCT s.msg) = 1 AND (bool_or(s.at IS NULL) OR epoch(max(s.at)) - epoch(min(s.at)) <= 10.0)
            OR bool_and(s.at IS NOT NULL) AND epoch(max(s.at)) - epoch(min(s.at)) <= 1.0)
)
SELECT b.job_key, b.incident, a.ranks, list(DISTINCT b.cause ORDER BY b.cause) AS causes, 'logged error' AS error_type,
       a.msg AS error_message, false AS but_rank0
FROM best b JOIN alike a ON a.job_key = b.job_key
GROUP BY b.job_key, b.incident, a.ranks, a.msg, a.shape
HAVING bool_and(b.error_type IN ('logged error', 'logged message')
                AND regexp_replace(regexp_replace(b.error_message, '^\[?[Rr]ank:? ?\d+\]?:? ?', ''), '\d+', '#', 'g') = a.shape);
