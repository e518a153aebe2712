"""The corpus' expectations k10s does not meet yet from session 62's blind batches (388-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 62's batches that we do not meet, with why.
NOT_YET_S62: dict[str, str] = {
    # batch 391 (distributed-eval-gather-uneven-batches-hang-2023-2026): 4 of 4 read right both ways as collected
    # (98f054c6), no NOT_YET, all four controls, 0 of 4 named: vall-e-86 (ranks 4-7's icefall `(r/8) Reaches end of
    # dataloader.` / `Computing validation loss`, no error) and lighteval-204 (rank 3's quoted accelerate shape check,
    # `Process 0: [1024]`) find nothing; evaluate-481 (`[node1:4]:` / `[node2:7]:` lock ValueErrors) finds nothing, the
    # `[nodeN:local]:` prefix unread; trl-3047 (rank 0's frames, no exception line) holds rank 0 as an info suspect
    # only: see tests/test_distributed_eval_gather_uneven_batches_hang_2023_2026_batch391_wordings.py
    # session 62 leftovers
}
