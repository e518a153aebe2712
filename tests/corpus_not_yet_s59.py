"""The corpus' expectations k10s does not meet yet from session 59's blind batches (361-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 59's batches that we do not meet, with why.
NOT_YET_S59: dict[str, str] = {
    # batch 362 (log-collector-prefixed-pastes-2024-2026): 3 of 3 read right both ways as collected (8835fbcc), no
    # NOT_YET, 0 of 3 controls named: verl-1611 (one Ray `(WorkerDict pid=N)` worker's SGLang illegal memory access,
    # a cuda-error warning of no rank), openrlhf-866 (one `(LLMRayActor pid=N)` actor's `device=1` INTERNAL ASSERT,
    # a python-exception warning of no rank), llamafactory-6075 (pdsh's host-prefixed launcher spawn line, nothing);
    # see tests/test_log_collector_prefixed_pastes_2024_2026_batch362_wordings.py
    # session 59 leftovers
}
