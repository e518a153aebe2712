"""The corpus' expectations k10s does not meet yet from session 58's blind batches (350-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 58's batches that we do not meet, with why.
NOT_YET_S58: dict[str, str] = {
    # batch 350 (newest-threads-2026-late-nov-early-dec): none (4/4 controls read right both ways as collected at
    # e241d1f5, 0 of 4 named: vllm#52907's gloo timeout, vllm#52504's RPC timeout and MiaAI-Lab/DeepSeek-v4-Flash-DSpark-
    # 2x-DGX-Spark#65's JIT engine death no finding, flashinfer#3279's EngineDeadError traceback a python-exception of no
    # rank): see tests/test_newest_threads_2026_late_nov_early_dec_batch350_wordings.py
    # batch 351 (settled-lone-rank-culprits-2025): none (3/3 controls read right both ways as collected at cb0366ed,
    # 0 of 3 named: Wan2GP#22 ranks 2 and 5 alike, a python-exception of no rank; sglang#4964's TP3 head without its
    # exception line and sglang#11218's docker-compose-prefixed tail, nothing): see
    # tests/test_settled_lone_rank_culprits_2025_batch351_wordings.py
    # session 58 leftovers
}
