"""The corpus' expectations k10s does not meet yet from session 57's blind batches (340-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 57's batches that we do not meet, with why.
NOT_YET_S57: dict[str, str] = {
    # batch 345 (torch-compile-inductor-distributed-2025-2026): 3 of 4 controls read right both ways as collected
    # (a8dd2ae0): moshi-finetune-20 (a traceback head, info), mlcommons-training-826 (nothing read: see its test) and
    # specforge-194 (a one-line paste, info) name no one
    "deepspeed-7522-deepcompile-z1-randn-lowering-rank0-control": "the log is rank 0's `[rank0]:` traceback tail after "
    "DeepCompile's `Launching compile passes ... add_z1_reduce`, ending `torch._inductor.exc.InductorError: "
    "LoweringException: AssertionError: should have been handled in replace_random.py`, the only rank in the paste, so "
    "rank 0 is named (python-exception, warning); that DeepCompile's ZeRO-1 graph pass leaves an `aten.randn` Inductor "
    "cannot lower on every rank (got past with `torch._inductor.config.fallback_random = True`) is the author's "
    "account, not a log line",
    # session 57 leftovers
}
