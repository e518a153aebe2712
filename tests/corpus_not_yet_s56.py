"""The corpus' expectations k10s does not meet yet from session 56's blind batches (327-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 56's batches that we do not meet, with why.
NOT_YET_S56: dict[str, str] = {
    # batch 332 (jax-tf-paddle-multiworker-gpu-2025-2026): 3 of 4 controls read right both ways as collected (88730269)
    "xla-18214-maxtext-multigpu-invalid-opaque-object-size-regression-control": "the log is one MaxText process's "
    "traceback through `train_loop` / `p_train_step` ending `RuntimeError: Invalid opaque object size`, with no rank tag; "
    "laid out as the thread's one process (world size 1) it reads as rank 0's own failure (python-exception, warning; "
    "pasted with no layout it is a failure of no rank): that the crash is an XLA regression (openxla/xla PR#18052) "
    "every multi-GPU MaxText run hits alike is the issue's title and account, not a log line",
    # session 56 leftovers
}
