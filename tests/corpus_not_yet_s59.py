"""The corpus' expectations k10s does not meet yet from session 59's blind batches (361-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 59's batches that we do not meet, with why.
NOT_YET_S59: dict[str, str] = {
    # batch 365 (multinode-one-node-fails-deepspeed-accelerate-torchrun-2025-2026): 3 of 3 read right both ways as
    # collected (88f33cbe), no NOT_YET, all three controls, 0 of 3 named: gpt-neox-919 (ML-01 builds the index maps,
    # ML-02's bare traceback header, no finding) and gpt-neox-1127 (five pdsh hosts' interleaved dataset frames, no
    # exception line, no finding); deepspeed-2899 (gpu-q-13's softmax OOM, a critical cuda-oom of no rank): see
    # tests/test_multinode_one_node_fails_deepspeed_accelerate_torchrun_2025_2026_batch365_wordings.py
    # session 59 leftovers
}
