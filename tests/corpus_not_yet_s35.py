"""The corpus' expectations k10s does not meet yet from session 35's blind batches (177-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 35's batches that we do not meet, with why.
NOT_YET_S35: dict[str, str] = {
    # batch 177
    # batch 178
    # batch 179
    # batch 180
    # batch 181
    # batch 182
    "sglang-32855-kimi-k3-dspark-8xb300-tp6-scheduler-exception-head":
        "SGLang's `[… TP6] Scheduler hit an exception` record is cut after its first frames, before its exception: a cut "
        "record names no one (batch 11, sglang-8336/6624); the launch failure is in the thread only, and the same cut record "
        "is the load check's victim in ktransformers-1666 (TP2's `could finish the model loading, but … other ranks`)",
    # batch 183
    # batch 184
    # session 35 leftovers
}
