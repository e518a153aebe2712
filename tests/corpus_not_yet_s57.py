"""The corpus' expectations k10s does not meet yet from session 57's blind batches (340-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 57's batches that we do not meet, with why.
NOT_YET_S57: dict[str, str] = {
    # batch 341: none (4/4 read right both ways as collected)
    # batch 342
    "Primus-349-mi350-torchtitan-llama8b-oom-root-cause-rank4-gpu7-every-rank-control":
        "the tail of torchrun's failure summary reads as its `Root Cause (first observed failure)` block: `rank      : 4 "
        "(local_rank: 4)`, `exitcode  : 1`, so rank 4 is named (python-exception, warning); the failure entry's indented "
        "`  torch.OutOfMemoryError: HIP out of memory ... GPU 7 has a total capacity of 251.98 GiB` above it is not read "
        "at all (unindented it is a critical cuda-oom of no rank). That AMD's documented Llama 3.1 8B BF16 recipe OOMs on "
        "every MI350 rank (rank 1 already at 95% of memory at step 1, GPU 7 and rank 4 alike) is the author's account, "
        "not a log line",
    # batch 344: none (3/3 both ways as collected, 0 of 3 controls named)
    # batch 345 (torch-compile-inductor-distributed-2025-2026): 3 of 4 controls read right both ways as collected
    # (a8dd2ae0): moshi-finetune-20 (a traceback head, info), mlcommons-training-826 (nothing read: see its test) and
    # specforge-194 (a one-line paste, info) name no one
    # batch 345: deepspeed-7522 read right since session 57 (a compiler's refusal of the program is every rank's: common
    # mode)
    # session 57 leftovers
}
