-- STUB (9c, until t9-rank is merged; 9a's file replaces it): first-failure hang evidence in
-- the shared evidence columns (docs/rules.md "Hang evidence").
CREATE OR REPLACE TEMP VIEW k10s_hang_evidence_first_failure AS
SELECT NULL::VARCHAR AS job_key, 'first-failure' AS evidence, []::BIGINT[] AS culprit_ranks, []::BIGINT[] AS suspect_ranks,
       'none' AS confidence, NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type,
       NULL::TIMESTAMPTZ AS ts, NULL::VARCHAR AS detail
WHERE false;
