-- STUB (9c, until t9-frras is merged; 9b's file replaces it): Flight Recorder and NCCL RAS
-- hang evidence, in the shared evidence columns (docs/rules.md "Hang evidence").
CREATE OR REPLACE TEMP VIEW k10s_hang_evidence_fr AS
SELECT NULL::VARCHAR AS job_key, 'flight-recorder' AS evidence, []::BIGINT[] AS culprit_ranks, []::BIGINT[] AS suspect_ranks,
       'none' AS confidence, NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type,
       NULL::TIMESTAMPTZ AS ts, NULL::VARCHAR AS detail
WHERE false;

CREATE OR REPLACE TEMP VIEW k10s_hang_evidence_ras AS
SELECT NULL::VARCHAR AS job_key, 'ras' AS evidence, []::BIGINT[] AS culprit_ranks, []::BIGINT[] AS suspect_ranks,
       'none' AS confidence, NULL::VARCHAR AS pg, NULL::BIGINT AS seq_num, NULL::VARCHAR AS op_type,
       NULL::TIMESTAMPTZ AS ts, NULL::VARCHAR AS detail
WHERE false;
