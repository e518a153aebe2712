-- The union of every hang evidence family and the verdict per job (docs/rules.md "Hang
-- evidence"). Columns of every family view: job_key, evidence, culprit_ranks, suspect_ranks,
-- confidence ('high'|'medium'|'low'|'none'), pg, seq_num, op_type, ts, detail.
-- culprit_ranks empty with confidence 'none' = the evidence says there is NO single culprit.

CREATE OR REPLACE TEMP TABLE k10s_hang_evidence AS
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM k10s_hang_evidence_fr
UNION ALL SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM k10s_hang_evidence_ras
UNION ALL SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM k10s_hang_evidence_logs
UNION ALL SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail FROM k10s_hang_evidence_first_failure;

-- k10s_hang_verdict: one row per job, the decisive evidence. Strength first, then the
-- documented precedence flight-recorder > ras > desync-report > fingerprint >
-- watchdog-compare > first-failure:
--   1. high-confidence evidence naming a culprit;
--   2. medium-confidence evidence naming a culprit, or evidence that says there is no single
--      culprit ('none');
--   3. low-confidence evidence.
-- considered lists every evidence row of the job as 'evidence/confidence: ranks'.
CREATE OR REPLACE TEMP TABLE k10s_hang_verdict AS
WITH e AS (
    SELECT *,
        CASE WHEN confidence = 'high' AND len(culprit_ranks) > 0 THEN 1
             WHEN (confidence = 'medium' AND len(culprit_ranks) > 0) OR confidence = 'none' THEN 2
             ELSE 3 END AS strength,
        list_position(['flight-recorder', 'ras', 'desync-report', 'fingerprint', 'watchdog-compare', 'first-failure'], evidence) AS precedence
    FROM k10s_hang_evidence
    WHERE job_key IS NOT NULL
)
SELECT job_key, evidence, culprit_ranks, suspect_ranks, confidence, pg, seq_num, op_type, ts, detail, strength, precedence,
       list(evidence || '/' || confidence || ': ' || CASE WHEN len(culprit_ranks) = 0 THEN 'no culprit' ELSE array_to_string(culprit_ranks, ', ') END)
           OVER (PARTITION BY job_key ORDER BY strength, precedence, ts NULLS LAST, culprit_ranks, confidence, detail
                 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS considered
FROM e
-- ties (two rows of one family): the earliest, then by ranks and wording (docs/rules.md, "Determinism")
QUALIFY row_number() OVER (PARTITION BY job_key ORDER BY strength, precedence, ts NULLS LAST, culprit_ranks, confidence, detail) = 1;
