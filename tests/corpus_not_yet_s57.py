"""The corpus' expectations k10s does not meet yet from session 57's blind batches (340-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 57's batches that we do not meet, with why.
NOT_YET_S57: dict[str, str] = {
    # batch 344: none (3/3 both ways as collected, 0 of 3 controls named)
    # session 57 leftovers
}
